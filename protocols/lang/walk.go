package lang

// stmtPlace says where a statement stands: inside how many loops, and
// in which arm of each if (0 then, 1 else) and either around it.
type stmtPlace struct {
	loops int
	arms  map[Stmt]int
}

// in returns the place inside arm of branch s.
func (p stmtPlace) in(s Stmt, arm int) stmtPlace {
	arms := make(map[Stmt]int, len(p.arms)+1)
	for k, v := range p.arms {
		arms[k] = v
	}
	arms[s] = arm
	return stmtPlace{p.loops, arms}
}

// walkStmts calls f on every statement in b, nested ones included, with
// where it stands.
func walkStmts(b *Block, f func(Stmt, stmtPlace)) { walkIn(b, stmtPlace{}, f) }

func walkIn(b *Block, at stmtPlace, f func(Stmt, stmtPlace)) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		f(s, at)
		switch s := s.(type) {
		case *IfStmt:
			walkIn(s.Then, at.in(s, 0), f)
			walkIn(s.Else, at.in(s, 1), f)
		case *WhileStmt:
			walkIn(s.Body, stmtPlace{at.loops + 1, at.arms}, f)
		case *ForStmt:
			walkIn(s.Body, stmtPlace{at.loops + 1, at.arms}, f)
		case *NamedBlock:
			walkIn(s.Body, at, f)
		case *OpStmt:
			walkIn(s.Body, at, f)
		case *EitherStmt:
			for i, a := range s.Arms {
				walkIn(a, at.in(s, i), f)
			}
		}
	}
}

// inspectBlock calls f on every expression in b, subexpressions included.
func inspectBlock(b *Block, f func(Expr)) {
	walkStmts(b, func(s Stmt, _ stmtPlace) { inspectStmt(s, f) })
}

// inspectStmt calls f on the expressions of s itself (not of the
// statements nested in it), subexpressions included.
func inspectStmt(s Stmt, f func(Expr)) {
	exprs := func(es ...Expr) {
		for _, e := range es {
			inspectExpr(e, f)
		}
	}
	switch s := s.(type) {
	case *AssignStmt:
		exprs(s.LHS, s.RHS)
	case *IfStmt:
		exprs(s.Cond)
	case *WhileStmt:
		exprs(s.Cond, s.Max)
	case *ForStmt:
		exprs(s.From, s.To)
	case *AssertStmt:
		exprs(s.Cond)
	case *AssumeStmt:
		exprs(s.Cond)
	case *RequireStmt:
		exprs(s.Cond)
	case *MemStmt:
		exprs(s.Args...)
	case *HazardStmt:
		exprs(s.Handle, s.Ptr)
	case *ReturnStmt:
		exprs(s.Vals...)
	case *ExprStmt:
		exprs(s.X)
	}
}

func inspectExpr(e Expr, f func(Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch e := e.(type) {
	case *FieldExpr:
		inspectExpr(e.Index, f)
		inspectExpr(e.Sub, f)
	case *IndexExpr:
		inspectExpr(e.Index, f)
	case *ArrowExpr:
		inspectExpr(e.Ptr, f)
		inspectExpr(e.Sub, f)
	case *DerefExpr:
		inspectExpr(e.Ptr, f)
	case *AddrExpr:
		inspectExpr(e.Of, f)
	case *BinExpr:
		inspectExpr(e.X, f)
		inspectExpr(e.Y, f)
	case *UnExpr:
		inspectExpr(e.X, f)
	case *CondExpr:
		inspectExpr(e.Cond, f)
		inspectExpr(e.Then, f)
		inspectExpr(e.Else, f)
	case *CallExpr:
		for _, a := range e.Args {
			inspectExpr(a, f)
		}
	}
}
