package c

import (
	"strings"

	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// value lowers an expression read for its value, with the statements
// that must run before it: its side effects (a thread started in an if's
// condition, x++ in an index, a compare-exchange's write of its expected
// value), which C leaves unsequenced within the expression.
func (f *fn) value(e cc.ExpressionNode) (lang.Expr, []lang.Stmt, error) {
	at := f.pos(e)
	if v, ok := intValue(e); ok && e.Pure() {
		return &lang.Num{Val: v, At: at}, nil, nil
	}
	switch e := e.(type) {
	case *cc.PrimaryExpression:
		switch e.Case {
		case cc.PrimaryExpressionIdent:
			return f.ident(e)
		case cc.PrimaryExpressionExpr:
			return f.value(e.ExpressionList)
		case cc.PrimaryExpressionString, cc.PrimaryExpressionLString:
			return nil, nil, f.errAt(e, "strings are not supported")
		case cc.PrimaryExpressionStmt:
			return f.stmtExpr(e)
		}
		return nil, nil, f.errAt(e, "floating-point and other non-integer constants are not supported")
	case *cc.ExpressionList:
		if e.ExpressionList != nil {
			return nil, nil, f.errAt(e, "the comma operator is not supported")
		}
		return f.value(e.AssignmentExpression)
	case *cc.PostfixExpression:
		switch e.Case {
		case cc.PostfixExpressionCall:
			return f.call(e)
		case cc.PostfixExpressionInc, cc.PostfixExpressionDec:
			return f.incValue(e.PostfixExpression, e.Case == cc.PostfixExpressionInc, true, e)
		case cc.PostfixExpressionComplit:
			return nil, nil, f.errAt(e, "compound literals are not supported")
		}
		lv, atomic, pre, err := f.lvalue(e)
		if err != nil {
			return nil, nil, err
		}
		if memberType(e).Kind() == cc.Array || f.row(e) {
			// An array (a member, a row of an array of arrays) read for
			// its value is the address of its first element.
			return &lang.AddrExpr{Of: lv, At: at}, pre, nil
		}
		return f.read(lv, atomic, at), pre, nil
	case *cc.UnaryExpression:
		switch e.Case {
		case cc.UnaryExpressionAddrof:
			return f.addressOf(e.CastExpression)
		case cc.UnaryExpressionDeref:
			lv, atomic, pre, err := f.lvalue(e)
			if err != nil {
				return nil, nil, err
			}
			return f.read(lv, atomic, at), pre, nil
		case cc.UnaryExpressionPlus:
			return f.value(e.CastExpression)
		case cc.UnaryExpressionMinus, cc.UnaryExpressionNot:
			x, pre, err := f.value(e.CastExpression)
			return &lang.UnExpr{Op: e.Token.SrcStr(), X: x, At: at}, pre, err
		case cc.UnaryExpressionCpl:
			// ~x is -x - 1 in two's complement.
			x, pre, err := f.value(e.CastExpression)
			return &lang.BinExpr{Op: "-", X: &lang.UnExpr{Op: "-", X: x, At: at}, Y: &lang.Num{Val: 1, At: at}, At: at}, pre, err
		case cc.UnaryExpressionInc, cc.UnaryExpressionDec:
			return f.incValue(e.UnaryExpression, e.Case == cc.UnaryExpressionInc, false, e)
		}
		return nil, nil, f.errAt(e, "%s is not supported", e.Token.SrcStr())
	case *cc.CastExpression:
		if e.Case != cc.CastExpressionCast {
			break
		}
		x, pre, err := f.value(e.CastExpression)
		if err == nil && e.TypeName.Type().Kind() == cc.Bool {
			x = &lang.BinExpr{Op: "!=", X: x, Y: &lang.Num{At: at}, At: at}
		}
		return x, pre, err
	case *cc.ConditionalExpression:
		if e.Case != cc.ConditionalExpressionCond {
			break
		}
		c, pre, err := f.value(e.LogicalOrExpression)
		if err != nil {
			return nil, nil, err
		}
		x, pre1, err := f.value(e.ExpressionList)
		if err != nil {
			return nil, nil, err
		}
		y, pre2, err := f.value(e.ConditionalExpression)
		if err != nil {
			return nil, nil, err
		}
		if len(pre1)+len(pre2) > 0 {
			return nil, nil, f.errAt(e, "?: with a side effect in an arm (a thread start, ++, a compare-exchange) is not supported: write an if")
		}
		return &lang.CondExpr{Cond: c, Then: x, Else: y, At: at}, pre, nil
	case *cc.AssignmentExpression:
		if e.Case == cc.AssignmentExpressionCond {
			return f.value(e.ConditionalExpression)
		}
		return f.assignValue(e)
	}
	if x, y, op, ok := binary(e); ok {
		return f.binary(e, x, y, op)
	}
	return nil, nil, f.errAt(e, "this expression is not supported")
}

// binary splits a binary expression of any precedence level.
func binary(e cc.ExpressionNode) (x, y cc.ExpressionNode, op string, ok bool) {
	switch e := e.(type) {
	case *cc.AdditiveExpression:
		return e.AdditiveExpression, e.MultiplicativeExpression, e.Token.SrcStr(), true
	case *cc.MultiplicativeExpression:
		return e.MultiplicativeExpression, e.CastExpression, e.Token.SrcStr(), true
	case *cc.ShiftExpression:
		return e.ShiftExpression, e.AdditiveExpression, e.Token.SrcStr(), true
	case *cc.RelationalExpression:
		return e.RelationalExpression, e.ShiftExpression, e.Token.SrcStr(), true
	case *cc.EqualityExpression:
		return e.EqualityExpression, e.RelationalExpression, e.Token.SrcStr(), true
	case *cc.AndExpression:
		return e.AndExpression, e.EqualityExpression, "&", true
	case *cc.ExclusiveOrExpression:
		return e.ExclusiveOrExpression, e.AndExpression, "^", true
	case *cc.InclusiveOrExpression:
		return e.InclusiveOrExpression, e.ExclusiveOrExpression, "|", true
	case *cc.LogicalAndExpression:
		return e.LogicalAndExpression, e.InclusiveOrExpression, "&&", true
	case *cc.LogicalOrExpression:
		return e.LogicalOrExpression, e.LogicalAndExpression, "||", true
	}
	return nil, nil, "", false
}

// binary lowers x op y; pointer arithmetic counts in the pointee's
// locations (a struct takes one per field).
func (f *fn) binary(e, xe, ye cc.ExpressionNode, op string) (lang.Expr, []lang.Stmt, error) {
	at := f.pos(e)
	x, pre, err := f.value(xe)
	if err != nil {
		return nil, nil, err
	}
	y, pre2, err := f.value(ye)
	if err != nil {
		return nil, nil, err
	}
	if len(pre2) > 0 && (op == "&&" || op == "||") {
		return nil, nil, f.errAt(ye, "a side effect on the right of %s (a thread start, ++, a compare-exchange) is not supported: write an if", op)
	}
	if op == "+" || op == "-" {
		xp, yp := isPointer(xe.Type()), isPointer(ye.Type())
		switch {
		case xp && yp:
			return nil, nil, f.errAt(e, "the difference of two pointers is not supported")
		case xp:
			y = scale(y, xe.Type(), at)
		case yp:
			x = scale(x, ye.Type(), at)
		}
	}
	return &lang.BinExpr{Op: op, X: x, Y: y, At: at}, append(pre, pre2...), nil
}

// element resolves a[i], a[i][j], ... of a global array a to the index
// of the element in a's flattened layout (a[i][j] of int a[R][C] is
// element i*C + j). A prefix naming a row (a[i] of a[R][C]) is its first
// element.
func (f *fn) element(e *cc.PostfixExpression) (g *global, flat lang.Expr, pre []lang.Stmt, ok bool, err error) {
	g, flat, pre, _, ok, err = f.elementAt(e)
	return g, flat, pre, ok, err
}

// elementAt is element, with the number of indices e applies.
func (f *fn) elementAt(e *cc.PostfixExpression) (g *global, flat lang.Expr, pre []lang.Stmt, depth int, ok bool, err error) {
	if e.Case != cc.PostfixExpressionIndex {
		return nil, nil, nil, 0, false, nil
	}
	var outer lang.Expr
	switch base := e.PostfixExpression.(type) {
	case *cc.PrimaryExpression:
		if g, ok = f.l.globalOf(base); !ok || !g.array {
			return nil, nil, nil, 0, false, nil
		}
	case *cc.PostfixExpression:
		if g, outer, pre, depth, ok, err = f.elementAt(base); !ok || err != nil {
			return nil, nil, nil, 0, ok, err
		}
	default:
		return nil, nil, nil, 0, false, nil
	}
	depth++
	if depth > len(g.dims) {
		return nil, nil, nil, 0, false, nil
	}
	at := f.pos(e)
	idx, pre2, err := f.value(e.ExpressionList)
	if err != nil {
		return nil, nil, nil, 0, false, err
	}
	pre = append(pre, pre2...)
	// An index at depth d counts rows of the dimensions after it.
	stride := int64(1)
	for _, n := range g.dims[depth:] {
		stride *= n
	}
	if stride != 1 {
		idx = &lang.BinExpr{Op: "*", X: idx, Y: &lang.Num{Val: stride, At: at}, At: at}
	}
	if outer != nil {
		idx = &lang.BinExpr{Op: "+", X: outer, Y: idx, At: at}
	}
	return g, idx, pre, depth, true, nil
}

// row reports whether e names a row of a global array of arrays (a[i] of
// a[R][C]).
func (f *fn) row(e *cc.PostfixExpression) bool {
	for depth := 1; e.Case == cc.PostfixExpressionIndex; depth++ {
		switch b := e.PostfixExpression.(type) {
		case *cc.PrimaryExpression:
			g, ok := f.l.globalOf(b)
			return ok && g.array && depth < len(g.dims)
		case *cc.PostfixExpression:
			e = b
		default:
			return false
		}
	}
	return false
}

// atomicType reports whether t, the type of an object reached through a
// pointer, a field or an index, is one of stdatomic.h's atomic types
// (atomic_int, ...), so that a plain access to it is seq_cst. An _Atomic
// qualifier there is not seen: the C front end's types do not keep it.
func atomicType(t cc.Type) bool {
	td := t.Typedef()
	return td != nil && strings.HasPrefix(td.Name(), "atomic_") && td.Name() != "atomic_flag"
}

func isPointer(t cc.Type) bool { k := t.Kind(); return k == cc.Ptr || k == cc.Array }

// scale multiplies an offset by the locations one element of pointer
// type t takes.
func scale(n lang.Expr, t cc.Type, at model.Pos) lang.Expr {
	if k := locsOf(elem(t)); k != 1 {
		return &lang.BinExpr{Op: "*", X: n, Y: &lang.Num{Val: k, At: at}, At: at}
	}
	return n
}

func elem(t cc.Type) cc.Type {
	switch t := t.(type) {
	case *cc.PointerType:
		return t.Elem()
	case *cc.ArrayType:
		return t.Elem()
	}
	return t
}

// locsOf is the number of locations an object of type t takes.
func locsOf(t cc.Type) int64 {
	switch t := t.(type) {
	case *cc.StructType:
		n := int64(0)
		for i := range t.NumFields() {
			n += locsOf(t.FieldByIndex(i).Type())
		}
		return n
	case *cc.ArrayType:
		return max(t.Len(), 1) * locsOf(t.Elem())
	}
	return 1
}

// read reads an lvalue: an atomic object's plain read is a seq_cst load.
func (f *fn) read(lv lang.Expr, atomic bool, at model.Pos) lang.Expr {
	if atomic {
		return &lang.CallExpr{Func: "load", Args: []lang.Expr{lv}, Ords: []lang.Value{{Text: "sc", Pos: at}}, At: at}
	}
	return lv
}

// ident lowers a name read for its value.
func (f *fn) ident(p *cc.PrimaryExpression) (lang.Expr, []lang.Stmt, error) {
	at := f.pos(p)
	name := p.Token.SrcStr()
	if dd, ok := p.ResolvedTo().(*cc.Declarator); ok {
		if v, ok := f.known(dd); ok {
			return &lang.Num{Val: v, At: at}, nil, nil
		}
	}
	if reg, ok := f.locals[name]; ok {
		return &lang.Name{Name: reg, At: at}, nil, nil
	}
	if obj, ok := f.stack[name]; ok {
		switch {
		case obj.array:
			return &lang.Name{Name: obj.reg, At: at}, nil, nil
		case obj.record:
			return nil, nil, f.errAt(p, "struct %s is used as a value: read its fields", name)
		}
		return f.read(&lang.DerefExpr{Ptr: &lang.Name{Name: obj.reg, At: at}, At: at}, obj.atomic, at), nil, nil
	}
	if g, ok := f.l.globalOf(p); ok {
		switch {
		case g.mutex:
			return nil, nil, f.errAt(p, "mutex %s is used as a value: pass &%s to pthread_mutex_lock and unlock", name, name)
		case g.array:
			return &lang.AddrExpr{Of: &lang.IndexExpr{Array: g.name, Index: &lang.Num{At: at}, At: at}, At: at}, nil, nil
		case g.fields != nil:
			return nil, nil, f.errAt(p, "struct %s is used as a value: read its fields", name)
		}
		return f.read(g.object(at), g.atomic, at), nil, nil
	}
	if f.l.funcs[name] != nil || p.Type().Kind() == cc.Function {
		return nil, nil, f.errAt(p, "function pointers are not supported (%s used as a value)", name)
	}
	if isPthread(p.Type()) {
		return nil, nil, f.errAt(p, "thread handles are not supported as values (%s); pass them to pthread_join only", name)
	}
	return nil, nil, f.errAt(p, "%s is not a variable the front end knows", name)
}

// lvalue lowers an expression that names an object, with the statements
// that must run before it (value), and says whether the object is atomic
// (so that a plain access to it is seq_cst).
func (f *fn) lvalue(e cc.ExpressionNode) (lang.Expr, bool, []lang.Stmt, error) {
	at := f.pos(e)
	switch e := e.(type) {
	case *cc.PrimaryExpression:
		switch e.Case {
		case cc.PrimaryExpressionExpr:
			return f.lvalue(e.ExpressionList)
		case cc.PrimaryExpressionIdent:
			name := e.Token.SrcStr()
			if obj, ok := f.stack[name]; ok {
				return &lang.DerefExpr{Ptr: &lang.Name{Name: obj.reg, At: at}, At: at}, obj.atomic, nil, nil
			}
			if _, ok := f.locals[name]; ok {
				return nil, false, nil, f.errAt(e, "local %s is a register: it has no address", name)
			}
			g, ok := f.l.globalOf(e)
			switch {
			case !ok:
				return nil, false, nil, f.errAt(e, "%s is not a variable the front end knows", name)
			case g.array:
				return &lang.IndexExpr{Array: g.name, Index: &lang.Num{At: at}, At: at}, g.atomic, nil, nil
			}
			return g.object(at), g.atomic, nil, nil
		}
	case *cc.ExpressionList:
		if e.ExpressionList == nil {
			return f.lvalue(e.AssignmentExpression)
		}
	case *cc.PostfixExpression:
		switch e.Case {
		case cc.PostfixExpressionIndex:
			if isMember(e) {
				return f.member(e)
			}
			g, flat, pre, ok, err := f.element(e)
			switch {
			case err != nil:
				return nil, false, nil, err
			case ok:
				return &lang.IndexExpr{Array: g.name, Index: flat, At: at}, g.atomic, pre, nil
			}
			ptr, pre, err := f.value(e.PostfixExpression)
			if err != nil {
				return nil, false, nil, err
			}
			idx, pre2, err := f.value(e.ExpressionList)
			if err != nil {
				return nil, false, nil, err
			}
			return &lang.DerefExpr{Ptr: &lang.BinExpr{Op: "+", X: ptr, Y: scale(idx, e.PostfixExpression.Type(), at), At: at}, At: at}, atomicType(e.Type()), append(pre, pre2...), nil
		case cc.PostfixExpressionSelect, cc.PostfixExpressionPSelect:
			return f.member(e)
		}
	case *cc.UnaryExpression:
		if e.Case == cc.UnaryExpressionDeref {
			ptr, pre, err := f.value(e.CastExpression)
			if err != nil {
				return nil, false, nil, err
			}
			return &lang.DerefExpr{Ptr: ptr, At: at}, atomicType(e.Type()), pre, nil
		}
	case *cc.CastExpression:
		if e.Case == cc.CastExpressionCast {
			return f.lvalue(e.CastExpression)
		}
	}
	return nil, false, nil, f.errAt(e, "%s is not an object the front end can access", cc.NodeSource(e))
}

// addressOf lowers &e.
func (f *fn) addressOf(e cc.ExpressionNode) (lang.Expr, []lang.Stmt, error) {
	lv, _, pre, err := f.lvalue(e)
	if err != nil {
		return nil, nil, err
	}
	return &lang.AddrExpr{Of: lv, At: f.pos(e)}, pre, nil
}

// target lowers the object an atomic builtin's pointer argument points
// to: x for &x, *p otherwise.
func (f *fn) target(p cc.ExpressionNode) (lang.Expr, []lang.Stmt, error) {
	if u, ok := stripCasts(p).(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
		lv, _, pre, err := f.lvalue(u.CastExpression)
		return lv, pre, err
	}
	ptr, pre, err := f.value(p)
	if err != nil {
		return nil, nil, err
	}
	return &lang.DerefExpr{Ptr: ptr, At: f.pos(p)}, pre, nil
}

func stripCasts(e cc.ExpressionNode) cc.ExpressionNode {
	for {
		switch x := e.(type) {
		case *cc.CastExpression:
			if x.Case != cc.CastExpressionCast {
				return e
			}
			e = x.CastExpression
		case *cc.PrimaryExpression:
			if x.Case != cc.PrimaryExpressionExpr {
				return e
			}
			e = x.ExpressionList
		case *cc.ExpressionList:
			if x.ExpressionList != nil {
				return e
			}
			e = x.AssignmentExpression
		default:
			return e
		}
	}
}

// argList lists a call's arguments.
func argList(c *cc.PostfixExpression) []cc.ExpressionNode {
	var out []cc.ExpressionNode
	for l := c.ArgumentExpressionList; l != nil; l = l.ArgumentExpressionList {
		out = append(out, l.AssignmentExpression)
	}
	return out
}

// fold evaluates an expression of constants (an unrolled loop's variable
// is one): t[i - 1] names a thread as t[2] does, and "if (i == 0)" keeps
// one arm.
func fold(e lang.Expr) (int64, bool) {
	switch e := e.(type) {
	case *lang.Num:
		return e.Val, true
	case *lang.UnExpr:
		x, ok := fold(e.X)
		switch {
		case e.Op == "-":
			return -x, ok
		case e.Op == "!" && x == 0:
			return 1, ok
		case e.Op == "!":
			return 0, ok
		}
	case *lang.BinExpr:
		x, okx := fold(e.X)
		y, oky := fold(e.Y)
		if okx && oky {
			v, err := lang.FoldBin(e, x, y)
			return v, err == nil
		}
	}
	return 0, false
}
