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

// array is a shared array: n elements from location base, each the
// locations of a struct (lay) or one location (lay nil: an array of
// scalars).
type array struct {
	base model.Loc
	n    int64
	lay  *shape
}

// stride is the number of locations of an element.
func (a *array) stride() int64 {
	if a.lay == nil {
		return 1
	}
	return a.lay.size
}

// elemName names element k of array s: s[k], or with Dims one index per
// dimension.
func elemName(s *Shared, k int64) string {
	if len(s.Dims) < 2 {
		return fmt.Sprintf("%s[%d]", s.Name, k)
	}
	idx := make([]string, len(s.Dims))
	for d := len(s.Dims) - 1; d >= 0; d-- {
		idx[d] = fmt.Sprintf("[%d]", k%s.Dims[d])
		k /= s.Dims[d]
	}
	return s.Name + strings.Join(idx, "")
}

// shape is where a struct's fields lie in its locations: field i from
// offset at[i].off, at[i].n locations long (n is 0 for a scalar).
type shape struct {
	name   string
	fields []Field
	at     []fieldAt
	size   int64
}

// fieldAt is where a field lies in its struct: at offset off, an array of
// n elements (n 0: a scalar), each stride locations long.
type fieldAt struct{ off, n, stride int64 }

// placed is where p says a member lies.
func (p *Place) placed() fieldAt { return fieldAt{off: p.Off, n: p.Len, stride: max(p.Stride, 1)} }

// tail is the text of the member after its index, for messages.
func (p *Place) tail() string {
	if p == nil {
		return ""
	}
	return p.Tail
}

// shape lays out struct s, recording its fields' places for p->f.
func (c *compiler) shape(s *Shared) (*shape, error) {
	l := &shape{name: s.Name, fields: s.Fields}
	for _, f := range s.Fields {
		var n int64
		if f.Len != nil {
			v, err := c.constant(f.Len)
			if err != nil {
				return nil, err
			}
			if v < 1 || v > maxArray {
				return nil, errAt(f.Len.pos(), "field %s of %s: %d elements is out of range (1 to %d)", f.Name, s.Name, v, maxArray)
			}
			if int64(len(f.Elems)) > v {
				return nil, errAt(f.Elems[v].pos(), "field %s of %s has %d elements, not %d initial values", f.Name, s.Name, v, len(f.Elems))
			}
			n = v
		}
		at := fieldAt{off: l.size, n: n, stride: 1}
		l.at = append(l.at, at)
		l.size += max(n, 1)
		if l.size > maxArray {
			return nil, errAt(s.Pos, "struct %s takes more than %d locations", s.Name, maxArray)
		}
		c.fields[f.Name] = append(c.fields[f.Name], at)
	}
	return l, nil
}

// field finds a field of the struct.
func (l *shape) field(name string) (fieldAt, bool) {
	for i, f := range l.fields {
		if f.Name == name {
			return l.at[i], true
		}
	}
	return fieldAt{}, false
}

// names lists the struct's field names, for messages.
func (l *shape) names() []string {
	var ns []string
	for _, f := range l.fields {
		ns = append(ns, f.Name)
	}
	return ns
}

// cells calls f with the name of each of the struct's locations after
// prefix (prefix.f, prefix.keys[0], ...) and its initial value.
func (l *shape) cells(prefix string, f func(name string, init Expr)) {
	for _, fd := range l.fields {
		if fd.Len == nil {
			f(prefix+"."+fd.Name, fd.Init)
			continue
		}
		n, _ := l.field(fd.Name)
		for k := range n.n {
			e := fd.Init
			switch {
			case k < int64(len(fd.Elems)):
				e = fd.Elems[k]
			case fd.Elems != nil:
				e = &Num{}
			}
			f(fmt.Sprintf("%s.%s[%d]", prefix, fd.Name, k), e)
		}
	}
}

// maxArray bounds the elements of an array and the locations of a
// struct; maxLocs bounds a program's locations. Both are about memory:
// every state holds every location.
const (
	maxArray = 1 << 20
	maxLocs  = 1 << 22
)

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

