// Package graphs explores the execution graphs of a program under a
// memory model: an optimal dynamic partial-order reduction that visits each
// consistent execution once (Explore), and the deliberately simple
// reference it is tested against (Reference).
package graphs

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
)

// Explore visits every consistent complete execution of r's program under
// its model exactly once, reporting each to r. Its cost grows with the
// number of executions, not with the number of interleavings. With a
// preemption bound it explores interleavings instead (Reference).
func Explore(r *engine.Runner) (explore.Stats, error) {
	if r.Config.Preemptions {
		// Preemptions are a property of schedules: bound them over
		// interleavings.
		return Reference(r)
	}
	if r.Model.LoadBuffering {
		free, err := LoadBufferingFree(r)
		if err != nil {
			return explore.Stats{}, err
		}
		if !free {
			return Speculate(r)
		}
	}
	return newDPOR(r, false).run()
}

// newDPOR returns the explorer of r's program; lb makes it a probe for
// load buffering (lb.go).
func newDPOR(r *engine.Runner, lb bool) *dpor {
	if r.Config.Workers == explore.AllCores {
		// It allocates a graph per step: on two cores, one worker beside
		// Go's collector is faster than two.
		r.Config.Workers = max(runtime.NumCPU()-1, 1)
	}
	d := &dpor{Runner: r, sub: r.Config.Subtree, forks: []int32{0}, lb: lb}
	d.scratch.New = func() any { return &scratch{} }
	if lb {
		d.waits = awaitInstrs(r.Prog)
	}
	return d
}

// run explores the program from its initial graph.
func (d *dpor) run() (explore.Stats, error) {
	return d.Finish(d.Run(func() error { return d.visit(d.initial(), true) }))
}

// Splittable reports whether Explore's search tree under r's options can
// be split into subtrees (engine.Subtree): plain dynamic partial-order
// reduction, not speculation or preemption bounding, and no count bound,
// whose cut depends on the order of the search.
func Splittable(m *model.Model, opt explore.Options) bool {
	return !opt.Preemptions && !m.LoadBuffering && opt.MaxExecutions == 0 && opt.MaxGraphs == 0
}

// dpor is an optimal dynamic partial-order reduction over execution graphs,
// after TruSt (Kokologiannakis, Marmanis, Gladstein, Vafeiadis, "Truly
// Stateless, Optimal Dynamic Partial Order Reduction", POPL 2022) and its
// implementation in GenMC.
//
// Events are added one at a time, always to the first thread that can
// move, in a fixed order; the order of addition is recorded as a stamp per
// event. A read branches on every write already in the graph (forward
// revisits); a write branches on its modification-order position and, from
// its last position, may revisit every earlier read of its location that is
// not in its po ∪ rf prefix (backward revisits): the read now reads from the
// write, and every event added after the read that the write does not
// depend on is deleted, to be explored again. A backward revisit is
// performed only when the deleted events were added with their maximal
// choice (reading from, or placed at, the end of modification order),
// which makes every consistent execution appear exactly once.
type dpor struct {
	*engine.Runner
	// sub, when set, is the part of the search tree to explore; path is
	// the current task's and forks[i] counts the branches the task at
	// depth i of it has made (see branch).
	sub   *engine.Subtree
	path  []int32
	forks []int32
	// start and unborn are each thread's state and next action before
	// its first event, once spawned and before.
	start, unborn []*acted
	// deepest is the most events a complete graph has had so far: a
	// graph with more than half as many is explored where it is, its
	// subtree too small to be worth a copy for another worker.
	deepest atomic.Int32
	// scratch holds the storage of workers between tasks.
	scratch sync.Pool
	// lb makes the search a probe for load buffering (lb.go): it stops
	// with errLoadBuffering at the first graph that offers such a
	// revisit; waits marks each thread's await instructions for it.
	lb    bool
	waits [][]bool
}

