package lang

import (
	"maps"

	"github.com/ordercheck/ordercheck/model"
)

// A spin loop is a while loop whose rounds change nothing that the next
// round sees: its condition and body only read shared memory and assign
// registers, each register a round reads being one it assigned first (or
// one the loop never assigns), except that the condition may be a
// compare-exchange whose success ends the loop (while cas(l, 0, 1, acq)
// == 0). A failed round leaves memory and the next round's start as they
// were, so only the last round matters, and the loop is explored as
// GenMC explores one (its spin-assume): "while C max K { B }" is "if C {
// await !C }" with B run again before each evaluation of C. Its bound K
// is not needed: the wait is a deadlock when the final memory cannot end
// it, and an execution in which it read older values is an unfinished
// spin, pruned.

// spinLoop reports whether s is a spin loop, for the thread compiled by t.
func (t *threadComp) spinLoop(s *WhileStmt) bool {
	return (t.readOnly(s.Cond) || t.casExit(s.Cond)) && t.readOnlyBlock(s.Body) && !Carried(s.Body, s.Cond)
}

// Carried reports whether a loop's round, its body then its condition
// (the order in which a wait runs them again), reads a register that an
// earlier round wrote: one the round reads before it assigns it, and
// assigns somewhere. Such a loop makes progress in its registers, so it is
// no spin loop, however little it writes to memory.
func Carried(body *Block, cond Expr) bool { return len(carried(body, cond)) > 0 }

// carried returns the registers Carried finds.
func carried(body *Block, cond Expr) map[string]bool {
	// setOld notes, into a set, the register a compare-exchange writes
	// back (its Old).
	setOld := func(into map[string]bool) func(Expr) {
		return func(x Expr) {
			if c, ok := x.(*CallExpr); ok && c.Old != "" {
				into[c.Old] = true
			}
		}
	}
	written := map[string]bool{}
	walkStmts(body, func(s Stmt, _ stmtPlace) {
		if a, ok := s.(*AssignStmt); ok {
			if n, ok := a.LHS.(*Name); ok {
				written[n.Name] = true
			}
		}
		inspectStmt(s, setOld(written))
	})
	inspectExpr(cond, setOld(written))
	if len(written) == 0 {
		return nil
	}
	out := map[string]bool{}
	read := func(assigned map[string]bool) func(Expr) {
		return func(x Expr) {
			if n, ok := x.(*Name); ok && written[n.Name] && !assigned[n.Name] {
				out[n.Name] = true
			}
		}
	}
	eval := func(e Expr, assigned map[string]bool) {
		inspectExpr(e, read(assigned))
		inspectExpr(e, setOld(assigned))
	}
	var block func(b *Block, assigned map[string]bool)
	block = func(b *Block, assigned map[string]bool) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *AssignStmt:
				eval(s.RHS, assigned)
				if n, ok := s.LHS.(*Name); ok {
					assigned[n.Name] = true
				} else {
					inspectExpr(s.LHS, read(assigned))
				}
			case *IfStmt:
				eval(s.Cond, assigned)
				then, els := maps.Clone(assigned), maps.Clone(assigned)
				block(s.Then, then)
				block(s.Else, els)
				for n := range then {
					if els[n] {
						assigned[n] = true
					}
				}
			default:
				// Other statements make no spin loop; read what they read.
				inspectStmt(s, read(assigned))
			}
		}
	}
	assigned := map[string]bool{}
	block(body, assigned)
	inspectExpr(cond, read(assigned))
	return out
}

// casFlags reports whether each of regs is, in body, only ever assigned
// the result of a compare-exchange (while (!ok) { ...; ok = cas(...) }):
// GenMC's spin-assume takes a loop that carries such a flag, whose value
// a failed round leaves as it was.
func casFlags(regs map[string]bool, body *Block) bool {
	ok := true
	walkStmts(body, func(s Stmt, _ stmtPlace) {
		a, isA := s.(*AssignStmt)
		if !isA {
			return
		}
		n, isN := a.LHS.(*Name)
		if !isN || !regs[n.Name] {
			return
		}
		c, isC := a.RHS.(*CallExpr)
		ok = ok && isC && (c.Func == "cas" || c.Func == "cas_weak")
	})
	return ok
}

// spin compiles spin loop s as the wait it is.
func (t *threadComp) spin(s *WhileStmt) error {
	wait := &AssumeStmt{Await: true, Cond: &UnExpr{Op: "!", X: s.Cond, At: s.At}, At: s.At}
	if len(s.Body.Stmts) > 0 {
		wait.Pre = s.Body
	}
	return t.stmt(&IfStmt{Cond: s.Cond, Then: &Block{Stmts: []Stmt{wait}, Pos: s.At}, At: s.At})
}