// location resolves a shared variable, field, array element or mutex
// named statically (every index constant).
func (c *compiler) location(e Expr) (model.Loc, error) {
	switch e := e.(type) {
	case *Name:
		if l, ok := c.locs[e.Name]; ok {
			return l, nil
		}
		if s := c.structs[e.Name]; s != nil {
			return s.base, nil
		}
		if a := c.arrays[e.Name]; a != nil {
			return a.base, nil
		}
		return model.NoLoc, errAt(e.At, "unknown shared variable %s%s", e.Name, c.suggest(e.Name))
	case *FieldExpr:
		return c.staticMember(e, false)
	case *IndexExpr:
		return c.staticIndex(e, false)
	}
	return model.NoLoc, errAt(e.pos(), "expected a shared variable")
}

// staticIndex resolves a[i] with i constant; whole allows an element of
// an array of structs (its first location, as &a[i] takes).
func (c *compiler) staticIndex(e *IndexExpr, whole bool) (model.Loc, error) {
	a, err := c.array(e.Array, e.At)
	if err != nil {
		return model.NoLoc, err
	}
	if a.lay != nil && !whole {
		return model.NoLoc, c.structElem(e)
	}
	k, err := c.constant(e.Index)
	if err != nil {
		return model.NoLoc, err
	}
	return a.base + model.Loc(k*a.stride()), inRange(k, a.n, e.Index.pos(), "array "+e.Array)
}

// addrOf resolves what &e takes the address of, statically: as location
// does, but an element of an array of structs or an array field may be
// named whole (its first location).
func (c *compiler) addrOf(e Expr) (model.Loc, error) {
	switch e := e.(type) {
	case *IndexExpr:
		return c.staticIndex(e, true)
	case *FieldExpr:
		return c.staticMember(e, true)
	}
	return c.location(e)
}

// structElem is the error of naming a whole struct of an array.
func (c *compiler) structElem(e *IndexExpr) error {
	a := c.arrays[e.Array]
	return errAt(e.At, "the elements of %s are structs: name a field (%s[i].%s)", e.Array, e.Array, a.lay.fields[0].Name)
}

// inRange checks a constant index k of what has n elements.
func inRange(k, n int64, pos model.Pos, what string) error {
	if k < 0 || k >= n {
		return errAt(pos, "index %d is out of range: %s has %d elements", k, what, n)
	}
	return nil
}

// array returns the shared array called name.
func (c *compiler) array(name string, at model.Pos) (*array, error) {
	if a := c.arrays[name]; a != nil {
		return a, nil
	}
	return nil, errAt(at, "unknown shared array %s%s", name, c.suggest(name))
}

// member resolves the struct (or array of structs) and the field that
// s.f or a[i].f names.
func (c *compiler) member(e *FieldExpr) (*array, fieldAt, error) {
	var a *array
	if e.Index == nil {
		a = c.structs[e.Struct]
		if a == nil {
			if c.arrays[e.Struct] != nil {
				return nil, fieldAt{}, errAt(e.At, "%s is an array: name an element (%s[i].%s)", e.Struct, e.Struct, e.Field)
			}
			return nil, fieldAt{}, errAt(e.At, "unknown shared struct %s%s", e.Struct, c.suggest(e.Struct))
		}
	} else {
		var err error
		if a, err = c.array(e.Struct, e.At); err != nil {
			return nil, fieldAt{}, err
		}
		if a.lay == nil {
			return nil, fieldAt{}, errAt(e.At, "%s is an array of scalars: its elements have no field %s", e.Struct, e.Field)
		}
	}
	if e.Place != nil {
		return a, e.Place.placed(), nil
	}
	f, ok := a.lay.field(e.Field)
	if !ok {
		what := "struct " + e.Struct + " has"
		if e.Index != nil {
			what = "the elements of " + e.Struct + " have"
		}
		return nil, fieldAt{}, errAt(e.At, "%s no field %s%s", what, e.Field, model.DidYouMean(e.Field, a.lay.names()))
	}
	return a, f, nil
}

