package c

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"modernc.org/cc/v4"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// PropAssertion is the property of a C program's assert calls (and of
// abort and __VERIFIER_error, which always fail it).
const PropAssertion = "assertion"

// lowerer builds a protocol from a translation unit.
type lowerer struct {
	file, abs string
	src       []byte
	opt       Options
	pr        *lang.Protocol
	globals   map[*cc.Declarator]*global
	funcs     map[string]*cc.FunctionDefinition
	procs     map[string]bool   // functions lowered as procedures
	lowering  map[string]bool   // procedures being lowered (recursion)
	threads   map[string]int    // threads started per start routine
	joins     map[string]string // a pthread_t's lvalue text → the thread it holds
	handles   map[any]string    // pthread_t variables by name (handleName)
	asserts   bool              // an assert checks property assertion
	// props are the program's own properties, from its property
	// comments: an assert whose message starts "NAME:" checks one.
	props []*lang.Prop
	// starts are the start routines pthread_create names, called the
	// functions some code calls directly.
	starts, called map[string]bool
	// barrierGlobals are the barriers, in the order of their declarations.
	barrierGlobals []*global
	// roots are each thread's root function: main's, a start routine.
	roots map[string]string
	// mainOnly are the scalar globals only main writes (known.go).
	mainOnly map[*cc.Declarator]bool
	// exiting are the functions that may end their thread by
	// pthread_exit, theirs or a function's they call; exited, when a
	// function some code calls is one, names the thread-local flag that
	// says so, which each call of one then tests (exitStmts).
	exiting map[string]bool
	exited  *lang.Shared
	// once are the functions that run at most once in any execution
	// (findOnce): main, and a function started or called at one place,
	// outside loops, of a function that runs once. Threads are started and
	// joined in them only, so that each thread is known and starts once.
	once map[string]bool
	// externs are the extern declarations of globals, each the same
	// variable as the definition of its name.
	externs []*cc.Declarator
}

// global is a variable with static storage: a shared location, array,
// struct or mutex.
type global struct {
	name   string
	atomic bool // accesses without an explicit atomic are seq_cst
	array  bool
	dims   []int64 // an array's lengths, outermost first (a[2][3]: 2, 3)
	mutex  bool
	// barrier marks a pthread_barrier_t (barrier.go): its count, from
	// pthread_barrier_init, and its waits.
	barrier *barrier
	fields  []lang.Field // a struct's fields, as structFields lays them out
	// tls marks a thread-local variable: an array with one element per
	// thread, which each thread indexes by its number (lang.ThreadIndex).
	tls bool
	sh  *lang.Shared // its declaration in the protocol
}

// scalar reports whether g is one shared location, the same for every
// thread.
func (g *global) scalar() bool {
	return g.fields == nil && !g.array && !g.mutex && !g.tls && g.barrier == nil
}

// object is the lvalue naming a scalar global: its name, or for a
// thread-local one the running thread's element.
func (g *global) object(at model.Pos) lang.Expr {
	if g.tls {
		return &lang.IndexExpr{Array: g.name, Index: &lang.Name{Name: lang.ThreadIndex, At: at}, At: at}
	}
	return &lang.Name{Name: g.name, At: at}
}

