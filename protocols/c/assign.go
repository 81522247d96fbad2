package c

import (
	"strconv"
	"strings"

	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/protocols/lang"
)

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
