package lang

import (
	"fmt"

	"github.com/ordercheck/ordercheck/model"
)

// PropLocking is the property of a mutex's correct use: no thread locks
// one it holds (mutexes are not recursive: it would wait for itself),
// unlocks one it does not hold, or uses one after it was destroyed. A
// protocol has it when it destroys a mutex, or when some lock or unlock
// is not correct on every path of its thread by the code's shape alone.
const PropLocking = "locking"

// lockSite is a check of a lock or unlock compiled into a thread: the
// assertion, the register updates that track the mutex, and what the
// assertion expects the thread to hold.
type lockSite struct {
	mutex  model.Loc
	assert int
	update int
	held   bool // the state the assertion wants: held for an unlock
}

// held returns the thread's register that says whether it holds mutex
// name.
func (t *threadComp) held(name string) model.Reg {
	if r, ok := t.heldRegs[name]; ok {
		return r
	}
	if t.heldRegs == nil {
		t.heldRegs = map[string]model.Reg{}
	}
	r := t.newReg("%held " + name)
	t.heldRegs[name] = r
	return r
}

// lockOp compiles lock(m), unlock(m) or destroy(m) with its checks.
func (t *threadComp) lockOp(kind, name string, at model.Pos) {
	loc := t.c.locs[name]
	if d, ok := t.c.destroyed[name]; ok {
		r := t.temp()
		t.emit(model.Instr{Op: model.OpLoad, Dst: r, Addr: model.Const(model.AddrOf(d)), Ord: model.NA, Pos: at, Text: kind + "(" + name + ")"})
		msg := fmt.Sprintf("%s of mutex %s after it was destroyed", kind, name)
		if kind == "destroy" {
			msg = fmt.Sprintf("mutex %s destroyed twice", name)
		}
		t.emit(model.Instr{Op: model.OpAssert, Cond: model.Bin(model.Eq, model.RegExpr(r), model.Const(0)), Prop: PropLocking, Msg: msg, Pos: at, Text: "locking"})
	}
	h := t.held(name)
	want, msg := false, fmt.Sprintf("lock of mutex %s, which this thread holds (a mutex is not recursive: the thread waits for itself)", name)
	switch kind {
	case "unlock":
		want, msg = true, fmt.Sprintf("unlock of mutex %s, which this thread does not hold", name)
	case "destroy":
		msg = fmt.Sprintf("destroy of mutex %s, which this thread holds", name)
	}
	site := lockSite{mutex: loc, held: want}
	site.assert = t.emit(model.Instr{Op: model.OpAssert, Cond: model.Bin(model.Eq, model.RegExpr(h), model.Const(b2i(want))), Prop: PropLocking, Msg: msg, Pos: at, Text: "locking"})
	switch kind {
	case "destroy":
		t.emit(model.Instr{Op: model.OpStore, Addr: model.Const(model.AddrOf(t.c.destroyed[name])), Val: model.Const(1), Ord: model.NA, Pos: at, Text: "destroy(" + name + ")"})
		site.update = -1
	case "lock":
		t.emit(model.Instr{Op: model.OpLock, Addr: model.Const(model.AddrOf(loc)), Pos: at, Text: "lock(" + name + ")"})
		site.update = t.emit(model.Instr{Op: model.OpAssign, Dst: h, Val: model.Const(1), Pos: at})
	case "unlock":
		t.emit(model.Instr{Op: model.OpUnlock, Addr: model.Const(model.AddrOf(loc)), Pos: at, Text: "unlock(" + name + ")"})
		site.update = t.emit(model.Instr{Op: model.OpAssign, Dst: h, Val: model.Const(0), Pos: at})
	}
	t.locks = append(t.locks, site)
}