// readOnlyBlock reports whether b only reads shared memory and assigns
// registers: assignments to registers and ifs, nothing else.
func (t *threadComp) readOnlyBlock(b *Block) bool {
	if b == nil {
		return true
	}
	for _, s := range b.Stmts {
		switch s := s.(type) {
		case *AssignStmt:
			n, ok := s.LHS.(*Name)
			if !ok || t.isShared(n.Name) || !t.readOnly(s.RHS) {
				return false
			}
		case *IfStmt:
			if !t.readOnly(s.Cond) || !t.readOnlyBlock(s.Then) || !t.readOnlyBlock(s.Else) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// readOnly reports whether evaluating e writes nothing: loads and
// arithmetic, no read-modify-write, cas, allocation, choice or call.
func (t *threadComp) readOnly(e Expr) bool {
	ok := true
	inspectExpr(e, func(x Expr) {
		if c, isCall := x.(*CallExpr); isCall && c.Func != "load" {
			ok = false
		}
	})
	return ok
}

// casExit reports whether e is a compare-exchange's failure — cas(...)
// == 0, cas(...) != 1 or !cas(...) — of read-only arguments: the loop it
// conditions ends when the compare-exchange succeeds, and a failed one
// only reads.
func (t *threadComp) casExit(e Expr) bool {
	var c Expr
	switch e := e.(type) {
	case *UnExpr:
		if e.Op == "!" {
			c = e.X
		}
	case *BinExpr:
		if n, isNum := e.Y.(*Num); isNum && (e.Op == "==" && n.Val == 0 || e.Op == "!=" && n.Val == 1) {
			c = e.X
		}
	}
	call, ok := c.(*CallExpr)
	if !ok || (call.Func != "cas" && call.Func != "cas_weak") || call.Old != "" {
		return false
	}
	for _, a := range call.Args {
		if !t.readOnly(a) {
			return false
		}
	}
	return true
}

// markFresh notes that register r points to a block just allocated, which
// no other thread can reach yet.
func (t *threadComp) markFresh(r model.Reg) {
	if t.fresh == nil {
		t.fresh, t.freshRead = map[model.Reg]int{}, map[int]bool{}
	}
	t.nfresh++
	t.fresh[r] = t.nfresh
}

// escape keeps fresh up to date with in, about to be emitted: a fresh
// pointer written to memory, given to a compare-exchange or a
// read-modify-write, or passed to an operation's history escapes (every
// register pointing into its block goes stale); an assignment of an
// expression over fresh pointers of one block (p, p + 1) makes another;
// every other assignment of a register makes it stale.
func (t *threadComp) escape(in *model.Instr) {
	if len(t.fresh) == 0 {
		return
	}
	var vals []*model.Expr
	switch in.Op {
	case model.OpLoad, model.OpRMW, model.OpCAS:
		regsOf(in.Addr, func(r model.Reg) {
			if id, ok := t.fresh[r]; ok {
				t.freshRead[id] = true
			}
		})
	}
	switch in.Op {
	case model.OpStore, model.OpRMW:
		vals = []*model.Expr{in.Val}
	case model.OpCAS:
		vals = []*model.Expr{in.Val, in.Expected}
	case model.OpCall, model.OpRet:
		vals = in.Args
	case model.OpAssign:
		block, pure := 0, true
		regsOf(in.Val, func(r model.Reg) {
			if id, ok := t.fresh[r]; ok && (block == 0 || block == id) {
				block = id
			} else {
				pure = false
			}
		})
		delete(t.fresh, in.Dst)
		if block != 0 && pure {
			t.fresh[in.Dst] = block
		}
		return
	}
	for _, v := range vals {
		regsOf(v, func(r model.Reg) {
			if id, ok := t.fresh[r]; ok {
				maps.DeleteFunc(t.fresh, func(_ model.Reg, b int) bool { return b == id })
			}
		})
	}
	delete(t.fresh, in.Dst)
	delete(t.fresh, in.Dst2)
}

// local reports whether a store to addr writes into a block no other
// thread can reach and the thread has not read since allocating it (a
// round that writes what it reads makes progress): addr is computed from
// fresh pointers of such a block alone.
func (t *threadComp) local(addr *model.Expr) bool {
	n, ok := 0, true
	regsOf(addr, func(r model.Reg) {
		id, fresh := t.fresh[r]
		ok = ok && fresh && !t.freshRead[id]
		n++
	})
	return ok && n > 0
}

// spinEffect notes, for the spin-assumed loops around it, whether write
// in (just emitted) is one other threads can see: every store but a local
// one, a successful compare-exchange, an exchange that changes the value,
// every other read-modify-write, a lock or an unlock.
func (t *threadComp) spinEffect(in *model.Instr) {
	var wrote *model.Expr
	switch in.Op {
	case model.OpStore:
		if t.local(in.Addr) {
			return
		}
		wrote = model.Const(1)
	case model.OpCAS:
		wrote = model.RegExpr(in.Dst2)
	case model.OpRMW:
		wrote = model.Const(1)
		if in.RMW == model.Xchg {
			wrote = model.Bin(model.Ne, model.RegExpr(in.Dst), in.Val)
		}
	case model.OpLock, model.OpUnlock:
		wrote = model.Const(1)
	default:
		return
	}
	pos := in.Pos
	for _, fx := range t.spins {
		t.emit(model.Instr{Op: model.OpAssign, Dst: fx, Val: model.Bin(model.LOr, model.RegExpr(fx), wrote), Pos: pos})
	}
}
