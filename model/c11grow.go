package model

import (
	"slices"
	"sync"
)

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
// the write it reads, in store (zero, four int32 per thread of g): the
// explorer carves clocks from arrays of its own. It follows c11Fast step
// by step: both compute happens-before as RC11 defines it, with release
// sequences continued by read-modify-writes, and a spawned thread going
// on from its spawner's clock at the spawn.
func NewClock(g *Graph, hb Clocks, e EventRef, store []int32) Clock {
	T := len(g.Threads)
	ev := g.Ev(e)
	c := Clock(store)
	view := c.view()
	if prev, ok := g.poPrev(e); ok {
		copy(c[:3*T], hb.Clock(prev)[:3*T])
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
			for r, ok := g.poPrev(e); ok; r, ok = g.poPrev(r) {
				if p := g.Ev(r); p.Kind == KWrite && p.Loc == ev.Loc && p.Ord.IsRelease() {
					join(msg, hb.Clock(r).view())
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
// It decides nothing (decided false) when m has no clocks, when the
// graph has seq_cst fences, or seq_cst accesses and spawned threads (psc
// is then left to the full check), or when the consume model meets a
// consume event; the full check then must.
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
			case e.Ord == SeqCst && e.Kind != KSpawn:
				sc = true
				scFence = scFence || e.Kind == KFence
			case e.Ord == Con && m.Consume:
				return false, false
			}
		}
	}
	if scFence {
		return false, false
	}
	for _, e := range changed {
		if !coherentClock(g, hb, e) {
			return false, true
		}
	}
	if sc && g.Prog.Spawns() {
		return false, false // po runs across spawns, which pscClocks does not follow
	}
	if sc {
		// Without seq_cst fences, psc orders seq_cst events by relations
		// among themselves, which a relaxed event changes nowhere; and
		// every psc edge the graph it grew from lacks touches a changed
		// event (nothing happens after one, and the others keep their
		// order), so a new cycle passes through a changed seq_cst event.
		return pscClocks(g, hb, changed), true
	}
	return true, true
}

// pscScratch is the working memory of pscClocks, reused through a pool.
type pscScratch struct {
	evs        []EventRef // the seq_cst events
	next, prev []EventRef // per seq_cst event, the memory events around it on other locations
	seen       []bool
	stack      []int
}

var pscScratches = sync.Pool{New: func() any { return new(pscScratch) }}

// pscClocks reports whether no cycle of RC11's psc passes through a
// seq_cst event of from, in g, which has seq_cst accesses but no seq_cst
// fences and no spawned threads: psc is then scb between seq_cst events
// (po, po|≠loc; hb; po|≠loc, hb|loc, co and fr), with hb read off the
// clocks hb and co off the places in modification order, as pscAcyclic
// builds it from relations. The search follows edges out of each such
// event until it comes back or runs out; it computes only the edges out
// of the events it reaches.
func pscClocks(g *Graph, hb Clocks, from []EventRef) bool {
	x := pscScratches.Get().(*pscScratch)
	defer pscScratches.Put(x)
	memory := func(e *Event) bool { return e.Kind == KRead || e.Kind == KWrite || e.Kind == KFence }
	none := EventRef{T: -1}
	x.evs, x.next, x.prev = x.evs[:0], x.next[:0], x.prev[:0]
	for t, evs := range g.Threads {
		for i := range evs {
			if e := &evs[i]; e.Ord == SeqCst && (e.Kind == KRead || e.Kind == KWrite) {
				// next: the first event after it in its thread on another
				// location (a fence has none); prev: the last before it.
				next, prev := none, none
				for k := i + 1; k < len(evs); k++ {
					if f := &evs[k]; memory(f) && f.Loc != e.Loc {
						next = EventRef{T: int32(t), I: int32(k)}
						break
					}
				}
				for k := i - 1; k >= 0; k-- {
					if f := &evs[k]; memory(f) && f.Loc != e.Loc {
						prev = EventRef{T: int32(t), I: int32(k)}
						break
					}
				}
				x.evs = append(x.evs, EventRef{T: int32(t), I: int32(i)})
				x.next, x.prev = append(x.next, next), append(x.prev, prev)
			}
		}
	}
	before := func(a, b EventRef) bool { // a hb b
		if a.T == b.T {
			return a.I < b.I
		}
		return hb.Clock(b).view()[a.T] > a.I
	}
	edge := func(j, k int) bool {
		a, b := x.evs[j], x.evs[k]
		ea, eb := g.Ev(a), g.Ev(b)
		same := ea.Loc == eb.Loc
		return a.T == b.T && a.I < b.I || // po
			same && before(a, b) || // hb|loc
			same && eb.Kind == KWrite && g.place(ea, a) < g.place(eb, b) || // co, or fr from a read
			x.next[j] != none && x.prev[k] != none && before(x.next[j], x.prev[k]) // po|≠loc; hb; po|≠loc
	}
	for _, e := range from {
		start := slices.Index(x.evs, e)
		if start < 0 {
			continue // not a seq_cst access: on no psc edge
		}
		x.seen = append(x.seen[:0], make([]bool, len(x.evs))...)
		x.seen[start] = true
		x.stack = append(x.stack[:0], start)
		for len(x.stack) > 0 {
			j := x.stack[len(x.stack)-1]
			x.stack = x.stack[:len(x.stack)-1]
			for k := range x.evs {
				if k == j || !edge(j, k) {
					continue
				}
				if k == start {
					return false
				}
				if !x.seen[k] {
					x.seen[k] = true
					x.stack = append(x.stack, k)
				}
			}
		}
	}
	return true
}

