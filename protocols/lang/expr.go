package lang

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

func (t *threadComp) assign(s *AssignStmt) error {
	if n, ok := s.LHS.(*Name); ok && t.c.mutexes[n.Name] && t.reg(n.Name) == model.NoReg {
		return errAt(n.At, "%s is a mutex: use lock(%s) and unlock(%s)", n.Name, n.Name, n.Name)
	}
	if n, ok := s.LHS.(*Name); ok && !t.isShared(n.Name) {
		if _, isParam := t.c.params[n.Name]; isParam {
			return errAt(n.At, "cannot assign to parameter %s", n.Name)
		}
		if n.Name == "self" {
			return errAt(n.At, "cannot assign to self")
		}
		if t.c.arrays[n.Name] != nil {
			return errAt(n.At, "%s is an array: assign its elements (%s[i] = ...)", n.Name, n.Name)
		}
		start := t.pc()
		v, err := t.expr(s.RHS)
		if err != nil {
			return err
		}
		r := t.assignReg(n.Name, n.At)
		for _, l := range t.loops {
			if l.counter == r {
				return errAt(n.At, "%s counts the for loop at %s, which is never cut: it cannot be assigned in its body", n.Name, l.at)
			}
		}
		if ra := t.regAt[r]; ra != nil && !ra.acts {
			ra.acts = slices.ContainsFunc(t.th.Code[start:], func(in model.Instr) bool { return visible(in.Op) })
		}
		// Put a call's result straight into the register.
		if v.Kind == model.EReg && t.pc() > start && strings.HasPrefix(t.th.Regs[v.Reg], "%") {
			last := &t.th.Code[t.pc()-1]
			if last.Dst == v.Reg && (last.Op == model.OpLoad || last.Op == model.OpRMW || last.Op == model.OpChoose) {
				last.Dst = r
				return nil
			}
		}
		t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: v, Pos: s.At, Text: n.Name + " = ..."})
		return nil
	}
	addr, err := t.addr(s.LHS, false)
	if err != nil {
		return err
	}
	v, err := t.expr(s.RHS)
	if err != nil {
		return err
	}
	t.retireCheck(addr, s.At, formatExpr(s.LHS))
	t.emit(model.Instr{Op: model.OpStore, Addr: addr, Val: v, Ord: model.NA, Pos: s.At, Text: "store"})
	return nil
}

// visible reports whether an instruction makes an event: a memory access,
// a choice, a spawn or an operation marker.
func visible(op model.Op) bool {
	switch op {
	case model.OpAssign, model.OpBranch, model.OpJump, model.OpAssert, model.OpAssume, model.OpBound:
		return false
	}
	return true
}

// unread checks the registers assignments created in thread number ti: a
// register that nothing reads (no instruction but its own updates, no
// final condition in observed) and that no assignment fills from an
// operation is most likely a misspelt shared variable, whose accesses,
// races included, would silently vanish.
func (t *threadComp) unread(ti int, observed []model.Observable) error {
	read := map[model.Reg]bool{}
	for _, o := range observed {
		if o.Thread == ti {
			read[o.Reg] = true
		}
	}
	for i := range t.th.Code {
		in := &t.th.Code[i]
		for _, e := range in.Reads(nil) {
			regsOf(e, func(r model.Reg) {
				if in.Op != model.OpAssign || r != in.Dst {
					read[r] = true
				}
			})
		}
	}
	for _, ra := range t.regs {
		if !ra.acts && !read[ra.reg] {
			return errAt(ra.at, "%s is assigned but never read: not a shared variable%s", ra.name, t.c.suggest(ra.name))
		}
	}
	return nil
}

// regsOf calls f on every register e reads.
func regsOf(e *model.Expr, f func(model.Reg)) {
	if e == nil {
		return
	}
	if e.Kind == model.EReg {
		f(e.Reg)
	}
	regsOf(e.X, f)
	regsOf(e.Y, f)
}

