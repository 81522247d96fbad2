package lang

// spawnAt is a spawn statement with where it stands: the thread whose
// code holds it, whether a loop encloses it, and the arms of the ifs and
// eithers around it (a branch statement and the arm taken).
type spawnAt struct {
	stmt   *SpawnStmt
	by     *ThreadDecl
	inLoop bool
	arms   map[Stmt]int
}

// checkSpawns makes sure each spawned thread starts at most once: no
// thread spawns itself, no spawn sits in a loop or in a thread with
// several instances, and two spawns of one thread lie in different arms
// of one if or either, so that at most one of them runs. (Spawns in
// procedures are not seen here.)
func (pr *Protocol) checkSpawns() error {
	var all []spawnAt
	for _, th := range pr.Threads {
		var walk func(b *Block, inLoop bool, arms map[Stmt]int)
		walk = func(b *Block, inLoop bool, arms map[Stmt]int) {
			if b == nil {
				return
			}
			with := func(s Stmt, arm int) map[Stmt]int {
				m := make(map[Stmt]int, len(arms)+1)
				for k, v := range arms {
					m[k] = v
				}
				m[s] = arm
				return m
			}
			for _, s := range b.Stmts {
				switch s := s.(type) {
				case *SpawnStmt:
					all = append(all, spawnAt{s, th, inLoop, arms})
				case *IfStmt:
					walk(s.Then, inLoop, with(s, 0))
					walk(s.Else, inLoop, with(s, 1))
				case *EitherStmt:
					for i, a := range s.Arms {
						walk(a, inLoop, with(s, i))
					}
				case *WhileStmt:
					walk(s.Body, true, arms)
				case *ForStmt:
					walk(s.Body, true, arms)
				case *NamedBlock:
					walk(s.Body, inLoop, arms)
				case *OpStmt:
					walk(s.Body, inLoop, arms)
				}
			}
		}
		walk(th.Body, false, map[Stmt]int{})
	}
	first := map[string]spawnAt{}
	for _, sp := range all {
		s := sp.stmt
		switch {
		case sp.by.Name == s.Thread:
			return errAt(s.At, "thread %s spawns itself", s.Thread)
		case sp.inLoop:
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
	for s, arm := range a.arms {
		if other, ok := b.arms[s]; ok && other != arm {
			return true
		}
	}
	return false
}