// lower builds the protocol of ast: globals become shared variables, main
// a thread and each pthread_create of it a spawned thread; other
// functions become procedures, expanded where they are called.
func lower(file, abs string, src []byte, ast *cc.AST, opt Options, props []*lang.Prop) (*lang.Protocol, error) {
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	l := &lowerer{
		file: file, abs: abs, src: src, opt: opt, props: props,
		pr:       &lang.Protocol{Name: name, Title: file, File: file, Procs: map[string]*lang.Proc{}, Lowered: true, Aborts: true},
		globals:  map[*cc.Declarator]*global{},
		funcs:    map[string]*cc.FunctionDefinition{},
		procs:    map[string]bool{},
		lowering: map[string]bool{},
		threads:  map[string]int{},
		joins:    map[string]string{},
		handles:  map[any]string{},
		starts:   map[string]bool{},
		called:   map[string]bool{},
		roots:    map[string]string{"main": "main"},
	}
	for tu := ast.TranslationUnit; tu != nil; tu = tu.TranslationUnit {
		ed := tu.ExternalDeclaration
		switch ed.Case {
		case cc.ExternalDeclarationFuncDef:
			fd := ed.FunctionDefinition
			if _, ok := fd.Declarator.Type().(*cc.FunctionType); !ok {
				// cc accepts a body after a declarator that is not a
				// function's ("void f {}").
				return nil, l.errAt(fd.Declarator, "%s has a body but no parameter list: write %s(void)", fd.Declarator.Name(), fd.Declarator.Name())
			}
			l.funcs[fd.Declarator.Name()] = fd
		case cc.ExternalDeclarationDecl:
			if err := l.globalDecl(ed.Declaration); err != nil {
				return nil, err
			}
		case cc.ExternalDeclarationAsmStmt:
			return nil, l.errAt(ed, "asm statements are not supported")
		}
	}
	sites := l.callSites()
	for _, s := range sites {
		if s.start {
			l.starts[s.callee] = true
		} else {
			l.called[s.callee] = true
		}
	}
	l.linkExterns()
	l.findExiting(sites)
	l.findOnce(sites)
	main := l.funcs["main"]
	if main == nil {
		return nil, &lang.Error{Pos: model.Pos{File: file, Line: 1, Col: 1}, Msg: "the program has no main function: main is the thread that starts the others"}
	}
	f := l.newFunc(main, true)
	l.findMainOnly(f)
	body, err := f.function(main.CompoundStatement)
	if err != nil {
		return nil, err
	}
	l.pr.Threads = append([]*lang.ThreadDecl{{Name: "main", Body: body, Pos: l.pos(main.Declarator)}}, l.pr.Threads...)
	if l.exited != nil {
		n := len(l.pr.Threads)
		l.exited.Len = &lang.Num{Val: int64(n), At: l.exited.Pos}
		l.pr.Shared = append(l.pr.Shared, l.exited)
	}
	for _, g := range l.globals {
		if g.tls {
			// One copy per thread, each starting at the declared value.
			n := int64(len(l.pr.Threads))
			g.sh.Len = &lang.Num{Val: n, At: g.sh.Pos}
			g.sh.Elems = slices.Repeat([]lang.Expr{g.sh.Init}, int(n))
			g.sh.Init = nil
		}
	}
	if err := l.barriers(); err != nil {
		return nil, err
	}
	if l.asserts {
		l.pr.Props = append(l.pr.Props, &lang.Prop{Name: PropAssertion, Pos: l.pos(main.Declarator)})
	}
	l.pr.Props = append(l.pr.Props, props...)
	for _, p := range []string{"data-race", "deadlock"} {
		l.pr.Props = append(l.pr.Props, &lang.Prop{Name: p, Pos: l.pos(main.Declarator)})
	}
	return l.pr, nil
}

// linkExterns makes each extern declaration of a global name the variable
// the file defines under that name.
func (l *lowerer) linkExterns() {
	for _, ext := range l.externs {
		for d, g := range l.globals {
			if d.Name() == ext.Name() && !d.IsExtern() {
				l.globals[ext] = g
				break
			}
		}
	}
}

// callSite is a call function caller makes of callee (a function of the
// file, or one the front end knows), or a pthread_create there that
// names callee as the start routine.
type callSite struct {
	caller, callee string
	start          bool // a pthread_create's start routine
	inLoop         bool // inside a loop of caller (do B while (0) is none)
}

// callSites lists the call sites of every function of the file.
func (l *lowerer) callSites() []callSite {
	var out []callSite
	for name, fd := range l.funcs {
		var visit func(n cc.Node, loops int)
		visit = func(n cc.Node, loops int) {
			switch n := n.(type) {
			case *cc.IterationStatement:
				if !onceRound(n) {
					loops++
				}
			case *cc.PostfixExpression:
				if n.Case == cc.PostfixExpressionCall {
					callee := calleeName(n)
					out = append(out, callSite{caller: name, callee: callee, inLoop: loops > 0})
					if args := argList(n); callee == "pthread_create" && len(args) == 4 {
						if p := startRoutine(args[2]); p != nil {
							out = append(out, callSite{caller: name, callee: p.Token.SrcStr(), start: true, inLoop: loops > 0})
						}
					}
				}
			}
			walkShallow(n, func(c cc.Node) { visit(c, loops) })
		}
		visit(fd.CompoundStatement, 0)
	}
	return out
}

