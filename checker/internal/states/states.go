// Package states is the state-merging explorer. Under a model with an
// operational form (model.Machine) a partial execution's future depends
// only on its state: the threads' local states, the machine's memory, and
// what the properties still need to know (happens-before knowledge for
// data races, the operations' real-time order for linearizability). Two
// paths reaching one state are explored once, and threads of one template
// are interchangeable: a state is stored under a canonical form that sorts
// them. This collapses the N! orders of N identical callers that an
// execution-graph explorer must enumerate one by one.
//
// Data races are found with vector clocks that follow RC11's
// happens-before exactly (po, and synchronises-with through release
// sequences, fences and read-modify-write chains); in a state the clock
// values are replaced by their rank per thread, which keeps every
// comparison and join the future can make (clocks.go).
package states

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
)

// Config says how a state search runs (Options: its bounds, workers,
// whether it tracks happens-before for data races) and what it looks for.
type Config struct {
	engine.Config
	// Spec, when set, keeps the operations' histories for linearizability
	// against it.
	Spec model.Spec
	// Judge judges the search's outcomes.
	Judge engine.Judge
	// Job describes the search to the workers of Options.Cluster.
	Job []byte
}

// Unsupported says why p cannot be explored by states under m, or
// returns "" when it can.
func Unsupported(p *model.Program, m *model.Model) string {
	if m.Machine == nil {
		return fmt.Sprintf("%s has no operational form: it is explored by execution graphs", m.Name)
	}
	return m.Machine.Unsupported(p)
}

// sthread is one thread in a state.
type sthread struct {
	st model.ThreadState
	a  model.Action // next action, when Running
	n  int          // events so far
	// open says that the thread is inside an operation, called with
	// args (operations judged one at a time).
	open bool
	args []int64
	// ops are the thread's operations so far (whole histories).
	ops []opRec
}

// sstate is a state of the program.
type sstate struct {
	th    []*sthread
	mem   model.Memory
	clk   []uint32 // vector clocks (see clocks), when races are tracked
	locks []uint64 // per access record (as clk's acc): the regular mutexes held at the access
	pk    packed   // clk and locks, packed, once the state is kept (see keep)
	// twins, once known, marks the threads whose moves an earlier
	// interchangeable thread makes for them (see twinsIn): expand notes it
	// when it keeps the state, from the order its key was made in.
	twins      []bool
	twinsKnown bool
}

// finalState returns the registers and the memory of s's nl locations.
func (s *sstate) finalState(nl int) model.FinalState {
	fs := model.FinalState{Mem: make([]int64, nl), Regs: make([][]int64, len(s.th))}
	for l := range fs.Mem {
		fs.Mem[l], _ = s.mem.Final(model.Loc(l))
	}
	for t, th := range s.th {
		fs.Regs[t] = th.st.Regs
	}
	return fs
}

// opRec is an operation of a thread, when whole histories are checked:
// its call's instruction, its arguments and results, the clock values of
// its call and return markers (the thread's own, ranked as normalize
// ranks them; ret 0: it has not returned), and, per thread, how many of
// that thread's operations returned before its call (before) and were
// called before its return (sync) in happens-before.
type opRec struct {
	instr         int32
	args, results []int64
	call, ret     uint32
	before, sync  []uint16
}

// option is one way to make a move: the memory's way of performing the
// thread's next action, or the machine's internal move on its behalf
// (flush).
type option struct {
	way   model.Way
	flush bool
}

// move is a step of a path: thread t's next action, performed the way o.
type move struct {
	t int32
	o option
}

// finding is what the search knows of one violated property.
type finding struct {
	count int64
	path  []move // a shortest path to a violation
}

// states explores a program by states.
type states struct {
	*engine.Runner
	cfg     Config
	races   bool
	spec    model.Spec
	perOp   bool           // operations judged one at a time (see judgeOp)
	opMemo  map[opKey]bool // judgeOp's verdicts
	lay     clocks
	groups  [][]int // interchangeable threads
	seen    *keySet
	nstates int64  // the states the partitions of a partitioned search found
	links   []link // per state found, in order: how the search first reached it
	found   map[string]*finding
	reached map[string]bool
	free    bool // some final state has no blocked thread
	room
	keys    [][]byte
	futs    [][]model.Future         // per thread and instruction; nil: unknown
	live    [][]model.DepSet         // per thread and instruction: registers still read
	mutexes []bool                   // per location: a regular mutex (see regularMutexes)
	held    [][]uint64               // per thread and instruction: the regular mutexes held on every path to it
	guarded map[int][][]model.Future // per regular mutex: the futures without what runs holding it
}