// staticMember resolves s.f, a[i].f, s.f[j] or a[i].f[j] with constant
// indices; whole allows an array field without an index (its first
// element, as &s.f takes).
func (c *compiler) staticMember(e *FieldExpr, whole bool) (model.Loc, error) {
	a, f, err := c.member(e)
	if err != nil {
		return model.NoLoc, err
	}
	var k, j int64
	if e.Index != nil {
		if k, err = c.constant(e.Index); err != nil {
			return model.NoLoc, err
		}
		if err := inRange(k, a.n, e.Index.pos(), "array "+e.Struct); err != nil {
			return model.NoLoc, err
		}
	}
	if err := subCheck(e, f, e.Sub, whole); err != nil {
		return model.NoLoc, err
	}
	if e.Sub != nil {
		if j, err = c.constant(e.Sub); err != nil {
			return model.NoLoc, err
		}
		if err := inRange(j, f.n, e.Sub.pos(), "field "+e.Field); err != nil {
			return model.NoLoc, err
		}
	}
	return a.base + model.Loc(k*a.stride()+f.off+j*f.stride), nil
}

// subCheck checks that x, a field f, has an index sub exactly when it is
// an array field (or names a whole one, when whole allows).
func subCheck(x Expr, f fieldAt, sub Expr, whole bool) error {
	switch {
	case f.n == 0 && sub != nil:
		return errAt(sub.pos(), "%s is not an array: fields hold scalars or arrays of scalars", formatExpr(withoutSub(x)))
	case f.n > 0 && sub == nil && !whole:
		return errAt(x.pos(), "%s is an array field: name an element (%s[i])", formatExpr(x), formatExpr(x))
	}
	return nil
}

// withoutSub is a field expression without its element index (and what
// follows it), for messages.
func withoutSub(x Expr) Expr {
	switch x := x.(type) {
	case *FieldExpr:
		y := *x
		y.Sub, y.Place = nil, x.Place.untailed()
		return &y
	case *ArrowExpr:
		y := *x
		y.Sub, y.Place = nil, x.Place.untailed()
		return &y
	}
	return x
}

// untailed is p without its tail.
func (p *Place) untailed() *Place {
	if p == nil {
		return nil
	}
	q := *p
	q.Tail = ""
	return &q
}