// meta is the explorer's bookkeeping for one event.
type meta struct {
	stamp int32 // order of addition
	// max records that the event's choice was the maximal one when made:
	// a read read the last write in modification order, a write was placed
	// last, a choice took its first value.
	max bool
	// noRevisit marks the prefix of a write that revisited a read: these
	// events are never deleted again on this branch.
	noRevisit bool
	// clock is the event's happens-before clock, when the model decides
	// consistency by clocks (model.Grown).
	clock model.Clock
	// act is the thread's state and next action after the event, once
	// computed: graphs sharing the event share it.
	act *acted
}

// dstate is a graph with its bookkeeping. A worker grows it in place:
// push adds an event for a branch and pop takes it away again when the
// branch is explored; a branch explored elsewhere (another worker, a
// backward revisit) gets a copy (copyOf).
type dstate struct {
	g     model.Graph
	meta  [][]meta // per thread, per event
	stamp int32
	size  int32 // events
	// last is the event added last, or the read a revisit gave a new
	// source; writer, in a revisit's graph, is the write it now reads,
	// whose place in modification order may have changed (else
	// model.NoSource). They are the events whose consistency is checked.
	last, writer model.EventRef
	// clocks says the events keep happens-before clocks.
	clocks bool
	// work is the storage of the worker exploring the graph, shared by
	// the graphs it explores one after the other.
	work *scratch
}

// scratch is a worker's storage: for clocks, carved and never reused; for
// the execution of a complete graph, reused.
type scratch struct {
	clocks []int32
	states []model.ThreadState
	exec   explore.Execution
}

// Clock returns the happens-before clock of event e.
func (s *dstate) Clock(e model.EventRef) model.Clock { return s.meta[e.T][e.I].clock }

// acted is a thread's state and next action after some of its events.
// It is never changed once made, so graphs and workers share it.
type acted struct {
	st  model.ThreadState
	a   model.Action
	err error
}

// acted returns thread t's state and next action in s after its first n
// events: cached with the nth, or going on from the latest event before
// it that has one.
func (d *dpor) acted(s *dstate, t, n int) *acted {
	ms := s.meta[t]
	if n == 0 {
		if d.Prog.Threads[t].Spawned {
			if _, born := s.g.Spawner(t); !born {
				return d.unborn[t]
			}
		}
		return d.start[t]
	}
	if c := ms[n-1].act; c != nil {
		return c
	}
	k := n - 1
	for k > 0 && ms[k-1].act == nil {
		k--
	}
	c := d.start[t]
	if k > 0 {
		c = ms[k-1].act
	}
	a := &acted{}
	switch {
	case c.err == nil:
		if c.a.Pending {
			k-- // the read of the read-modify-write is consumed again
		}
		a.st, a.a, a.err = d.Prog.Resume(t, c.st.Clone(), c.a, k, s.g.Threads[t][:n])
	default:
		a.st, a.a, a.err = d.Prog.Replay(t, s.g.Threads[t][:n])
	}
	ms[n-1].act = a
	return a
}

func (d *dpor) initial() *dstate {
	T := len(d.Prog.Threads)
	d.start, d.unborn = make([]*acted, T), make([]*acted, T)
	for t := range T {
		a := &acted{}
		a.st, a.a, a.err = d.Prog.Replay(t, nil)
		d.start[t] = a
		if d.Prog.Threads[t].Spawned {
			u := *a
			u.st.Status, u.a = model.Unborn, model.Action{}
			d.unborn[t] = &u
		}
	}
	s := &dstate{meta: make([][]meta, T)}
	s.g.Prog, s.g.Threads, s.g.Co = d.Prog, make([][]model.Event, T), make([][]model.EventRef, len(d.Prog.Locs))
	s.writer, s.clocks = model.NoSource, d.Model.Clocks
	s.work = &scratch{}
	return s
}

