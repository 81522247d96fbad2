package model

import "sync"

// The clock-based consistency check of the C11 models: the same verdict
// as their axioms for executions without seq_cst events (and, for the
// consume model, without consume loads), in one pass over the graph and no
// relation algebra. The graph explorer asks it first (Model.Fast); the
// axioms remain the definition, and tests compare the two on every
// candidate execution of random programs and of the herd7 corpus.

// c11Scratch is the working memory of one check, reused through a pool:
// events are numbered across threads (off[t] + i), clocks are rows of T
// entries in flat slices, and a message's clock lives in arena.
type c11Scratch struct {
	off     []int32 // per thread: the number of its first event
	pos     []int32 // per event: a write's place in modification order
	views   []int32 // per event: its view, T entries
	msg     []int32 // per event: where its message's clock starts in arena; -1: it releases nothing
	arena   []int32
	cur     []int32 // per thread: its view so far, T entries
	acq     []int32 // per thread: what its relaxed reads bring an acquire fence
	fence   []int32 // per thread: its view at its last release fence
	fenced  []bool
	rel     []int32    // per thread and location: where its view at its last release write there starts in arena; -1: none
	next    []int32    // per thread: its next event to take
	spawner []EventRef // per thread: the event that spawned it; T -1 for one that starts with the program
	// at a spawn, the spawner's acq, fence (where they start in arena) and
	// rel row, per spawned thread, which it goes on from
	spawnAcq, spawnFence []int32
	spawnRel             []int32
	byLoc                []int32 // events by location: the events of location l are byLoc[locOff[l]:locOff[l+1]]
	locOff               []int32
	locNext              []int32
}

var c11Scratches = sync.Pool{New: func() any { return new(c11Scratch) }}

