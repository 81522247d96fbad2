package model

// The incremental form of the C11 clock check (c11Fast), for an explorer
// that grows a graph one event at a time in po ∪ rf order, each graph
// consistent but for what its newest events changed. Each event's clock
// is computed once, from those of its predecessors, when it is added; a
// graph is then judged by the pairs the changed events make with the
// events that happen before them, not by a pass over the whole graph.

// Clock is what the incremental C11 check keeps of one event, four
// vectors of one entry per thread in one slice: its view (for each thread,
// how many of its events happen before it, itself included), what the
// relaxed reads of its thread so far would bring an acquire fence, its
// thread's view at its last release fence, and, for an atomic write, what
// its message releases (zeros: nothing). Clocks never change once made,
// so graphs share them.
type Clock []int32

func (c Clock) part(k int) []int32 { n := len(c) / 4; return c[k*n : (k+1)*n] }
func (c Clock) view() []int32      { return c.part(0) }
func (c Clock) acq() []int32       { return c.part(1) }
func (c Clock) fence() []int32     { return c.part(2) }
func (c Clock) msg() []int32       { return c.part(3) }

// Clocks gives the clock of each event of a graph.
type Clocks interface {
	Clock(e EventRef) Clock
}

// NewClock returns the clock of event e of g, the last event of its
// thread, from the clocks hb of the events before it in its thread and of
// the write it reads. It follows c11Fast step by step: both compute
// happens-before as RC11 defines it, with release sequences continued by
// read-modify-writes.
func NewClock(g *Graph, hb Clocks, e EventRef) Clock {
	T := len(g.Threads)
	ev := g.Ev(e)
	c := make(Clock, 4*T)
	view := c.view()
	switch {
	case e.I > 0:
		copy(c[:3*T], hb.Clock(EventRef{T: e.T, I: e.I - 1})[:3*T])
	case g.Prog.Threads[e.T].Spawned:
		if s, ok := g.Spawner(int(e.T)); ok {
			copy(view, hb.Clock(s).view())
		}
	}
	view[e.T]++
	switch ev.Kind {
	case KRead:
		if ev.Ord.Atomic() && ev.Ord != Con && !ev.Rf.IsInit() {
			m := hb.Clock(ev.Rf).msg()
			join(c.acq(), m)
			if ev.Ord.IsAcquire() {
				join(view, m)
			}
		}
	case KWrite:
		msg := c.msg()
		if r := &g.Threads[e.T][max(e.I-1, 0)]; ev.RMW && e.I > 0 && !r.Rf.IsInit() {
			// What the write passes on from the message its read read:
			// release sequences continue through every read-modify-write.
			copy(msg, hb.Clock(r.Rf).msg())
		}
		switch {
		case ev.Ord == Con:
			// A consume write heads no release sequence and continues none
			// of its thread's: it passes on only what it read.
		case ev.Ord.Atomic():
			join(msg, c.fence())
			if ev.Ord.IsRelease() {
				join(msg, view)
				break
			}
			for i := e.I - 1; i >= 0; i-- {
				if p := &g.Threads[e.T][i]; p.Kind == KWrite && p.Loc == ev.Loc && p.Ord.IsRelease() {
					join(msg, hb.Clock(EventRef{T: e.T, I: i}).view())
					break
				}
			}
		default:
			clear(msg) // a plain write releases nothing
		}
	case KFence:
		if ev.Ord.IsAcquire() {
			join(view, c.acq())
		}
		if ev.Ord.IsRelease() {
			copy(c.fence(), view)
		}
	}
	return c
}

// Grown decides whether g is consistent under m, given that g is a
// consistent graph grown by the events changed: events added last to their
// threads, or a read given a new source and the write it now reads, which
// may have moved in modification order; hb holds the clocks of g's events.
// It decides nothing (decided false) when m has no clocks, when a
// seq_cst event is involved (psc is a whole-graph order), or when the
// consume model meets a consume event; the full check then must.
//
// Only pairs with a changed event can break coherence: nothing happens
// after a changed event, the other events keep their views, and their
// places in modification order keep their relative order. For each
// thread it suffices to look at the last event on the location that
// happens before the changed one: a consistent thread's events on one
// location stand in modification order in program order.
func (m *Model) Grown(g *Graph, hb Clocks, changed ...EventRef) (consistent, decided bool) {
	if !m.Clocks {
		return false, false
	}
	scFence, sc := false, false
	for _, evs := range g.Threads {
		for i := range evs {
			switch e := &evs[i]; {
			case e.Ord == SC && e.Kind != KSpawn:
				sc = true
				scFence = scFence || e.Kind == KFence
			case e.Ord == Con && m.Consume:
				return false, false
			}
		}
	}
	for _, e := range changed {
		// Without seq_cst fences, psc orders seq_cst events by relations
		// among themselves, which a relaxed event changes nowhere.
		if scFence || sc && g.Ev(e).Ord == SC {
			return false, false
		}
	}
	for _, e := range changed {
		if !coherentClock(g, hb, e) {
			return false, true
		}
	}
	return true, true
}

// coherentClock reports whether no event on e's location that happens
// before e stands after it in modification order (a read: after what it
// reads; a write: at or after it).
func coherentClock(g *Graph, hb Clocks, e EventRef) bool {
	ev := g.Ev(e)
	if ev.Kind != KRead && ev.Kind != KWrite {
		return true
	}
	place := func(f *Event, r EventRef) int {
		if f.Kind == KRead {
			return g.CoPos(f.Loc, f.Rf)
		}
		return g.CoPos(f.Loc, r)
	}
	pe := place(ev, e)
	view := hb.Clock(e).view()
	for u, evs := range g.Threads {
		k := view[u]
		if u == int(e.T) {
			k-- // the view counts e itself
		}
		for j := k - 1; j >= 0; j-- {
			if a := &evs[j]; (a.Kind == KRead || a.Kind == KWrite) && a.Loc == ev.Loc {
				if pa := place(a, EventRef{T: int32(u), I: j}); pe < pa || pe == pa && ev.Kind == KWrite {
					return false
				}
				break
			}
		}
	}
	return true
}