// restrict returns s restricted to the first keep[t] events of each
// thread t, sharing s's events and bookkeeping until it changes them:
// its threads' slices are capped at their length, so that push copies
// them, and own copies one for a change in place. Its modification order
// is its own. It is explored before s changes again (or forked); clocks
// and cached actions, never changed once made, stay shared.
func (s *dstate) restrict(keep []int) *dstate {
	T := len(s.meta)
	c := &dstate{meta: make([][]meta, T), stamp: s.stamp, last: s.last, writer: s.writer, clocks: s.clocks, work: s.work}
	c.g.Prog, c.g.Threads = s.g.Prog, make([][]model.Event, T)
	for t, k := range keep {
		c.size += int32(k)
		c.g.Threads[t] = s.g.Threads[t][:k:k]
		c.meta[t] = s.meta[t][:k:k]
	}
	n := 0
	for _, co := range s.g.Co {
		n += len(co) + 1
	}
	all := make([]model.EventRef, n)
	c.g.Co = make([][]model.EventRef, len(s.g.Co))
	for l, co := range s.g.Co {
		room := len(co) + 1
		c.g.Co[l] = all[:0:room]
		for _, w := range co {
			if int(w.I) < keep[w.T] {
				c.g.Co[l] = append(c.g.Co[l], w)
			}
		}
		all = all[room:]
	}
	return c
}

// fork returns a copy of s that shares nothing s goes on changing, for
// another worker to explore.
func (s *dstate) fork() *dstate {
	keep := make([]int, len(s.meta))
	for t := range keep {
		keep[t] = len(s.g.Threads[t])
	}
	c := s.restrict(keep)
	for t := range c.meta {
		c.own(t)
	}
	c.work = nil // the task's (dpor.task)
	return c
}

// own gives thread t of s events and bookkeeping of its own, to change in
// place.
func (s *dstate) own(t int) {
	n := len(s.g.Threads[t]) + 2
	s.g.Threads[t] = append(make([]model.Event, 0, n), s.g.Threads[t]...)
	s.meta[t] = append(make([]meta, 0, n), s.meta[t]...)
}

// undo is what push changed, for pop to restore.
type undo struct {
	t            int
	last, writer model.EventRef
}

// push appends e to thread t with a fresh stamp.
func (s *dstate) push(t int, e model.Event, max bool) undo {
	u := undo{t: t, last: s.last, writer: s.writer}
	s.g.Threads[t] = append(s.g.Threads[t], e)
	s.meta[t] = append(s.meta[t], meta{stamp: s.stamp, max: max})
	s.stamp++
	s.size++
	s.last, s.writer = model.EventRef{T: int32(t), I: int32(len(s.g.Threads[t]) - 1)}, model.NoSource
	if s.clocks {
		s.m(s.last).clock = s.newClock(s.last)
	}
	return u
}

// pop takes away the event push added.
func (s *dstate) pop(u undo) {
	n := len(s.g.Threads[u.t]) - 1
	s.g.Threads[u.t], s.meta[u.t] = s.g.Threads[u.t][:n], s.meta[u.t][:n]
	s.stamp--
	s.size--
	s.last, s.writer = u.last, u.writer
}

// newClock returns the happens-before clock of e, in storage carved from
// the worker's: clocks are never changed or reused, so graphs share them.
func (s *dstate) newClock(e model.EventRef) model.Clock {
	n, o := 4*len(s.meta), s.work
	if len(o.clocks) < n {
		o.clocks = make([]int32, 256*n)
	}
	c := o.clocks[:n:n]
	o.clocks = o.clocks[n:]
	return model.NewClock(&s.g, s, e, c)
}

// deleteCo removes the write at position pos (as InsertCo counts) from
// the modification order of l.
func (s *dstate) deleteCo(l model.Loc, pos int) {
	co := s.g.Co[l]
	s.g.Co[l] = append(co[:pos-1], co[pos:]...)
}

func (s *dstate) m(r model.EventRef) *meta { return &s.meta[r.T][r.I] }

