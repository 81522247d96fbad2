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
		Successors(code, pc, func(next int) { work = append(work, next) })
	}
	return seen
}

// Successors calls f with each instruction a run of code may take after
// the one at pc (len(code) for the end of the thread): both ways of a
// branch whose condition reads a register but only the way a condition on
// constants alone takes, nothing past an assume that fails on constants
// alone or a loop bound, and for an await also the start of its
// condition, evaluated again.
func Successors(code []Instr, pc int, f func(int)) {
	in := &code[pc]
	switch in.Op {
	case OpJump:
		f(in.Target)
	case OpBranch:
		v, known := constValue(in.Cond)
		if !known || v != 0 {
			f(in.Target)
		}
		if !known || v == 0 {
			f(pc + 1)
		}
	case OpAssume:
		if in.Await {
			f(in.Target)
		}
		if v, known := constValue(in.Cond); !known || v != 0 {
			f(pc + 1)
		}
	case OpBound:
	default:
		f(pc + 1)
	}
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