// room is the scratch space of a worker, reused from state to state.
type room struct {
	buf      []byte
	spare    spare // expand's successors
	scratch  []uint32
	perm     []int   // order's
	sorted   []int   // order: a group's threads, sorted
	keyed    *sstate // the state order sorted last: keyIn may take its threads' parts from keys
	local    []int   // order: per thread, the length of its key's part keyIn encodes (0: none)
	ways     []model.Way
	hz       model.Horizon
	recs     [][]uint32 // normalize: per thread, the clock values of its records still kept
	kept     []record   // normalize: one thread's records kept
	liveRecs []int      // normalize: the access records' vectors with an entry (by l*recKinds+kind)
	passive  []int      // normalize: the running threads that write no atomic any more
	twinPerm []int      // twins': the order of the state
	twinKey  []byte     // twins': the state's key in that order
}

func newStates(p *model.Program, m *model.Model, cfg Config) *states {
	if cfg.Judge == nil {
		cfg.Judge = func(*explore.Outcome, func(string)) []explore.Violation { return nil }
	}
	r := engine.NewRunner(p, m, cfg.Config, nil)
	r.States = true
	x := &states{Runner: r, cfg: cfg, races: cfg.Races, spec: cfg.Spec,
		perOp:  cfg.Spec != nil && !cfg.WholeHistories,
		opMemo: map[opKey]bool{}}
	x.clear()
	x.lay = clocks{n: len(p.Threads), nl: len(p.Locs)}
	x.groups = symmetricThreads(p)
	x.keys = make([][]byte, len(p.Threads))
	targets := programTargets(p)
	x.futs = futures(p, targets, nil)
	x.live = liveRegisters(p)
	x.mutexes, x.held = regularMutexes(p, targets)
	x.guarded = map[int][][]model.Future{}
	for l, ok := range x.mutexes {
		if ok {
			x.guarded[l] = futures(p, targets, func(t, pc int) bool { return x.held[t][pc]>>uint(l)&1 != 0 })
		}
	}
	return x
}