// next returns the thread to move and its action: a pending write half of
// an RMW first, otherwise the first thread that can move. t is -1 when no
// thread can; bounded reports a thread stopped by the event bound.
func (d *dpor) next(s *dstate) (t int, a *model.Action, bounded bool, err error) {
	t = -1
	for i := range s.g.Threads {
		c := d.acted(s, i, len(s.g.Threads[i]))
		switch {
		case c.err != nil:
			return -1, nil, false, c.err
		case c.a.Kind == model.ActNone:
		case c.a.Pending:
			return i, &c.a, false, nil
		case len(s.g.Threads[i]) >= d.Config.MaxEvents:
			bounded = true
		case t < 0:
			t, a = i, &c.a
		}
	}
	return t, a, bounded, nil
}

// visit explores the extensions of s. known says that s is consistent
// without checking: it extends a consistent graph by an event with no
// outgoing edge in any relation (a read of the last write in modification
// order, a write placed last, a fence, a choice), which can close no cycle.
func (d *dpor) visit(s *dstate, known bool) error {
	if !known {
		if ok, err := d.consistent(s); !ok || err != nil {
			return err
		}
	}
	following := d.following()
	if !following {
		if err := d.Step(); err != nil {
			return err
		}
	}
	t, a, bounded, err := d.next(s)
	if err != nil {
		return err
	}
	if t < 0 && following {
		return engine.Internalf("a subtree's path ends at a complete graph")
	}
	if t < 0 {
		if bounded {
			d.SetLimit(explore.MaxEvents)
			return nil
		}
		if s.size > d.deepest.Load() {
			d.deepest.Store(s.size)
		}
		o := s.work
		o.states = o.states[:0]
		for t := range s.meta {
			o.states = append(o.states, d.acted(s, t, len(s.g.Threads[t])).st)
		}
		var hb model.Clocks
		if s.clocks {
			hb = s
			if err := d.verifyRaces(s); err != nil {
				return err
			}
		}
		return d.Complete(&s.g, o.states, hb, &o.exec)
	}
	switch {
	case a.Pending:
		e, pos := s.g.PendingWrite(t, a)
		u := s.push(t, e, true)
		w := s.last
		s.g.InsertCo(a.Loc, w, pos)
		err := d.explore(s, false)
		if err == nil {
			err = d.revisitsOf(s, w)
		}
		s.deleteCo(a.Loc, pos)
		s.pop(u)
		return err
	case a.IsReadAction():
		comax := s.g.CoMax(a.Loc)
		for k := len(s.g.Co[a.Loc]); k >= 0; k-- {
			w := model.InitRef(a.Loc)
			if k > 0 {
				w = s.g.Co[a.Loc][k-1]
			}
			v := s.g.WriteValue(w)
			for _, spurious := range a.SpuriousChoices(v) {
				r, _, _ := a.ReadEvent(w, v, spurious)
				max := w == comax && !spurious
				u := s.push(t, r, max)
				err := d.explore(s, max)
				s.pop(u)
				if err != nil {
					return err
				}
			}
		}
		return nil
	case a.Kind == model.ActWrite || a.Kind == model.ActUnlock:
		e := a.SimpleEvent()
		n := len(s.g.Co[a.Loc])
		for pos := n + 1; pos >= 1; pos-- {
			last := pos == n+1
			u := s.push(t, e, last)
			w := s.last
			s.g.InsertCo(a.Loc, w, pos)
			err := d.explore(s, last)
			if err == nil && last {
				err = d.revisitsOf(s, w)
			}
			s.deleteCo(a.Loc, pos)
			s.pop(u)
			if err != nil {
				return err
			}
		}
		return nil
	case a.Kind == model.ActChoose:
		for v := 0; v < a.N; v++ {
			u := s.push(t, a.ChoiceEvent(v), v == 0)
			err := d.explore(s, true)
			s.pop(u)
			if err != nil {
				return err
			}
		}
		return nil
	}
	u := s.push(t, a.SimpleEvent(), true)
	err = d.visit(s, true)
	s.pop(u)
	return err
}

