package c

import (
	"slices"
	"strconv"

	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

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
	if onceRound(s) {
		// do B while (0), the macro idiom: B, once.
		b, err := f.body(s.Statement)
		if err != nil {
			return nil, err
		}
		return b.Stmts, nil
	}
	f.forget(s)
	f.loops++
	defer func() { f.loops-- }()
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
