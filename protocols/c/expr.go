package c

import (
	"slices"
	"strconv"
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

// rmwBuiltins are the read-modify-writes of GCC's __atomic and __sync
// builtins, as the protocol language names them.
var rmwBuiltins = map[string]string{
	"__atomic_exchange_n": "xchg", "__atomic_fetch_add": "fetch_add", "__atomic_fetch_sub": "fetch_sub",
	"__atomic_fetch_or": "fetch_or", "__atomic_fetch_and": "fetch_and", "__atomic_fetch_xor": "fetch_xor",
	"__sync_fetch_and_add": "fetch_add", "__sync_fetch_and_sub": "fetch_sub", "__sync_fetch_and_or": "fetch_or",
	"__sync_fetch_and_and": "fetch_and", "__sync_fetch_and_xor": "fetch_xor", "__sync_lock_test_and_set": "xchg",
}

// call lowers a call read for its value.
func (f *fn) call(c *cc.PostfixExpression) (lang.Expr, []lang.Stmt, error) {
	at := f.pos(c)
	name := calleeName(c)
	args := argList(c)
	if name == "" {
		return nil, nil, f.errAt(c, "function pointers are not supported")
	}
	if err := f.arity(c, name, args); err != nil {
		return nil, nil, err
	}
	sc := []lang.Value{{Text: "sc", Pos: at}}
	switch name {
	case "__atomic_load_n":
		x, pre, err := f.target(args[0])
		if err != nil {
			return nil, nil, err
		}
		o, err := f.l.ordering(args[1], 0, 1)
		return &lang.CallExpr{Func: "load", Args: []lang.Expr{x}, Ords: []lang.Value{o}, At: at}, pre, err
	case "__atomic_compare_exchange_n", "__sync_bool_compare_and_swap":
		return f.cas(c, name, args)
	case "__VERIFIER_nondet_bool":
		return &lang.CallExpr{Func: "choose", Args: []lang.Expr{&lang.Num{Val: 2, At: at}}, At: at}, nil, nil
	case "__builtin_expect":
		// A branch-prediction hint: the value of its first argument.
		return f.value(args[0])
	case "malloc":
		return f.malloc(c, args[0])
	case "__VERIFIER_hp_alloc":
		// A hazard pointer is a handle, 1 to Hazards, to one of the
		// running thread's hazard pointers (lang.HazardStmt).
		f.l.pr.Hazards++
		return &lang.Num{Val: int64(f.l.pr.Hazards), At: at}, nil, nil
	case "__VERIFIER_hp_protect":
		return f.protect(c, args)
	case "pthread_create":
		pre, err := f.create(c, args)
		return &lang.Num{At: at}, pre, err
	case "pthread_join":
		pre, err := f.joinStmt(c, args)
		return &lang.Num{At: at}, pre, err
	case "pthread_barrier_init", "pthread_barrier_destroy":
		pre, err := f.barrierStmt(c, name, args)
		return &lang.Num{At: at}, pre, err
	}
	if rmw, ok := rmwBuiltins[name]; ok {
		x, pre, err := f.target(args[0])
		if err != nil {
			return nil, nil, err
		}
		v, pre2, err := f.value(args[1])
		if err != nil {
			return nil, nil, err
		}
		pre = append(pre, pre2...)
		ords := sc
		if strings.HasPrefix(name, "__atomic") {
			o, err := f.l.ordering(args[2], 0, 1)
			if err != nil {
				return nil, nil, err
			}
			ords = []lang.Value{o}
		}
		return &lang.CallExpr{Func: rmw, Args: []lang.Expr{x, v}, Ords: ords, At: at}, pre, nil
	}
	if name == "pthread_barrier_wait" {
		return nil, nil, f.errAt(c, "the result of pthread_barrier_wait (PTHREAD_BARRIER_SERIAL_THREAD for one thread) is not supported: call it as a statement")
	}
	if stmtBuiltins[name] {
		return nil, nil, f.errAt(c, "%s has no value to use here", name)
	}
	if f.l.funcs[name] == nil {
		return nil, nil, f.errAt(c, "%s is neither defined in this file nor a function the front end knows (docs/c.md lists them)", name)
	}
	if err := f.l.proc(name, c); err != nil {
		return nil, nil, err
	}
	call := &lang.CallExpr{Func: procName(name), At: at}
	var pre []lang.Stmt
	for _, a := range args {
		v, p, err := f.value(a)
		if err != nil {
			return nil, nil, err
		}
		call.Args, pre = append(call.Args, v), append(pre, p...)
	}
	if !f.l.exiting[name] {
		return call, pre, nil
	}
	// A call that may end the thread: its value first, then a return if
	// it did.
	if f.main {
		return nil, nil, f.errAt(c, "%s may call pthread_exit, which main may not", name)
	}
	v := &lang.Name{Name: f.temp(c), At: at}
	back := &lang.IfStmt{Cond: f.l.exitedFlag(at), Then: &lang.Block{Stmts: []lang.Stmt{&lang.ReturnStmt{Vals: []lang.Expr{&lang.Num{At: at}}, At: at}}, Pos: at}, At: at}
	return v, append(pre, &lang.AssignStmt{LHS: v, RHS: call, At: at}, back), nil
}

// exitedFlag is the running thread's element of the flag that says a
// function it called ended it by pthread_exit.
func (l *lowerer) exitedFlag(at model.Pos) lang.Expr {
	if l.exited == nil {
		l.exited = &lang.Shared{Name: "pthread_exit'", Pos: at}
	}
	return &lang.IndexExpr{Array: l.exited.Name, Index: &lang.Name{Name: lang.ThreadIndex, At: at}, At: at}
}

// arities are the argument counts of the builtins.
var arities = map[string]int{
	"__atomic_load_n": 2, "__atomic_store_n": 3, "__atomic_exchange_n": 3, "__atomic_compare_exchange_n": 6,
	"__atomic_fetch_add": 3, "__atomic_fetch_sub": 3, "__atomic_fetch_or": 3, "__atomic_fetch_and": 3, "__atomic_fetch_xor": 3,
	"__atomic_thread_fence": 1, "__atomic_signal_fence": 1, "__sync_synchronize": 0,
	"__sync_fetch_and_add": 2, "__sync_fetch_and_sub": 2, "__sync_fetch_and_or": 2, "__sync_fetch_and_and": 2,
	"__sync_fetch_and_xor": 2, "__sync_lock_test_and_set": 2, "__sync_bool_compare_and_swap": 3,
	"__ordercheck_assert": 2, "__VERIFIER_assert": 1, "__VERIFIER_assume": 1, "__VERIFIER_error": 0,
	"__VERIFIER_nondet_bool": 0, "__builtin_expect": 2, "abort": 0, "malloc": 1, "free": 1,
	"pthread_create": 4, "pthread_join": 2, "pthread_mutex_lock": 1, "pthread_mutex_unlock": 1,
	"pthread_mutex_destroy": 1, "pthread_mutex_init": 2, "pthread_exit": 1,
	"pthread_barrier_init": 3, "pthread_barrier_wait": 1, "pthread_barrier_destroy": 1,
	"__VERIFIER_hp_alloc": 0, "__VERIFIER_hp_protect": 2, "__VERIFIER_hp_clear": 1, "__VERIFIER_hp_free": 1,
	"__VERIFIER_hp_retire": 1,
}

// stmtBuiltins are the builtins called for their effect only.
var stmtBuiltins = map[string]bool{
	"__atomic_store_n": true, "__atomic_thread_fence": true, "__atomic_signal_fence": true, "__sync_synchronize": true,
	"__ordercheck_assert": true, "__VERIFIER_assert": true, "__VERIFIER_assume": true, "__VERIFIER_error": true,
	"abort": true, "free": true, "pthread_mutex_lock": true, "pthread_mutex_unlock": true,
	"pthread_mutex_destroy": true, "pthread_mutex_init": true, "pthread_exit": true, "printf": true, "fprintf": true, "puts": true,
	"pthread_barrier_init": true, "pthread_barrier_wait": true, "pthread_barrier_destroy": true,
	"__VERIFIER_hp_clear": true, "__VERIFIER_hp_free": true, "__VERIFIER_hp_retire": true,
}

// arity checks a builtin's argument count (cc does not, for undeclared
// builtins).
func (f *fn) arity(c *cc.PostfixExpression, name string, args []cc.ExpressionNode) error {
	if n, ok := arities[name]; ok && len(args) != n {
		return f.errAt(c, "%s takes %d arguments, not %d", name, n, len(args))
	}
	return nil
}

// stmtExpr lowers GCC's statement expression ({ s; ...; e; }), which
// kernel-style macros use: its statements first, then the value of its
// last, an expression (none, 0, when it is no expression).
func (f *fn) stmtExpr(e *cc.PrimaryExpression) (lang.Expr, []lang.Stmt, error) {
	at := f.pos(e)
	var pre []lang.Stmt
	for list := e.CompoundStatement.BlockItemList; list != nil; list = list.BlockItemList {
		it := list.BlockItem
		if st := it.Statement; list.BlockItemList == nil && it.Case == cc.BlockItemStmt && st.Case == cc.StatementExpr && st.ExpressionStatement.ExpressionList != nil {
			v, p, err := f.value(st.ExpressionStatement.ExpressionList)
			return v, append(pre, p...), err
		}
		stmts, err := f.blockItem(it)
		if err != nil {
			return nil, nil, err
		}
		pre = append(pre, stmts...)
	}
	return &lang.Num{At: at}, pre, nil
}

// protect lowers GenMC's __VERIFIER_hp_protect(hp, p): an acquire load of
// *p, which hazard pointer hp then holds, and the load's value.
func (f *fn) protect(c *cc.PostfixExpression, args []cc.ExpressionNode) (lang.Expr, []lang.Stmt, error) {
	at := f.pos(c)
	h, pre, err := f.value(args[0])
	if err != nil {
		return nil, nil, err
	}
	x, pre2, err := f.target(args[1])
	if err != nil {
		return nil, nil, err
	}
	v := &lang.Name{Name: f.temp(c), At: at}
	load := &lang.CallExpr{Func: "load", Args: []lang.Expr{x}, Ords: []lang.Value{{Text: "acq", Pos: at}}, At: at}
	pre = append(append(pre, pre2...),
		&lang.AssignStmt{LHS: v, RHS: load, At: at},
		&lang.HazardStmt{Handle: h, Ptr: v, At: at})
	return v, pre, nil
}

// cas lowers a compare-exchange. C's writes the value it read back to
// its expected value, which must be a local (a register) here.
func (f *fn) cas(c *cc.PostfixExpression, name string, args []cc.ExpressionNode) (lang.Expr, []lang.Stmt, error) {
	at := f.pos(c)
	x, pre, err := f.target(args[0])
	if err != nil {
		return nil, nil, err
	}
	v, pre1, err := f.value(args[2])
	if err != nil {
		return nil, nil, err
	}
	pre = append(pre, pre1...)
	if name == "__sync_bool_compare_and_swap" {
		exp, pre2, err := f.value(args[1])
		if err != nil {
			return nil, nil, err
		}
		sc := lang.Value{Text: "sc", Pos: at}
		return &lang.CallExpr{Func: "cas", Args: []lang.Expr{x, exp, v}, Ords: []lang.Value{sc, sc}, At: at}, append(pre2, pre...), nil
	}
	u, ok := stripCasts(args[1]).(*cc.UnaryExpression)
	var reg string
	if ok && u.Case == cc.UnaryExpressionAddrof {
		if p, ok := stripCasts(u.CastExpression).(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
			reg = f.locals[p.Token.SrcStr()]
		}
	}
	if reg == "" {
		return nil, nil, f.errAt(args[1], "a compare-exchange's expected value must be the address of a local variable")
	}
	weak, ok := intValue(args[3])
	if !ok {
		return nil, nil, f.errAt(args[3], "a compare-exchange's weak flag must be a constant")
	}
	so, err := f.l.ordering(args[4], 0, 2)
	if err != nil {
		return nil, nil, err
	}
	fo, err := f.l.ordering(args[5], 1, 2)
	if err != nil {
		return nil, nil, err
	}
	if fo.Text == "rel" || fo.Text == "acq_rel" {
		// A failure may not release (C11 7.17.7.4); compilers take
		// the strongest failure ordering the success ordering allows
		// instead (clang's lowering to LLVM's cmpxchg), and so does
		// ordercheck.
		fo.Text = map[string]string{"rlx": "rlx", "con": "acq", "acq": "acq", "rel": "rlx", "acq_rel": "acq", "sc": "sc"}[so.Text]
	}
	fn := "cas"
	if weak != 0 {
		fn = "cas_weak"
	}
	return &lang.CallExpr{Func: fn, Args: []lang.Expr{x, &lang.Name{Name: reg, At: at}, v}, Ords: []lang.Value{so, fo}, Old: reg, At: at}, pre, nil
}

// malloc lowers malloc(sizeof(T)) to an allocation of a struct's fields
// or of one cell, and malloc(n * sizeof(T)) to n cells (of T's fields).
func (f *fn) malloc(c *cc.PostfixExpression, size cc.ExpressionNode) (lang.Expr, []lang.Stmt, error) {
	at := f.pos(c)
	n := int64(1)
	sz := stripCasts(size)
	if m, ok := sz.(*cc.MultiplicativeExpression); ok && m.Token.SrcStr() == "*" {
		k, ok := intValue(m.MultiplicativeExpression)
		if !ok {
			return nil, nil, f.errAt(size, "malloc's size must be sizeof(T) or a constant times sizeof(T)")
		}
		n, sz = k, stripCasts(m.CastExpression)
	}
	u, ok := sz.(*cc.UnaryExpression)
	if !ok || u.Case != cc.UnaryExpressionSizeofType && u.Case != cc.UnaryExpressionSizeofExpr {
		return nil, nil, f.errAt(size, "malloc's size must be sizeof(T) or a constant times sizeof(T)")
	}
	var t cc.Type
	if u.Case == cc.UnaryExpressionSizeofType {
		t = u.TypeName.Type()
	} else {
		t = u.UnaryExpression.Type()
	}
	if st, ok := t.(*cc.StructType); ok && n == 1 {
		name, err := f.l.heapType(st, u)
		if err != nil {
			return nil, nil, err
		}
		return &lang.CallExpr{Func: "alloc", Args: []lang.Expr{&lang.Name{Name: name, At: at}}, At: at}, nil, nil
	}
	return &lang.CallExpr{Func: "alloc", Args: []lang.Expr{&lang.Num{Val: n * locsOf(t), At: at}}, At: at}, nil, nil
}

// heapType declares a struct allocated on the heap, once.
func (l *lowerer) heapType(st *cc.StructType, at cc.Node) (string, error) {
	tag := st.Tag()
	name := tag.SrcStr()
	if name == "" {
		if td := st.Typedef(); td != nil {
			name = td.Name()
		}
	}
	if name == "" {
		return "", l.errAt(at, "allocation of an unnamed struct is not supported: give it a tag")
	}
	// C's tags are not its variables' names: a struct called as a global
	// is primed.
	for l.shared(name) {
		name += "'"
	}
	for _, t := range l.pr.Types {
		if t.Name == name {
			return name, nil
		}
	}
	fs, err := l.structFields(st, "struct "+name, at)
	if err != nil {
		return "", err
	}
	l.pr.Types = append(l.pr.Types, &lang.Shared{Name: name, Pos: l.pos(at), Fields: fs})
	return name, nil
}

// shared reports whether a shared variable or mutex is called name.
func (l *lowerer) shared(name string) bool {
	for _, sh := range slices.Concat(l.pr.Shared, l.pr.Mutexes) {
		if sh.Name == name {
			return true
		}
	}
	return false
}

// callStmt lowers a call evaluated for its effect.
func (f *fn) callStmt(c *cc.PostfixExpression) ([]lang.Stmt, error) {
	at := f.pos(c)
	name := calleeName(c)
	args := argList(c)
	if err := f.arity(c, name, args); err != nil {
		return nil, err
	}
	switch name {
	case "__atomic_store_n":
		x, pre, err := f.target(args[0])
		if err != nil {
			return nil, err
		}
		v, pre2, err := f.value(args[1])
		if err != nil {
			return nil, err
		}
		pre = append(pre, pre2...)
		o, err := f.l.ordering(args[2], 0, 1)
		return append(pre, &lang.MemStmt{Kind: "store", Args: []lang.Expr{x, v}, Ord: &o, At: at}), err
	case "__atomic_thread_fence":
		o, err := f.l.ordering(args[0], 0, 1)
		return []lang.Stmt{&lang.MemStmt{Kind: "fence", Ord: &o, At: at}}, err
	case "__sync_synchronize":
		return []lang.Stmt{&lang.MemStmt{Kind: "fence", Ord: &lang.Value{Text: "sc", Pos: at}, At: at}}, nil
	case "pthread_exit":
		// The thread's end: a return from its start routine, when no
		// code calls that function as a function; from a function some
		// code calls, a return that sets the thread's exited flag, which
		// each caller tests after the call to return in turn (each
		// return frees its function's frame).
		fn := f.def.Declarator.Name()
		if f.main {
			return nil, f.errAt(c, "pthread_exit in main is not supported (the threads it started would go on)")
		}
		if v, ok := intValue(args[0]); !ok || v != 0 {
			return nil, f.errAt(args[0], "a thread's result is not supported: pass NULL")
		}
		ret := &lang.ReturnStmt{Vals: []lang.Expr{&lang.Num{At: at}}, At: at}
		if f.l.starts[fn] && !f.l.called[fn] {
			return []lang.Stmt{ret}, nil
		}
		set := &lang.AssignStmt{LHS: f.l.exitedFlag(at), RHS: &lang.Num{Val: 1, At: at}, At: at}
		return []lang.Stmt{set, ret}, nil
	case "__atomic_signal_fence", "printf", "fprintf", "puts":
		// A signal fence orders nothing between threads; output has no
		// effect on memory.
		return nil, nil
	case "__ordercheck_assert", "__VERIFIER_assert":
		if e, prop, text, ok, err := f.namedAssert(args[0]); ok || err != nil {
			if err != nil {
				return nil, err
			}
			cond, pre, err := f.value(e)
			return append(pre, &lang.AssertStmt{Prop: prop, Cond: cond, Msg: text, At: at}), err
		}
		cond, pre, err := f.value(args[0])
		if err != nil {
			return nil, err
		}
		msg := "assert(" + cc.NodeSource(args[0]) + ")"
		if len(args) == 2 {
			if p, ok := args[1].(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionString {
				if s, err := strconv.Unquote(p.Token.SrcStr()); err == nil {
					msg = "assert(" + s + ")"
				}
			}
		}
		f.l.asserts = true
		return append(pre, &lang.AssertStmt{Prop: PropAssertion, Cond: cond, Msg: msg + " fails", At: at}), nil
	case "abort", "__VERIFIER_error":
		f.l.asserts = true
		return []lang.Stmt{&lang.AssertStmt{Prop: PropAssertion, Cond: &lang.Num{At: at}, Msg: name + "() is called", At: at}}, nil
	case "__VERIFIER_assume":
		cond, pre, err := f.value(args[0])
		return append(pre, &lang.AssumeStmt{Cond: cond, At: at}), err
	case "pthread_create":
		return f.create(c, args)
	case "pthread_join":
		return f.joinStmt(c, args)
	case "pthread_mutex_lock", "pthread_mutex_unlock", "pthread_mutex_destroy", "pthread_mutex_init":
		m, err := f.mutex(args[0])
		if err != nil || name == "pthread_mutex_init" {
			return nil, err
		}
		kind := strings.TrimPrefix(name, "pthread_mutex_")
		return []lang.Stmt{&lang.MemStmt{Kind: kind, Args: []lang.Expr{m}, At: at}}, nil
	case "free", "__VERIFIER_hp_retire":
		p, pre, err := f.value(args[0])
		kind := "free"
		if name == "__VERIFIER_hp_retire" {
			kind = "retire"
		}
		return append(pre, &lang.MemStmt{Kind: kind, Args: []lang.Expr{p}, At: at}), err
	case "__VERIFIER_hp_clear", "__VERIFIER_hp_free":
		h, pre, err := f.value(args[0])
		return append(pre, &lang.HazardStmt{Handle: h, At: at}), err
	case "pthread_barrier_init", "pthread_barrier_wait", "pthread_barrier_destroy":
		return f.barrierStmt(c, name, args)
	}
	v, pre, err := f.call(c)
	if err != nil {
		return nil, err
	}
	return append(pre, &lang.ExprStmt{X: v, At: at}), nil
}

// namedAssert reads an assert of one of the program's own properties,
// assert(e && "NAME: message"), into e, the property and the message;
// ok is false for any other assert. A message that starts like a
// property name the program does not declare, in a program that declares
// some, is an error: a misspelt name would leave its property unchecked.
func (f *fn) namedAssert(x cc.ExpressionNode) (e cc.ExpressionNode, prop, msg string, ok bool, err error) {
	and, isAnd := stripCasts(x).(*cc.LogicalAndExpression)
	if !isAnd || and.Case != cc.LogicalAndExpressionLAnd || len(f.l.props) == 0 {
		return nil, "", "", false, nil
	}
	str, isStr := stripCasts(and.InclusiveOrExpression).(*cc.PrimaryExpression)
	if !isStr || str.Case != cc.PrimaryExpressionString {
		return nil, "", "", false, nil
	}
	text, err := strconv.Unquote(str.Token.SrcStr())
	if err != nil {
		return nil, "", "", false, nil
	}
	name, msg, found := strings.Cut(text, ":")
	if !found || !variantRE.MatchString(name) {
		return nil, "", "", false, nil
	}
	var names []string
	for _, p := range f.l.props {
		if p.Name == name {
			return and.LogicalAndExpression, name, strings.TrimSpace(msg), true, nil
		}
		names = append(names, p.Name)
	}
	return nil, "", "", false, f.errAt(str, "this assert names property %s, which no property comment declares%s", name, model.DidYouMean(name, names))
}

// mutex resolves &m to the global mutex m.
func (f *fn) mutex(e cc.ExpressionNode) (lang.Expr, error) {
	if u, ok := stripCasts(e).(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
		if p, ok := stripCasts(u.CastExpression).(*cc.PrimaryExpression); ok {
			if g, ok := f.l.globalOf(p); ok && g.mutex {
				return &lang.Name{Name: g.name, At: f.pos(p)}, nil
			}
		}
	}
	return nil, f.errAt(e, "a mutex must be a global pthread_mutex_t passed as &m")
}

// threadKey names the pthread_t a create stores or a join reads: t, or
// t[k] for a constant k; a local of a function other than main is
// qualified by the function's name (f.t).
func (f *fn) threadKey(e cc.ExpressionNode) (string, error) {
	switch x := stripCasts(e).(type) {
	case *cc.PrimaryExpression:
		if x.Case == cc.PrimaryExpressionIdent {
			key := x.Token.SrcStr()
			if d, ok := x.ResolvedTo().(*cc.Declarator); ok && !f.main && d.StorageDuration() != cc.Static {
				key = f.def.Declarator.Name() + "." + key
			}
			return key, nil
		}
	case *cc.PostfixExpression:
		if x.Case == cc.PostfixExpressionIndex {
			base, err := f.threadKey(x.PostfixExpression)
			if err != nil {
				return "", err
			}
			v, pre, err := f.value(x.ExpressionList)
			if n, ok := fold(v); ok && err == nil && len(pre) == 0 {
				return base + "[" + strconv.FormatInt(n, 10) + "]", nil
			}
		}
	}
	return "", f.errAt(e, "a thread handle must be a variable or an array element at a constant index")
}

// handleKey names the pthread_t that pthread_create's first argument
// points to: &t, &t[i], or t + i for an array t.
func (f *fn) handleKey(e cc.ExpressionNode) (string, error) {
	switch x := stripCasts(e).(type) {
	case *cc.UnaryExpression:
		if x.Case == cc.UnaryExpressionAddrof {
			return f.threadKey(x.CastExpression)
		}
	case *cc.AdditiveExpression:
		if x.Case == cc.AdditiveExpressionAdd {
			base, err := f.threadKey(x.AdditiveExpression)
			if err != nil {
				return "", err
			}
			v, pre, err := f.value(x.MultiplicativeExpression)
			if n, ok := fold(v); ok && err == nil && len(pre) == 0 {
				return base + "[" + strconv.FormatInt(n, 10) + "]", nil
			}
		}
	case *cc.PrimaryExpression:
		if d, ok := x.ResolvedTo().(*cc.Declarator); ok && x.Case == cc.PrimaryExpressionIdent && d.Type().Kind() == cc.Array {
			key, err := f.threadKey(x)
			return key + "[0]", err
		}
	}
	return "", f.errAt(e, "pthread_create's handle must be &t, &t[i] or t + i")
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

// startsOnce refuses pthread_create and pthread_join (verb: started,
// joined) outside main and the functions that run once.
func (f *fn) startsOnce(c *cc.PostfixExpression, verb string) error {
	if f.main || f.l.once[f.def.Declarator.Name()] {
		return nil
	}
	return f.errAt(c, "threads are %s in main or in a function that runs once (started or called at one place, outside loops, by main or such a function), so that each thread is known and starts once: %s runs more often", verb, f.def.Declarator.Name())
}

// create lowers pthread_create(&t, attr, start, arg) in main or a
// function that runs once: a spawn of a thread that runs start(arg).
func (f *fn) create(c *cc.PostfixExpression, args []cc.ExpressionNode) ([]lang.Stmt, error) {
	if err := f.startsOnce(c, "started"); err != nil {
		return nil, err
	}
	if f.loops > 0 {
		return nil, f.errAt(c, "pthread_create in a loop: the loop must count over constants (for (i = A; i < B; i++)) so that each thread is known")
	}
	key, err := f.handleKey(args[0])
	if err != nil {
		return nil, err
	}
	if v, ok := intValue(args[1]); !ok || v != 0 {
		return nil, f.errAt(args[1], "thread attributes are not supported: pass NULL")
	}
	start := stripCasts(args[2])
	if u, ok := start.(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
		start = stripCasts(u.CastExpression)
	}
	p, ok := start.(*cc.PrimaryExpression)
	if !ok || p.Case != cc.PrimaryExpressionIdent {
		return nil, f.errAt(args[2], "the start routine must be a function named here")
	}
	arg, pre, err := f.value(args[3])
	if err != nil {
		return nil, err
	}
	if len(pre) > 0 || readsRegister(arg, f.locals) {
		return nil, f.errAt(args[3], "a thread's argument must be a constant, a counted loop's variable or a global's address")
	}
	thread, err := f.l.threadFor(p.Token.SrcStr(), arg, c)
	if err != nil {
		return nil, err
	}
	f.l.joins[key] = thread
	return []lang.Stmt{&lang.SpawnStmt{Thread: thread, At: f.pos(c)}}, nil
}

// joinStmt lowers pthread_join(t, NULL) in main or a function that runs
// once: a wait for the thread's done flag (a release store at its end
// read by an acquire load, as a join synchronises).
func (f *fn) joinStmt(c *cc.PostfixExpression, args []cc.ExpressionNode) ([]lang.Stmt, error) {
	if err := f.startsOnce(c, "joined"); err != nil {
		return nil, err
	}
	if f.loops > 0 {
		return nil, f.errAt(c, "pthread_join in a loop: the loop must count over constants (for (i = A; i < B; i++))")
	}
	key, err := f.threadKey(args[0])
	if err != nil {
		return nil, err
	}
	thread, ok := f.l.joins[key]
	if !ok {
		return nil, f.errAt(args[0], "pthread_join of %s, which no pthread_create before it started", key)
	}
	if v, ok := intValue(args[1]); !ok || v != 0 {
		return nil, f.errAt(args[1], "a thread's result is not supported: pass NULL")
	}
	at := f.pos(c)
	flag := f.l.join(thread, at)
	load := &lang.CallExpr{Func: "load", Args: []lang.Expr{&lang.Name{Name: flag, At: at}}, Ords: []lang.Value{{Text: "acq", Pos: at, Fixed: true}}, At: at}
	return []lang.Stmt{&lang.AssumeStmt{Cond: &lang.BinExpr{Op: "==", X: load, Y: &lang.Num{Val: 1, At: at}, At: at}, Await: true, At: at}}, nil
}

// readsRegister reports whether e reads one of the locals' registers.
func readsRegister(e lang.Expr, locals map[string]string) bool {
	found := false
	var visit func(e lang.Expr)
	visit = func(e lang.Expr) {
		switch e := e.(type) {
		case *lang.Name:
			for _, r := range locals {
				found = found || r == e.Name
			}
		case *lang.BinExpr:
			visit(e.X)
			visit(e.Y)
		case *lang.UnExpr:
			visit(e.X)
		case *lang.CondExpr:
			visit(e.Cond)
			visit(e.Then)
			visit(e.Else)
		case *lang.CallExpr:
			found = true
		case *lang.DerefExpr:
			found = true
		}
	}
	visit(e)
	return found
}
