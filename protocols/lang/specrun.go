package lang

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
)

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