// coherentClock reports whether no event on e's location that happens
// before e stands after it in modification order (a read: after what it
// reads; a write: at or after it).
func coherentClock(g *Graph, hb Clocks, e EventRef) bool {
	ev := g.Ev(e)
	if ev.Kind != KRead && ev.Kind != KWrite {
		return true
	}
	pe := g.place(ev, e)
	view := hb.Clock(e).view()
	for u, evs := range g.Threads {
		k := view[u]
		if u == int(e.T) {
			k-- // the view counts e itself
		}
		for j := k - 1; j >= 0; j-- {
			if a := &evs[j]; (a.Kind == KRead || a.Kind == KWrite) && a.Loc == ev.Loc {
				if pa := g.place(a, EventRef{T: int32(u), I: j}); pe < pa || pe == pa && ev.Kind == KWrite {
					return false
				}
				break
			}
		}
	}
	return true
}

// poPrev returns the event just before e in program order: the one
// before it in its thread, or, for a spawned thread's first event, the
// spawn.
func (g *Graph) poPrev(e EventRef) (EventRef, bool) {
	if e.I > 0 {
		return EventRef{T: e.T, I: e.I - 1}, true
	}
	if g.Prog.Threads[e.T].Spawned {
		return g.Spawner(int(e.T))
	}
	return EventRef{}, false
}

// place returns where event e (at r) stands in its location's modification
// order: a write its own place, a read the place of what it reads.
func (g *Graph) place(e *Event, r EventRef) int {
	if e.Kind == KRead {
		return g.CoPos(e.Loc, e.Rf)
	}
	return g.CoPos(e.Loc, r)
}

// raceScratch is the working memory of ClockRaces, reused through a pool.
type raceScratch struct {
	off []int32    // where each location's list starts (shifted by one while filled)
	evs []EventRef // the accesses, by location
	at  []int32    // each access's place in evs, in thread order
}

var raceScratches = sync.Pool{New: func() any { return new(raceScratch) }}

// ClockRaces returns the data races of g, a complete graph whose clocks hb
// holds, as DataRaces finds them under m's happens-before and in its
// order: two accesses to one location from different threads, at least one
// a write and at least one plain, neither happening before the other. It
// reports false when the clocks are not m's happens-before (a model
// without clocks, or the consume model on a graph with consume events).
func (m *Model) ClockRaces(g *Graph, hb Clocks) (races [][2]EventRef, ok bool) {
	if !m.clocksAreHB(g) {
		return nil, false
	}
	// The accesses by location, each list in thread order: a race pairs an
	// access with a later one of its list, of a later thread.
	x := raceScratches.Get().(*raceScratch)
	defer raceScratches.Put(x)
	nl := len(g.Prog.Locs)
	x.off = append(x.off[:0], make([]int32, nl+2)...)
	for _, evs := range g.Threads {
		for i := range evs {
			if e := &evs[i]; e.Kind == KRead || e.Kind == KWrite {
				x.off[e.Loc+2]++
			}
		}
	}
	for l := 2; l < len(x.off); l++ {
		x.off[l] += x.off[l-1]
	}
	x.evs = append(x.evs[:0], make([]EventRef, x.off[nl+1])...)
	x.at = x.at[:0]
	for t, evs := range g.Threads {
		for i := range evs {
			if e := &evs[i]; e.Kind == KRead || e.Kind == KWrite {
				x.at = append(x.at, x.off[e.Loc+1])
				x.evs[x.off[e.Loc+1]] = EventRef{T: int32(t), I: int32(i)}
				x.off[e.Loc+1]++
			}
		}
	}
	// x.off[l+1] is now where location l's list ends; x.at[k] is where the
	// k-th access, in thread order, stands in its list.
	for _, j := range x.at {
		a := x.evs[j]
		ea := g.Ev(a)
		for _, b := range x.evs[j+1 : x.off[ea.Loc+1]] {
			eb := g.Ev(b)
			if b.T == a.T || ea.Kind != KWrite && eb.Kind != KWrite || ea.Ord.Atomic() && eb.Ord.Atomic() ||
				hb.Clock(b).view()[a.T] > a.I || hb.Clock(a).view()[b.T] > b.I {
				continue
			}
			races = append(races, [2]EventRef{a, b})
		}
	}
	return races, true
}

// clocksAreHB reports whether the clocks of g's events (NewClock) are m's
// happens-before: m has clocks, and under the consume model g has no
// consume event.
func (m *Model) clocksAreHB(g *Graph) bool {
	if !m.Clocks {
		return false
	}
	if m.Consume {
		for _, evs := range g.Threads {
			for i := range evs {
				if evs[i].Ord == Con {
					return false
				}
			}
		}
	}
	return true
}