// hasReg reports whether e reads a register.
func hasReg(e *model.Expr) bool {
	found := false
	regsOf(e, func(model.Reg) { found = true })
	return found
}

// constValue returns the value of e when it reads no register.
func constValue(e *model.Expr) (int64, bool) {
	if hasReg(e) {
		return 0, false
	}
	v, err := model.EvalExpr(e, nil)
	return v, err == nil
}

func (t *threadComp) isShared(name string) bool {
	if t.reg(name) != model.NoReg {
		return false
	}
	_, ok := t.c.locs[name]
	return ok || t.c.structs[name] != nil
}

// addr compiles the address of an lvalue. whole, for &e, allows an
// element of an array of structs or an array field named whole (its first
// location), and takes &*p as p, which accesses nothing.
func (t *threadComp) addr(e Expr, whole bool) (*model.Expr, error) {
	switch e := e.(type) {
	case *Name:
		if whole {
			l, err := t.c.location(e)
			return model.Const(model.AddrOf(l)), err
		}
		if r := t.reg(e.Name); r != model.NoReg {
			return model.RegExpr(r), nil // a pointer held in a register
		}
		if t.c.arrays[e.Name] != nil {
			return nil, errAt(e.At, "%s is an array: name an element (%s[i])", e.Name, e.Name)
		}
		l, err := t.c.location(e)
		return model.Const(model.AddrOf(l)), err
	case *FieldExpr:
		return t.memberAddr(e, whole)
	case *IndexExpr:
		a, err := t.c.array(e.Array, e.At)
		if err != nil {
			return nil, err
		}
		if a.lay != nil && !whole {
			return nil, t.c.structElem(e)
		}
		return t.elemAddr(a, e.Array, e.Index)
	case *ArrowExpr:
		return t.arrowAddr(e, whole)
	case *DerefExpr:
		p, err := t.expr(e.Ptr)
		if err == nil && !whole {
			t.checkPtr(p, e.At, formatExpr(e))
		}
		return p, err
	}
	return nil, errAt(e.pos(), "expected a shared variable, field, array element or pointer")
}

// memberAddr compiles the address of s.f, a[i].f, s.f[j] or a[i].f[j];
// whole allows an array field without an index (&s.f: its first
// element).
func (t *threadComp) memberAddr(e *FieldExpr, whole bool) (*model.Expr, error) {
	a, f, err := t.c.member(e)
	if err != nil {
		return nil, err
	}
	if err := subCheck(e, f, e.Sub, whole); err != nil {
		return nil, err
	}
	var base *model.Expr = model.Const(model.AddrOf(a.base))
	if e.Index != nil {
		if base, err = t.elemAddr(a, e.Struct, e.Index); err != nil {
			return nil, err
		}
	}
	return t.subAddr(offset(base, f.off), f, e.Sub, "field "+formatExpr(withoutSub(e)))
}

// arrowAddr compiles the address of p->f or p->f[j]; whole allows an
// array field without an index.
func (t *threadComp) arrowAddr(e *ArrowExpr, whole bool) (*model.Expr, error) {
	p, err := t.expr(e.Ptr)
	if err != nil {
		return nil, err
	}
	t.checkPtr(p, e.At, formatExpr(withoutSub(e)))
	var f fieldAt
	if e.Place != nil {
		f = e.Place.placed()
	} else {
		at := t.c.fields[e.Field]
		if len(at) == 0 {
			return nil, errAt(e.At, "no struct has a field %s", e.Field)
		}
		for _, o := range at {
			if o != at[0] {
				return nil, errAt(e.At, "field %s lies at different offsets or lengths in different structs; name the struct", e.Field)
			}
		}
		f = at[0]
	}
	if err := subCheck(e, f, e.Sub, whole); err != nil {
		return nil, err
	}
	return t.subAddr(offset(p, f.off), f, e.Sub, "field "+formatExpr(withoutSub(e)))
}

