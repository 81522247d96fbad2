package c

import (
	"slices"
	"strconv"
	"strings"

	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

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
		if e, prop, text, ok, err := f.messageAssert(args[0]); ok || err != nil {
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

// messageAssert reads an assert with a message, assert(e && "message"),
// into e, the property it checks and the message; ok is false for any
// other assert. A message "NAME: text" checks the program's own property
// NAME (a property comment declares it); any other message checks
// property assertion. A message that starts like a property name the
// program does not declare, in a program that declares some, is an error:
// a misspelt name would leave its property unchecked.
func (f *fn) messageAssert(x cc.ExpressionNode) (e cc.ExpressionNode, prop, msg string, ok bool, err error) {
	and, isAnd := stripCasts(x).(*cc.LogicalAndExpression)
	if !isAnd || and.Case != cc.LogicalAndExpressionLAnd {
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
	name, rest, found := strings.Cut(text, ":")
	if !found || !variantRE.MatchString(name) || len(f.l.props) == 0 {
		f.l.asserts = true
		return and.LogicalAndExpression, PropAssertion, text, true, nil
	}
	var names []string
	for _, p := range f.l.props {
		if p.Name == name {
			return and.LogicalAndExpression, name, strings.TrimSpace(rest), true, nil
		}
		names = append(names, p.Name)
	}
	return nil, "", "", false, f.errAt(str, "this assert names property %s, which no property comment declares%s", name, model.DidYouMean(name, names))
}
