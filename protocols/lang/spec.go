package lang

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/syntax"
)

// Spec is a sequential specification: the state of the object the
// protocol's operations implement, and what each operation may return,
// how it changes the state and what synchronisation it promises, run one
// operation at a time. It is what the linearizability property checks
// histories against (model.Spec), and what ordercheck linearize checks a
// Go implementation's recorded histories against (Model).
type Spec struct {
	State []*SpecVar
	Ops   []*SpecOp
	Pos   model.Pos
}

// SpecKind is what a state variable of a specification holds.
type SpecKind uint8

// The kinds of state variables.
const (
	SpecInt SpecKind = iota // an integer: "state n = 0"
	SpecSeq                 // a sequence of integers, a stack's or queue's items: "state q = []"
	SpecSet                 // a set of integers: "state s = {}"
)

// SpecVar is a state variable of a specification.
type SpecVar struct {
	Name  string
	Kind  SpecKind
	Init  int64   // an integer's initial value
	Elems []int64 // a sequence's or set's initial elements
	Pos   model.Pos
}

// SpecOp is an operation of the specification: its parameters, the
// results it may return (none declared, or Open: any), and a body of
// assignments to the state, calls of the state's built-ins, ifs and
// requires over the state, the parameters and "result".
type SpecOp struct {
	Name    string
	Params  []string
	Results []SpecResult
	// Open says that results other than those listed are possible too
	// ("returns 0 "empty", any"): the list then only gives their words.
	Open bool
	Body *Block
	Pos  model.Pos

	step func(r *specRun) bool // compiled by checkSpec
}

// SpecResult is a result an operation may return, with the words that
// describe it in messages ("" for the number).
type SpecResult struct {
	Val   int64
	Label string
}

// RequireStmt is "require cond" in a specification's operation: the
// operation may return its result only where cond holds.
type RequireStmt struct {
	Cond Expr
	At   model.Pos
}

func (s *RequireStmt) pos() model.Pos { return s.At }

// resultName is the name a specification's operation reads its result by.
const resultName = "result"

// spec reads "spec { state NAME = INIT, ... ; op NAME[(PARAM, ...)]
// [returns INT ["label"], ... [, any]] { ... } ... }".
func (p *parser) spec(pr *Protocol, pos model.Pos) error {
	if pr.Spec != nil {
		return errAt(pos, "a second spec section (the first is at %s)", pr.Spec.Pos)
	}
	s := &Spec{Pos: pos}
	pr.Spec = s
	if _, err := p.Expect("{"); err != nil {
		return err
	}
	for !p.Accept("}") {
		t := p.Peek()
		switch {
		case t.Kind == syntax.EOF:
			return errAt(pos, "unterminated spec: expected \"}\"")
		case p.Accept(";"):
		case p.Accept("state"):
			for {
				v, err := p.specVar()
				if err != nil {
					return err
				}
				s.State = append(s.State, v)
				if !p.Accept(",") {
					break
				}
			}
		case p.Accept("op"):
			op, err := p.specOp()
			if err != nil {
				return err
			}
			s.Ops = append(s.Ops, op)
		default:
			return errAt(t.Pos, "expected state or op in a spec, found %v", t)
		}
	}
	return nil
}