// subAddr is the address of element sub of the array field f at base, or
// base itself without sub. A constant sub out of range is an error; any
// other is checked when the thread runs (property bounds).
func (t *threadComp) subAddr(base *model.Expr, f fieldAt, sub Expr, what string) (*model.Expr, error) {
	if sub == nil {
		return base, nil
	}
	j, err := t.index(sub, f.n, what)
	if err != nil {
		return nil, err
	}
	if f.stride > 1 {
		j = times(j, f.stride)
	}
	return plus(base, j), nil
}

// elemAddr compiles the address of element index of array a called name
// (of its first location, for an array of structs).
func (t *threadComp) elemAddr(a *array, name string, index Expr) (*model.Expr, error) {
	i, err := t.index(index, a.n, "array "+name)
	if err != nil {
		return nil, err
	}
	if a.stride() > 1 {
		i = times(i, a.stride())
	}
	return plus(model.Const(model.AddrOf(a.base)), i), nil
}

// index compiles an index into what (n elements). A constant index out of
// range is an error; any other index is checked when the thread runs, by
// an assertion of property bounds before the access.
func (t *threadComp) index(index Expr, n int64, what string) (*model.Expr, error) {
	i, err := t.expr(index)
	if err != nil {
		return nil, err
	}
	if k, ok := constValue(i); ok {
		return model.Const(k), inRange(k, n, index.pos(), what)
	}
	if !t.c.hasProp(PropBounds) {
		return nil, errAt(index.pos(), "an index that is not constant needs property %s", PropBounds)
	}
	inRange := model.Bin(model.LAnd, model.Bin(model.Ge, i, model.Const(0)), model.Bin(model.Lt, i, model.Const(n)))
	msg := fmt.Sprintf("index %s of %s out of range (%d elements)", formatExpr(index), what, n)
	t.emit(model.Instr{Op: model.OpAssert, Cond: inRange, Prop: PropBounds, Msg: msg, Pos: index.pos(), Text: "bounds of " + strings.TrimPrefix(strings.TrimPrefix(what, "array "), "field ")})
	return i, nil
}

// plus is a + b, folded when both are constant.
func plus(a, b *model.Expr) *model.Expr {
	x, okx := constValue(a)
	y, oky := constValue(b)
	switch {
	case okx && oky:
		return model.Const(x + y)
	case oky && y == 0:
		return a
	case okx && x == 0:
		return b
	}
	return model.Bin(model.Add, a, b)
}

// times is a * k, folded when a is constant.
func times(a *model.Expr, k int64) *model.Expr {
	if x, ok := constValue(a); ok {
		return model.Const(x * k)
	}
	return model.Bin(model.Mul, a, model.Const(k))
}

// load reads addr (src, in messages) into a new register, with ordering o
// (written as ord; none for a plain read).
func (t *threadComp) load(addr *model.Expr, o model.Ordering, ord Value, at model.Pos, text string, src Expr) *model.Expr {
	t.retireCheck(addr, at, formatExpr(src))
	r := t.temp()
	t.emit(model.Instr{Op: model.OpLoad, Dst: r, Addr: addr, Ord: o, OrdPos: ord.Pos, Fixed: ord.Fixed, Pos: at, Text: text})
	t.checkRead(model.RegExpr(r), addr, at, formatExpr(src))
	return model.RegExpr(r)
}

var binOps = map[string]model.BinOp{
	"||": model.LOr, "&&": model.LAnd, "|": model.Or, "^": model.Xor, "&": model.And,
	"==": model.Eq, "!=": model.Ne, "<": model.Lt, "<=": model.Le, ">": model.Gt, ">=": model.Ge,
	"<<": model.Shl, ">>": model.Shr, "+": model.Add, "-": model.Sub, "*": model.Mul, "/": model.Div, "%": model.Mod,
}

