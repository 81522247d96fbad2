package lang

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
// of one if or either, so that at most one of them runs. (Spawns in
// procedures are not seen here.)
func (pr *Protocol) checkSpawns() error {
	var all []spawnAt
	for _, th := range pr.Threads {
		walkStmts(th.Body, func(s Stmt, at stmtPlace) {
			if sp, ok := s.(*SpawnStmt); ok {
				all = append(all, spawnAt{sp, th, at})
			}
		})
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