// findExiting finds the functions that may end their thread by
// pthread_exit: those that call it, then those that call one of them.
func (l *lowerer) findExiting(sites []callSite) {
	l.exiting = map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, s := range sites {
			if !s.start && !l.exiting[s.caller] && (s.callee == "pthread_exit" || l.exiting[s.callee]) {
				l.exiting[s.caller], changed = true, true
			}
		}
	}
}

// findOnce finds the functions that run at most once: main, and a
// function with one call site (a call, or a pthread_create naming it as
// the start routine) outside loops, in a function that runs once.
func (l *lowerer) findOnce(sites []callSite) {
	of := map[string][]callSite{}
	for _, s := range sites {
		if l.funcs[s.callee] != nil {
			of[s.callee] = append(of[s.callee], s)
		}
	}
	l.once = map[string]bool{"main": true}
	for changed := true; changed; {
		changed = false
		for name, ss := range of {
			if !l.once[name] && name != "main" && len(ss) == 1 && !ss[0].inLoop && l.once[ss[0].caller] {
				l.once[name], changed = true, true
			}
		}
	}
}

// startRoutine is the function pthread_create's third argument names
// (f or &f, cast or not), or nil.
func startRoutine(e cc.ExpressionNode) *cc.PrimaryExpression {
	start := stripCasts(e)
	if u, ok := start.(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
		start = stripCasts(u.CastExpression)
	}
	if p, ok := start.(*cc.PrimaryExpression); ok && p.Case == cc.PrimaryExpressionIdent {
		return p
	}
	return nil
}

// onceRound reports whether s is the macro idiom do B while (0), whose
// body runs once.
func onceRound(s *cc.IterationStatement) bool {
	return s.Case == cc.IterationStatementDo && isZero(s.ExpressionList) && s.ExpressionList.Pure() && !jumpsOut(s.Statement)
}

func (l *lowerer) pos(n cc.Node) model.Pos {
	if n == nil {
		return model.Pos{File: l.file, Line: 1, Col: 1}
	}
	p := n.Position()
	f := p.Filename
	if f == l.abs || f == "" {
		f = l.file
	}
	return model.Pos{File: f, Line: p.Line, Col: p.Column}
}

func (l *lowerer) errAt(n cc.Node, format string, args ...any) error {
	return &lang.Error{Pos: l.pos(n), Msg: fmt.Sprintf(format, args...)}
}

// globalDecl declares the variables of a file-scope declaration.
func (l *lowerer) globalDecl(d *cc.Declaration) error {
	if d.Case != cc.DeclarationDecl {
		return nil
	}
	for list := d.InitDeclaratorList; list != nil; list = list.InitDeclaratorList {
		id := list.InitDeclarator
		dd := id.Declarator
		if dd.IsTypename() || dd.Type().Kind() == cc.Function || dd.IsSynthetic() {
			continue
		}
		if dd.IsExtern() && id.Initializer == nil {
			l.externs = append(l.externs, dd) // the definition may follow
			continue
		}
		if dd.Name() == "__predefined_declarator" || strings.HasPrefix(dd.Name(), "std") {
			continue
		}
		if err := l.global(d, dd, id.Initializer, dd.Name()); err != nil {
			return err
		}
	}
	return nil
}

// procName is the procedure a C function becomes: its name, primed when
// the protocol language has a built-in call of that name (alloc, load).
func procName(fn string) string {
	if lang.Builtin(fn) {
		return fn + "'"
	}
	return fn
}