var rmwOps = map[string]model.RMWOp{"xchg": model.Xchg, "fetch_add": model.FetchAdd, "fetch_sub": model.FetchSub,
	"fetch_or": model.FetchOr, "fetch_and": model.FetchAnd, "fetch_xor": model.FetchXor}

// expr compiles an expression, emitting the memory accesses it makes, in
// C's order: operands left to right, the right operand of && and || only
// when the left one does not decide, one arm of ?: after its condition.
func (t *threadComp) expr(e Expr) (*model.Expr, error) {
	switch e := e.(type) {
	case *Num:
		return model.Const(e.Val), nil
	case *Name:
		if r := t.reg(e.Name); r != model.NoReg {
			return model.RegExpr(r), nil
		}
		switch e.Name {
		case "self":
			return model.Const(t.self), nil
		case ThreadIndex:
			return model.Const(t.number), nil
		}
		if v, ok := t.c.paramInt(e.Name); ok {
			return model.Const(v), nil
		}
		if v, ok := t.c.symbol(e.Name); ok {
			return model.Const(v), nil
		}
		if _, isParam := t.c.params[e.Name]; isParam {
			return nil, errAt(e.At, "parameter %s holds an ordering, not a value", e.Name)
		}
		if t.c.mutexes[e.Name] {
			return nil, errAt(e.At, "%s is a mutex: use lock(%s) and unlock(%s)", e.Name, e.Name, e.Name)
		}
		if t.c.structs[e.Name] != nil {
			return nil, errAt(e.At, "%s is a struct: read a field (%s.f) or take its address (&%s)", e.Name, e.Name, e.Name)
		}
		if t.c.arrays[e.Name] != nil {
			return nil, errAt(e.At, "%s is an array: read an element (%s[i]) or take its address (&%s)", e.Name, e.Name, e.Name)
		}
		if _, ok := t.c.locs[e.Name]; ok {
			a, err := t.addr(e, false)
			return t.load(a, model.NA, Value{}, e.At, e.Name, e), err
		}
		return nil, errAt(e.At, "unknown variable %s%s", e.Name, t.c.suggest(e.Name))
	case *FieldExpr, *IndexExpr, *ArrowExpr, *DerefExpr:
		a, err := t.addr(e, false)
		if err != nil {
			return nil, err
		}
		return t.load(a, model.NA, Value{}, e.pos(), "read", e), nil
	case *AddrExpr:
		return t.addr(e.Of, true)
	case *UnExpr:
		x, err := t.expr(e.X)
		if e.Op == "-" {
			return model.Neg(x), err
		}
		return model.Not(x), err
	case *BinExpr:
		if e.Op == "&&" || e.Op == "||" {
			return t.logical(e)
		}
		x, err := t.expr(e.X)
		if err != nil {
			return nil, err
		}
		y, err := t.expr(e.Y)
		return model.Bin(binOps[e.Op], x, y), err
	case *CondExpr:
		return t.conditional(e)
	case *CallExpr:
		return t.call(e)
	}
	return nil, errAt(e.pos(), "unsupported expression")
}

// logical compiles x && y and x || y. When y makes no access, the IR's
// own operator, which does not evaluate y when x decides, is enough;
// otherwise y's code runs only when x does not decide:
//
//	r = 0 (&&) or 1 (||); if !x (&&) or x (||) goto end; y's code; r = y != 0; end:
//
// As in C11, the result carries no dependency from x (only control).
func (t *threadComp) logical(e *BinExpr) (*model.Expr, error) {
	x, err := t.expr(e.X)
	if err != nil {
		return nil, err
	}
	or := e.Op == "||"
	mark := t.pc()
	set := t.emit(model.Instr{Op: model.OpAssign, Val: model.Const(b2i(or)), Pos: e.At, Text: e.Op})
	decided := model.Not(x)
	if or {
		decided = x
	}
	br := t.emit(model.Instr{Op: model.OpBranch, Cond: decided, Pos: e.At, Text: e.Op})
	y, err := t.expr(e.Y)
	if err != nil {
		return nil, err
	}
	if t.pc() == br+1 {
		t.th.Code = t.th.Code[:mark]
		return model.Bin(binOps[e.Op], x, y), nil
	}
	r := t.temp()
	t.th.Code[set].Dst = r
	t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: truth(y), Pos: e.At, Text: e.Op})
	t.th.Code[br].Target = t.pc()
	return model.RegExpr(r), nil
}