// ints returns s resized to n entries, all v.
func ints(s []int32, n int, v int32) []int32 {
	if cap(s) < n {
		s = make([]int32, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = v
	}
	return s
}

// c11Fast decides RC11 consistency of g, or reports that it cannot
// (consume loads, when consumeSyncs says a consume load followed by an
// acquire fence may synchronise, as in the consume model).
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
	x := c11Scratches.Get().(*c11Scratch)
	defer c11Scratches.Put(x)
	// The axioms put a spawned thread after its spawner's prefix in po:
	// it starts from every view the spawner had at the spawn — a release
	// fence or write before the spawn heads release sequences its writes
	// continue, and relaxed reads before it feed its acquire fences.
	x.spawner = spawners(g, x.spawner)
	x.spawnAcq, x.spawnFence = ints(x.spawnAcq, T, -1), ints(x.spawnFence, T, -1)
	x.spawnRel = ints(x.spawnRel, T*nl, -1)
	x.off = ints(x.off, T+1, 0)
	seqCst := false
	for t, evs := range g.Threads {
		x.off[t+1] = x.off[t] + int32(len(evs))
		for i := range evs {
			switch e := &evs[i]; {
			case e.Ord == SeqCst && e.Kind != KSpawn:
				seqCst = true
			case e.Ord == Con && consumeSyncs:
				return false, false
			}
		}
	}
	n := int(x.off[T])
	id := func(r EventRef) int32 { return x.off[r.T] + r.I }
	x.pos = ints(x.pos, n, 0)
	for _, co := range g.Co {
		for k, w := range co {
			x.pos[id(w)] = int32(k + 1)
		}
	}
	// place is where an event stands in modification order: a write's
	// own place, a read's the place of what it read.
	place := func(e *Event, self int32) int32 {
		if e.Kind != KRead {
			return x.pos[self]
		}
		if e.Rf.IsInit() {
			return 0
		}
		return x.pos[id(e.Rf)]
	}
	x.views = ints(x.views, n*T, 0)
	x.msg = ints(x.msg, n, -1)
	x.arena = x.arena[:0]
	x.cur, x.acq, x.fence = ints(x.cur, T*T, 0), ints(x.acq, T*T, 0), ints(x.fence, T*T, 0)
	x.fenced = append(x.fenced[:0], make([]bool, T)...)
	x.rel = ints(x.rel, T*nl, -1)
	x.next = ints(x.next, T, 0)
	row := func(s []int32, i int32) []int32 { return s[int(i)*T : int(i+1)*T] }
	join := func(dst, src []int32) {
		for i, v := range src {
			dst[i] = max(dst[i], v)
		}
	}
	// keep stores a clock in the arena and returns where it starts.
	keep := func(v []int32) int32 {
		at := int32(len(x.arena))
		x.arena = append(x.arena, v...)
		return at
	}
	for left := n; left > 0; {
		moved := false
		for t, evs := range g.Threads {
			c := row(x.cur, int32(t))
			for int(x.next[t]) < len(evs) {
				i := x.next[t]
				e := &evs[i]
				if e.Kind == KRead && !e.Rf.IsInit() && x.next[e.Rf.T] <= e.Rf.I {
					break
				}
				if sp := x.spawner[t]; i == 0 && sp.T >= 0 {
					if x.next[sp.T] <= sp.I {
						break // not spawned yet
					}
					copy(c, row(x.views, x.off[sp.T]+sp.I))
					copy(row(x.acq, int32(t)), x.arena[x.spawnAcq[t]:int(x.spawnAcq[t])+T])
					copy(row(x.fence, int32(t)), x.arena[x.spawnFence[t]:int(x.spawnFence[t])+T])
					copy(x.rel[t*nl:(t+1)*nl], x.spawnRel[t*nl:(t+1)*nl])
				}
				self := x.off[t] + i
				c[t]++
				switch e.Kind {
				case KRead:
					if e.Ord.Atomic() && e.Ord != Con && !e.Rf.IsInit() {
						if at := x.msg[id(e.Rf)]; at >= 0 {
							m := x.arena[at : int(at)+T]
							join(row(x.acq, int32(t)), m)
							if e.Ord.IsAcquire() {
								join(c, m)
							}
						}
					}
				case KWrite:
					// What the write passes on from the message its read read,
					// for a read-modify-write: release sequences continue
					// through every read-modify-write.
					from := int32(-1)
					if r := &evs[max(i-1, 0)]; e.RMW && i > 0 && !r.Rf.IsInit() {
						from = x.msg[id(r.Rf)]
					}
					switch {
					case e.Ord == Con:
						// A consume write heads no release sequence and
						// continues none of its thread's: it passes on only
						// what it read.
						x.msg[self] = from
					case e.Ord.Atomic():
						rel := &x.rel[t*nl+int(e.Loc)]
						if e.Ord.IsRelease() {
							*rel = keep(c)
						}
						at := keep(row(x.fence, int32(t)))
						m := x.arena[at : int(at)+T]
						if *rel >= 0 {
							join(m, x.arena[*rel:int(*rel)+T])
						}
						if from >= 0 {
							join(m, x.arena[from:int(from)+T])
						}
						x.msg[self] = at
					}
				case KFence:
					if e.Ord.IsAcquire() {
						join(c, row(x.acq, int32(t)))
					}
					if e.Ord.IsRelease() {
						copy(row(x.fence, int32(t)), c)
					}
				case KSpawn:
					if u := int(e.Val); u >= 0 && u < T {
						x.spawnAcq[u], x.spawnFence[u] = keep(row(x.acq, int32(t))), keep(row(x.fence, int32(t)))
						copy(x.spawnRel[u*nl:(u+1)*nl], x.rel[t*nl:(t+1)*nl])
					}
				}
				copy(row(x.views, self), c)
				x.next[t]++
				left--
				moved = true
			}
		}
		if !moved {
			return false, true // a cycle in po ∪ rf: no-thin-air
		}
	}
	// The events of each location, by a counting sort.
	x.locOff = ints(x.locOff, nl+1, 0)
	for t, evs := range g.Threads {
		for i := range evs {
			e := &evs[i]
			if e.Kind != KRead && e.Kind != KWrite {
				continue
			}
			x.locOff[e.Loc+1]++
			if e.Kind == KWrite && e.RMW && i > 0 && x.pos[x.off[t]+int32(i)] != place(&evs[i-1], 0)+1 {
				return false, true // atomicity
			}
		}
	}
	for l := 0; l < nl; l++ {
		x.locOff[l+1] += x.locOff[l]
	}
	x.byLoc = ints(x.byLoc, int(x.locOff[nl]), 0)
	x.locNext = append(x.locNext[:0], x.locOff[:nl]...)
	for t, evs := range g.Threads {
		for i := range evs {
			if e := &evs[i]; e.Kind == KRead || e.Kind == KWrite {
				x.byLoc[x.locNext[e.Loc]] = x.off[t] + int32(i)
				x.locNext[e.Loc]++
			}
		}
	}
	// thread returns the thread of event number k.
	thread := func(k int32) int32 {
		t := int32(0)
		for x.off[t+1] <= k {
			t++
		}
		return t
	}
	for l := 0; l < nl; l++ {
		evs := x.byLoc[x.locOff[l]:x.locOff[l+1]]
		for _, a := range evs {
			ta := thread(a)
			ea := &g.Threads[ta][a-x.off[ta]]
			pa := place(ea, a)
			for _, b := range evs {
				if a == b {
					continue
				}
				tb := thread(b)
				// a hb b: a is before b in b's thread, or b's view counts it.
				if ta == tb && a > b || ta != tb && x.views[int(b)*T+int(ta)] <= a-x.off[ta] {
					continue
				}
				eb := &g.Threads[tb][b-x.off[tb]]
				if pb := place(eb, b); pb < pa || pb == pa && eb.Kind == KWrite {
					return false, true // coherence
				}
			}
		}
	}
	if seqCst && !x.pscAcyclic(g, place) {
		return false, true // sc
	}
	return true, true
}

