package lang

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

// Instance is a protocol compiled for one variant and one set of parameters.
type Instance struct {
	Protocol *Protocol
	Variant  string
	// Params lists every parameter with its value, sorted by name.
	Params []Bind
	Prog   *model.Program

	locking *model.Pos // a check of property locking the code keeps, if any
}

// ParamString renders the parameters as "K=V K=V".
func (in *Instance) ParamString() string { return strings.Join(BindTexts(in.Params), " ") }

// Compile builds the program of the named variant ("" for the default),
// with overrides ("N" -> "3") applied over the variant's bindings.
func (pr *Protocol) Compile(variant string, overrides map[string]string) (*Instance, error) {
	var binds []Bind
	for k, val := range overrides {
		binds = append(binds, Bind{Param: k, Value: Value{Text: val, Pos: model.Pos{File: "--param " + k}}})
	}
	sort.Slice(binds, func(i, j int) bool { return binds[i].Param < binds[j].Param })
	in, err := pr.compile(variant, binds)
	if err == nil && in.locking != nil && pr.prop(PropLocking) == nil {
		// Parameters no variant or expect clause has made a lock's use
		// unprovable, after the file was read.
		return nil, errAt(*in.locking, "with these parameters this use of a mutex is not correct on every path by the code's shape: declare property %s to have it checked", PropLocking)
	}
	return in, err
}