// truth is e as C's && and || see it: 0 or 1.
func truth(e *model.Expr) *model.Expr {
	if e.Kind == model.ENot {
		return e
	}
	if e.Kind == model.EBin {
		switch e.Op {
		case model.Eq, model.Ne, model.Lt, model.Le, model.Gt, model.Ge, model.LAnd, model.LOr:
			return e
		}
	}
	return model.Bin(model.Ne, e, model.Const(0))
}

// conditional compiles c ? x : y, making only the accesses of the arm c
// selects: if !c goto else; r = x; goto end; else: r = y; end:
func (t *threadComp) conditional(e *CondExpr) (*model.Expr, error) {
	c, err := t.expr(e.Cond)
	if err != nil {
		return nil, err
	}
	r := t.temp()
	br := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Not(c), Pos: e.At, Text: "?:"})
	x, err := t.expr(e.Then)
	if err != nil {
		return nil, err
	}
	t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: x, Pos: e.At, Text: "?:"})
	j := t.emit(model.Instr{Op: model.OpJump, Pos: e.At})
	t.th.Code[br].Target = t.pc()
	y, err := t.expr(e.Else)
	if err != nil {
		return nil, err
	}
	t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: y, Pos: e.At, Text: "?:"})
	t.th.Code[j].Target = t.pc()
	return model.RegExpr(r), nil
}

func (t *threadComp) argc(e *CallExpr, n, ords, optOrds int) error {
	if len(e.Args) != n || len(e.Ords) < ords || len(e.Ords) > ords+optOrds {
		return errAt(e.At, "%s takes %d value(s) and %d ordering(s): %s", e.Func, n, ords, usage[e.Func])
	}
	return nil
}

// Builtin reports whether name is one of the language's built-in calls
// (load, cas, the RMWs, choose, alloc), which no procedure may be called.
func Builtin(name string) bool {
	_, rmw := rmwOps[name]
	return rmw || name == "load" || name == "cas" || name == "cas_weak" || name == "choose" || name == "alloc"
}