// global declares one variable with static storage, called name: a
// file-scope one, or a local of main that lives in memory (frame.go).
func (l *lowerer) global(d *cc.Declaration, dd *cc.Declarator, init *cc.Initializer, name string) error {
	pos := l.pos(dd)
	t := dd.Type()
	g := &global{name: name, atomic: atomicDecl(d.DeclarationSpecifiers, dd)}
	if isBarrier(t) {
		g.barrier = &barrier{at: pos}
		l.globals[dd] = g
		l.barrierGlobals = append(l.barrierGlobals, g)
		return nil
	}
	if isMutex(t) {
		g.mutex = true
		l.globals[dd] = g
		l.pr.Mutexes = append(l.pr.Mutexes, &lang.Shared{Name: name, Pos: pos})
		return nil
	}
	if pt, ok := t.(*cc.PointerType); ok && pt.Elem().Kind() == cc.Function {
		return l.errAt(dd, "function pointers are not supported (%s)", name)
	}
	if dd.IsThreadLocal() && (t.Kind() == cc.Array || t.Kind() == cc.Struct || t.Kind() == cc.Union) {
		return l.errAt(dd, "a thread-local array or struct is not supported (%s): only scalars", name)
	}
	sh := &lang.Shared{Name: name, Pos: pos}
	elem := t
	if t.Kind() == cc.Array {
		// An array of arrays is laid out flat, row after row.
		n := int64(1)
		for elem.Kind() == cc.Array {
			at := elem.(*cc.ArrayType)
			if at.IsVLA() || at.Len() <= 0 {
				return l.errAt(dd, "array %s needs a constant length", name)
			}
			g.dims = append(g.dims, at.Len())
			if n *= at.Len(); n > 1<<30 {
				return l.errAt(dd, "array %s is too large", name)
			}
			elem = at.Elem()
		}
		g.array = true
		sh.Len = &lang.Num{Val: n, At: sh.Pos}
		if len(g.dims) > 1 {
			sh.Dims = g.dims
		}
	}
	switch elem.Kind() {
	case cc.Struct:
		fs, err := l.structFields(elem.(*cc.StructType), name, dd)
		if err != nil {
			return err
		}
		g.fields, sh.Fields = fs, fs
	case cc.Union:
		return l.errAt(dd, "unions are not supported")
	}
	// Globals start zeroed.
	if g.fields == nil && !g.array {
		sh.Init = &lang.Num{At: pos}
	}
	for i := range sh.Fields {
		sh.Fields[i].Init = &lang.Num{At: pos}
	}
	if init != nil {
		if err := l.initGlobal(sh, g, init); err != nil {
			return err
		}
	}
	g.sh, g.tls = sh, dd.IsThreadLocal()
	l.globals[dd] = g
	l.pr.Shared = append(l.pr.Shared, sh)
	return nil
}

// initGlobal sets a global's initial values from its initializer, which
// must be constant.
func (l *lowerer) initGlobal(sh *lang.Shared, g *global, init *cc.Initializer) error {
	constant := func(e cc.ExpressionNode) (lang.Expr, error) {
		if v, ok := intValue(e); ok {
			return &lang.Num{Val: v, At: l.pos(e)}, nil
		}
		if u, ok := e.(*cc.UnaryExpression); ok && u.Case == cc.UnaryExpressionAddrof {
			if p, ok := u.CastExpression.(*cc.PrimaryExpression); ok {
				if gd, ok := l.globalOf(p); ok && !gd.array && !gd.tls && !gd.mutex && gd.barrier == nil {
					return &lang.AddrExpr{Of: &lang.Name{Name: gd.name, At: l.pos(p)}, At: l.pos(u)}, nil
				}
			}
		}
		return nil, l.errAt(e, "a global's initial value must be a constant or the address of a scalar or struct global")
	}
	switch {
	case init.Case == cc.InitializerExpr && !g.array && g.fields == nil:
		v, err := constant(init.AssignmentExpression)
		sh.Init = v
		return err
	case init.Case == cc.InitializerInitList && g.array && g.fields == nil && len(g.dims) > 1:
		var err error
		sh.Elems, err = l.rows(init.InitializerList, g.dims, constant)
		return err
	case init.Case == cc.InitializerInitList && g.array && g.fields == nil:
		var err error
		sh.Elems, err = l.flat(init.InitializerList, constant, "an array")
		return err
	case init.Case == cc.InitializerInitList && !g.array && g.fields != nil:
		i := 0
		for list := init.InitializerList; list != nil; list = list.InitializerList {
			if d := list.Designation; d != nil {
				dl := d.DesignatorList
				if dl.DesignatorList != nil || dl.Designator.Case != cc.DesignatorField {
					return l.errAt(d, "only .field designators initialize a struct")
				}
				name := dl.Designator.Token2.SrcStr()
				i = slices.IndexFunc(sh.Fields, func(f lang.Field) bool { return f.Name == name })
				if i < 0 {
					return l.errAt(d, "struct %s has no field %s", sh.Name, name)
				}
			}
			if i >= len(sh.Fields) {
				return l.errAt(list.Initializer, "more initial values than %s has fields", sh.Name)
			}
			fd, it := &sh.Fields[i], list.Initializer
			var err error
			switch {
			case it.Case == cc.InitializerExpr && fd.Len == nil:
				fd.Init, err = constant(it.AssignmentExpression)
			case it.Case == cc.InitializerInitList && fd.Len != nil:
				fd.Elems, err = l.flat(it.InitializerList, constant, "an array field")
			case it.Case == cc.InitializerExpr && list.InitializerList == nil && isZero(it.AssignmentExpression):
				// {0}: every field zero, as they start.
			default:
				return l.errAt(it, "field %s of %s: brace an array field's values ({1, 2}), give a scalar one value", fd.Name, sh.Name)
			}
			if err != nil {
				return err
			}
			i++
		}
		return nil
	}
	return l.errAt(init, "this initializer is not supported")
}