// consistent reports whether s's graph is consistent, knowing that it
// grew from a consistent one by its last event (and, in a revisit, its
// writer): by quick tests of those events first, then by the model's
// clocks where they decide, else by the model's full check.
func (d *dpor) consistent(s *dstate) (bool, error) {
	if incoherent(&s.g, s.last) || s.writer != model.NoSource && incoherent(&s.g, s.writer) {
		return false, nil
	}
	if s.clocks {
		changed := [2]model.EventRef{s.last, s.writer}
		n := 1
		if s.writer != model.NoSource {
			n = 2
		}
		if ok, decided := d.Model.Grown(&s.g, s, changed[:n]...); decided {
			if d.Config.Verify && ok != (d.Model.Check(model.NewExec(&s.g)) == "") {
				return false, engine.Internalf("the clocks say consistent=%v, the axioms do not:\n%s", ok, &s.g)
			}
			return ok, nil
		}
	}
	return d.Consistent(&s.g), nil
}

// verifyRaces, under Config.Verify, compares the data races the clocks of
// s find with those of the model's happens-before.
func (d *dpor) verifyRaces(s *dstate) error {
	if !d.Config.Verify {
		return nil
	}
	got, ok := d.Model.ClockRaces(&s.g, s)
	if !ok {
		return nil
	}
	want, err := engine.NewExecution(&s.g, d.Model, true) // happens-before from scratch
	if err != nil || want == nil {
		return err
	}
	if !slices.Equal(got, want.Races) {
		return engine.Internalf("the clocks find the races %v, happens-before %v:\n%s", got, want.Races, &s.g)
	}
	return nil
}

// incoherent reports a violation that event e of g makes with the earlier
// events of its thread, as every model forbids it (coherence per location:
// the models' coherence, uniproc and sc axioms include it) or with the
// read-modify-write it splits (atomicity). It is a quick sufficient test
// of inconsistency: most graphs the explorer rejects fail it, and those
// that pass still get the model's full check.
func incoherent(g *model.Graph, e model.EventRef) bool {
	if e.IsInit() {
		return false
	}
	ev := g.Ev(e)
	if ev.Kind != model.KRead && ev.Kind != model.KWrite {
		return false
	}
	// pos is where e stands in modification order: a write's own place,
	// a read's source's.
	pos := g.CoPos(ev.Loc, e)
	if ev.Kind == model.KRead {
		pos = g.CoPos(ev.Loc, ev.Rf)
	}
	for i := int32(0); i < e.I; i++ {
		f := &g.Threads[e.T][i]
		switch {
		case f.Loc != ev.Loc:
		case f.Kind == model.KWrite:
			// A write before e in program order must not follow what e reads
			// or writes in modification order (CoWR, CoWW).
			if p := g.CoPos(f.Loc, model.EventRef{T: e.T, I: i}); p > pos || (p == pos && ev.Kind == model.KWrite) {
				return true
			}
		case f.Kind == model.KRead:
			// Nor may a read before it have read something later (CoRR,
			// CoRW).
			if p := g.CoPos(f.Loc, f.Rf); p > pos || (p == pos && ev.Kind == model.KWrite) {
				return true
			}
		}
	}
	if ev.Kind == model.KWrite {
		// The write after e in modification order must not be an RMW's write
		// whose read reads the write before e: e would split it.
		co := g.Co[ev.Loc]
		if pos < len(co) {
			prev := model.InitRef(ev.Loc)
			if pos >= 2 {
				prev = co[pos-2]
			}
			if next := co[pos]; g.Ev(next).RMW && g.Threads[next.T][next.I-1].Rf == prev {
				return true
			}
		}
	}
	return false
}

// explore visits s, on an idle worker when there is one and s is not too
// deep (the other worker gets a copy: s goes on changing here).
func (d *dpor) explore(s *dstate, known bool) error {
	return d.task(s, func(s *dstate) error { return d.visit(s, known) })
}