func (t *threadComp) call(e *CallExpr) (*model.Expr, error) {
	switch e.Func {
	case "alloc":
		return t.alloc(e)
	case "load":
		if err := t.argc(e, 1, 1, 0); err != nil {
			return nil, err
		}
		a, err := t.addr(e.Args[0], false)
		if err != nil {
			return nil, err
		}
		o, err := t.c.ordering(e.Ords[0], "a load", model.Ordering.ValidForLoad)
		if err != nil {
			return nil, err
		}
		return t.load(a, o, e.Ords[0], e.At, "load", e.Args[0]), nil
	case "xchg", "fetch_add", "fetch_sub", "fetch_or", "fetch_and", "fetch_xor":
		if err := t.argc(e, 2, 1, 0); err != nil {
			return nil, err
		}
		a, err := t.addr(e.Args[0], false)
		if err != nil {
			return nil, err
		}
		v, err := t.expr(e.Args[1])
		if err != nil {
			return nil, err
		}
		o, err := t.c.ordering(e.Ords[0], "a read-modify-write", model.Ordering.Atomic)
		if err != nil {
			return nil, err
		}
		t.retireCheck(a, e.At, e.Func+"("+formatExpr(e.Args[0])+")")
		r := t.temp()
		t.emit(model.Instr{Op: model.OpRMW, RMW: rmwOps[e.Func], Dst: r, Addr: a, Val: v, Ord: o, OrdPos: e.Ords[0].Pos, Fixed: e.Ords[0].Fixed, Pos: e.At, Text: e.Func})
		t.checkRead(model.RegExpr(r), a, e.At, e.Func+"("+formatExpr(e.Args[0])+")")
		return model.RegExpr(r), nil
	case "cas", "cas_weak":
		if err := t.argc(e, 3, 1, 1); err != nil {
			return nil, err
		}
		a, err := t.addr(e.Args[0], false)
		if err != nil {
			return nil, err
		}
		exp, err := t.expr(e.Args[1])
		if err != nil {
			return nil, err
		}
		v, err := t.expr(e.Args[2])
		if err != nil {
			return nil, err
		}
		o, err := t.c.ordering(e.Ords[0], "a compare-exchange", model.Ordering.Atomic)
		if err != nil {
			return nil, err
		}
		fail := o.ReadPart()
		if len(e.Ords) > 1 {
			if fail, err = t.c.ordering(e.Ords[1], "a failed compare-exchange", func(o model.Ordering) bool { return o.Atomic() && o.ValidForLoad() }); err != nil {
				return nil, err
			}
		}
		t.retireCheck(a, e.At, e.Func+"("+formatExpr(e.Args[0])+")")
		old, ok := t.temp(), t.temp()
		t.emit(model.Instr{Op: model.OpCAS, Dst: old, Dst2: ok, Addr: a, Expected: exp, Val: v, Ord: o, OrdPos: e.Ords[0].Pos, Fixed: e.Ords[0].Fixed, FailOrd: fail, Weak: e.Func == "cas_weak", Pos: e.At, Text: e.Func})
		t.checkRead(model.RegExpr(old), a, e.At, e.Func+"("+formatExpr(e.Args[0])+")")
		if e.Old != "" {
			r := t.assignReg(e.Old, e.At)
			if ra := t.regAt[r]; ra != nil {
				ra.acts = true // it follows a cas
			}
			t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: model.RegExpr(old), Pos: e.At})
		}
		return model.RegExpr(ok), nil
	case "choose":
		if len(e.Args) != 1 {
			return nil, errAt(e.At, "choose takes the number of choices")
		}
		n, err := t.c.constant(e.Args[0])
		if err != nil {
			return nil, err
		}
		if n < 1 || n > 64 {
			return nil, errAt(e.At, "choose(%d): the number of choices is 1 to 64", n)
		}
		r := t.temp()
		t.emit(model.Instr{Op: model.OpChoose, Dst: r, N: int(n), Pos: e.At, Text: "choose"})
		return model.RegExpr(r), nil
	}
	proc, ok := t.c.pr.Procs[e.Func]
	if !ok {
		var procs []string
		for n := range t.c.pr.Procs {
			procs = append(procs, n)
		}
		slices.Sort(procs)
		return nil, errAt(e.At, "unknown procedure %s%s", e.Func, model.DidYouMean(e.Func, procs))
	}
	for _, s := range t.scope {
		if strings.HasPrefix(s, proc.Name+"#") {
			return nil, errAt(e.At, "procedure %s calls itself; recursion is not supported", proc.Name)
		}
	}
	if len(e.Args) != len(proc.Params) || len(e.Ords) > 0 {
		return nil, errAt(e.At, "%s takes %d argument(s), found %d", proc.Name, len(proc.Params), len(e.Args)+len(e.Ords))
	}
	var args []*model.Expr
	for _, a := range e.Args {
		v, err := t.expr(a)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	t.ntemp++
	frame := fmt.Sprintf("%s#%d.", proc.Name, t.ntemp)
	t.scope = append(t.scope, frame)
	var params []*model.Expr
	for i, name := range proc.Params {
		r := t.newReg(frame + name)
		t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: args[i], Pos: e.At, Text: name + " = ..."})
		params = append(params, model.RegExpr(r))
	}
	loops := t.loops
	t.loops = nil // break and continue do not leave a procedure
	defer func() { t.loops = loops; t.scope = t.scope[:len(t.scope)-1] }()
	if proc.Op {
		r, err := t.operation(proc.Name, params, proc.Body, e.At)
		return model.RegExpr(r), err
	}
	ret := &retFrame{name: proc.Name, dst: t.temp()}
	t.rets = append(t.rets, ret)
	err := t.block(proc.Body)
	t.rets = t.rets[:len(t.rets)-1]
	t.patch(ret.jumps, t.pc())
	return model.RegExpr(ret.dst), err
}

