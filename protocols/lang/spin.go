package lang

import "maps"

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
func Carried(body *Block, cond Expr) bool {
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
		return false
	}
	carried := false
	read := func(assigned map[string]bool) func(Expr) {
		return func(x Expr) {
			if n, ok := x.(*Name); ok && written[n.Name] && !assigned[n.Name] {
				carried = true
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
	return carried
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