// prop returns the property called name, or nil.
func (pr *Protocol) prop(name string) *Prop {
	for _, p := range pr.Props {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// compileAll compiles every variant with the default parameters and with
// those of each expect clause, so that a variant that does not compile is
// an error when the file is read, not when that variant runs.
func (pr *Protocol) compileAll() error {
	variants := []string{""}
	if len(pr.Variants) > 0 {
		variants = variants[:0]
		for _, v := range pr.Variants {
			variants = append(variants, v.Name)
		}
	}
	sets := [][]Bind{nil}
	seen := map[string]bool{"": true}
	for _, e := range pr.Expects {
		if k := e.paramKey(); !seen[k] {
			seen[k] = true
			sets = append(sets, e.Params)
		}
	}
	for _, set := range sets {
		for _, v := range variants {
			in, err := pr.compile(v, set)
			if err == nil && in.locking != nil && pr.prop(PropLocking) == nil {
				pr.Props = append(pr.Props, &Prop{Name: PropLocking, Doc: "no lock of a held mutex, unlock of one not held, or use after destroy", Pos: *in.locking})
			}
			if err != nil {
				var le *Error
				if !errors.As(err, &le) {
					return err
				}
				var where []string
				if v != "" {
					where = append(where, "variant "+v)
				}
				if k := paramKeyOf(set); k != "" {
					where = append(where, "with "+k)
				}
				if len(where) == 0 {
					return err
				}
				return &Error{Pos: le.Pos, Msg: le.Msg + " (in " + strings.Join(where, " ") + ")"}
			}
		}
	}
	return nil
}

func (pr *Protocol) compile(variant string, overrides []Bind) (*Instance, error) {
	c := &compiler{pr: pr, params: map[string]Value{}, locs: map[string]model.Loc{}, used: map[string]bool{}}
	for _, par := range pr.Params {
		c.params[par.Name] = par.Default
	}
	var v *Variant
	if variant == "" {
		v = pr.DefaultVariant()
	} else if v = pr.Variant(variant); v == nil {
		var names []string
		for _, x := range pr.Variants {
			names = append(names, x.Name)
		}
		return nil, fmt.Errorf("protocol %s has no variant %q%s (variants: %s)", pr.Name, variant, model.DidYouMean(variant, names), strings.Join(names, ", "))
	}
	if v != nil && v.Whole != nil {
		in, err := v.Whole.compile("", overrides)
		if err != nil {
			return nil, err
		}
		in.Protocol, in.Variant = pr, v.Name
		return in, nil
	}
	c.variant = v
	inst := &Instance{Protocol: pr}
	if v != nil {
		inst.Variant = v.Name
		for _, b := range v.Binds {
			c.params[b.Param] = b.Value
		}
	}
	for _, b := range overrides {
		if pr.param(b.Param) == nil {
			var names []string
			for _, x := range pr.Params {
				names = append(names, x.Name)
			}
			return nil, fmt.Errorf("protocol %s has no parameter %q%s (parameters: %s)", pr.Name, b.Param, model.DidYouMean(b.Param, names), strings.Join(names, ", "))
		}
		c.params[b.Param] = b.Value
	}
	for k, val := range c.params {
		if err := pr.param(k).check(val); err != nil {
			return nil, err
		}
		inst.Params = append(inst.Params, Bind{Param: k, Value: val})
	}
	sort.Slice(inst.Params, func(i, j int) bool { return inst.Params[i].Param < inst.Params[j].Param })
	prog, err := c.program()
	if err != nil {
		return nil, err
	}
	inst.locking = c.locking
	if v != nil {
		for name, b := range v.Replace {
			if !c.used[name] {
				return nil, errAt(b.Pos, "variant %s replaces block %s, which no thread has%s", v.Name, name, model.DidYouMean(name, pr.blockNames()))
			}
		}
	}
	inst.Prog = prog
	return inst, nil
}

type compiler struct {
	pr      *Protocol
	variant *Variant
	params  map[string]Value
	locs    map[string]model.Loc
	fields  map[string][]fieldAt // field name -> where it lies in the structs that have it
	structs map[string]*array    // shared structs, as arrays of one
	mutexes map[string]bool
	arrays  map[string]*array
	threads map[string][]int // thread declaration -> its instances in prog
	prog    *model.Program
	used    map[string]bool // replaced blocks met

	types    map[string]*shape // heap structs
	pools    []*pool           // the heap, by allocation site
	allocs   map[string]int    // blocks named so far, by thread and line
	heapLocs int               // locations the pools take
	patches  []func()          // what needs the heap laid out

	retires   bool                 // some code retires a block (MemStmt retire)
	destroyed map[string]model.Loc // each destroyed mutex's flag
	locking   *model.Pos           // the first check of property locking kept
}

// check validates a value of the parameter: one of its choices for a
// symbolic parameter, else an ordering or an integer as its default is.
func (par *Param) check(v Value) error {
	if len(par.Choices) > 0 {
		for _, ch := range par.Choices {
			if v.Text == ch {
				return nil
			}
		}
		return errAt(v.Pos, "parameter %s is one of %s, not %q", par.Name, strings.Join(par.Choices, ", "), v.Text)
	}
	_, isOrd := model.ParseOrdering(v.Text)
	_, intErr := strconv.ParseInt(v.Text, 0, 64)
	if !isOrd && intErr != nil {
		return errAt(v.Pos, "parameter %s: %q is neither an integer nor an ordering", par.Name, v.Text)
	}
	if _, ordParam := model.ParseOrdering(par.Default.Text); ordParam != isOrd {
		kind, not := "an integer", "the ordering"
		if ordParam {
			kind, not = "an ordering", "the integer"
		}
		return errAt(v.Pos, "parameter %s holds %s, not %s %s", par.Name, kind, not, v.Text)
	}
	return nil
}

// symbol returns the value of a symbolic choice: its index among its parameter's choices.
func (c *compiler) symbol(name string) (int64, bool) {
	for _, par := range c.pr.Params {
		for i, ch := range par.Choices {
			if ch == name {
				return int64(i), true
			}
		}
	}
	return 0, false
}

func (c *compiler) program() (*model.Program, error) {
	p := &model.Program{Name: c.pr.Name}
	c.prog = p
	c.fields, c.structs, c.mutexes, c.arrays = map[string][]fieldAt{}, map[string]*array{}, map[string]bool{}, map[string]*array{}
	c.types, c.allocs = map[string]*shape{}, map[string]int{}
	for _, s := range c.pr.Types {
		lay, err := c.shape(s)
		if err != nil {
			return nil, err
		}
		c.types[s.Name] = lay
	}
	type init struct {
		loc model.Loc
		e   Expr
	}
	var inits []init
	add := func(name string, mutex bool) model.Loc {
		p.Locs = append(p.Locs, model.Location{Name: name, Mutex: mutex})
		l := model.Loc(len(p.Locs) - 1)
		c.locs[name] = l
		return l
	}
	for _, s := range c.pr.Shared {
		var lay *shape
		if s.Fields != nil {
			var err error
			if lay, err = c.shape(s); err != nil {
				return nil, err
			}
		}
		cells := func(prefix string) {
			lay.cells(prefix, func(name string, e Expr) { inits = append(inits, init{add(name, false), e}) })
		}
		switch {
		case s.Len != nil:
			n, err := c.constant(s.Len)
			if err != nil {
				return nil, err
			}
			if n < 1 || n > maxArray {
				return nil, errAt(s.Pos, "array %s: %d elements is out of range (1 to %d)", s.Name, n, maxArray)
			}
			if lay != nil && n*lay.size > maxLocs {
				return nil, errAt(s.Pos, "array %s takes %d locations, more than %d", s.Name, n*lay.size, maxLocs)
			}
			if int64(len(s.Elems)) > n {
				return nil, errAt(s.Elems[n].pos(), "array %s has %d elements, not %d initial values", s.Name, n, len(s.Elems))
			}
			a := &array{base: model.Loc(len(p.Locs)), n: n, lay: lay}
			c.arrays[s.Name] = a
			for k := range n {
				elem := elemName(s, k)
				if lay == nil {
					var e Expr = &Num{At: s.Pos}
					if k < int64(len(s.Elems)) {
						e = s.Elems[k]
					}
					inits = append(inits, init{add(elem, false), e})
					continue
				}
				cells(elem)
			}
		case s.Fields == nil:
			inits = append(inits, init{add(s.Name, false), s.Init})
		default:
			c.structs[s.Name] = &array{base: model.Loc(len(p.Locs)), n: 1, lay: lay}
			cells(s.Name)
		}
		if len(p.Locs) > maxLocs {
			return nil, errAt(s.Pos, "the shared variables take more than %d locations", maxLocs)
		}
	}
	c.retires = c.pr.retires()
	c.destroyed = map[string]model.Loc{}
	for _, m := range c.pr.Mutexes {
		add(m.Name, true)
		c.mutexes[m.Name] = true
	}
	for _, m := range c.pr.Mutexes {
		if at, ok := c.pr.destroys(m.Name); ok {
			c.destroyed[m.Name] = add(m.Name+"#destroyed", false)
			if c.locking == nil {
				c.locking = &at
			}
		}
	}
	for _, in := range inits {
		v, err := c.constant(in.e)
		if err != nil {
			return nil, err
		}
		p.Locs[in.loc].Init = v
	}
	// Threads: templates are instantiated Count times; spawned threads wait.
	type inst struct {
		d    *ThreadDecl
		self int64
		name string
	}
	var insts []inst
	for _, d := range c.pr.Threads {
		if d.Count == nil {
			insts = append(insts, inst{d, 0, d.Name})
			continue
		}
		if d.Spawned {
			return nil, errAt(d.Pos, "a spawned thread cannot be a template")
		}
		n, err := c.constant(d.Count)
		if err != nil {
			return nil, err
		}
		if n < 1 || n > 64 {
			return nil, errAt(d.Pos, "thread %s: count %d is out of range (1 to 64)", d.Name, n)
		}
		for i := int64(0); i < n; i++ {
			insts = append(insts, inst{d, i, fmt.Sprintf("%s[%d]", d.Name, i)})
		}
	}
	c.threads = map[string][]int{}
	for i, in := range insts {
		p.Threads = append(p.Threads, model.Thread{Name: in.name, Spawned: in.d.Spawned})
		c.threads[in.d.Name] = append(c.threads[in.d.Name], i)
	}
	var tcs []*threadComp
	for i, in := range insts {
		tc := &threadComp{c: c, th: &p.Threads[i], self: in.self, number: int64(i), regAt: map[model.Reg]*regAssign{}}
		for k := range c.pr.Hazards {
			tc.hazards = append(tc.hazards, tc.newReg(fmt.Sprintf("%%hazard%d", k+1)))
		}
		if err := tc.block(in.d.Body); err != nil {
			return nil, err
		}
		tc.patch(tc.stops, tc.pc())
		if at := tc.settleLocks(); at != nil && c.locking == nil {
			c.locking = at
		}
		if err := model.CheckMemory("compiling the protocol"); err != nil {
			return nil, &Error{Pos: in.d.Pos, Msg: err.Error(), Err: err}
		}
		tcs = append(tcs, tc)
	}
	if c.locking == nil && len(c.pr.Mutexes) > 0 {
		p.Proven = append(p.Proven, PropLocking)
	}
	c.heapChecks()
	for _, f := range c.pr.Finals {
		cond, err := c.finalCond(f.Cond)
		if err != nil {
			return nil, err
		}
		p.Checks = append(p.Checks, model.Check{Prop: f.Prop, Msg: f.Msg, Cond: cond, Pos: f.Pos})
	}
	if c.pr.Aborts {
		markAborts(p)
	}
	if c.pr.Lowered {
		return p, nil // a front end's registers are its language's locals, none a misspelling
	}
	var observed []model.Observable
	for _, ch := range p.Checks {
		observed = ch.Cond.Observables(observed)
	}
	for i, tc := range tcs {
		if err := tc.unread(i, observed); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// constant evaluates a compile-time expression: numbers, parameters,
// symbols, addresses and arithmetic on them.
func (c *compiler) constant(e Expr) (int64, error) {
	switch e := e.(type) {
	case *Num:
		return e.Val, nil
	case *Name:
		if v, ok := c.paramInt(e.Name); ok {
			return v, nil
		}
		if v, ok := c.symbol(e.Name); ok {
			return v, nil
		}
		return 0, errAt(e.At, "%s is not a constant", e.Name)
	case *AddrExpr:
		l, err := c.addrOf(e.Of)
		return model.AddrOf(l), err
	case *UnExpr:
		v, err := c.constant(e.X)
		if e.Op == "-" {
			return -v, err
		}
		if v == 0 {
			return 1, err
		}
		return 0, err
	case *CondExpr:
		v, err := c.constant(e.Cond)
		if err != nil {
			return 0, err
		}
		if v != 0 {
			return c.constant(e.Then)
		}
		return c.constant(e.Else)
	case *BinExpr:
		x, err := c.constant(e.X)
		if err != nil {
			return 0, err
		}
		if e.Op == "&&" && x == 0 || e.Op == "||" && x != 0 {
			return b2i(e.Op == "||"), nil
		}
		y, err := c.constant(e.Y)
		if err != nil {
			return 0, err
		}
		return FoldBin(e, x, y)
	}
	return 0, errAt(e.pos(), "expected a constant")
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// FoldBin is the value of the binary expression e on constant operands x
// and y, or an error at e (division by zero, an operator a constant may
// not use).
func FoldBin(e *BinExpr, x, y int64) (int64, error) {
	switch e.Op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/", "%":
		if y == 0 {
			return 0, errAt(e.At, "division by zero")
		}
		if e.Op == "/" {
			return x / y, nil
		}
		return x % y, nil
	case "==":
		return b2i(x == y), nil
	case "!=":
		return b2i(x != y), nil
	case "<":
		return b2i(x < y), nil
	case "<=":
		return b2i(x <= y), nil
	case ">":
		return b2i(x > y), nil
	case ">=":
		return b2i(x >= y), nil
	case "&&":
		return b2i(x != 0 && y != 0), nil
	case "||":
		return b2i(x != 0 || y != 0), nil
	}
	return 0, errAt(e.At, "operator %s is not allowed in a constant", e.Op)
}

func (c *compiler) paramInt(name string) (int64, bool) {
	v, ok := c.params[name]
	if !ok {
		return 0, false
	}
	if n, err := strconv.ParseInt(v.Text, 0, 64); err == nil {
		return n, true
	}
	if s, ok := c.symbol(v.Text); ok {
		return s, true
	}
	return 0, false
}

// ordering resolves an ordering argument: a literal or a parameter.
func (c *compiler) ordering(v Value, what string, ok func(model.Ordering) bool) (model.Ordering, error) {
	text := v.Text
	if pv, isParam := c.params[text]; isParam {
		text = pv.Text
	}
	o, valid := model.ParseOrdering(text)
	if !valid {
		known := []string{"na", "rlx", "con", "acq", "rel", "acq_rel", "sc", "relaxed", "consume", "acquire", "release", "seq_cst"}
		for n := range c.params {
			known = append(known, n)
		}
		slices.Sort(known)
		return 0, errAt(v.Pos, "%q is not an ordering (na, rlx, con, acq, rel, acq_rel, sc) or a parameter holding one%s", v.Text, model.DidYouMean(v.Text, known))
	}
	if !ok(o) {
		via := ""
		if text != v.Text {
			via = fmt.Sprintf(" (parameter %s)", v.Text)
		}
		return 0, errAt(v.Pos, "%s%s is not a valid ordering for %s", o, via, what)
	}
	return o, nil
}

func (c *compiler) finalCond(e Expr) (*model.Cond, error) {
	switch e := e.(type) {
	case *BinExpr:
		switch e.Op {
		case "&&", "||":
			x, err := c.finalCond(e.X)
			if err != nil {
				return nil, err
			}
			y, err := c.finalCond(e.Y)
			kind := model.CAnd
			if e.Op == "||" {
				kind = model.COr
			}
			return &model.Cond{Kind: kind, X: x, Y: y}, err
		case "==", "!=":
			obs, err := c.observable(e.X)
			if err != nil {
				return nil, err
			}
			v, err := c.constant(e.Y)
			if err != nil {
				return nil, err
			}
			kind := model.CEq
			if e.Op == "!=" {
				kind = model.CNe
			}
			return &model.Cond{Kind: kind, Obs: obs, Val: v}, nil
		}
	case *UnExpr:
		if e.Op == "!" {
			x, err := c.finalCond(e.X)
			return &model.Cond{Kind: model.CNot, X: x}, err
		}
	}
	return nil, errAt(e.pos(), "a final condition compares shared variables and registers (thread.r) with constants, joined by &&, || and !")
}

// observable resolves what a final condition compares: a shared location,
// or a register of a thread ("writer.r", "caller[0].r").
func (c *compiler) observable(e Expr) (model.Observable, error) {
	if f, ok := e.(*FieldExpr); ok && c.threads[f.Struct] != nil {
		return c.register(f)
	}
	switch e.(type) {
	case *Name, *FieldExpr, *IndexExpr:
		l, err := c.location(e)
		return model.Observable{Thread: -1, Reg: model.NoReg, Loc: l}, err
	}
	return model.Observable{}, errAt(e.pos(), "a final condition compares a shared variable or a register (thread.r) with a constant")
}

// register resolves "t.r" or "t[i].r" in a final condition.
func (c *compiler) register(f *FieldExpr) (model.Observable, error) {
	insts := c.threads[f.Struct]
	k := int64(0)
	switch {
	case f.Index != nil && c.pr.thread(f.Struct).Count == nil:
		return model.Observable{}, errAt(f.At, "thread %s has one instance: name its register as %s.%s", f.Struct, f.Struct, f.Field)
	case f.Index == nil && len(insts) > 1:
		return model.Observable{}, errAt(f.At, "thread %s has %d instances: name one, as in %s[0].%s", f.Struct, len(insts), f.Struct, f.Field)
	case f.Index != nil:
		var err error
		if k, err = c.constant(f.Index); err != nil {
			return model.Observable{}, err
		}
		if k < 0 || k >= int64(len(insts)) {
			return model.Observable{}, errAt(f.Index.pos(), "thread %s has instances 0 to %d, not %d", f.Struct, len(insts)-1, k)
		}
	}
	// A spawned thread that never starts holds its initial registers.
	t := insts[k]
	r := c.prog.Threads[t].RegIndex(f.Field)
	if r == model.NoReg {
		return model.Observable{}, errAt(f.At, "thread %s has no register %s", c.prog.Threads[t].Name, f.Field)
	}
	return model.Observable{Thread: t, Reg: r, Loc: model.NoLoc}, nil
}

// markAborts makes every assertion of p end the program when it fails, as
// C's assert and memory errors do, but a mutex's misuse (property
// locking), which leaves its thread waiting as the C library's mutex does.
func markAborts(p *model.Program) {
	for t := range p.Threads {
		for i := range p.Threads[t].Code {
			if in := &p.Threads[t].Code[i]; in.Op == model.OpAssert && in.Prop != PropLocking {
				in.Abort = true
			}
		}
	}
}