// operation compiles an operation called at: its call marker with the
// arguments args, its body, and its return marker with the values its
// return statements give (none when they give none). It returns the
// register of its first result (0 when it has none).
func (t *threadComp) operation(name string, args []*model.Expr, body *Block, at model.Pos) (model.Reg, error) {
	for _, f := range t.rets {
		if f.op {
			return model.NoReg, errAt(at, "operation %s inside operation %s: operations do not nest (each is one call and one return of the history)", name, f.name)
		}
	}
	n := 0
	var first *ReturnStmt
	var err error
	walkStmts(body, func(s Stmt, _ stmtPlace) {
		r, ok := s.(*ReturnStmt)
		if !ok || len(r.Vals) == 0 || err != nil {
			return
		}
		if first != nil && len(r.Vals) != len(first.Vals) {
			err = errAt(r.At, "operation %s returns %d values here and %d at %s", name, len(r.Vals), len(first.Vals), first.At)
		}
		first, n = r, len(r.Vals)
	})
	if err != nil {
		return model.NoReg, err
	}
	t.emit(model.Instr{Op: model.OpCall, Msg: name, Args: args, Pos: at, Text: "call " + name})
	ret := &retFrame{name: name, op: true, dst: t.temp()}
	ret.dsts = append(ret.dsts, ret.dst)
	for range n - 1 {
		ret.dsts = append(ret.dsts, t.temp())
	}
	t.rets = append(t.rets, ret)
	err = t.block(body)
	t.rets = t.rets[:len(t.rets)-1]
	t.patch(ret.jumps, t.pc())
	var results []*model.Expr
	for _, r := range ret.dsts[:n] {
		results = append(results, model.RegExpr(r))
	}
	t.emit(model.Instr{Op: model.OpRet, Msg: name, Args: results, Pos: at, Text: "return from " + name})
	return ret.dst, err
}

func (t *threadComp) mem(s *MemStmt) error {
	switch s.Kind {
	case "free", "retire":
		return t.free(s)
	case "fence":
		o, err := t.c.ordering(*s.Ord, "a fence", model.Ordering.ValidForFence)
		if err != nil {
			return err
		}
		if o == model.Con {
			o = model.Acq // as C11's atomic_thread_fence: a consume fence is an acquire fence
		}
		t.emit(model.Instr{Op: model.OpFence, Ord: o, OrdPos: s.Ord.Pos, Fixed: s.Ord.Fixed, Pos: s.At, Text: "fence"})
		return nil
	case "store":
		a, err := t.addr(s.Args[0], false)
		if err != nil {
			return err
		}
		v, err := t.expr(s.Args[1])
		if err != nil {
			return err
		}
		o, err := t.c.ordering(*s.Ord, "a store", model.Ordering.ValidForStore)
		if err != nil {
			return err
		}
		t.retireCheck(a, s.At, "store("+formatExpr(s.Args[0])+")")
		t.emit(model.Instr{Op: model.OpStore, Addr: a, Val: v, Ord: o, OrdPos: s.Ord.Pos, Fixed: s.Ord.Fixed, Pos: s.At, Text: "store"})
		return nil
	}
	n, isName := s.Args[0].(*Name)
	if !isName || !t.c.mutexes[n.Name] {
		return errAt(s.At, "%s takes a mutex declared with \"mutex\"", s.Kind)
	}
	t.lockOp(s.Kind, n.Name, s.At)
	return nil
}
