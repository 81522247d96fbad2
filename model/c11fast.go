package model

// The clock-based consistency check of the C11 models: the same verdict
// as their axioms for executions without seq_cst events (and, for the
// consume model, without consume loads), in one pass over the graph and no
// relation algebra. The graph explorer asks it first (Model.Fast); the
// axioms remain the definition, and tests compare the two on every
// candidate execution of random programs.

// c11Fast decides RC11 consistency of g without relations, or reports
// that it cannot (seq_cst events, which need psc; consume loads, when
// consume is whether to synchronise through an acquire fence after it).
//
// Happens-before is computed as vector clocks in an order of po ∪ rf
// (none: a po ∪ rf cycle, which no-thin-air forbids): each event's view
// counts the events of every thread that happen before it, and each atomic
// write's message carries what it releases — its thread's view at its
// last release fence and at its last release write to the location, and,
// for a read-modify-write, what the message it read carried (release
// sequences). Coherence (irreflexive hb; eco?) then holds when, for every
// two events of one location with a hb b, b's place in modification order
// (a read's: its write's) is not before a's, strictly after it when b is
// a write; atomicity when each read-modify-write's write directly follows
// the write its read read.
func c11Fast(g *Graph, consumeSyncs bool) (consistent, decided bool) {
	T := len(g.Threads)
	nl := len(g.Prog.Locs)
	// pos[t][i]: the place of write i of thread t in modification order.
	pos := make([][]int32, T)
	for t, evs := range g.Threads {
		pos[t] = make([]int32, len(evs))
		for i := range evs {
			switch e := &evs[i]; {
			case e.Ord == SC && e.Kind != KSpawn:
				return false, false
			case e.Ord == Con && consumeSyncs:
				return false, false
			}
		}
	}
	for _, co := range g.Co {
		for k, w := range co {
			pos[w.T][w.I] = int32(k + 1)
		}
	}
	src := func(r *Event) int32 {
		if r.Rf.IsInit() {
			return 0
		}
		return pos[r.Rf.T][r.Rf.I]
	}
	// Clocks: views[t][i*T+u] is the view of event i of thread t.
	views := make([][]int32, T)
	msgs := make([][][]int32, T) // per write event: the message's clock (nil: releases nothing)
	cur := make([][]int32, T)
	acq := make([][]int32, T)
	fence := make([][]int32, T)
	rel := make([][][]int32, T) // per thread and location
	next := make([]int, T)
	for t, evs := range g.Threads {
		views[t] = make([]int32, len(evs)*T)
		msgs[t] = make([][]int32, len(evs))
		cur[t], acq[t] = make([]int32, T), make([]int32, T)
		rel[t] = make([][]int32, nl)
	}
	join := func(dst, src []int32) {
		for i, v := range src {
			dst[i] = max(dst[i], v)
		}
	}
	clone := func(v []int32) []int32 { return append([]int32(nil), v...) }
	left := g.Size()
	for left > 0 {
		moved := false
		for t, evs := range g.Threads {
			for next[t] < len(evs) {
				i := next[t]
				e := &evs[i]
				if i == 0 && g.Prog.Threads[t].Spawned {
					s, ok := g.Spawner(t)
					if !ok || next[s.T] <= int(s.I) {
						break
					}
					copy(cur[t], views[s.T][int(s.I)*T:int(s.I+1)*T])
				}
				if e.Kind == KRead && !e.Rf.IsInit() && next[e.Rf.T] <= int(e.Rf.I) {
					break
				}
				c := cur[t]
				c[t]++
				switch e.Kind {
				case KRead:
					var m []int32
					if !e.Rf.IsInit() {
						m = msgs[e.Rf.T][e.Rf.I]
					}
					if m != nil && e.Ord.Atomic() && e.Ord != Con {
						join(acq[t], m)
						if e.Ord.IsAcquire() {
							join(c, m)
						}
					}
				case KWrite:
					if e.Ord.Atomic() {
						if e.Ord.IsRelease() {
							rel[t][e.Loc] = clone(c)
						}
						m := make([]int32, T)
						if fence[t] != nil {
							copy(m, fence[t])
						}
						if r := rel[t][e.Loc]; r != nil {
							join(m, r)
						}
						if e.RMW && i > 0 && !evs[i-1].Rf.IsInit() {
							if rm := msgs[evs[i-1].Rf.T][evs[i-1].Rf.I]; rm != nil {
								join(m, rm)
							}
						}
						msgs[t][i] = m
					}
				case KFence:
					if e.Ord.IsAcquire() {
						join(c, acq[t])
					}
					if e.Ord.IsRelease() {
						fence[t] = clone(c)
					}
				}
				copy(views[t][i*T:(i+1)*T], c)
				next[t]++
				left--
				moved = true
			}
		}
		if !moved {
			return false, true // a cycle in po ∪ rf: no-thin-air
		}
	}
	hb := func(a, b EventRef) bool {
		if a.T == b.T {
			return a.I < b.I
		}
		return views[b.T][int(b.I)*T+int(a.T)] > a.I
	}
	// place is where an event stands in modification order: a write's own
	// place, a read's the place of what it read.
	place := func(r EventRef) int32 {
		e := g.Ev(r)
		if e.Kind == KRead {
			return src(e)
		}
		return pos[r.T][r.I]
	}
	byLoc := make([][]EventRef, nl)
	for t, evs := range g.Threads {
		for i := range evs {
			e := &evs[i]
			if e.Kind != KRead && e.Kind != KWrite {
				continue
			}
			r := EventRef{T: int32(t), I: int32(i)}
			byLoc[e.Loc] = append(byLoc[e.Loc], r)
			if e.Kind == KWrite && e.RMW && i > 0 && pos[t][i] != src(&evs[i-1])+1 {
				return false, true // atomicity
			}
		}
	}
	for _, evs := range byLoc {
		for _, a := range evs {
			for _, b := range evs {
				if a == b || !hb(a, b) {
					continue
				}
				pa, pb := place(a), place(b)
				if pb < pa || pb == pa && g.Ev(b).Kind == KWrite {
					return false, true // coherence
				}
			}
		}
	}
	return true, true
}