// symmetricThreads groups the threads that are interchangeable: the same
// code and initial registers, not spawned and spawning nothing, and not
// named by a final condition or shown in final states.
func symmetricThreads(p *model.Program) [][]int {
	observed := finalRegisters(p)
	var groups [][]int
	placed := make([]bool, len(p.Threads))
	alone := func(t int) bool {
		th := &p.Threads[t]
		if th.Spawned || len(observed[t].Members()) > 0 {
			return true
		}
		for i := range th.Code {
			if th.Code[i].Op == model.OpSpawn {
				return true
			}
		}
		return false
	}
	for t := range p.Threads {
		if placed[t] || alone(t) {
			continue
		}
		g := []int{t}
		for u := t + 1; u < len(p.Threads); u++ {
			if !placed[u] && !alone(u) && reflect.DeepEqual(p.Threads[t].Code, p.Threads[u].Code) &&
				slices.Equal(p.Threads[t].Init, p.Threads[u].Init) {
				g = append(g, u)
				placed[u] = true
			}
		}
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	return groups
}

// initial returns the program's first state and the outcomes of its
// threads' first steps (they run their invisible actions at once); b,
// when not nil, records the events.
func (x *states) initial(b *builder) (*sstate, []*explore.Outcome, error) {
	var outs []*explore.Outcome
	s := &sstate{th: make([]*sthread, len(x.Prog.Threads)), mem: x.Model.Machine.Start(x.Prog)}
	if x.races || x.wholeHistories() {
		s.clk = make([]uint32, x.lay.size())
		s.locks = make([]uint64, recKinds*x.lay.nl*x.lay.n)
	}
	for t, th := range x.Prog.Threads {
		// A thread not spawned yet holds its initial registers (final
		// conditions may name them); start gives it its state.
		regs := make([]int64, len(th.Regs))
		copy(regs, th.Init)
		s.th[t] = &sthread{st: model.ThreadState{Status: model.Unborn, Regs: regs, WaitLoc: model.NoLoc}}
	}
	for t := range x.Prog.Threads {
		if !x.Prog.Threads[t].Spawned {
			o, err := x.start(s, t, -1, b)
			if err != nil {
				return nil, nil, err
			}
			outs = append(outs, o...)
		}
	}
	return s, outs, nil
}

// start begins thread t in s, spawned by parent (-1: at the start).
func (x *states) start(s *sstate, t, parent int, b *builder) ([]*explore.Outcome, error) {
	s.mem.Start(t, parent)
	st, a, err := x.Prog.Replay(t, nil)
	if err != nil {
		return nil, err
	}
	if b == nil {
		st.Deps = nil // dependencies only for a counterexample's events
	}
	s.th[t] = &sthread{st: st, a: a}
	var outs []*explore.Outcome
	if len(st.Reached) > 0 {
		// Assertions before its first action: reached all the same.
		o := &explore.Outcome{Prog: x.Prog}
		for _, pc := range st.Reached {
			o.Asserted = append(o.Asserted, explore.Site{Thread: t, Instr: pc})
		}
		outs = append(outs, o)
	}
	more, err := x.settle(s, t, b)
	return append(outs, more...), err
}

// invisible reports whether thread t's next action can run at once,
// before any other thread's, and the way it runs: nothing observes its
// place among the others. Operation markers are such: histories are
// ordered by happens-before, which the markers' places among other
// threads' steps do not change. So is an access no other thread can
// conflict with (independent).
func (x *states) invisible(s *sstate, t int) (model.Way, bool) {
	th := s.th[t]
	switch th.a.Kind {
	case model.ActCall, model.ActRet:
		return model.Way{}, true
	case model.ActFence:
		x.ways = s.mem.Ways(t, &th.a, x.ways[:0])
		return model.Way{}, !x.races && len(x.ways) > 0
	}
	return x.independent(s, t)
}

// spare is room for the successor a move makes: its clocks and its moved
// thread. A worker reuses its room for successor after successor, and
// keeps only a new one out of it (keep), so that a duplicate costs no
// allocation.
type spare struct {
	clk   []uint32
	locks []uint64
	th    sthread
}

// clone copies s for a move of thread t into sp's room, or into a room of
// its own when sp is nil.
func (x *states) clone(s *sstate, t int, sp *spare) *sstate {
	if sp == nil {
		sp = &spare{}
	}
	c := &sstate{th: slices.Clone(s.th), mem: s.mem.Clone()}
	if x.races || x.wholeHistories() {
		sp.clk = append(sp.clk[:0], make([]uint32, x.lay.size())...)
		sp.locks = append(sp.locks[:0], make([]uint64, recKinds*x.lay.nl*x.lay.n)...)
		if s.clk != nil {
			copy(sp.clk, s.clk)
			copy(sp.locks, s.locks)
		} else {
			s.pk.unpack(sp.clk, sp.locks)
		}
		c.clk, c.locks = sp.clk, sp.locks
	}
	o, th := s.th[t], &sp.th
	regs, deps := th.st.Regs[:0], th.st.Deps[:0]
	o.copyTo(th)
	th.st.Regs, th.st.Deps = append(regs, o.st.Regs...), append(deps, o.st.Deps...)
	c.th[t] = th
	return c
}

// keep gives s, made in a worker's room for a move of thread t, its own
// thread t, and packs its clocks.
func (s *sstate) keep(t int) {
	if s.clk != nil {
		s.pk = packClocks(s.clk, s.locks)
		s.clk, s.locks = nil, nil
	}
	o, th := s.th[t], &sthread{}
	o.copyTo(th)
	th.st.Regs = slices.Clone(o.st.Regs)
	th.st.Deps = slices.Clone(o.st.Deps)
	s.th[t] = th
}

// packed is a state's clocks as it is stored: normalized clocks and lock
// records are mostly zero, so only their other entries, a clock's as its
// index<<32 | its value, then a lock record's as its index and its value.
type packed struct {
	words []uint64
	nclk  int // the clock entries
}

// packClocks packs the clocks clk and the lock records locks.
func packClocks(clk []uint32, locks []uint64) packed {
	n := 0
	for _, v := range clk {
		if v != 0 {
			n++
		}
	}
	nclk := n
	for _, v := range locks {
		if v != 0 {
			n += 2
		}
	}
	p := packed{words: make([]uint64, 0, n), nclk: nclk}
	for i, v := range clk {
		if v != 0 {
			p.words = append(p.words, uint64(i)<<32|uint64(v))
		}
	}
	for i, v := range locks {
		if v != 0 {
			p.words = append(p.words, uint64(i), v)
		}
	}
	return p
}

// unpack sets the entries of clk and locks, zero, that p holds.
func (p packed) unpack(clk []uint32, locks []uint64) {
	for _, w := range p.words[:p.nclk] {
		clk[w>>32] = uint32(w)
	}
	for i := p.nclk; i < len(p.words); i += 2 {
		locks[p.words[i]] = p.words[i+1]
	}
}

// copyTo copies o to th, sharing the registers; what o holds beyond
// their lengths, appends do not touch.
func (o *sthread) copyTo(th *sthread) {
	*th = sthread{st: o.st, a: o.a, n: o.n, open: o.open, args: o.args, ops: o.ops[:len(o.ops):len(o.ops)]}
	th.st.Reached = o.st.Reached[:len(o.st.Reached):len(o.st.Reached)]
}

// apply makes move (t, o) from s; it returns the new state and the
// outcomes of the steps the move made. With sp, the new state is made in
// sp's room (see keep).
func (x *states) apply(s *sstate, t int, o option, b *builder, sp *spare) (*sstate, []*explore.Outcome, error) {
	n := x.clone(s, t, sp)
	var outs []*explore.Outcome
	var err error
	if o.flush {
		b.flush(t, n.mem.(model.Buffered).Flush(t))
	} else if outs, err = x.act(n, t, o.way, b); err != nil {
		return nil, nil, err
	}
	more, err := x.settle(n, t, b)
	if err != nil {
		return nil, nil, err
	}
	h := x.horizon(n)
	if n.clk != nil {
		x.normalize(n) // first: Reduce compares the messages' clocks
	}
	n.mem.Reduce(h)
	return n, append(outs, more...), nil
}

// horizon returns what the threads of s may still do.
func (x *states) horizon(s *sstate) *model.Horizon {
	h := &x.hz
	if h.Regular == nil {
		h.Regular = x.mutexes
		h.Running = make([]bool, len(s.th))
		h.Futures = make([]model.Future, len(s.th))
	}
	for t, th := range s.th {
		h.Running[t] = th.st.Status == model.Running
		h.Futures[t] = x.future(s, t)
	}
	return h
}

// settle runs thread t's invisible actions.
func (x *states) settle(s *sstate, t int, b *builder) ([]*explore.Outcome, error) {
	var outs []*explore.Outcome
	for s.th[t].st.Status == model.Running {
		w, ok := x.invisible(s, t)
		if !ok {
			break
		}
		o, err := x.act(s, t, w, b)
		if err != nil {
			return nil, err
		}
		outs = append(outs, o...)
	}
	return outs, nil
}

// act performs thread t's next action, in the way w, on s, which it owns.
// It returns the outcome of the step when the judge has something to
// look at: an assertion evaluated, a race, an operation returned.
func (x *states) act(s *sstate, t int, w model.Way, b *builder) ([]*explore.Outcome, error) {
	th := s.th[t]
	a := th.a
	var out *explore.Outcome
	var spawned []*explore.Outcome
	outcome := func() *explore.Outcome {
		if out == nil {
			out = &explore.Outcome{Prog: x.Prog}
		}
		return out
	}
	race := func(raced bool) {
		if raced {
			o := outcome()
			o.Races = append(o.Races, [2]model.EventRef{})
		}
	}
	var v int64
	writes := false
	read := th.n
	k := x.lay
	event := func(e model.Event) {
		b.add(t, e)
		th.n++
	}
	// write adds thread t's write of val to l in way w with ordering wo;
	// rm is the message a read-modify-write read.
	write := func(e model.Event, w model.Way, val int64, wo model.Ordering, rm *model.Message) {
		var vc []uint32
		if s.clk != nil {
			k.tick(s.clk, t)
			if x.races {
				race(k.access(s.clk, s.locks, t, a.Loc, true, wo, x.held[t][a.Instr]))
			}
			vc = k.release(s.clk, t, a.Loc, wo, rm)
		}
		b.write(t, e, s.mem.Write(t, a.Loc, w, val, wo, rm, vc))
		th.n++
	}
	switch a.Kind {
	case model.ActRead:
		m, src := s.mem.Read(t, a.Loc, w, a.Ord)
		b.read(t, &a, m.Val, false, src)
		v = m.Val
		if s.clk != nil {
			k.tick(s.clk, t)
			k.acquire(s.clk, t, m.Clock, a.Ord)
			if x.races {
				race(k.access(s.clk, s.locks, t, a.Loc, false, a.Ord, x.held[t][a.Instr]))
			}
		}
		th.n++
	case model.ActWrite, model.ActUnlock:
		write(a.SimpleEvent(), w, a.Val, a.Ord, nil)
	case model.ActRMW, model.ActCAS, model.ActLock:
		var wv int64
		writes, wv, _ = a.Outcome(s.mem.Peek(t, a.Loc, w).Val, w.Spurious)
		ro := a.ReadOrd(writes)
		m, src := s.mem.Read(t, a.Loc, w, ro)
		v = m.Val
		b.read(t, &a, v, w.Spurious, src)
		if s.clk != nil {
			k.tick(s.clk, t)
			k.acquire(s.clk, t, m.Clock, ro)
			if x.races {
				race(k.access(s.clk, s.locks, t, a.Loc, false, ro, x.held[t][a.Instr]))
			}
		}
		th.n++
		if writes {
			write(a.WriteHalf(wv), model.Way{Pos: w.Pos + 1}, wv, a.WriteOrd(), m)
		}
	case model.ActFence:
		if s.clk != nil {
			k.fence(s.clk, t, a.Ord)
		}
		s.mem.Fence(t, a.Ord)
		event(a.SimpleEvent())
	case model.ActChoose:
		v = int64(w.Pos)
		e := a.SimpleEvent()
		e.Val = v
		event(e)
	case model.ActSpawn:
		event(a.SimpleEvent())
		child := int(a.Val)
		if s.clk != nil {
			// The child comes after the spawner's events in po: it goes on
			// from all of its views (release sequences its writes continue,
			// what an acquire fence of its would take).
			k.tick(s.clk, t)
			copy(k.vec(s.clk, k.c(child)), k.vec(s.clk, k.c(t)))
			copy(k.vec(s.clk, k.f(child)), k.vec(s.clk, k.f(t)))
			copy(k.vec(s.clk, k.a(child)), k.vec(s.clk, k.a(t)))
			for l := range k.nl {
				copy(k.vec(s.clk, k.rel(child, model.Loc(l))), k.vec(s.clk, k.rel(t, model.Loc(l))))
			}
		}
		var err error
		if spawned, err = x.start(s, child, t, b); err != nil {
			return nil, err
		}
	case model.ActCall, model.ActRet:
		switch {
		case x.spec == nil:
		case x.perOp:
			// A return ends the thread's open call, as histories pair
			// them.
			if a.Kind == model.ActCall {
				th.open, th.args = true, a.Vals
				if b == nil {
					if err := x.callOp(t, &a); err != nil {
						return nil, err
					}
				}
			} else if th.open {
				th.open = false
				// The search judges; a witness's replay (b != nil) only
				// records the events, which the judge then judges.
				if b == nil {
					h, ok, err := x.judgeOp(t, th.args, &a)
					if err != nil {
						return nil, err
					}
					if !ok {
						outcome().History = h
					}
				}
			}
		default:
			x.mark(s, t, &a)
		}
		event(a.SimpleEvent())
	case model.ActFail:
		o := outcome()
		o.Failed = append(o.Failed, explore.Site{Thread: t, Instr: a.Instr})
		o.Asserted = append(o.Asserted, explore.Site{Thread: t, Instr: a.Instr})
		event(a.SimpleEvent())
	default:
		return nil, fmt.Errorf("thread %s: unexpected action %v", x.Prog.Threads[t].Name, a.Kind)
	}
	before := len(th.st.Reached)
	next, err := x.Prog.Advance(t, &th.st, &a, v, writes, read)
	if err != nil {
		return nil, err
	}
	for _, pc := range th.st.Reached[before:] {
		o := outcome()
		o.Asserted = append(o.Asserted, explore.Site{Thread: t, Instr: pc})
	}
	th.a = next
	if th.st.Status != model.Running && s.clk != nil {
		k.retire(s.clk, t)
	}
	if out != nil {
		return append([]*explore.Outcome{out}, spawned...), nil
	}
	return spawned, nil
}