// revisitsOf performs the backward revisits of w, the last event of s, on
// an idle worker when there is one, as explore.
func (d *dpor) revisitsOf(s *dstate, w model.EventRef) error {
	return d.task(s, func(s *dstate) error { return d.revisits(s, w) })
}

// task runs f on s: here, or on a copy of s on an idle worker when there
// is one and s has at most half as many events as the deepest complete
// graph yet (a deeper graph's subtree is too small to be worth the copy).
func (d *dpor) task(s *dstate, f func(*dstate) error) error {
	switch {
	case d.sub != nil:
		return d.branch(func() error { return f(s) })
	case !d.Idle() || 2*s.size > d.deepest.Load():
		return f(s)
	}
	c := s.fork()
	return d.Fork(func() error {
		// The worker's storage for the task, from the last task it or
		// another worker ran: clocks are carved from its free part only.
		c.work = d.scratch.Get().(*scratch)
		defer d.scratch.Put(c.work)
		return f(c)
	})
}

// following reports whether the current task is on the way to the
// subtree explored, which is followed and not counted.
func (d *dpor) following() bool { return d.sub != nil && len(d.path) < len(d.sub.Path) }

// branch runs task, the current task's next branch, as the subtree
// explored asks: on the way to it, only the branch its path names; at
// the cut, not at all, its path noted as a job; otherwise as a task of
// its own, one level deeper.
func (d *dpor) branch(task func() error) error {
	depth := len(d.path)
	n := d.forks[depth]
	d.forks[depth]++
	if d.following() && n != d.sub.Path[depth] {
		return nil
	}
	if !d.following() && d.sub.Cut > len(d.sub.Path) && depth+1 >= d.sub.Cut {
		d.sub.Jobs = append(d.sub.Jobs, append(slices.Clone(d.path), n))
		return nil
	}
	d.path = append(d.path, n)
	d.forks = append(d.forks[:depth+1], 0)
	err := task()
	d.path = d.path[:depth]
	d.forks = d.forks[:depth+1]
	return err
}

// prefix returns the po ∪ rf prefix of e, as the number of events of each
// thread it contains; a spawned thread's prefix includes its spawn.
func prefix(g *model.Graph, e model.EventRef) []int {
	pre := make([]int, len(g.Threads))
	pre[e.T] = int(e.I) + 1
	for changed := true; changed; {
		changed = false
		for t := range pre {
			if pre[t] > 0 && g.Prog.Threads[t].Spawned {
				if s, ok := g.Spawner(t); ok && int(s.I)+1 > pre[s.T] {
					pre[s.T] = int(s.I) + 1
					changed = true
				}
			}
			for i := 0; i < pre[t]; i++ {
				ev := &g.Threads[t][i]
				if ev.Kind == model.KRead && !ev.Rf.IsInit() && int(ev.Rf.I)+1 > pre[ev.Rf.T] {
					pre[ev.Rf.T] = int(ev.Rf.I) + 1
					changed = true
				}
			}
		}
	}
	return pre
}

// revisits performs the backward revisits of write w, just added to s.
// It runs even when w makes s inconsistent: an RMW whose read was taken by
// another RMW violates atomicity, yet the read it should have read from may
// be revisited (as GenMC does).
func (d *dpor) revisits(s *dstate, w model.EventRef) error {
	loc := s.g.Ev(w).Loc
	pre := prefix(&s.g, w)
	if d.lb && d.loadBuffering(s, w, pre) {
		return errLoadBuffering
	}
	for t, evs := range s.g.Threads {
		for i := pre[t]; i < len(evs); i++ {
			e := &evs[i]
			r := model.EventRef{T: int32(t), I: int32(i)}
			if e.Kind != model.KRead || e.Loc != loc || s.m(r).noRevisit {
				continue
			}
			keep := make([]int, len(pre))
			for u := range keep {
				keep[u] = pre[u]
				for j := keep[u]; j < len(s.meta[u]) && s.meta[u][j].stamp <= s.m(r).stamp; j++ {
					keep[u] = j + 1
				}
			}
			if !maximal(s, r, w, keep) {
				continue
			}
			if err := d.revisit(s, r, w, keep, pre); err != nil {
				return err
			}
		}
	}
	return nil
}