// spawners returns, per thread of g, the event that spawned it (T -1 for
// a thread the program starts with, or one not spawned yet), in dst's
// storage.
func spawners(g *Graph, dst []EventRef) []EventRef {
	dst = dst[:0]
	for range g.Threads {
		dst = append(dst, EventRef{T: -1})
	}
	for u, evs := range g.Threads {
		for i := range evs {
			if e := &evs[i]; e.Kind == KSpawn && e.Val >= 0 && int(e.Val) < len(dst) {
				dst[e.Val] = EventRef{T: int32(u), I: int32(i)}
			}
		}
	}
	return dst
}

// pscAcyclic checks RC11's sc axiom on g, whose views x holds: psc built
// from the views' happens-before and the modification-order places' eco,
// without closing either.
func (x *c11Scratch) pscAcyclic(g *Graph, place func(*Event, int32) int32) bool {
	ex := NewExec(g)
	T := len(g.Threads)
	hb, eco := NewRelation(ex.N), NewRelation(ex.N)
	for t, evs := range g.Threads {
		for i := range evs {
			j := ex.Index(EventRef{T: int32(t), I: int32(i)})
			if j < 0 {
				continue
			}
			self := x.off[t] + int32(i)
			for u := range g.Threads {
				n := x.views[int(self)*T+u]
				if u == t {
					n-- // the view counts the event itself
				}
				for k := int32(0); k < n; k++ {
					if a := ex.Index(EventRef{T: int32(u), I: k}); a >= 0 {
						hb.Add(a, j)
					}
				}
			}
		}
	}
	// eco on one location follows the places: a write is before the
	// writes after it and the reads of it and of later writes; a read
	// before the writes after what it read and the reads of those.
	at := func(j int) (int32, bool) {
		if j < len(ex.InitLocs) {
			return 0, false // an initial write
		}
		r := ex.Refs[j]
		e := g.Ev(r)
		return place(e, x.off[r.T]+r.I), e.Kind == KRead
	}
	for a := 0; a < ex.N; a++ {
		for b := 0; b < ex.N; b++ {
			if a == b || !ex.SameLoc.Has(a, b) {
				continue
			}
			pa, ra := at(a)
			pb, rb := at(b)
			if pa < pb || pa == pb && !ra && rb {
				eco.Add(a, b)
			}
		}
	}
	return psc(ex, hb, eco).Acyclic()
}