// flat lowers a flat list of constants initializing what.
func (l *lowerer) flat(list *cc.InitializerList, constant func(cc.ExpressionNode) (lang.Expr, error), what string) ([]lang.Expr, error) {
	var es []lang.Expr
	for ; list != nil; list = list.InitializerList {
		if list.Designation != nil || list.Initializer.Case != cc.InitializerExpr {
			return nil, l.errAt(list.Initializer, "only a flat list of constants initializes %s", what)
		}
		v, err := constant(list.Initializer.AssignmentExpression)
		if err != nil {
			return nil, err
		}
		es = append(es, v)
	}
	return es, nil
}

// rows lowers the initializer list of an array of arrays (dims, the
// lengths outermost first) to its elements row after row: a braced list
// fills one row, zeros after its values; constants without braces fill
// the elements in turn (C's brace elision).
func (l *lowerer) rows(list *cc.InitializerList, dims []int64, constant func(cc.ExpressionNode) (lang.Expr, error)) ([]lang.Expr, error) {
	size := int64(1)
	for _, d := range dims[1:] {
		size *= d
	}
	var es []lang.Expr
	for ; list != nil; list = list.InitializerList {
		it := list.Initializer
		switch {
		case list.Designation != nil:
			return nil, l.errAt(it, "designators do not initialize an array")
		case it.Case == cc.InitializerInitList && len(dims) > 1:
			if int64(len(es))%size != 0 {
				return nil, l.errAt(it, "a braced row must start a row of the array")
			}
			row, err := l.rows(it.InitializerList, dims[1:], constant)
			if err != nil {
				return nil, err
			}
			for int64(len(row)) < size {
				row = append(row, &lang.Num{At: l.pos(it)})
			}
			es = append(es, row...)
		case it.Case == cc.InitializerExpr:
			v, err := constant(it.AssignmentExpression)
			if err != nil {
				return nil, err
			}
			es = append(es, v)
		default:
			return nil, l.errAt(it, "this initializer is not supported")
		}
		if int64(len(es)) > size*dims[0] {
			return nil, l.errAt(it, "more initial values than the array has elements")
		}
	}
	return es, nil
}

// isZero reports whether e is the constant 0.
func isZero(e cc.ExpressionNode) bool {
	v, ok := intValue(e)
	return ok && v == 0
}

// isMutex reports whether t is pthread_mutex_t.
func isMutex(t cc.Type) bool {
	st, ok := t.(*cc.StructType)
	return ok && st.NumFields() == 1 && st.FieldByIndex(0).Name() == "__ordercheck_mutex"
}

