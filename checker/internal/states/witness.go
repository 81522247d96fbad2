package states

import (
	"errors"
	"slices"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
)

// Result is what a state search found.
type Result struct {
	Stats explore.Stats
	// Found holds, per violated property, how many steps or final states
	// violate it and a witness: a shortest path to a violation, completed
	// to an execution.
	Found map[string]*Found
	// Checked holds the properties some step or final state checked.
	Checked map[string]bool
	// AllBlocked says that every final state has a thread that never
	// finishes.
	AllBlocked bool
}

// Found is one violated property.
type Found struct {
	Count   int64
	Witness *explore.Witness
}

// Check explores p under m by states.
func Check(p *model.Program, m *model.Model, cfg Config) (*Result, error) {
	x := newStates(p, m, cfg)
	stats, err := x.explore()
	if err != nil {
		return nil, err
	}
	res := &Result{Stats: stats, Found: map[string]*Found{}, Checked: x.reached, AllBlocked: !x.free}
	for prop, f := range x.found {
		w, err := x.witness(prop, f)
		if err != nil {
			return nil, err
		}
		if w != nil {
			res.Found[prop] = &Found{Count: f.count, Witness: w}
		}
	}
	return res, nil
}

// explore searches every state from the initial one: with operations
// judged one at a time while the specification allows it, otherwise with
// whole histories.
func (x *states) explore() (explore.Stats, error) {
	err := x.search()
	if errors.Is(err, errStateful) {
		x.perOp = false
		x.clear()
		err = x.search()
	}
	stats, err := x.Finish(err)
	stats.States = int64(x.seen.Len()) + x.nstates
	return stats, err
}

// clear forgets what a search found, for a fresh one.
func (x *states) clear() {
	x.Restart()
	x.seen, x.found, x.reached, x.free, x.links, x.nstates = newKeySet(), map[string]*finding{}, map[string]bool{}, false, nil, 0
}

// builder records the events of a path as an execution graph, for
// witnesses; a nil builder records nothing.
type builder struct {
	g    *model.Graph
	co   [][]model.EventRef // per location: its writes in modification order, the initial one first
	pend [][]model.EventRef // per thread: the writes in its store buffer, oldest first
}

func newBuilder(p *model.Program) *builder {
	b := &builder{g: model.NewGraph(p), co: make([][]model.EventRef, len(p.Locs)), pend: make([][]model.EventRef, len(p.Threads))}
	for l := range b.co {
		b.co[l] = []model.EventRef{model.InitRef(model.Loc(l))}
	}
	return b
}

func (b *builder) add(t int, e model.Event) model.EventRef {
	if b == nil {
		return model.EventRef{}
	}
	b.g.Threads[t] = append(b.g.Threads[t], e)
	return model.EventRef{T: int32(t), I: int32(len(b.g.Threads[t]) - 1)}
}

// write records thread t's write e, which went where src says.
func (b *builder) write(t int, e model.Event, src model.Source) {
	if b == nil {
		return
	}
	w := b.add(t, e)
	if src.Buffer >= 0 {
		b.pend[t] = append(b.pend[t], w)
		return
	}
	b.co[e.Loc] = slices.Insert(b.co[e.Loc], src.Pos, w)
}

// flush places the oldest write of thread t's store buffer last in the
// modification order of l, its location.
func (b *builder) flush(t int, l model.Loc) {
	if b == nil {
		return
	}
	b.co[l] = append(b.co[l], b.pend[t][0])
	b.pend[t] = b.pend[t][1:]
}

// read records the read of thread t's read-like action a of v from the
// write src names.
func (b *builder) read(t int, a *model.Action, v int64, spurious bool, src model.Source) {
	if b == nil {
		return
	}
	var w model.EventRef
	if src.Buffer >= 0 {
		w = b.pend[t][src.Buffer]
	} else {
		w = b.co[a.Loc][src.Pos]
	}
	r, _, _ := a.ReadEvent(w, v, spurious)
	b.add(t, r)
}

// graph returns the execution graph recorded.
func (b *builder) graph() *model.Graph {
	for l, co := range b.co {
		b.g.Co[l] = co[1:]
	}
	return b.g
}

// witness replays path from the initial state, completes it to a final
// state (the machine's internal moves first, then moving the thread that
// has taken the fewest steps, its first way), and returns the execution
// and its violation of property prop (nil when a bounded search's finding
// does not stand).
func (x *states) witness(prop string, f *finding) (*explore.Witness, error) {
	b := newBuilder(x.Prog)
	s, _, err := x.initial(b)
	if err != nil {
		return nil, err
	}
	for _, m := range f.path {
		if s, _, err = x.apply(s, int(m.t), m.o, b, nil); err != nil {
			return nil, err
		}
	}
	for {
		t, opts := -1, []option(nil)
		for u := range s.th { // stores reach memory first: a thread spinning on one then sees it
			if model.Internal(s.mem, u) {
				t, opts = u, []option{{flush: true}}
				break
			}
		}
		if t < 0 { // the thread that has taken the fewest steps: a spinning thread lets the others on
			for u, th := range s.th {
				if th.st.Status == model.Running && th.n < x.Config.MaxEvents && (t < 0 || th.n < s.th[t].n) {
					if ways := s.mem.Ways(u, &th.a, nil); len(ways) > 0 {
						t, opts = u, []option{{way: ways[0]}}
					}
				}
			}
		}
		if t < 0 {
			break
		}
		if s, _, err = x.apply(s, t, opts[0], b, nil); err != nil {
			return nil, err
		}
	}
	for t, th := range s.th {
		if th.st.Status == model.Running && th.a.Kind == model.ActLock {
			val, pos := s.mem.Final(th.a.Loc)
			b.read(t, &th.a, val, false, model.Source{Pos: pos, Buffer: -1}) // the request that waits
		}
	}
	e, err := engine.NewExecution(b.graph(), x.Model, x.races)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, engine.Internalf("the witness of %s is not an execution", prop)
	}
	if x.spec != nil {
		e.History = x.Model.HistoryOf(e.Graph, nil)
	}
	for _, v := range x.cfg.Judge(e.Outcome(), func(string) {}) {
		if v.Prop == prop {
			return &explore.Witness{Execution: e, Violation: v}, nil
		}
	}
	if prop == engine.Linearizability && x.perOp && x.Limited() != explore.NoLimit {
		// A bounded search that judged operations one at a time may have
		// stopped before meeting an operation that shows the specification
		// has state; its finding stands only when the whole history
		// confirms it.
		return nil, nil
	}
	return nil, engine.Internalf("the witness path of %s does not violate it", prop)
}
