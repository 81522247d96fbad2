package lang

import (
	"slices"
	"strconv"
	"strings"

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