// atomicDecl reports whether the object a declarator declares is atomic:
// _Atomic(T) or an atomic type qualifier or typedef in its specifiers,
// which apply to it when it is no pointer, or _Atomic after its last *.
// (cc's Declarator.IsAtomic is wrong through typedefs and pointers.)
func atomicDecl(specs *cc.DeclarationSpecifiers, dd *cc.Declarator) bool {
	base := false
	toks := cc.NodeTokens(specs)
	for i, t := range toks {
		switch s := t.SrcStr(); {
		case s == "_Atomic" && i+1 < len(toks) && toks[i+1].SrcStr() == "(":
			return dd.Pointer == nil
		case s == "_Atomic":
			base = true
		case strings.HasPrefix(s, "atomic_") && s != "atomic_flag":
			base = true
		}
	}
	if dd.Pointer == nil {
		return base
	}
	ptoks := cc.NodeTokens(dd.Pointer)
	return len(ptoks) > 0 && ptoks[len(ptoks)-1].SrcStr() == "_Atomic"
}

// globalOf resolves an identifier to a global, if it is one.
func (l *lowerer) globalOf(p *cc.PrimaryExpression) (*global, bool) {
	if p.Case != cc.PrimaryExpressionIdent {
		return nil, false
	}
	d, ok := p.ResolvedTo().(*cc.Declarator)
	if !ok {
		return nil, false
	}
	g, ok := l.globals[d]
	return g, ok
}

// intValue returns the value of a constant integer expression.
func intValue(e cc.ExpressionNode) (int64, bool) {
	switch v := e.Value().(type) {
	case cc.Int64Value:
		return int64(v), true
	case cc.UInt64Value:
		return int64(v), true
	}
	return 0, false
}

// ordering names a C memory order (the value of a memory_order
// expression, the nth of the of orders its call takes: a
// compare-exchange's failure order is the second of two) in the protocol
// language. Its position is where the source writes it, when it does
// (tune rewrites it there: writtenOrder).
func (l *lowerer) ordering(e cc.ExpressionNode, nth, of int) (lang.Value, error) {
	v, ok := intValue(e)
	if !ok || v < 0 || v > 5 {
		return lang.Value{}, l.errAt(e, "a memory order must be a constant memory_order_*")
	}
	return lang.Value{Text: [...]string{"rlx", "con", "acq", "rel", "acq_rel", "sc"}[v], Pos: l.writtenOrder(l.pos(e), nth, of)}, nil
}

// writtenOrder finds where the source writes a memory order whose
// expression cc places at p: p itself when the source names an order
// there; else, as a macro's expansion (stdatomic.h's atomic_*_explicit)
// is placed at the macro's call, the call's argument that holds it —
// a call's orders are its last arguments, so the nth of of is argument
// len-of+nth —, when that argument names an order (memory_order_*,
// __ATOMIC_*). Otherwise (an order from a macro of the program's own) it
// returns p.
func (l *lowerer) writtenOrder(p model.Pos, nth, of int) model.Pos {
	if p.File != l.file {
		return p
	}
	off := 0 // p's byte offset
	for line := 1; line < p.Line; line++ {
		i := bytes.IndexByte(l.src[off:], '\n')
		if i < 0 {
			return p
		}
		off += i + 1
	}
	off += p.Col - 1
	if off >= len(l.src) {
		return p
	}
	if orderName(ident(l.src[off:])) {
		return p
	}
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i := off + len(ident(l.src[off:]))
	for i < len(l.src) && space(l.src[i]) {
		i++
	}
	if i >= len(l.src) || l.src[i] != '(' {
		return p
	}
	// The start of each argument at depth one.
	var args []int
	for depth, start := 0, false; i < len(l.src); i++ {
		c := l.src[i]
		switch {
		case c == '(':
			if depth++; depth == 1 {
				start = true
				continue
			}
		case c == ')':
			if depth--; depth == 0 {
				if k := len(args) - of + nth; k >= 0 && k < len(args) && orderName(ident(l.src[args[k]:])) {
					return l.posAt(args[k])
				}
				return p
			}
		case c == ',' && depth == 1:
			start = true
			continue
		}
		if start && !space(c) {
			args = append(args, i)
			start = false
		}
	}
	return p
}

