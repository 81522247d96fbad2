package model

import "sync"

// scScratch is the working memory of one SC check, reused through a pool.
type scScratch struct {
	off     []int32 // per thread: the number of its first event
	pos     []int32 // per event: a write's place in modification order (1 the first)
	readers []int32 // per event: the reads of the write not yet taken
	initRd  []int32 // per location: the reads of its initial write not yet taken
	last    []int32 // per location: the place of the last write taken
	next    []int32 // per thread: its next event to take
}

var scScratches = sync.Pool{New: func() any { return new(scScratch) }}

// scFast decides SC consistency of g as SC's axioms do, without
// relation algebra: it takes g's events in an order of po ∪ rf ∪ co ∪ fr,
// one at a time, and g is consistent when every event is taken. A read is
// taken once the write it reads is; a write once the write before it in
// modification order has been taken, and every read of that write — fr
// orders those reads before it. This is Kahn's topological sort over the
// immediate edges of the four relations, which succeeds in any order of
// choice exactly when their union is acyclic. Atomicity is checked first:
// a read-modify-write's write directly follows the write its read read.
func scFast(g *Graph) (consistent, decided bool) {
	T, nl := len(g.Threads), len(g.Prog.Locs)
	x := scScratches.Get().(*scScratch)
	defer scScratches.Put(x)
	x.off = ints(x.off, T+1, 0)
	for t, evs := range g.Threads {
		x.off[t+1] = x.off[t] + int32(len(evs))
	}
	n := int(x.off[T])
	id := func(r EventRef) int32 { return x.off[r.T] + r.I }
	x.pos = ints(x.pos, n, 0)
	for _, co := range g.Co {
		for k, w := range co {
			x.pos[id(w)] = int32(k + 1)
		}
	}
	x.readers, x.initRd = ints(x.readers, n, 0), ints(x.initRd, nl, 0)
	for t, evs := range g.Threads {
		for i := range evs {
			e := &evs[i]
			switch {
			case e.Kind == KRead && e.Rf.IsInit():
				x.initRd[e.Loc]++
			case e.Kind == KRead:
				x.readers[id(e.Rf)]++
			case e.Kind == KWrite && e.RMW && i > 0:
				read, at := &evs[i-1], int32(0)
				if !read.Rf.IsInit() {
					at = x.pos[id(read.Rf)]
				}
				if x.pos[x.off[t]+int32(i)] != at+1 {
					return false, true // atomicity
				}
			}
		}
	}
	x.last, x.next = ints(x.last, nl, 0), ints(x.next, T, 0)
	// ready reports whether event e of thread t may be taken now.
	ready := func(t int, i int32, e *Event) bool {
		if i == 0 && g.Prog.Threads[t].Spawned {
			if s, ok := g.Spawner(t); !ok || x.next[s.T] <= s.I {
				return false
			}
		}
		switch e.Kind {
		case KRead:
			return e.Rf.IsInit() || x.next[e.Rf.T] > e.Rf.I
		case KWrite:
			p := x.pos[x.off[t]+i]
			if x.last[e.Loc] != p-1 {
				return false
			}
			if p == 1 {
				return x.initRd[e.Loc] == 0
			}
			return x.readers[id(g.Co[e.Loc][p-2])] == 0
		}
		return true
	}
	for left := n; left > 0; {
		moved := false
		for t, evs := range g.Threads {
			for int(x.next[t]) < len(evs) {
				i := x.next[t]
				e := &evs[i]
				if !ready(t, i, e) {
					break
				}
				switch e.Kind {
				case KRead:
					if e.Rf.IsInit() {
						x.initRd[e.Loc]--
					} else {
						x.readers[id(e.Rf)]--
					}
				case KWrite:
					x.last[e.Loc]++
				}
				x.next[t]++
				left--
				moved = true
			}
		}
		if !moved {
			return false, true // a cycle in po ∪ rf ∪ co ∪ fr
		}
	}
	return true, true
}