// specVar reads "NAME = INT", "NAME = [INT, ...]" or "NAME = {INT, ...}".
func (p *parser) specVar() (*SpecVar, error) {
	n, at, err := p.name("a state variable")
	if err != nil {
		return nil, err
	}
	if _, err := p.Expect("="); err != nil {
		return nil, err
	}
	v := &SpecVar{Name: n, Pos: at}
	closing := ""
	switch {
	case p.Accept("["):
		v.Kind, closing = SpecSeq, "]"
	case p.Accept("{"):
		v.Kind, closing = SpecSet, "}"
	default:
		v.Init, err = p.int64Lit()
		return v, err
	}
	for !p.Accept(closing) {
		if len(v.Elems) > 0 {
			if _, err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		e, err := p.int64Lit()
		if err != nil {
			return nil, err
		}
		v.Elems = append(v.Elems, e)
	}
	if v.Kind == SpecSet {
		slices.Sort(v.Elems)
		v.Elems = slices.Compact(v.Elems)
	}
	return v, nil
}

// specOp reads an operation after "op".
func (p *parser) specOp() (*SpecOp, error) {
	n, at, err := p.name("an operation name")
	if err != nil {
		return nil, err
	}
	op := &SpecOp{Name: n, Pos: at}
	if p.Accept("(") {
		for !p.Accept(")") {
			if len(op.Params) > 0 {
				if _, err := p.Expect(","); err != nil {
					return nil, err
				}
			}
			a, aat, err := p.name("a parameter name")
			if err != nil {
				return nil, err
			}
			if slices.Contains(op.Params, a) {
				return nil, errAt(aat, "operation %s has two parameters called %s", n, a)
			}
			op.Params = append(op.Params, a)
		}
	}
	if p.Accept("returns") {
		for {
			if p.Accept("any") {
				op.Open = true
			} else {
				v, err := p.int64Lit()
				if err != nil {
					return nil, err
				}
				label, _ := p.str()
				op.Results = append(op.Results, SpecResult{Val: v, Label: label})
			}
			if !p.Accept(",") {
				break
			}
		}
	}
	op.Body, err = p.block()
	return op, err
}

// ParseSpec parses a spec section on its own ("spec { ... }"), the
// specification of an object that is not a protocol's — a Go type of
// one's own, whose recorded histories Model checks. Errors name
// file:line:col.
func ParseSpec(file, src string) (*Spec, error) {
	toks, err := syntax.NewLexer(file, src, 0, 1, 1).All()
	if err != nil {
		return nil, err
	}
	p := &parser{Stream: syntax.Stream{Toks: toks}}
	pr := &Protocol{}
	t := p.Peek()
	if !p.Accept("spec") {
		return nil, errAt(t.Pos, "expected a spec section, found %v", t)
	}
	if err := p.spec(pr, t.Pos); err != nil {
		return nil, err
	}
	if t := p.Peek(); t.Kind != syntax.EOF {
		return nil, errAt(t.Pos, "expected the end after the spec section, found %v", t)
	}
	if err := pr.checkSpec(); err != nil {
		return nil, err
	}
	return pr.Spec, nil
}

// int64Lit reads an integer, possibly negative.
func (p *parser) int64Lit() (int64, error) {
	t := p.Peek()
	neg := p.Accept("-")
	n := p.Next()
	if n.Kind != syntax.Int {
		return 0, errAt(n.Pos, "expected an integer, found %v", n)
	}
	v, err := strconv.ParseInt(n.Text, 0, 64)
	if err != nil {
		return 0, errAt(t.Pos, "bad integer %s", n.Text)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// checkSpec validates the specification and compiles its operations: no
// name declared twice, bodies of what a spec may do, and every operation
// a thread performs specified with as many parameters as it takes. A
// protocol that checks linearizability without a spec is left to the
// checker, which may know one from its catalogue.
func (pr *Protocol) checkSpec() error {
	s := pr.Spec
	if s == nil {
		return nil
	}
	vars := map[string]int{}
	for i, v := range s.State {
		if v.Name == resultName {
			return errAt(v.Pos, "%s names an operation's result: call the state variable something else", resultName)
		}
		if j, ok := vars[v.Name]; ok {
			return errAt(v.Pos, "state variable %s is already declared at %s", v.Name, s.State[j].Pos)
		}
		vars[v.Name] = i
	}
	ops := map[string]*SpecOp{}
	for _, op := range s.Ops {
		if prev, ok := ops[op.Name]; ok {
			return errAt(op.Pos, "operation %s is already specified at %s", op.Name, prev.Pos)
		}
		ops[op.Name] = op
		seen := map[int64]bool{}
		for _, r := range op.Results {
			if seen[r.Val] {
				return errAt(op.Pos, "operation %s lists the result %d twice", op.Name, r.Val)
			}
			seen[r.Val] = true
		}
		c := &specComp{spec: s, vars: vars, params: map[string]int{}}
		for i, a := range op.Params {
			if a == resultName {
				return errAt(op.Pos, "%s names an operation's result: call the parameter something else", resultName)
			}
			if _, ok := vars[a]; ok {
				return errAt(op.Pos, "parameter %s of %s has the name of a state variable", a, op.Name)
			}
			c.params[a] = i
		}
		body, err := c.block(op.Body)
		if err != nil {
			return err
		}
		op.step = body
	}
	var names []string
	for _, op := range s.Ops {
		names = append(names, op.Name)
	}
	var err error
	check := func(name string, params int, at model.Pos) {
		op := ops[name]
		switch {
		case err != nil:
		case op == nil:
			err = errAt(at, "operation %s is not in the spec at %s (it specifies %s)%s", name, s.Pos, strings.Join(names, ", "), model.DidYouMean(name, names))
		case len(op.Params) != params:
			err = errAt(at, "operation %s takes %d argument(s) here and %d in the spec at %s", name, params, len(op.Params), op.Pos)
		}
	}
	for _, b := range pr.codeBlocks() {
		walkStmts(b, func(st Stmt, _ stmtPlace) {
			if o, ok := st.(*OpStmt); ok {
				check(o.Name, 0, o.At)
			}
		})
	}
	for _, proc := range pr.Procs {
		if proc.Op {
			check(proc.Name, len(proc.Params), proc.Pos)
		}
	}
	return err
}

// specComp compiles a specification's operation to a function over a
// run of it (specRun): it changes the state in place and reports whether
// the operation is accepted.
type specComp struct {
	spec   *Spec
	vars   map[string]int // state variables
	params map[string]int // the operation's parameters
}

func (c *specComp) block(b *Block) (func(*specRun) bool, error) {
	var steps []func(*specRun) bool
	for _, s := range b.Stmts {
		f, err := c.stmt(s)
		if err != nil {
			return nil, err
		}
		steps = append(steps, f)
	}
	return func(r *specRun) bool {
		for _, f := range steps {
			if !f(r) {
				return false
			}
		}
		return true
	}, nil
}

// specFail is what a specification's operation may do: assign its state,
// call its state's built-ins, branch and require.
const specFail = "a spec's operation may only assign its state, call its built-ins (store, push_back, insert, ...), branch with if and require conditions"

func (c *specComp) stmt(s Stmt) (func(*specRun) bool, error) {
	switch s := s.(type) {
	case *AssignStmt:
		n, ok := s.LHS.(*Name)
		if !ok {
			return nil, errAt(s.At, "a spec assigns only its state variables")
		}
		i, err := c.stateVar(n, SpecInt, "an integer")
		if err != nil {
			return nil, err
		}
		x, err := c.expr(s.RHS)
		if err != nil {
			return nil, err
		}
		return func(r *specRun) bool {
			v := x(r)
			r.write(&r.vars[i][0], v, false)
			return !r.failed
		}, nil
	case *MemStmt:
		if s.Kind != "store" {
			return nil, errAt(s.At, "%s", specFail)
		}
		n, ok := s.Args[0].(*Name)
		if !ok {
			return nil, errAt(s.Args[0].pos(), "store in a spec takes a state variable")
		}
		i, err := c.stateVar(n, SpecInt, "an integer")
		if err != nil {
			return nil, err
		}
		x, err := c.expr(s.Args[1])
		if err != nil {
			return nil, err
		}
		rel, err := specOrdering(*s.Ord, false)
		if err != nil {
			return nil, err
		}
		return func(r *specRun) bool {
			v := x(r)
			r.write(&r.vars[i][0], v, rel)
			return !r.failed
		}, nil
	case *ExprStmt:
		if call, ok := s.X.(*CallExpr); ok {
			f, err := c.call(call, true)
			if err != nil {
				return nil, err
			}
			return func(r *specRun) bool { f(r); return !r.failed }, nil
		}
	case *RequireStmt:
		x, err := c.expr(s.Cond)
		if err != nil {
			return nil, err
		}
		onResult := mentions(s.Cond, resultName)
		return func(r *specRun) bool {
			v := x(r)
			// A pending operation's result is unknown: a require on it
			// holds for some result.
			return !r.failed && (v != 0 || r.pending && onResult)
		}, nil
	case *IfStmt:
		cond, err := c.expr(s.Cond)
		if err != nil {
			return nil, err
		}
		then, err := c.block(s.Then)
		if err != nil {
			return nil, err
		}
		els := func(*specRun) bool { return true }
		if s.Else != nil {
			if els, err = c.block(s.Else); err != nil {
				return nil, err
			}
		}
		return func(r *specRun) bool {
			v := cond(r)
			if r.failed {
				return false
			}
			if v != 0 {
				return then(r)
			}
			return els(r)
		}, nil
	}
	return nil, errAt(s.pos(), "%s", specFail)
}

// mentions reports whether e reads the name n.
func mentions(e Expr, n string) bool {
	found := false
	inspectExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *Name:
			found = found || x.Name == n
		case *IndexExpr:
			found = found || x.Array == n
		}
	})
	return found
}