// suggest names the shared variable closest to name, when one is close
// enough to be a misspelling of it (model.DidYouMean): "; did you mean
// data?".
func (c *compiler) suggest(name string) string {
	var names []string
	for _, s := range c.pr.Shared {
		names = append(names, s.Name)
	}
	if m := model.DidYouMean(name, names); m != "" {
		return "; " + strings.Trim(m, " ()")
	}
	return ""
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

// threadComp compiles one thread instance.
type threadComp struct {
	c      *compiler
	th     *model.Thread
	self   int64
	number int64    // the thread's number in the program (ThreadIndex)
	scope  []string // procedure frames: register name prefixes
	rets   []*retFrame
	loops  []*loop // the loops around the statement compiled, innermost last
	ntemp  int
	// regs lists the registers assignments created, in order; regAt finds them.
	regs  []*regAssign
	regAt map[model.Reg]*regAssign
	// regIndex finds a register by name (the first of that name).
	regIndex map[string]model.Reg
	// heldRegs say whether the thread holds each mutex; locks are the
	// checks of its locks and unlocks.
	heldRegs map[string]model.Reg
	locks    []lockSite
	// hazards are the thread's hazard pointers (HazardStmt), by handle - 1.
	hazards []model.Reg
	// spins are the registers of the spin-assumed loops around the code
	// compiled (WhileStmt.Spin), set when their round writes what other
	// threads can see; fresh maps the registers that point into a block
	// the thread allocated and has not let escape to the block's
	// allocation (stores through them are local).
	stops     []int // branches to the thread's end (WhileStmt.Stop)
	spins     []model.Reg
	fresh     map[model.Reg]int
	freshRead map[int]bool // blocks read since their allocation
	nfresh    int
}

type retFrame struct {
	name  string // the operation or procedure
	op    bool   // an operation: its results are dsts
	dst   model.Reg
	dsts  []model.Reg
	jumps []int
}

// loop is a loop being compiled: the jumps of its break and continue
// statements, to patch, and what they may not leave.
type loop struct {
	breaks, conts []int
	rets          int       // operations and procedures open when it began
	counter       model.Reg // a for loop's variable; NoReg for a while loop
	rounds        int64     // at most; 0 when not constant
	at            model.Pos
}

// regAssign is a register created by an assignment: where, and whether an
// assignment to it performs an operation (a memory access, a choice).
type regAssign struct {
	reg  model.Reg
	name string
	at   model.Pos
	acts bool
}

func (t *threadComp) emit(in model.Instr) int {
	if in.Dst == 0 && in.Op != model.OpLoad && in.Op != model.OpRMW && in.Op != model.OpCAS && in.Op != model.OpAssign && in.Op != model.OpChoose {
		in.Dst = model.NoReg
	}
	if in.Op != model.OpCAS {
		in.Dst2 = model.NoReg
	}
	t.escape(&in)
	t.th.Code = append(t.th.Code, in)
	at := len(t.th.Code) - 1
	if len(t.spins) > 0 {
		t.spinEffect(&t.th.Code[at])
	}
	return at
}

func (t *threadComp) pc() int { return len(t.th.Code) }

// patch points the jumps at target.
func (t *threadComp) patch(jumps []int, target int) {
	for _, j := range jumps {
		t.th.Code[j].Target = target
	}
}

func (t *threadComp) prefix() string {
	if len(t.scope) == 0 {
		return ""
	}
	return t.scope[len(t.scope)-1]
}

func (t *threadComp) newReg(name string) model.Reg {
	t.th.Regs = append(t.th.Regs, name)
	t.th.Init = append(t.th.Init, 0)
	r := model.Reg(len(t.th.Regs) - 1)
	if t.regIndex == nil {
		t.regIndex = map[string]model.Reg{}
	}
	if _, dup := t.regIndex[name]; !dup {
		t.regIndex[name] = r
	}
	return r
}

func (t *threadComp) temp() model.Reg {
	t.ntemp++
	return t.newReg(fmt.Sprintf("%%t%d", t.ntemp))
}

// assignReg finds the register an assignment at at writes, visible in the
// current frame, or makes it.
func (t *threadComp) assignReg(name string, at model.Pos) model.Reg {
	r := t.reg(name)
	if r == model.NoReg {
		r = t.newReg(t.prefix() + name)
		ra := &regAssign{reg: r, name: name, at: at}
		t.regs, t.regAt[r] = append(t.regs, ra), ra
	}
	return r
}

// reg finds a register visible in the current frame.
func (t *threadComp) reg(name string) model.Reg {
	if r, ok := t.regIndex[t.prefix()+name]; ok {
		return r
	}
	return model.NoReg
}

// MaxInstructions and MaxRegisters bound what one thread compiles to,
// procedures expanded: a protocol whose calls expand exponentially, or a
// generated thread of millions of statements, is refused where it
// crosses the bound rather than exhausting time and memory.
const (
	MaxInstructions = 1 << 18
	MaxRegisters    = 1 << 16
)

func (t *threadComp) block(b *Block) error {
	for _, s := range b.Stmts {
		if err := t.stmt(s); err != nil {
			return err
		}
		if err := t.bounded(s.pos()); err != nil {
			return err
		}
	}
	return nil
}

// bounded fails at pos once the thread's code or registers pass their
// bounds.
func (t *threadComp) bounded(pos model.Pos) error {
	switch {
	case len(t.th.Code) > MaxInstructions:
		return errAt(pos, "thread %s compiles to more than %d instructions here (procedure calls expand at each call): a protocol this large is not checkable", t.th.Name, MaxInstructions)
	case len(t.th.Regs) > MaxRegisters:
		return errAt(pos, "thread %s has more than %d registers here (procedure calls expand at each call)", t.th.Name, MaxRegisters)
	}
	return nil
}

func (t *threadComp) stmt(s Stmt) error {
	switch s := s.(type) {
	case *AssignStmt:
		return t.assign(s)
	case *IfStmt:
		cond, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		br := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Not(cond), Pos: s.At, Text: "if"})
		if err := t.block(s.Then); err != nil {
			return err
		}
		if s.Else == nil {
			t.th.Code[br].Target = t.pc()
			return nil
		}
		j := t.emit(model.Instr{Op: model.OpJump, Pos: s.At})
		t.th.Code[br].Target = t.pc()
		if err := t.block(s.Else); err != nil {
			return err
		}
		t.th.Code[j].Target = t.pc()
		return nil
	case *WhileStmt:
		// cnt = 0; top: if !cond goto end; if cnt < max goto body; bound;
		// body: ...; cont: cnt = cnt + 1; goto top; end:
		max, err := t.c.constant(s.Max)
		if err != nil {
			return err
		}
		if t.spinLoop(s) {
			return t.spin(s)
		}
		cnt := t.temp()
		t.emit(model.Instr{Op: model.OpAssign, Dst: cnt, Val: model.Const(0), Pos: s.At})
		spin := s.Spin && casFlags(carried(s.Body, s.Cond), s.Body)
		fx := model.NoReg // a spin-assumed loop's round wrote what others see
		if spin {
			fx = t.temp()
		}
		top := t.pc()
		if s.Stop {
			t.stops = append(t.stops, t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Ge, model.RegExpr(cnt), model.Const(max)), Pos: s.At, Text: "stop at the bound"}))
		}
		if spin {
			t.emit(model.Instr{Op: model.OpAssign, Dst: fx, Val: model.Const(0), Pos: s.At, Text: "spin round"})
			t.spins = append(t.spins, fx)
		}
		cond, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		exit := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Not(cond), Pos: s.At, Text: "while"})
		t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Lt, model.RegExpr(cnt), model.Const(max)), Target: t.pc() + 2, Pos: s.At})
		t.emit(model.Instr{Op: model.OpBound, Pos: s.At, Text: fmt.Sprintf("while loop ran %d times", max)})
		l, err := t.loopBody(s.Body, model.NoReg, max, s.At)
		if err != nil {
			return err
		}
		if spin {
			// A round that comes back having written nothing others see
			// starts the next as it started: pruned, a wait whose
			// evaluation is the round.
			t.spins = t.spins[:len(t.spins)-1]
			wrote := t.emit(model.Instr{Op: model.OpBranch, Cond: model.RegExpr(fx), Pos: s.At})
			t.emit(model.Instr{Op: model.OpAssume, Await: true, Cond: model.Const(0), Target: top, Pos: s.At, Text: "spin round"})
			t.th.Code[wrote].Target = t.pc()
		}
		t.emit(model.Instr{Op: model.OpAssign, Dst: cnt, Val: model.Bin(model.Add, model.RegExpr(cnt), model.Const(1)), Pos: s.At})
		t.emit(model.Instr{Op: model.OpJump, Target: top, Pos: s.At})
		t.patch(append(l.breaks, exit), t.pc())
		return nil
	case *ForStmt:
		// i = from; top: if i >= to goto end; body; cont: i = i + 1; goto top; end:
		from, err := t.expr(s.From)
		if err != nil {
			return err
		}
		to, err := t.expr(s.To)
		if err != nil {
			return err
		}
		if hasReg(to) {
			// The count is fixed when the loop starts.
			n := t.temp()
			t.emit(model.Instr{Op: model.OpAssign, Dst: n, Val: to, Pos: s.At})
			to = model.RegExpr(n)
		}
		if t.isShared(s.Var) {
			return errAt(s.At, "loop variable %s is a shared variable; a loop counts in a register", s.Var)
		}
		i := t.reg(s.Var)
		if i == model.NoReg {
			i = t.newReg(t.prefix() + s.Var)
		}
		t.emit(model.Instr{Op: model.OpAssign, Dst: i, Val: from, Pos: s.At, Text: s.Var + " = ..."})
		top := t.pc()
		exit := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Ge, model.RegExpr(i), to), Pos: s.At, Text: "for"})
		var rounds int64
		f, fok := constValue(from)
		n, nok := constValue(to)
		if fok && nok && (n <= f || n-f > 0) { // n-f not overflowed
			rounds = max(n-f, 1)
		}
		l, err := t.loopBody(s.Body, i, rounds, s.At)
		if err != nil {
			return err
		}
		t.emit(model.Instr{Op: model.OpAssign, Dst: i, Val: model.Bin(model.Add, model.RegExpr(i), model.Const(1)), Pos: s.At})
		t.emit(model.Instr{Op: model.OpJump, Target: top, Pos: s.At})
		t.patch(append(l.breaks, exit), t.pc())
		return nil
	case *BranchStmt:
		if len(t.loops) == 0 {
			return errAt(s.At, "%s outside a loop", s.Tok)
		}
		l := t.loops[len(t.loops)-1]
		if len(t.rets) > l.rets {
			return errAt(s.At, "%s would leave operation %s without its return", s.Tok, t.rets[len(t.rets)-1].name)
		}
		j := t.emit(model.Instr{Op: model.OpJump, Pos: s.At, Text: s.Tok})
		if s.Tok == "break" {
			l.breaks = append(l.breaks, j)
		} else {
			l.conts = append(l.conts, j)
		}
		return nil
	case *NamedBlock:
		if v := t.c.variant; v != nil {
			if r, ok := v.Replace[s.Name]; ok {
				t.c.used[s.Name] = true
				return t.block(r)
			}
		}
		return t.block(s.Body)
	case *OpStmt:
		if proc, ok := t.c.pr.Procs[s.Name]; ok && proc.Op {
			return errAt(s.At, "op %s names an operation declared with \"op %s(...)\" at %s: call it, or give this block another name", s.Name, s.Name, t.c.pr.Procs[s.Name].Pos)
		}
		_, err := t.operation(s.Name, nil, s.Body, s.At)
		return err
	case *EitherStmt:
		choice := t.temp()
		t.emit(model.Instr{Op: model.OpChoose, Dst: choice, N: len(s.Arms), Pos: s.At, Text: "either"})
		var ends []int
		for k, arm := range s.Arms {
			br := -1
			if k < len(s.Arms)-1 {
				br = t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Ne, model.RegExpr(choice), model.Const(int64(k))), Pos: arm.Pos})
			}
			if err := t.block(arm); err != nil {
				return err
			}
			if br >= 0 {
				ends = append(ends, t.emit(model.Instr{Op: model.OpJump, Pos: arm.Pos}))
				t.th.Code[br].Target = t.pc()
			}
		}
		t.patch(ends, t.pc())
		return nil
	case *AssertStmt:
		if slices.Contains(builtinProps, s.Prop) {
			return errAt(s.At, "%s is a built-in property, which ordercheck checks itself: an assert cannot check it; name a property of your own (property NAME)", s.Prop)
		}
		if !t.c.hasProp(s.Prop) {
			return errAt(s.At, "unknown property %s (declare it with \"property %s\")", s.Prop, s.Prop)
		}
		cond, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		msg := s.Msg
		if msg == "" {
			msg = s.Prop
		}
		t.emit(model.Instr{Op: model.OpAssert, Cond: cond, Prop: s.Prop, Msg: msg, Pos: s.At, Text: "assert " + s.Prop})
		return nil
	case *AssumeStmt:
		start := t.pc() // an await's condition is evaluated again from here
		if s.Pre != nil {
			if err := t.block(s.Pre); err != nil {
				return err
			}
		}
		cond, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		in := model.Instr{Op: model.OpAssume, Cond: cond, Pos: s.At, Text: "assume"}
		if s.Await {
			for _, c := range t.th.Code[start:] {
				if c.Op == model.OpRMW {
					return errAt(c.Pos, "an await's condition may not make a read-modify-write (%s): each round of the wait would write again; wait with a load or a cas, or write a loop with max", c.Text)
				}
				if c.Op == model.OpStore { // only alloc stores in an expression
					return errAt(c.Pos, "an await's condition may not write or allocate: each round of the wait would do it again; do it before the await")
				}
			}
			in.Await, in.Target, in.Text = true, start, "await"
		}
		t.emit(in)
		return nil
	case *MemStmt:
		return t.mem(s)
	case *HazardStmt:
		return t.hazard(s)
	case *SpawnStmt:
		for i := range t.c.prog.Threads {
			if th := &t.c.prog.Threads[i]; th.Name == s.Thread {
				if !th.Spawned {
					return errAt(s.At, "thread %s is not declared \"spawned\"", s.Thread)
				}
				t.emit(model.Instr{Op: model.OpSpawn, N: i, Pos: s.At, Text: "spawn " + s.Thread})
				return nil
			}
		}
		return errAt(s.At, "unknown thread %s", s.Thread)
	case *ReturnStmt:
		if len(t.rets) == 0 {
			return errAt(s.At, "return outside a procedure or operation")
		}
		f := t.rets[len(t.rets)-1]
		if !f.op && len(s.Vals) > 1 {
			return errAt(s.Vals[1].pos(), "procedure %s returns one value; an operation may return several", f.name)
		}
		dsts := f.dsts
		if !f.op {
			dsts = []model.Reg{f.dst}
		}
		// Every value first, then the assignments: "return b, a" swaps.
		var vals []*model.Expr
		for _, x := range s.Vals {
			v, err := t.expr(x)
			if err != nil {
				return err
			}
			if len(s.Vals) > 1 && hasReg(v) {
				r := t.temp()
				t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: v, Pos: s.At})
				v = model.RegExpr(r)
			}
			vals = append(vals, v)
		}
		for k, v := range vals {
			t.emit(model.Instr{Op: model.OpAssign, Dst: dsts[k], Val: v, Pos: s.At, Text: "return"})
		}
		f.jumps = append(f.jumps, t.emit(model.Instr{Op: model.OpJump, Pos: s.At}))
		return nil
	case *ExprStmt:
		_, err := t.expr(s.X)
		return err
	case *RequireStmt:
		return errAt(s.At, "require belongs in a spec's operation; a thread checks with assert or prunes with assume")
	}
	return errAt(s.pos(), "unsupported statement")
}

// loopBody compiles the body of a loop whose variable is counter (NoReg
// for none). Its continue statements jump to the code emitted next (the
// end of the round); the caller patches its breaks to the loop's exit.
func (t *threadComp) loopBody(b *Block, counter model.Reg, rounds int64, at model.Pos) (*loop, error) {
	l := &loop{rets: len(t.rets), counter: counter, rounds: rounds, at: at}
	t.loops = append(t.loops, l)
	err := t.block(b)
	t.loops = t.loops[:len(t.loops)-1]
	t.patch(l.conts, t.pc())
	return l, err
}

// blockNames lists the names of the protocol's blocks a variant may
// replace, sorted.
func (pr *Protocol) blockNames() []string {
	var out []string
	for _, b := range pr.codeBlocks() {
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			if nb, ok := s.(*NamedBlock); ok && !slices.Contains(out, nb.Name) {
				out = append(out, nb.Name)
			}
		})
	}
	slices.Sort(out)
	return out
}

func (c *compiler) hasProp(name string) bool {
	for _, p := range c.pr.Props {
		if p.Name == name {
			return true
		}
	}
	return false
}

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