// ident returns the identifier b starts with.
func ident(b []byte) string {
	n := 0
	for n < len(b) && (b[n] == '_' || 'a' <= b[n] && b[n] <= 'z' || 'A' <= b[n] && b[n] <= 'Z' || n > 0 && '0' <= b[n] && b[n] <= '9') {
		n++
	}
	return string(b[:n])
}

// orderName reports whether id names a memory order, as C or GCC does.
func orderName(id string) bool {
	return strings.HasPrefix(id, "memory_order_") || strings.HasPrefix(id, "__ATOMIC_")
}

// posAt returns the position of byte offset off of the source.
func (l *lowerer) posAt(off int) model.Pos {
	line := 1 + bytes.Count(l.src[:off], []byte("\n"))
	col := off - (bytes.LastIndexByte(l.src[:off], '\n') + 1) + 1
	return model.Pos{File: l.file, Line: line, Col: col}
}

// threadFor adds a spawned thread that runs start routine fn with arg,
// and returns its name.
func (l *lowerer) threadFor(fn string, arg lang.Expr, at cc.Node) (string, error) {
	fd := l.funcs[fn]
	if fd == nil {
		return "", l.errAt(at, "pthread_create starts %s, which is not a function defined in this file", fn)
	}
	if err := l.proc(fn, at); err != nil {
		return "", err
	}
	n := l.threads[fn]
	l.threads[fn]++
	name := fn
	if n > 0 {
		name = fmt.Sprintf("%s#%d", fn, n)
	}
	l.roots[name] = fn
	pos := l.pos(at)
	call := &lang.CallExpr{Func: procName(fn), At: pos}
	if len(l.pr.Procs[procName(fn)].Params) == 1 {
		call.Args = []lang.Expr{arg}
	}
	body := &lang.Block{Stmts: []lang.Stmt{&lang.ExprStmt{X: call, At: pos}}, Pos: pos}
	l.pr.Threads = append(l.pr.Threads, &lang.ThreadDecl{Name: name, Spawned: true, Body: body, Pos: pos})
	return name, nil
}

// doneFlag is the shared flag a joined thread sets when it ends.
func doneFlag(thread string) string { return thread + "#done" }

// join makes thread set its done flag (a release store) when it ends,
// and returns the flag.
func (l *lowerer) join(thread string, at model.Pos) string {
	flag := doneFlag(thread)
	for _, sh := range l.pr.Shared {
		if sh.Name == flag {
			return flag
		}
	}
	l.pr.Shared = append(l.pr.Shared, &lang.Shared{Name: flag, Init: &lang.Num{At: at}, Pos: at})
	for _, th := range l.pr.Threads {
		if th.Name == thread {
			th.Body.Stmts = append(th.Body.Stmts, &lang.MemStmt{Kind: "store", Args: []lang.Expr{&lang.Name{Name: flag, At: at}, &lang.Num{Val: 1, At: at}}, Ord: &lang.Value{Text: "rel", Pos: at, Fixed: true}, At: at})
		}
	}
	return flag
}

// proc lowers function fn as a procedure, once.
func (l *lowerer) proc(fn string, at cc.Node) error {
	if l.procs[fn] {
		return nil
	}
	if l.lowering[fn] {
		return l.errAt(at, "%s calls itself: recursion is not supported", fn)
	}
	fd := l.funcs[fn]
	if fd == nil {
		return l.errAt(at, "%s is not defined in this file: a called function needs its body", fn)
	}
	l.lowering[fn] = true
	defer delete(l.lowering, fn)
	f := l.newFunc(fd, false)
	ft := fd.Declarator.Type().(*cc.FunctionType)
	var params []string
	for _, p := range ft.Parameters() {
		if p.Name() == "" {
			if p.Type().Kind() == cc.Void {
				continue
			}
			params = append(params, fmt.Sprintf("%%unnamed%d", len(params)))
			continue
		}
		params = append(params, f.local(p.Name(), p.Declarator))
	}
	body, err := f.function(fd.CompoundStatement)
	if err != nil {
		return err
	}
	l.pr.Procs[procName(fn)] = &lang.Proc{Name: procName(fn), Params: params, Body: body, Pos: l.pos(fd.Declarator)}
	l.procs[fn] = true
	return nil
}