// settleLocks keeps the checks of the thread's mutexes only where its
// code does not prove them: a flow analysis over the compiled code finds
// whether the thread may hold each mutex before each check. A mutex whose
// every check is proven loses its checks and register updates (they
// are removed), so that correct protocols
// explore as they did without them. It returns the place of the first
// check it keeps, or nil.
func (t *threadComp) settleLocks() *model.Pos {
	if len(t.locks) == 0 {
		return nil
	}
	code := t.th.Code
	// may[pc] is, per mutex, what the thread may hold before pc: bit 1
	// free, bit 2 held.
	may := make([]map[model.Loc]uint8, len(code)+1)
	get := func(m map[model.Loc]uint8, l model.Loc) uint8 {
		if v, ok := m[l]; ok {
			return v
		}
		return 1 // every mutex starts free
	}
	may[0] = map[model.Loc]uint8{}
	work := []int{0}
	flow := func(to int, st map[model.Loc]uint8) {
		if to < 0 || to > len(code) {
			return
		}
		if may[to] == nil {
			may[to] = map[model.Loc]uint8{}
			for l, v := range st {
				may[to][l] = v
			}
			work = append(work, to)
			return
		}
		changed := false
		for l, v := range st {
			if old := get(may[to], l); old|v != old {
				may[to][l] = old | v
				changed = true
			}
		}
		for l, old := range may[to] {
			if _, ok := st[l]; !ok && old|1 != old { // st has l free
				may[to][l] = old | 1
				changed = true
			}
		}
		if changed {
			work = append(work, to)
		}
	}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		if pc == len(code) {
			continue
		}
		st := may[pc]
		in := code[pc]
		switch in.Op {
		case model.OpLock, model.OpUnlock:
			next := map[model.Loc]uint8{}
			for l, v := range st {
				next[l] = v
			}
			if l, ok := t.c.prog.LocOf(in.Addr.Val); ok && in.Addr.Kind == model.EConst {
				next[l] = 1 // free after an unlock
				if in.Op == model.OpLock {
					next[l] = 2
				}
			}
			st = next
		}
		model.Successors(code, pc, func(next int) { flow(next, st) })
	}
	// A mutex keeps all its checks when one is not proven (the registers
	// must then follow every lock and unlock); the place reported is the
	// first unproven check's.
	proven := map[model.Loc]bool{}
	var first *model.Pos
	for _, s := range t.locks {
		if _, ok := proven[s.mutex]; !ok {
			proven[s.mutex] = true
		}
		want := uint8(1)
		if s.held {
			want = 2
		}
		if st := may[s.assert]; st != nil && get(st, s.mutex) != want {
			proven[s.mutex] = false
			if first == nil {
				at := code[s.assert].Pos // a copy: code is compacted below
				first = &at
			}
		}
	}
	drop := make([]bool, len(code))
	for _, s := range t.locks {
		if proven[s.mutex] {
			drop[s.assert] = true
			if s.update >= 0 {
				drop[s.update] = true
			}
		}
	}
	t.th.Code = dropInstrs(code, drop)
	t.locks = nil
	return first
}

// dropInstrs removes the instructions drop marks from code, in place,
// and moves every jump's target to the instruction that follows the
// removed ones.
func dropInstrs(code []model.Instr, drop []bool) []model.Instr {
	at := make([]int, len(code)+1) // each instruction's new index
	n := 0
	for i := range code {
		at[i] = n
		if !drop[i] {
			n++
		}
	}
	at[len(code)] = n
	out := code[:0]
	for i, in := range code {
		if drop[i] {
			continue
		}
		if in.Op == model.OpBranch || in.Op == model.OpJump || in.Op == model.OpAssume && in.Await {
			in.Target = at[in.Target]
		}
		out = append(out, in)
	}
	return out
}

// retires reports whether some code retires a block.
func (pr *Protocol) retires() (found bool) {
	for _, b := range pr.blocks() {
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			if m, ok := s.(*MemStmt); ok && m.Kind == "retire" {
				found = true
			}
		})
	}
	return found
}

// destroys reports whether some code destroys mutex name, and where
// first.
func (pr *Protocol) destroys(name string) (at model.Pos, found bool) {
	for _, b := range pr.blocks() {
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			if m, ok := s.(*MemStmt); ok && m.Kind == "destroy" && !found && len(m.Args) == 1 {
				if n, ok := m.Args[0].(*Name); ok && n.Name == name {
					at, found = m.At, true
				}
			}
		})
	}
	return at, found
}