// maximal reports whether the revisit of r by w, keeping the events keep,
// deletes only events that were added with their maximal choice (and r
// itself was), so that this revisit is performed from exactly one graph.
func maximal(s *dstate, r, w model.EventRef, keep []int) bool {
	kept := func(x model.EventRef) bool { return x.IsInit() || int(x.I) < keep[x.T] }
	for t, evs := range s.g.Threads {
		for i := range evs {
			ref := model.EventRef{T: int32(t), I: int32(i)}
			if kept(ref) && ref != r {
				continue
			}
			m := s.m(ref)
			if m.noRevisit || !m.max {
				return false
			}
			e := &evs[i]
			if e.Kind != model.KRead && e.Kind != model.KWrite {
				continue
			}
			// What it reads or writes must be maximal with respect to the
			// kept writes too.
			x := ref
			if e.Kind == model.KRead {
				x = e.Rf
			}
			co := s.g.Co[e.Loc]
			for _, y := range co[s.g.CoPos(e.Loc, x):] {
				if y != w && kept(y) {
					return false
				}
			}
			// A read revisited by a write that is deleted is not in its
			// canonical state.
			if e.Kind == model.KRead && !kept(e.Rf) && s.m(e.Rf).stamp > m.stamp {
				return false
			}
		}
	}
	return true
}

// revisit makes r read from w in the restriction of s to keep.
func (d *dpor) revisit(s *dstate, r, w model.EventRef, keep, pre []int) error {
	c := s.restrict(keep)
	c.own(int(r.T))
	c.own(int(w.T))
	for t, evs := range c.g.Threads {
		for i := range evs {
			if e := &evs[i]; e.Kind == model.KRead && !e.Rf.IsInit() && int(e.Rf.I) >= keep[e.Rf.T] && (model.EventRef{T: int32(t), I: int32(i)}) != r {
				return engine.Internalf("revisit of %v by %v leaves %d.%d reading from a deleted write", r, w, t, i)
			}
		}
	}
	for t := range pre {
		// A thread's events marked noRevisit are a prefix of it: when the
		// last of pre[t] is marked, so are the others.
		if pre[t] > 0 && !c.meta[t][pre[t]-1].noRevisit {
			if t != int(r.T) && t != int(w.T) {
				c.own(t)
			}
			for i := 0; i < pre[t]; i++ {
				c.meta[t][i].noRevisit = true
			}
		}
	}
	before := d.acted(c, int(r.T), int(r.I)) // the read's action
	if before.err != nil {
		return before.err
	}
	a := &before.a
	v := c.g.WriteValue(w)
	loc := a.Loc
	rmwWrite := c.g.Ev(w).RMW
	for _, spurious := range a.SpuriousChoices(v) {
		ev, _, _ := a.ReadEvent(w, v, spurious)
		// w keeps its place after an RMW's read; a plain write takes every place.
		n := len(c.g.Co[loc])
		first, last := n, n
		if !rmwWrite {
			first = 1
		}
		for pos := last; pos >= first; pos-- {
			// Each branch sets what it changes: the branches before it
			// left c as they found it but for these.
			c.g.Threads[r.T][r.I] = ev
			c.m(r).act = nil // the cache is for its old read
			c.last, c.writer = r, w
			if !rmwWrite {
				c.deleteCo(loc, c.g.CoPos(loc, w))
				c.g.InsertCo(loc, w, pos)
				c.m(w).max = pos == n
			}
			c.m(r).max = c.g.CoMax(loc) == w && !spurious
			if c.clocks {
				c.m(r).clock = c.newClock(r)
			}
			if err := d.explore(c, false); err != nil {
				return err
			}
		}
	}
	return nil
}