// stateVar returns the state variable n names, which must be of kind k
// (described as what).
func (c *specComp) stateVar(n *Name, k SpecKind, what string) (int, error) {
	i, ok := c.vars[n.Name]
	_, param := c.params[n.Name]
	switch {
	case !ok && n.Name == resultName:
		return 0, errAt(n.At, "%s is what the operation returned: a spec reads it (require %s == ...), never writes it", resultName, resultName)
	case !ok && param:
		return 0, errAt(n.At, "%s is a parameter of the operation: a spec writes only its state variables", n.Name)
	case !ok:
		return 0, errAt(n.At, "%s is not a state variable of the spec%s", n.Name, model.DidYouMean(n.Name, c.names()))
	}
	if c.spec.State[i].Kind != k {
		return 0, errAt(n.At, "%s is not %s", n.Name, what)
	}
	return i, nil
}

func (c *specComp) names() []string {
	out := []string{resultName}
	for n := range c.vars {
		out = append(out, n)
	}
	for n := range c.params {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// specOrdering reads the ordering of a spec's access: whether it
// acquires (read) or releases (!read) what it reads or writes.
func specOrdering(v Value, read bool) (bool, error) {
	o, ok := model.ParseOrdering(v.Text)
	if !ok {
		return false, errAt(v.Pos, "%q is not an ordering (rlx, acq, rel, acq_rel, sc)", v.Text)
	}
	if read {
		if !o.ValidForLoad() {
			return false, errAt(v.Pos, "%s is not an ordering for a read of a spec's state (rlx, acq, sc)", o)
		}
		return o.IsAcquire(), nil
	}
	if !o.ValidForStore() {
		return false, errAt(v.Pos, "%s is not an ordering for a write of a spec's state (rlx, rel, sc)", o)
	}
	return o.IsRelease(), nil
}

// specBuiltins are the built-ins of a specification's state: the kind of
// variable each takes, whether it takes a value after it, and whether it
// writes (its ordering may release) or reads (it may acquire).
var specBuiltins = map[string]struct {
	kind   SpecKind
	value  bool
	writes bool
	effect bool // changes the state: a statement as well as an expression
}{
	"load":       {SpecInt, false, false, false},
	"len":        {SpecSeq, false, false, false},
	"front":      {SpecSeq, false, false, false},
	"back":       {SpecSeq, false, false, false},
	"pop_front":  {SpecSeq, false, false, true},
	"pop_back":   {SpecSeq, false, false, true},
	"push_back":  {SpecSeq, true, true, true},
	"push_front": {SpecSeq, true, true, true},
	"contains":   {SpecSet, true, false, false},
	"insert":     {SpecSet, true, true, true},
	"remove":     {SpecSet, true, false, true},
}

// call compiles a built-in of the state; stmt says it stands alone.
func (c *specComp) call(e *CallExpr, stmt bool) (func(*specRun) int64, error) {
	b, ok := specBuiltins[e.Func]
	if !ok {
		var names []string
		for n := range specBuiltins {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, errAt(e.At, "%s is not a built-in of a spec (%s)%s", e.Func, strings.Join(names, ", "), model.DidYouMean(e.Func, names))
	}
	if stmt && !b.effect {
		return nil, errAt(e.At, "%s changes nothing: use it in an expression", e.Func)
	}
	args, ords := e.Args, e.Ords
	want := 1
	if b.value {
		want = 2
	}
	if len(args) == want+1 && len(ords) == 0 {
		// A trailing ordering: push_back(q, v, rel).
		if n, ok := args[want].(*Name); ok {
			ords, args = []Value{{Text: n.Name, Pos: n.At}}, args[:want]
		}
	}
	if len(args) != want || len(ords) > 1 {
		return nil, errAt(e.At, "%s takes %d argument(s) and an optional ordering", e.Func, want)
	}
	n, ok := args[0].(*Name)
	if !ok {
		return nil, errAt(args[0].pos(), "%s takes a state variable", e.Func)
	}
	kinds := map[SpecKind]string{SpecInt: "an integer", SpecSeq: "a sequence ([])", SpecSet: "a set ({})"}
	want2 := b.kind
	if e.Func == "len" {
		// len takes a sequence or a set.
		if i, ok := c.vars[n.Name]; ok && c.spec.State[i].Kind == SpecSet {
			want2 = SpecSet
		}
	}
	i, err := c.stateVar(n, want2, kinds[want2])
	if err != nil {
		return nil, err
	}
	sync := false
	if len(ords) == 1 {
		if sync, err = specOrdering(ords[0], !b.writes); err != nil {
			return nil, err
		}
	}
	var val func(*specRun) int64
	if b.value {
		if val, err = c.expr(args[1]); err != nil {
			return nil, err
		}
	}
	name := e.Func
	return func(r *specRun) int64 {
		var v int64
		if val != nil {
			v = val(r)
		}
		if r.failed {
			return 0
		}
		return r.builtin(name, i, v, sync)
	}, nil
}

// expr compiles an expression over the state, the parameters and the
// result.
func (c *specComp) expr(e Expr) (func(*specRun) int64, error) {
	switch e := e.(type) {
	case *Num:
		v := e.Val
		return func(*specRun) int64 { return v }, nil
	case *Name:
		if e.Name == resultName {
			return func(r *specRun) int64 { return r.result(0) }, nil
		}
		if i, ok := c.params[e.Name]; ok {
			return func(r *specRun) int64 { return r.arg(i) }, nil
		}
		if i, ok := c.vars[e.Name]; ok {
			if c.spec.State[i].Kind != SpecInt {
				return nil, errAt(e.At, "%s is not an integer: use len, front, back, contains, ...", e.Name)
			}
			return func(r *specRun) int64 { return r.vars[i][0].v }, nil
		}
		return nil, errAt(e.At, "%s is neither a state variable of the spec, a parameter nor %s%s", e.Name, resultName, model.DidYouMean(e.Name, c.names()))
	case *IndexExpr:
		k, ok := e.Index.(*Num)
		if e.Array != resultName || !ok || k.Val < 0 {
			return nil, errAt(e.At, "a spec indexes only its result, by a constant: result[1]")
		}
		idx := int(k.Val)
		return func(r *specRun) int64 { return r.result(idx) }, nil
	case *CallExpr:
		return c.call(e, false)
	case *BinExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return nil, err
		}
		y, err := c.expr(e.Y)
		if err != nil {
			return nil, err
		}
		op := binOps[e.Op]
		return func(r *specRun) int64 {
			a := x(r)
			if op == model.LAnd && a == 0 || op == model.LOr && a != 0 {
				return b2i(op == model.LOr)
			}
			v, err := op.Apply(a, y(r))
			if err != nil {
				r.failed = true
			}
			return v
		}, nil
	case *UnExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return nil, err
		}
		if e.Op == "!" {
			return func(r *specRun) int64 { return b2i(x(r) == 0) }, nil
		}
		return func(r *specRun) int64 { return -x(r) }, nil
	case *CondExpr:
		cond, err := c.expr(e.Cond)
		if err != nil {
			return nil, err
		}
		x, err := c.expr(e.Then)
		if err != nil {
			return nil, err
		}
		y, err := c.expr(e.Else)
		if err != nil {
			return nil, err
		}
		return func(r *specRun) int64 {
			if cond(r) != 0 {
				return x(r)
			}
			return y(r)
		}, nil
	}
	return nil, errAt(e.pos(), "a spec's expressions use integers, its state, the operation's parameters and %s only", resultName)
}

// cell is one integer of a specification's state: an integer variable's
// value, or an element of a sequence or set, with the operations a read
// of it that acquires synchronises with (view), and whether the running
// operation released it.
type cell struct {
	v    int64
	view model.DepSet
	rel  bool
}

// specRun is one run of an operation of the specification.
type specRun struct {
	vars    [][]cell // per state variable: an integer's cell, a sequence's or set's elements
	op      *model.Operation
	self    int // the operation's index in its history
	results []int64
	pending bool // the results are unknown: requires on them hold
	views   bool // track synchronisation
	failed  bool // an error (division by zero, an empty sequence) refuses the operation
	needs   model.DepSet
}

func (r *specRun) arg(i int) int64 {
	if i < len(r.op.Args) {
		return r.op.Args[i]
	}
	return 0
}

func (r *specRun) result(i int) int64 {
	if i < len(r.results) {
		return r.results[i]
	}
	return 0
}

// write sets c to v; a release write publishes what the operation has
// acquired, and itself, to the reads that acquire it.
func (r *specRun) write(c *cell, v int64, rel bool) {
	c.v, c.view, c.rel = v, nil, rel
}

// acquire takes the view of c, read with an acquire ordering.
func (r *specRun) acquire(c *cell, acq bool) {
	if acq && r.views {
		r.needs = r.needs.Union(c.view)
	}
}

// builtin runs built-in name on state variable i, with value v; sync is
// its ordering's acquire (reads) or release (writes).
func (r *specRun) builtin(name string, i int, v int64, sync bool) int64 {
	cs := r.vars[i]
	switch name {
	case "load":
		r.acquire(&cs[0], sync)
		return cs[0].v
	case "len":
		return int64(len(cs))
	case "front", "back", "pop_front", "pop_back":
		if len(cs) == 0 {
			r.failed = true // the spec must check len first
			return 0
		}
		k := 0
		if name == "back" || name == "pop_back" {
			k = len(cs) - 1
		}
		c := cs[k]
		r.acquire(&c, sync)
		if strings.HasPrefix(name, "pop") {
			r.vars[i] = slices.Delete(slices.Clone(cs), k, k+1)
		}
		return c.v
	case "push_back", "push_front":
		c := cell{}
		r.write(&c, v, sync)
		if name == "push_back" {
			r.vars[i] = append(slices.Clone(cs), c)
		} else {
			r.vars[i] = append([]cell{c}, cs...)
		}
	case "contains", "remove", "insert":
		k, found := slices.BinarySearchFunc(cs, v, func(c cell, v int64) int { return cmpInt(c.v, v) })
		switch {
		case name == "insert" && found:
			cs = slices.Clone(cs)
			r.write(&cs[k], v, sync)
			r.vars[i] = cs
		case name == "insert":
			c := cell{}
			r.write(&c, v, sync)
			r.vars[i] = slices.Insert(slices.Clone(cs), k, c)
		case found:
			r.acquire(&cs[k], sync)
			if name == "remove" {
				r.vars[i] = slices.Delete(slices.Clone(cs), k, k+1)
			}
		}
		return b2i(found)
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// finish ends the run: every cell the operation released carries what it
// acquired, and itself (an operation runs atomically: all its reads come
// before its writes).
func (r *specRun) finish() {
	for _, cs := range r.vars {
		for k := range cs {
			if cs[k].rel {
				cs[k].rel = false
				if r.views {
					cs[k].view = r.needs.With(r.self)
				}
			}
		}
	}
}

// encode writes the state as a model.SpecState.
func (r *specRun) encode() model.SpecState {
	var b []byte
	for _, cs := range r.vars {
		b = binary.AppendUvarint(b, uint64(len(cs)))
		for _, c := range cs {
			b = binary.AppendVarint(b, c.v)
			if r.views {
				m := c.view.Members()
				b = binary.AppendUvarint(b, uint64(len(m)))
				for _, x := range m {
					b = binary.AppendUvarint(b, uint64(x))
				}
			}
		}
	}
	return model.SpecState(b)
}

// decode reads a state encode wrote.
func (s *Spec) decode(st model.SpecState, views bool) [][]cell {
	b := []byte(st)
	next := func() uint64 {
		v, n := binary.Uvarint(b)
		b = b[n:]
		return v
	}
	vars := make([][]cell, len(s.State))
	for i := range vars {
		cs := make([]cell, next())
		for k := range cs {
			v, n := binary.Varint(b)
			b = b[n:]
			cs[k].v = v
			if views {
				for range next() {
					cs[k].view = cs[k].view.With(int(next()))
				}
			}
		}
		vars[i] = cs
	}
	return vars
}

// initial returns the specification's initial state.
func (s *Spec) initial(views bool) model.SpecState {
	r := &specRun{vars: make([][]cell, len(s.State)), views: views}
	for i, v := range s.State {
		if v.Kind == SpecInt {
			r.vars[i] = []cell{{v: v.Init}}
			continue
		}
		for _, e := range v.Elems {
			r.vars[i] = append(r.vars[i], cell{v: e})
		}
	}
	return r.encode()
}

// op returns the specification's operation called name, or nil.
func (s *Spec) op(name string) *SpecOp {
	for _, op := range s.Ops {
		if op.Name == name {
			return op
		}
	}
	return nil
}

// run runs op (operation self of its history) from st, its results taken
// as results (unknown when pending); it returns whether the operation is
// accepted, the state after it and the synchronisation it promises.
func (s *Spec) run(st model.SpecState, op *model.Operation, self int, results []int64, pending, views bool) (bool, model.SpecState, model.DepSet) {
	so := s.op(op.Name)
	if so == nil {
		return false, st, nil
	}
	first := int64(0) // an operation that returns no value returns 0
	if len(results) > 0 {
		first = results[0]
	}
	if !pending && !so.Open && so.Results != nil && !slices.ContainsFunc(so.Results, func(r SpecResult) bool { return r.Val == first }) {
		return false, st, nil
	}
	r := &specRun{vars: s.decode(st, views), op: op, self: self, results: results, pending: pending, views: views}
	if !so.step(r) || r.failed {
		return false, st, nil
	}
	r.finish()
	return true, r.encode(), r.needs
}

// Init returns the specification's initial state (model.Spec).
func (s *Spec) Init() model.SpecState { return s.initial(true) }

// Step runs operation i of h (model.Spec). A pending operation whose
// results the specification lists is run with each; one with any result
// is run with its requires on the result taken to hold.
func (s *Spec) Step(st model.SpecState, h *model.History, i int) []model.SpecStep {
	op := &h.Ops[i]
	so := s.op(op.Name)
	if !op.Pending || so == nil || so.Open || so.Results == nil {
		ok, next, needs := s.run(st, op, i, op.Results, op.Pending, true)
		if !ok {
			return nil
		}
		return []model.SpecStep{{Next: next, Needs: needs}}
	}
	var out []model.SpecStep
	for _, res := range so.Results {
		if ok, next, needs := s.run(st, op, i, []int64{res.Val}, false, true); ok && !slices.ContainsFunc(out, func(o model.SpecStep) bool { return o.Next == next }) {
			out = append(out, model.SpecStep{Next: next, Needs: needs})
		}
	}
	return out
}

// Describe says what op did (model.Spec): "pop() -> empty".
func (s *Spec) Describe(op *model.Operation) string {
	var args []string
	for _, a := range op.Args {
		args = append(args, strconv.FormatInt(a, 10))
	}
	call := fmt.Sprintf("%s(%s)", op.Name, strings.Join(args, ", "))
	switch {
	case op.Pending:
		return call + " (pending)"
	case len(op.Results) == 0 && s.op(op.Name) != nil && s.op(op.Name).Results == nil:
		return call // no value, and none expected
	case len(op.Results) == 0:
		return call + " -> " + s.describeResults(op.Name, []int64{0})
	}
	return call + " -> " + s.describeResults(op.Name, op.Results)
}

// describeResults writes results with the words the spec gives them.
func (s *Spec) describeResults(name string, results []int64) string {
	var parts []string
	for k, v := range results {
		text := strconv.FormatInt(v, 10)
		if so := s.op(name); so != nil && k == 0 {
			if i := slices.IndexFunc(so.Results, func(r SpecResult) bool { return r.Val == v }); i >= 0 && so.Results[i].Label != "" {
				text = so.Results[i].Label
			}
		}
		parts = append(parts, text)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// DescribeState says what st holds (model.Spec): "n=1 items=[1 2]".
func (s *Spec) DescribeState(st model.SpecState) string { return s.describeState(st, true) }

// describeState says what st, encoded with or without views, holds.
func (s *Spec) describeState(st model.SpecState, views bool) string {
	vars := s.decode(st, views)
	var parts []string
	for i, v := range s.State {
		var vals []string
		for _, c := range vars[i] {
			vals = append(vals, strconv.FormatInt(c.v, 10))
		}
		switch v.Kind {
		case SpecInt:
			parts = append(parts, fmt.Sprintf("%s=%s", v.Name, vals[0]))
		case SpecSeq:
			parts = append(parts, fmt.Sprintf("%s=[%s]", v.Name, strings.Join(vals, " ")))
		default:
			parts = append(parts, fmt.Sprintf("%s={%s}", v.Name, strings.Join(vals, " ")))
		}
	}
	return strings.Join(parts, " ")
}

// Model returns the specification as a porcupine model, which checks a Go
// implementation's recorded histories in real time (ordercheck
// linearize): an operation's input is its name (Op with its
// object, whose objects are independent), its output the int64 it
// returned. Synchronisation is not a porcupine check: Go's race detector
// reports a client that relies on synchronisation its implementation does
// not give.
func (s *Spec) Model() *porcupine.Model {
	var partition func([]porcupine.Operation) [][]porcupine.Operation
	if len(s.State) > 0 {
		// Objects are independent. A spec without state judges each
		// operation alone anyway, and the state explorer then judges them
		// one at a time, which it does only for specs without partitions.
		partition = PartitionByObject
	}
	return &porcupine.Model{
		Partition: partition,
		Init:      func() interface{} { return s.initial(false) },
		Step: func(st, input, output interface{}) (bool, interface{}) {
			_, name := Split(input)
			res, ok := output.(int64)
			if !ok {
				return false, st
			}
			ok, next, _ := s.run(st.(model.SpecState), &model.Operation{Name: name, Results: []int64{res}}, 0, []int64{res}, false, false)
			return ok, next
		},
		Equal: func(a, b interface{}) bool { return a == b },
		DescribeOperation: func(input, output interface{}) string {
			obj, name := Split(input)
			res := fmt.Sprint(output)
			if v, ok := output.(int64); ok {
				res = s.describeResults(name, []int64{v})
			}
			if obj != 0 {
				return fmt.Sprintf("#%d %s() -> %s", obj, name, res)
			}
			return fmt.Sprintf("%s() -> %s", name, res)
		},
		DescribeState: func(st interface{}) string {
			return s.describeState(st.(model.SpecState), false)
		},
	}
}
