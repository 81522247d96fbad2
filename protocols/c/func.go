package c

import (
	"slices"
	"strconv"
	"strings"

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

// iteration lowers a loop. A for loop over a constant range whose
// variable the body does not assign is counted (never cut); one that
// starts or joins threads is unrolled here; a while loop with an empty
// body waits for its condition to fail (a spin loop, as GenMC treats
// one); every other loop runs at most Options.Unroll rounds.
func (f *fn) iteration(s *cc.IterationStatement) ([]lang.Stmt, error) {
	at := f.pos(s)
	if stmts, ok, err := f.laidOut(s); ok || err != nil {
		return stmts, err
	}
	f.forget(s)
	f.loops++
	defer func() { f.loops-- }()
	if s.Case == cc.IterationStatementDo && isZero(s.ExpressionList) && s.ExpressionList.Pure() && !jumpsOut(s.Statement) {
		// do B while (0), the macro idiom: B, once.
		b, err := f.body(s.Statement)
		if err != nil {
			return nil, err
		}
		return b.Stmts, nil
	}
	if s.Case != cc.IterationStatementFor && s.Case != cc.IterationStatementForDecl && f.l.spinSafe(s.Statement, false, false) && f.l.spinSafe(s.ExpressionList, true, false) {
		if stmts, ok, err := f.spin(s); ok || err != nil {
			return stmts, err
		}
	}
	switch s.Case {
	case cc.IterationStatementWhile:
		cond, pre, err := f.value(s.ExpressionList)
		if err != nil {
			return nil, err
		}
		b, err := f.body(s.Statement)
		if err != nil {
			return nil, err
		}
		return []lang.Stmt{f.while(cond, pre, b, at)}, nil
	case cc.IterationStatementDo:
		b, err := f.body(s.Statement)
		if err != nil {
			return nil, err
		}
		cond, pre, err := f.value(s.ExpressionList)
		if err != nil {
			return nil, err
		}
		// do B while (c): while 1 { B; if !c { break } }, the rounds bounded.
		exit := breakIf(&lang.UnExpr{Op: "!", X: cond, At: at}, at)
		b = f.thenTail(b, append(pre, exit), at)
		return []lang.Stmt{&lang.WhileStmt{Cond: &lang.Num{Val: 1, At: at}, Max: f.unroll(at), Body: b, Spin: true, Stop: f.l.opt.StopAtUnroll, At: at}}, nil
	}
	return f.forLoop(s)
}

// unroll is the bound of a loop that is not counted.
func (f *fn) unroll(at model.Pos) lang.Expr { return &lang.Num{Val: int64(f.l.opt.Unroll), At: at} }

// counted recognises "for (i = A; i < B; i++)" (or <=, ++i, i += 1) with
// A and B constant or known (known.go) and returns i, A and B (B
// exclusive); down, when it counts down instead ("for (i = A; i >= B;
// i--)", or >, --i, i -= 1), and then B is exclusive below. The step may
// do more after a comma ("i++, k++"): more lists it.
func (f *fn) counted(s *cc.IterationStatement) (name string, dd *cc.Declarator, from, to int64, down bool, more []cc.ExpressionNode, ok bool) {
	var init cc.ExpressionNode
	switch s.Case {
	case cc.IterationStatementFor:
		a, isA := s.ExpressionList.(*cc.AssignmentExpression)
		if !isA || a.Case != cc.AssignmentExpressionAssign {
			return
		}
		p, isP := a.UnaryExpression.(*cc.PrimaryExpression)
		if !isP || p.Case != cc.PrimaryExpressionIdent {
			return
		}
		if dd, _ = p.ResolvedTo().(*cc.Declarator); dd == nil || f.l.globals[dd] != nil {
			return
		}
		name, init = p.Token.SrcStr(), a.AssignmentExpression
	case cc.IterationStatementForDecl:
		list := s.Declaration.InitDeclaratorList
		if list == nil || list.InitDeclaratorList != nil || list.InitDeclarator.Initializer == nil {
			return
		}
		dd = list.InitDeclarator.Declarator
		name, init = dd.Name(), list.InitDeclarator.Initializer.AssignmentExpression
	}
	if init == nil {
		return
	}
	from, ok1 := f.constant(init)
	cond := s.ExpressionList2
	if s.Case == cc.IterationStatementForDecl {
		cond = s.ExpressionList
	}
	r, isR := cond.(*cc.RelationalExpression)
	if !ok1 || !isR {
		return
	}
	if p, isP := r.RelationalExpression.(*cc.PrimaryExpression); !isP || p.ResolvedTo() != dd {
		return
	}
	bound, ok2 := f.constant(r.ShiftExpression)
	if !ok2 {
		return
	}
	switch r.Token.SrcStr() {
	case "<":
	case "<=":
		bound++
	case ">":
		down = true
	case ">=":
		bound, down = bound-1, true
	default:
		return
	}
	step := s.ExpressionList3
	if s.Case == cc.IterationStatementForDecl {
		step = s.ExpressionList2
	}
	if l, isL := step.(*cc.ExpressionList); isL {
		step = l.AssignmentExpression
		for l = l.ExpressionList; l != nil; l = l.ExpressionList {
			more = append(more, l.AssignmentExpression)
		}
	}
	if !isStep(step, dd, down) || assigns(s.Statement, dd) || slices.ContainsFunc(more, func(e cc.ExpressionNode) bool { return assigns(e, dd) }) {
		return
	}
	return name, dd, from, bound, down, more, true
}

// constant is the value of e when it is a constant or reads only
// variables whose value main knows.
func (f *fn) constant(e cc.ExpressionNode) (int64, bool) {
	if v, ok := intValue(e); ok {
		return v, true
	}
	if len(f.values) == 0 || !e.Pure() {
		return 0, false
	}
	v, pre, err := f.value(e)
	if err != nil || len(pre) > 0 {
		return 0, false
	}
	return fold(v)
}

// laidOut lowers a counted loop of main that starts or joins threads
// round by round, each with its variable's value known: every thread is
// then known. After it, the variable holds the bound.
func (f *fn) laidOut(s *cc.IterationStatement) (_ []lang.Stmt, ok bool, _ error) {
	if !f.main || (s.Case != cc.IterationStatementFor && s.Case != cc.IterationStatementForDecl) || !startsThreads(s.Statement) {
		return nil, false, nil
	}
	name, dd, from, to, down, more, ok := f.counted(s)
	if !ok {
		return nil, false, nil
	}
	rounds, next := to-from, int64(1)
	if down {
		rounds, next = from-to, -1
	}
	if rounds > 64 {
		return nil, true, f.errAt(s, "this loop starts %d threads: at most 64", rounds)
	}
	at := f.pos(s)
	var out []lang.Stmt
	i := from
	for k := int64(0); k < rounds; i, k = i+next, k+1 {
		f.values[dd] = i
		stmts, err := f.stmt(s.Statement)
		if err != nil {
			return nil, true, err
		}
		out = append(out, stmts...)
		for _, e := range more {
			stmts, err := f.exprStmt(e)
			if err != nil {
				return nil, true, err
			}
			out = append(out, stmts...)
		}
	}
	delete(f.values, dd)
	if s.Case == cc.IterationStatementFor {
		// The loop's variable outlives it: it holds the bound.
		end := &lang.Num{Val: i, At: at}
		out = append(out, &lang.AssignStmt{LHS: &lang.Name{Name: f.local(name, dd), At: at}, RHS: end, At: at})
		f.learn(dd, end)
	}
	return out, true, nil
}

// forLoop lowers a for loop.
func (f *fn) forLoop(s *cc.IterationStatement) ([]lang.Stmt, error) {
	at := f.pos(s)
	name, dd, from, to, down, more, ok := f.counted(s)
	ok = ok && len(more) == 0
	if ok && !down {
		reg := f.local(name, dd)
		b, err := f.body(s.Statement)
		if err != nil {
			return nil, err
		}
		return []lang.Stmt{&lang.ForStmt{Var: reg, From: &lang.Num{Val: from, At: at}, To: &lang.Num{Val: to, At: at}, Body: b, At: at}}, nil
	}
	if startsThreads(s.Statement) {
		return nil, f.errAt(s, "a loop that starts or joins threads must count over constants: for (i = A; i < B; i++)")
	}
	var out []lang.Stmt
	var err error
	switch s.Case {
	case cc.IterationStatementFor:
		if s.ExpressionList != nil {
			if out, err = f.exprStmt(s.ExpressionList); err != nil {
				return nil, err
			}
		}
	case cc.IterationStatementForDecl:
		if out, err = f.decl(s.Declaration); err != nil {
			return nil, err
		}
	}
	condE, stepE := s.ExpressionList2, s.ExpressionList3
	if s.Case == cc.IterationStatementForDecl {
		condE, stepE = s.ExpressionList, s.ExpressionList2
	}
	var cond lang.Expr = &lang.Num{Val: 1, At: at}
	var pre []lang.Stmt
	if condE != nil {
		if cond, pre, err = f.value(condE); err != nil {
			return nil, err
		}
	}
	b, err := f.body(s.Statement)
	if err != nil {
		return nil, err
	}
	if stepE != nil {
		step, err := f.exprStmt(stepE)
		if err != nil {
			return nil, err
		}
		b = f.thenTail(b, step, at)
	}
	return append(out, f.while(cond, pre, b, at)), nil
}

// continues reports whether ss continue the loop they are the body of.
func continues(ss []lang.Stmt) bool {
	for _, st := range ss {
		switch st := st.(type) {
		case *lang.BranchStmt:
			if st.Tok == "continue" {
				return true
			}
		case *lang.IfStmt:
			if continues(st.Then.Stmts) || st.Else != nil && continues(st.Else.Stmts) {
				return true
			}
		case *lang.NamedBlock:
			if continues(st.Body.Stmts) {
				return true
			}
		case *lang.EitherStmt:
			for _, arm := range st.Arms {
				if continues(arm.Stmts) {
					return true
				}
			}
		}
	}
	return false
}

// jumpsOut reports whether n, a loop's body, breaks or continues that
// loop: a break or continue outside the loops inside it (switch is
// refused).
func jumpsOut(n cc.Node) bool {
	found := false
	var visit func(cc.Node)
	visit = func(n cc.Node) {
		switch n := n.(type) {
		case *cc.IterationStatement:
			return
		case *cc.JumpStatement:
			found = found || n.Case == cc.JumpStatementBreak || n.Case == cc.JumpStatementContinue
		}
		walkShallow(n, visit)
	}
	walkShallow(n, visit)
	return found
}

// thenTail is a loop's round: its body b, then tail (a for loop's step, a
// do-while's test), which a continue in b goes to. Such a body runs in a
// loop of one round whose break the continue becomes; a break of the
// loop itself sets a register that then breaks it.
func (f *fn) thenTail(b *lang.Block, tail []lang.Stmt, at model.Pos) *lang.Block {
	if !continues(b.Stmts) {
		b.Stmts = append(b.Stmts, tail...)
		return b
	}
	f.temps++
	flag := &lang.Name{Name: "%brk" + strconv.Itoa(f.temps), At: at}
	brk := false
	var redirect func(ss []lang.Stmt) []lang.Stmt
	redirect = func(ss []lang.Stmt) []lang.Stmt {
		var out []lang.Stmt
		for _, st := range ss {
			switch st := st.(type) {
			case *lang.BranchStmt:
				if st.Tok == "continue" {
					out = append(out, &lang.BranchStmt{Tok: "break", At: st.At})
					continue
				}
				brk = true
				out = append(out, &lang.AssignStmt{LHS: flag, RHS: &lang.Num{Val: 1, At: st.At}, At: st.At}, st)
				continue
			case *lang.IfStmt:
				st.Then.Stmts = redirect(st.Then.Stmts)
				if st.Else != nil {
					st.Else.Stmts = redirect(st.Else.Stmts)
				}
			case *lang.NamedBlock:
				st.Body.Stmts = redirect(st.Body.Stmts)
			case *lang.EitherStmt:
				for _, arm := range st.Arms {
					arm.Stmts = redirect(arm.Stmts)
				}
			}
			out = append(out, st) // loops inside keep their own breaks
		}
		return out
	}
	stmts := redirect(b.Stmts)
	once := &lang.WhileStmt{Cond: &lang.Num{Val: 1, At: at}, Max: &lang.Num{Val: 1, At: at}, Body: &lang.Block{Stmts: append(stmts, &lang.BranchStmt{Tok: "break", At: at}), Pos: b.Pos}, At: at}
	out := []lang.Stmt{once}
	if brk {
		out = []lang.Stmt{&lang.AssignStmt{LHS: flag, RHS: &lang.Num{At: at}, At: at}, once,
			breakIf(flag, at)}
	}
	return &lang.Block{Stmts: append(out, tail...), Pos: b.Pos}
}

// breakIf is "if c { break }".
func breakIf(c lang.Expr, at model.Pos) lang.Stmt {
	return &lang.IfStmt{Cond: c, Then: &lang.Block{Stmts: []lang.Stmt{&lang.BranchStmt{Tok: "break", At: at}}, Pos: at}, At: at}
}

// while is the loop "while (cond) b" whose condition runs the statements
// pre first (a compare-exchange, ++): "while 1 { pre; if !cond break; b }".
func (f *fn) while(cond lang.Expr, pre []lang.Stmt, b *lang.Block, at model.Pos) lang.Stmt {
	if len(pre) > 0 {
		exit := breakIf(&lang.UnExpr{Op: "!", X: cond, At: at}, at)
		b.Stmts = append(append(pre, exit), b.Stmts...)
		cond = &lang.Num{Val: 1, At: at}
	}
	return &lang.WhileStmt{Cond: cond, Max: f.unroll(at), Body: b, Spin: true, Stop: f.l.opt.StopAtUnroll, At: at}
}

// exprStmt lowers an expression evaluated for its effects.
func (f *fn) exprStmt(e cc.ExpressionNode) ([]lang.Stmt, error) {
	at := f.pos(e)
	switch e := e.(type) {
	case *cc.ExpressionList:
		var out []lang.Stmt
		for list := e; list != nil; list = list.ExpressionList {
			s, err := f.exprStmt(list.AssignmentExpression)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	case *cc.AssignmentExpression:
		return f.assign(e)
	case *cc.PostfixExpression:
		switch e.Case {
		case cc.PostfixExpressionInc, cc.PostfixExpressionDec:
			return f.increment(e.PostfixExpression, e.Case == cc.PostfixExpressionInc, e)
		case cc.PostfixExpressionCall:
			return f.callStmt(e)
		}
	case *cc.UnaryExpression:
		switch e.Case {
		case cc.UnaryExpressionInc, cc.UnaryExpressionDec:
			return f.increment(e.UnaryExpression, e.Case == cc.UnaryExpressionInc, e)
		}
	case *cc.CastExpression:
		if e.Case == cc.CastExpressionCast {
			return f.exprStmt(e.CastExpression)
		}
	case *cc.PrimaryExpression:
		if e.Case == cc.PrimaryExpressionExpr { // (x = v);
			return f.exprStmt(e.ExpressionList)
		}
	}
	v, pre, err := f.value(e)
	if err != nil {
		return nil, err
	}
	if e.Pure() {
		return pre, nil
	}
	return append(pre, &lang.ExprStmt{X: v, At: at}), nil
}

// increment lowers x++ / x-- as a statement.
func (f *fn) increment(x cc.ExpressionNode, inc bool, at cc.Node) ([]lang.Stmt, error) {
	op, rmw := step(inc)
	_, stmts, err := f.modify(x, op, rmw, &lang.Num{Val: 1, At: f.pos(at)}, false, false, at)
	return stmts, err
}

// step is the operator and read-modify-write of ++ (inc) or --.
func step(inc bool) (op, rmw string) {
	if inc {
		return "+", "fetch_add"
	}
	return "-", "fetch_sub"
}

// modify lowers "x op= v" (rmw: the read-modify-write that does it) with
// the statements that make it, and, when the expression is used for its
// value, that value: the new one, or with old the one before (x++), kept
// in a register of its own and read by the expression after the
// statements ran. An atomic x's is one seq_cst read-modify-write; pointer
// arithmetic counts in the pointee's locations.
func (f *fn) modify(x cc.ExpressionNode, op, rmw string, v lang.Expr, value, old bool, at cc.Node) (lang.Expr, []lang.Stmt, error) {
	pos := f.pos(at)
	if isPointer(x.Type()) && (op == "+" || op == "-") {
		v = scale(v, x.Type(), pos)
	}
	if dd := declOf(x); dd != nil {
		// What main knows of x after it: its value op v, or nothing.
		cur, _, err := f.value(x)
		if err != nil {
			return nil, nil, err
		}
		defer f.learn(dd, &lang.BinExpr{Op: op, X: cur, Y: v, At: pos})
	}
	var lv lang.Expr
	var atomic bool
	var pre []lang.Stmt
	if reg, ok := f.register(x); ok {
		lv = &lang.Name{Name: reg, At: pos}
	} else {
		var err error
		if lv, atomic, pre, err = f.lvalue(x); err != nil {
			return nil, nil, err
		}
	}
	if atomic {
		if rmw == "" {
			return nil, nil, f.errAt(at, "%s= on an atomic object is not supported", op)
		}
		call := &lang.CallExpr{Func: rmw, Args: []lang.Expr{lv, v}, Ords: []lang.Value{{Text: "sc", Pos: pos}}, At: pos}
		switch {
		case !value:
			return nil, append(pre, &lang.ExprStmt{X: call, At: pos}), nil
		case old:
			return call, pre, nil
		}
		return &lang.BinExpr{Op: op, X: call, Y: v, At: pos}, pre, nil
	}
	if !value {
		return nil, append(pre, &lang.AssignStmt{LHS: lv, RHS: &lang.BinExpr{Op: op, X: lv, Y: v, At: pos}, At: pos}), nil
	}
	tmp := &lang.Name{Name: f.temp(at), At: pos}
	if old {
		pre = append(pre,
			&lang.AssignStmt{LHS: tmp, RHS: lv, At: pos},
			&lang.AssignStmt{LHS: lv, RHS: &lang.BinExpr{Op: op, X: tmp, Y: v, At: pos}, At: pos})
	} else {
		pre = append(pre,
			&lang.AssignStmt{LHS: tmp, RHS: &lang.BinExpr{Op: op, X: lv, Y: v, At: pos}, At: pos},
			&lang.AssignStmt{LHS: lv, RHS: tmp, At: pos})
	}
	return tmp, pre, nil
}

// declOf is the variable x names, or nil.
func declOf(x cc.ExpressionNode) *cc.Declarator {
	if p, ok := stripCasts(x).(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
		dd, _ := p.ResolvedTo().(*cc.Declarator)
		return dd
	}
	return nil
}

// register is the register of x, when x names a local held in one.
func (f *fn) register(x cc.ExpressionNode) (string, bool) {
	if p, ok := stripCasts(x).(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
		reg, ok := f.locals[p.Token.SrcStr()]
		return reg, ok
	}
	return "", false
}

// temp names the register that holds the value of side effect e (x++,
// r = f()) for the expression using it: e's source text, which messages
// then show (index (t*3 + idx[t]++) of array pool), primed when the
// function has a register of that name already.
func (f *fn) temp(e cc.Node) string {
	name := strings.Join(strings.Fields(cc.NodeSource(e)), "")
	if name == "" || len(name) > 40 {
		f.temps++
		name = "%v" + strconv.Itoa(f.temps)
	}
	for f.named[name] {
		name += "'"
	}
	f.named[name] = true
	return name
}

// incValue lowers x++, x--, ++x or --x (post: the postfix ones) used for
// its value (modify).
func (f *fn) incValue(x cc.ExpressionNode, inc, post bool, at cc.Node) (lang.Expr, []lang.Stmt, error) {
	op, rmw := step(inc)
	return f.modify(x, op, rmw, &lang.Num{Val: 1, At: f.pos(at)}, true, post, at)
}

var compound = map[cc.AssignmentExpressionCase][2]string{
	cc.AssignmentExpressionAdd: {"+", "fetch_add"}, cc.AssignmentExpressionSub: {"-", "fetch_sub"},
	cc.AssignmentExpressionOr: {"|", "fetch_or"}, cc.AssignmentExpressionAnd: {"&", "fetch_and"},
	cc.AssignmentExpressionXor: {"^", "fetch_xor"}, cc.AssignmentExpressionMul: {"*", ""},
	cc.AssignmentExpressionDiv: {"/", ""}, cc.AssignmentExpressionMod: {"%", ""},
	cc.AssignmentExpressionLsh: {"<<", ""}, cc.AssignmentExpressionRsh: {">>", ""},
}

// assign lowers an assignment statement.
func (f *fn) assign(e *cc.AssignmentExpression) ([]lang.Stmt, error) {
	at := f.pos(e)
	if e.Case == cc.AssignmentExpressionCond {
		return f.exprStmt(e.ConditionalExpression)
	}
	if e.Case != cc.AssignmentExpressionAssign {
		ops := compound[e.Case]
		v, pre, err := f.value(e.AssignmentExpression)
		if err != nil {
			return nil, err
		}
		_, s, err := f.modify(e.UnaryExpression, ops[0], ops[1], v, false, false, e)
		return append(pre, s...), err
	}
	if p, ok := e.UnaryExpression.(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
		if reg, ok := f.locals[p.Token.SrcStr()]; ok {
			dd, _ := p.ResolvedTo().(*cc.Declarator)
			return f.assignReg(reg, dd, e.AssignmentExpression, at)
		}
	}
	v, pre, err := f.value(e.AssignmentExpression)
	if err != nil {
		return nil, err
	}
	s, err := f.store(e.UnaryExpression, v, e)
	return append(pre, s...), err
}

// store lowers "x = v" for a value v already lowered: a register's
// assignment, or a write of memory (seq_cst for an atomic object).
func (f *fn) store(x cc.ExpressionNode, v lang.Expr, at cc.Node) ([]lang.Stmt, error) {
	pos := f.pos(at)
	f.learn(declOf(x), v)
	if reg, ok := f.register(x); ok {
		return []lang.Stmt{&lang.AssignStmt{LHS: &lang.Name{Name: reg, At: pos}, RHS: v, At: pos}}, nil
	}
	lv, atomic, pre, err := f.lvalue(x)
	if err != nil {
		return nil, err
	}
	if atomic {
		return append(pre, &lang.MemStmt{Kind: "store", Args: []lang.Expr{lv, v}, Ord: &lang.Value{Text: "sc", Pos: pos}, At: pos}), nil
	}
	return append(pre, &lang.AssignStmt{LHS: lv, RHS: v, At: pos}), nil
}

// assignValue lowers an assignment used for its value (while ((r = f())
// != 0), a = b = 0): the value assigned, kept in a register of its own,
// the assignment made before the expression that uses it, as x++ is
// (incValue); x op= v is its new value (modify).
func (f *fn) assignValue(e *cc.AssignmentExpression) (lang.Expr, []lang.Stmt, error) {
	pos := f.pos(e)
	v, pre, err := f.value(e.AssignmentExpression)
	if err != nil {
		return nil, nil, err
	}
	if e.Case != cc.AssignmentExpressionAssign {
		ops := compound[e.Case]
		x, pre2, err := f.modify(e.UnaryExpression, ops[0], ops[1], v, true, false, e)
		return x, append(pre, pre2...), err
	}
	tmp := &lang.Name{Name: f.temp(e), At: pos}
	pre = append(pre, &lang.AssignStmt{LHS: tmp, RHS: v, At: pos})
	s, err := f.store(e.UnaryExpression, tmp, e)
	f.learn(declOf(e.UnaryExpression), v) // tmp's value, which main may know
	return tmp, append(pre, s...), err
}

// spin lowers a spin loop, as GenMC treats one (its spin-assume): a loop
// whose rounds change nothing but registers, except by a compare-exchange
// in the condition whose success ends the loop, repeats the same reads
// until they let it out. Only its last round matters: "do B while (C)" is
// a wait for !C that runs B again before each evaluation, and "while (C)
// B" is "if (C) do B while (C)" (B may reset what C reads, as a retried
// compare-exchange's expected value). The wait (an await) is a deadlock
// when the final memory cannot end it, and an execution in which it read
// older values is the unfinished spin: pruned.
//
// A loop whose round reads a register an earlier round wrote
// (lang.Carried: a counter, a compare-exchange's expected value not reset
// in the body) makes progress in its registers: it is no spin loop, and
// spin reports !ok.
func (f *fn) spin(s *cc.IterationStatement) (_ []lang.Stmt, ok bool, _ error) {
	at := f.pos(s)
	b, err := f.body(s.Statement)
	if err != nil {
		return nil, false, err
	}
	c, pre, err := f.value(s.ExpressionList)
	if err != nil {
		return nil, false, err
	}
	if len(pre) > 0 || lang.Carried(b, c) {
		// A condition that assigns (r = f()), or rounds that carry a
		// register forward: progress, no spin.
		return nil, false, nil
	}
	wait := &lang.AssumeStmt{Await: true, Cond: &lang.UnExpr{Op: "!", X: c, At: at}, At: at}
	if len(b.Stmts) == 0 {
		return []lang.Stmt{wait}, true, nil
	}
	wait.Pre = b
	if s.Case == cc.IterationStatementDo {
		return []lang.Stmt{wait}, true, nil
	}
	first, _, err := f.value(s.ExpressionList) // a tree of its own: c is in the wait
	if err != nil {
		return nil, false, err
	}
	loop := &lang.IfStmt{Cond: first, Then: &lang.Block{Stmts: []lang.Stmt{wait}, Pos: at}, At: at}
	f.spins[loop] = true
	return []lang.Stmt{loop}, true, nil
}

// spinSafe reports whether evaluating n changes nothing but registers:
// reads, local assignments, waits, and calls of functions that are
// spinSafe themselves; in a loop condition (cond) also compare-exchanges,
// whose success ends the loop. No jump leaves it: a return only in a
// called function (callee).
func (l *lowerer) spinSafe(n cc.Node, cond, callee bool) bool {
	ok := true
	local := func(x cc.ExpressionNode) bool {
		p, isP := stripCasts(x).(*cc.PrimaryExpression)
		if !isP || p.Case != cc.PrimaryExpressionIdent {
			return false
		}
		d, isD := p.ResolvedTo().(*cc.Declarator)
		return isD && l.globals[d] == nil
	}
	walk(n, func(n cc.Node) {
		switch n := n.(type) {
		case *cc.AssignmentExpression:
			ok = ok && (n.Case == cc.AssignmentExpressionCond || local(n.UnaryExpression))
		case *cc.PostfixExpression:
			switch n.Case {
			case cc.PostfixExpressionInc, cc.PostfixExpressionDec:
				ok = ok && local(n.PostfixExpression)
			case cc.PostfixExpressionCall:
				switch name := calleeName(n); {
				case name == "__atomic_load_n":
				case name == "__atomic_compare_exchange_n":
					ok = ok && cond
				case l.funcs[name] != nil && !l.lowering[name]:
					l.lowering[name] = true
					ok = ok && l.spinSafe(l.funcs[name].CompoundStatement, cond, true)
					delete(l.lowering, name)
				default:
					ok = false
				}
			}
		case *cc.UnaryExpression:
			if n.Case == cc.UnaryExpressionInc || n.Case == cc.UnaryExpressionDec {
				ok = ok && local(n.UnaryExpression)
			}
		case *cc.JumpStatement:
			ok = ok && callee && n.Case == cc.JumpStatementReturn
		case *cc.IterationStatement:
			ok = ok && n.Case != cc.IterationStatementFor && n.Case != cc.IterationStatementForDecl
		}
	})
	return ok
}

// startsThreads reports whether a statement calls pthread_create or
// pthread_join.
func startsThreads(s *cc.Statement) bool {
	found := false
	walk(s, func(n cc.Node) {
		if c, ok := n.(*cc.PostfixExpression); ok && c.Case == cc.PostfixExpressionCall {
			if name := calleeName(c); name == "pthread_create" || name == "pthread_join" {
				found = true
			}
		}
	})
	return found
}

// isStep reports whether e is i++, ++i or i += 1 of declarator dd (down:
// i--, --i or i -= 1).
func isStep(e cc.ExpressionNode, dd *cc.Declarator, down bool) bool {
	is := func(x cc.ExpressionNode) bool {
		p, ok := x.(*cc.PrimaryExpression)
		return ok && p.ResolvedTo() == dd
	}
	post, pre, add := cc.PostfixExpressionInc, cc.UnaryExpressionInc, cc.AssignmentExpressionAdd
	if down {
		post, pre, add = cc.PostfixExpressionDec, cc.UnaryExpressionDec, cc.AssignmentExpressionSub
	}
	switch e := e.(type) {
	case *cc.PostfixExpression:
		return e.Case == post && is(e.PostfixExpression)
	case *cc.UnaryExpression:
		return e.Case == pre && is(e.UnaryExpression)
	case *cc.AssignmentExpression:
		v, ok := intValue(e.AssignmentExpression)
		return e.Case == add && is(e.UnaryExpression) && ok && v == 1
	}
	return false
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
