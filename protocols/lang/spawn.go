package lang

import "slices"

// spawnAt is a spawn statement with the thread whose code holds it and
// where it stands there.
type spawnAt struct {
	stmt *SpawnStmt
	by   *ThreadDecl
	at   stmtPlace
}

// checkSpawns makes sure each spawned thread starts at most once: no
// thread spawns itself, no spawn sits in a loop or in a thread with
// several instances, and two spawns of one thread lie in different arms
// of one if or either, so that at most one of them runs. A spawn in a
// procedure stands where each call of the procedure does.
func (pr *Protocol) checkSpawns() error {
	spawning := pr.spawningProcs()
	var all []spawnAt
	for _, th := range pr.Threads {
		pr.spawnsIn(th.Body, stmtPlace{}, th, spawning, map[string]bool{}, &all)
		if len(all) > maxSpawnPaths {
			return errAt(all[0].stmt.At, "spawns are reached along more than %d paths through procedure calls: too many to check that each thread starts once", maxSpawnPaths)
		}
	}
	first := map[string]spawnAt{}
	for _, sp := range all {
		s := sp.stmt
		switch {
		case sp.by.Name == s.Thread:
			return errAt(s.At, "thread %s spawns itself", s.Thread)
		case sp.at.loops > 0:
			return errAt(s.At, "spawn %s in a loop would start thread %s more than once", s.Thread, s.Thread)
		case sp.by.Count != nil:
			return errAt(s.At, "every instance of thread %s would spawn thread %s: a thread starts once", sp.by.Name, s.Thread)
		}
		if prev, ok := first[s.Thread]; ok && !exclusive(prev, sp) {
			return errAt(s.At, "thread %s is already spawned at %s: a thread starts once (spawn it in exclusive branches, or declare another thread)", s.Thread, prev.stmt.At)
		}
		if _, ok := first[s.Thread]; !ok {
			first[s.Thread] = sp
		}
	}
	return nil
}

// maxSpawnPaths bounds the spawns checkSpawns collects along the paths
// of procedure calls, which may multiply.
const maxSpawnPaths = 10_000

// spawnsIn appends the spawns thread by runs in b, which stands at at,
// following the calls of the procedures that may spawn (those on the
// stack aside).
func (pr *Protocol) spawnsIn(b *Block, at stmtPlace, by *ThreadDecl, spawning, stack map[string]bool, out *[]spawnAt) {
	walkIn(b, at, func(s Stmt, p stmtPlace) {
		if sp, ok := s.(*SpawnStmt); ok {
			*out = append(*out, spawnAt{sp, by, p})
		}
		switch s.(type) {
		case *WhileStmt, *ForStmt:
			p.loops++ // its condition runs every round
		}
		inspectStmt(s, func(e Expr) {
			c, ok := e.(*CallExpr)
			if !ok || !spawning[c.Func] || stack[c.Func] || len(*out) > maxSpawnPaths {
				return
			}
			stack[c.Func] = true
			pr.spawnsIn(pr.Procs[c.Func].Body, p, by, spawning, stack, out)
			delete(stack, c.Func)
		})
	})
}

// spawningProcs returns the procedures that spawn a thread, themselves or
// through the procedures they call.
func (pr *Protocol) spawningProcs() map[string]bool {
	calls := map[string][]string{}
	spawning := map[string]bool{}
	for name, proc := range pr.Procs {
		walkStmts(proc.Body, func(s Stmt, _ stmtPlace) {
			if _, ok := s.(*SpawnStmt); ok {
				spawning[name] = true
			}
			inspectStmt(s, func(e Expr) {
				if c, ok := e.(*CallExpr); ok && pr.Procs[c.Func] != nil {
					calls[name] = append(calls[name], c.Func)
				}
			})
		})
	}
	for changed := true; changed; {
		changed = false
		for name, callees := range calls {
			if !spawning[name] && slices.ContainsFunc(callees, func(c string) bool { return spawning[c] }) {
				spawning[name], changed = true, true
			}
		}
	}
	return spawning
}

// exclusive reports whether at most one of two spawns can run: both in
// one thread, in different arms of a branch around both.
func exclusive(a, b spawnAt) bool {
	if a.by != b.by {
		return false
	}
	for s, arm := range a.at.arms {
		if other, ok := b.at.arms[s]; ok && other != arm {
			return true
		}
	}
	return false
}
