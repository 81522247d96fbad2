package c

import (
	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// fn lowers the body of one function: main (a thread, which may start and
// join others) or a procedure.
type fn struct {
	l      *lowerer
	def    *cc.FunctionDefinition
	main   bool
	locals map[string]string // a local's C name → its register
	// stack holds the function's stack objects by C name (frame.go), in
	// stackOrder.
	stack      map[string]stackObj
	stackOrder []string
	// casExpected are the &local expressions that are compare-exchanges'
	// expected values.
	casExpected map[*cc.UnaryExpression]bool
	values      map[*cc.Declarator]int64 // variables whose value main knows now (known.go)
	loops       int                      // loops open around the current statement
	arms        int                      // if arms open around it
	temps       int                      // registers made for the front end's own use
	named       map[string]bool          // registers named after C expressions (temp)
	spins       map[*lang.IfStmt]bool    // the "if C { await !C pre B }" of while spin loops (firstRound)
	last        bool                     // the statement is the last of main's body
}

func (l *lowerer) newFunc(def *cc.FunctionDefinition, main bool) *fn {
	f := &fn{l: l, def: def, main: main, locals: map[string]string{}, stack: map[string]stackObj{}, values: map[*cc.Declarator]int64{}, named: map[string]bool{}, spins: map[*lang.IfStmt]bool{}, casExpected: map[*cc.UnaryExpression]bool{}}
	walk(def.CompoundStatement, func(n cc.Node) {
		c, ok := n.(*cc.PostfixExpression)
		if !ok || c.Case != cc.PostfixExpressionCall || calleeName(c) != "__atomic_compare_exchange_n" {
			return
		}
		if args := argList(c); len(args) > 1 {
			if u, ok := stripCasts(args[1]).(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
				f.casExpected[u] = true
			}
		}
	})
	return f
}

// local names the register of a local variable: its C name, unless a
// global has that name.
func (f *fn) local(name string, _ *cc.Declarator) string {
	reg := name
	for _, g := range f.l.globals {
		if g.name == name {
			reg = name + "'"
			break
		}
	}
	f.locals[name] = reg
	return reg
}

func (f *fn) errAt(n cc.Node, format string, args ...any) error {
	return f.l.errAt(n, format, args...)
}

func (f *fn) pos(n cc.Node) model.Pos { return f.l.pos(n) }

// block lowers a compound statement.
func (f *fn) block(cs *cc.CompoundStatement) (*lang.Block, error) {
	b := &lang.Block{Pos: f.pos(cs)}
	top := f.main && cs == f.def.CompoundStatement
	for list := cs.BlockItemList; list != nil; list = list.BlockItemList {
		it := list.BlockItem
		f.last = top && list.BlockItemList == nil
		stmts, err := f.blockItem(it)
		if err != nil {
			return nil, err
		}
		b.Stmts = append(b.Stmts, f.firstRound(b.Stmts, stmts)...)
	}
	return b, nil
}

// blockItem lowers a declaration or a statement of a block.
func (f *fn) blockItem(it *cc.BlockItem) ([]lang.Stmt, error) {
	switch it.Case {
	case cc.BlockItemDecl:
		return f.decl(it.Declaration)
	case cc.BlockItemStmt:
		return f.stmt(it.Statement)
	}
	return nil, f.errAt(it, "labels and nested functions are not supported")
}

// firstRound drops the first evaluation of a spin loop's condition, as
// GenMC's spin-assume does, when it would be the wait's own: stmts are
// the while spin loop "if C { await !C pre B }" (spin made it), and the statements
// before it (done) leave each register B assigns with the constant B
// assigns it, so the wait's evaluation before any round of B is the same
// as the first evaluation. The loop is then the wait alone, a single
// evaluation that must let it out; else stmts, unchanged.
func (f *fn) firstRound(done, stmts []lang.Stmt) []lang.Stmt {
	if len(stmts) != 1 {
		return stmts
	}
	loop, ok := stmts[0].(*lang.IfStmt)
	if !ok || !f.spins[loop] {
		return stmts
	}
	wait := loop.Then.Stmts[0].(*lang.AssumeStmt)
	// The registers the statements just before the loop set to constants.
	entry := map[string]int64{}
	for i := len(done) - 1; i >= 0; i-- {
		reg, v, ok := constAssign(done[i])
		if !ok {
			break
		}
		if _, later := entry[reg]; !later {
			entry[reg] = v
		}
	}
	for _, s := range wait.Pre.Stmts {
		reg, v, ok := constAssign(s)
		if w, known := entry[reg]; !ok || !known || w != v {
			return stmts
		}
	}
	return []lang.Stmt{wait}
}

// constAssign reports whether s assigns a constant to a register.
func constAssign(s lang.Stmt) (reg string, v int64, ok bool) {
	a, isAssign := s.(*lang.AssignStmt)
	if !isAssign {
		return "", 0, false
	}
	n, isName := a.LHS.(*lang.Name)
	c, isNum := a.RHS.(*lang.Num)
	if !isName || !isNum {
		return "", 0, false
	}
	return n.Name, c.Val, true
}

// decl lowers a local declaration: each initialised variable is a
// register assignment.
func (f *fn) decl(d *cc.Declaration) ([]lang.Stmt, error) {
	if d.Case != cc.DeclarationDecl {
		return nil, nil
	}
	var out []lang.Stmt
	for list := d.InitDeclaratorList; list != nil; list = list.InitDeclaratorList {
		id := list.InitDeclarator
		dd := id.Declarator
		if dd.IsTypename() || dd.Type().Kind() == cc.Function || dd.Name() == "__func__" {
			continue
		}
		if dd.IsStatic() || dd.IsExtern() {
			return nil, f.errAt(dd, "static and extern variables inside functions are not supported: declare %s at file scope", dd.Name())
		}
		// A local in memory (frame.go): its declaration only initialises it.
		var initMem func() ([]lang.Stmt, error)
		if g, ok := f.l.globals[dd]; ok && f.main {
			initMem = func() ([]lang.Stmt, error) { return f.mainInit(g, dd, id.Initializer) }
		} else if obj, ok := f.stack[dd.Name()]; ok {
			initMem = func() ([]lang.Stmt, error) { return f.stackInit(obj, dd, id.Initializer) }
		}
		if initMem != nil {
			if id.Initializer != nil {
				s, err := initMem()
				if err != nil {
					return nil, err
				}
				out = append(out, s...)
			}
			continue
		}
		switch k := dd.Type().Kind(); {
		case dd.Type().String() == "pthread_t" || isPthread(dd.Type()):
			continue
		case k == cc.Union:
			return nil, f.errAt(dd, "local %s: unions are not supported", dd.Name())
		case k == cc.Array || k == cc.Struct:
			return nil, f.errAt(dd, "local %s: a local mutex is supported in main only", dd.Name())
		}
		reg := f.local(dd.Name(), dd)
		delete(f.values, dd)
		if id.Initializer == nil {
			continue
		}
		if id.Initializer.Case != cc.InitializerExpr {
			return nil, f.errAt(id.Initializer, "a local's initializer must be an expression")
		}
		s, err := f.assignReg(reg, dd, id.Initializer.AssignmentExpression, f.pos(dd))
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// isPthread reports whether t is pthread_t or an array of them, which
// the front end tracks by name rather than storing.
func isPthread(t cc.Type) bool {
	if at, ok := t.(*cc.ArrayType); ok {
		t = at.Elem()
	}
	return t.Typedef() != nil && t.Typedef().Name() == "pthread_t"
}

// onlyCASExpected reports whether a local's address is taken only as the
// expected value of compare-exchanges, which the front end handles as a
// register.
func (f *fn) onlyCASExpected(dd *cc.Declarator) bool {
	ok := true
	walk(f.def.CompoundStatement, func(n cc.Node) {
		u, isU := n.(*cc.UnaryExpression)
		if !isU || u.Case != cc.UnaryExpressionAddrof {
			return
		}
		p, isP := u.CastExpression.(*cc.PrimaryExpression)
		if !isP || p.ResolvedTo() != dd {
			return
		}
		ok = ok && f.casExpected[u]
	})
	return ok
}

// assignReg lowers "reg = e" for a local: a register that is never read
// keeps only e's effects.
func (f *fn) assignReg(reg string, dd *cc.Declarator, e cc.ExpressionNode, at model.Pos) ([]lang.Stmt, error) {
	v, pre, err := f.value(e)
	if err != nil {
		return nil, err
	}
	f.learn(dd, v)
	if dd != nil && dd.ReadCount() == 0 {
		// A local never read: its value is not kept, but the reads that
		// make it happen (a dead read of a global still races).
		if _, ok := intValue(e); ok {
			return pre, nil
		}
		return append(pre, &lang.ExprStmt{X: v, At: at}), nil
	}
	return append(pre, &lang.AssignStmt{LHS: &lang.Name{Name: reg, At: at}, RHS: v, At: at}), nil
}

// stmt lowers a statement.
func (f *fn) stmt(s *cc.Statement) ([]lang.Stmt, error) {
	switch s.Case {
	case cc.StatementCompound:
		b, err := f.block(s.CompoundStatement)
		if err != nil {
			return nil, err
		}
		return b.Stmts, nil
	case cc.StatementExpr:
		if s.ExpressionStatement.ExpressionList == nil {
			return nil, nil
		}
		return f.exprStmt(s.ExpressionStatement.ExpressionList)
	case cc.StatementSelection:
		return f.selection(s.SelectionStatement)
	case cc.StatementIteration:
		return f.iteration(s.IterationStatement)
	case cc.StatementJump:
		return f.jump(s.JumpStatement)
	case cc.StatementAsm:
		return nil, f.errAt(s.AsmStatement, "asm statements are not supported")
	}
	return nil, f.errAt(s, "labeled statements (goto targets, switch cases) are not supported")
}

// body lowers a statement as a block.
func (f *fn) body(s *cc.Statement) (*lang.Block, error) {
	stmts, err := f.stmt(s)
	return &lang.Block{Stmts: stmts, Pos: f.pos(s)}, err
}

func (f *fn) selection(s *cc.SelectionStatement) ([]lang.Stmt, error) {
	if s.Case == cc.SelectionStatementSwitch {
		return nil, f.errAt(s, "switch is not supported: write if/else")
	}
	cond, pre, err := f.value(s.ExpressionList)
	if err != nil {
		return nil, err
	}
	if n, ok := fold(cond); ok {
		// A constant condition (a thread start's result, an unrolled
		// loop's variable) keeps one arm: code that never runs asks
		// nothing of the checker.
		switch {
		case n != 0:
			stmts, err := f.stmt(s.Statement)
			return append(pre, stmts...), err
		case s.Case == cc.SelectionStatementIfElse:
			stmts, err := f.stmt(s.Statement2)
			return append(pre, stmts...), err
		}
		return pre, nil
	}
	f.forget(s)
	f.arms++
	defer func() { f.arms-- }()
	then, err := f.body(s.Statement)
	if err != nil {
		return nil, err
	}
	out := &lang.IfStmt{Cond: cond, Then: then, At: f.pos(s)}
	if s.Case == cc.SelectionStatementIfElse {
		if out.Else, err = f.body(s.Statement2); err != nil {
			return nil, err
		}
	}
	return append(pre, out), nil
}

func (f *fn) jump(s *cc.JumpStatement) ([]lang.Stmt, error) {
	at := f.pos(s)
	switch s.Case {
	case cc.JumpStatementBreak, cc.JumpStatementContinue:
		return []lang.Stmt{&lang.BranchStmt{Tok: s.Token.SrcStr(), At: at}}, nil
	case cc.JumpStatementReturn:
		if f.main {
			if !f.last {
				return nil, f.errAt(s, "main returns before its end: not supported (the threads it started would go on)")
			}
			return nil, nil
		}
		if s.ExpressionList == nil {
			return []lang.Stmt{&lang.ReturnStmt{At: at}}, nil
		}
		v, pre, err := f.value(s.ExpressionList)
		if err != nil {
			return nil, err
		}
		return append(pre, &lang.ReturnStmt{Vals: []lang.Expr{v}, At: at}), nil
	}
	return nil, f.errAt(s, "goto is not supported")
}

// assigns reports whether n assigns (or takes the address of) dd.
func assigns(n cc.Node, dd *cc.Declarator) bool {
	found := false
	writes(n, func(d *cc.Declarator, _ bool) { found = found || d == dd })
	return found
}

// writes calls f with each variable n assigns, increments or decrements
// by name, and addr set for one whose address it takes.
func writes(n cc.Node, f func(dd *cc.Declarator, addr bool)) {
	named := func(x cc.ExpressionNode, addr bool) {
		if p, ok := x.(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
			if dd, ok := p.ResolvedTo().(*cc.Declarator); ok {
				f(dd, addr)
			}
		}
	}
	walk(n, func(n cc.Node) {
		switch n := n.(type) {
		case *cc.AssignmentExpression:
			if n.Case != cc.AssignmentExpressionCond {
				named(n.UnaryExpression, false)
			}
		case *cc.PostfixExpression:
			if n.Case == cc.PostfixExpressionInc || n.Case == cc.PostfixExpressionDec {
				named(n.PostfixExpression, false)
			}
		case *cc.UnaryExpression:
			switch n.Case {
			case cc.UnaryExpressionInc, cc.UnaryExpressionDec:
				named(n.UnaryExpression, false)
			case cc.UnaryExpressionAddrof:
				named(n.CastExpression, true)
			}
		}
	})
}

// calleeName is the name a call calls, or "".
func calleeName(c *cc.PostfixExpression) string {
	if p, ok := c.PostfixExpression.(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
		return p.Token.SrcStr()
	}
	return ""
}
