package model

// Reachable reports, per instruction of thread t, whether a run of the
// thread may reach it: from the first instruction, both ways of a branch
// whose condition reads a register, but only the way a condition on
// constants alone takes (a parameter's value, say), and nothing past an
// assume that fails on constants alone or a loop bound.
func (p *Program) Reachable(t int) []bool {
	code := p.Threads[t].Code
	seen := make([]bool, len(code))
	work := []int{0}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		if pc < 0 || pc >= len(code) || seen[pc] {
			continue
		}
		seen[pc] = true
		in := &code[pc]
		switch in.Op {
		case OpJump:
			work = append(work, in.Target)
		case OpBranch:
			v, known := constValue(in.Cond)
			if !known || v != 0 {
				work = append(work, in.Target)
			}
			if !known || v == 0 {
				work = append(work, pc+1)
			}
		case OpAssume:
			if v, known := constValue(in.Cond); !known || v != 0 {
				work = append(work, pc+1)
			}
		case OpBound:
		default:
			work = append(work, pc+1)
		}
	}
	return seen
}

// constValue returns the value of e when it reads no register (and its
// evaluation does not fail).
func constValue(e *Expr) (int64, bool) {
	if readsRegister(e) {
		return 0, false
	}
	v, _, err := eval(e, &ThreadState{})
	return v, err == nil
}

func readsRegister(e *Expr) bool {
	if e == nil {
		return false
	}
	return e.Kind == EReg || readsRegister(e.X) || readsRegister(e.Y)
}
