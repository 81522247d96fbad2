package model

import "slices"

// Exec indexes the memory events of a graph (initial writes, reads, writes
// and fences) and derives the base relations the memory models are written
// in, the way a herd .cat file sees an execution. Index i < len(InitLocs)
// is the initial write of location InitLocs[i], one the graph reads or
// writes: a program may have many more locations than an execution
// touches.
type Exec struct {
	G        *Graph
	N        int
	InitLocs []Loc // sorted
	Refs     []EventRef
	// Evs[i] is the event with index i; nil for initial writes.
	Evs []*Event
	idx [][]int // per thread, per event: its index, or -1

	R, W, F, IW, A Set             // reads, writes, fences, initial writes, atomic accesses
	Spawn          Set             // thread creations
	Ord            [SeqCst + 1]Set // events by ordering (initial writes carry none)
	Locked         Set             // events of locked instructions (RMW, CAS, lock)

	Po, Rf, Co, Fr, Rmw, SameLoc, Ext Relation

	derived []Relation   // derived relations computed so far, by Rel.id
	hw      [2]*hwEvents // the hardware models' view, without and with dependencies through memory
}

// NewExec indexes g.
func NewExec(g *Graph) *Exec {
	x := &Exec{G: g, idx: make([][]int, len(g.Threads))}
	for _, evs := range g.Threads {
		for i := range evs {
			if k := evs[i].Kind; k == KRead || k == KWrite {
				x.InitLocs = append(x.InitLocs, evs[i].Loc)
			}
		}
	}
	slices.Sort(x.InitLocs)
	x.InitLocs = slices.Compact(x.InitLocs)
	nl := len(x.InitLocs)
	for _, l := range x.InitLocs {
		x.Refs = append(x.Refs, InitRef(l))
		x.Evs = append(x.Evs, nil)
	}
	for t, evs := range g.Threads {
		x.idx[t] = make([]int, len(evs))
		for i := range evs {
			if k := evs[i].Kind; k == KRead || k == KWrite || k == KFence || k == KSpawn {
				x.idx[t][i] = len(x.Refs)
				x.Refs = append(x.Refs, EventRef{int32(t), int32(i)})
				x.Evs = append(x.Evs, &evs[i])
			} else {
				x.idx[t][i] = -1
			}
		}
	}
	n := len(x.Refs)
	x.N = n
	x.R, x.W, x.F, x.IW, x.A, x.Locked, x.Spawn = NewSet(n), NewSet(n), NewSet(n), NewSet(n), NewSet(n), NewSet(n), NewSet(n)
	for o := range x.Ord {
		x.Ord[o] = NewSet(n)
	}
	for i := 0; i < nl; i++ {
		x.W.Add(i)
		x.IW.Add(i)
	}
	for i := nl; i < n; i++ {
		e := x.Evs[i]
		switch e.Kind {
		case KRead:
			x.R.Add(i)
		case KWrite:
			x.W.Add(i)
		case KFence:
			x.F.Add(i)
		case KSpawn:
			x.Spawn.Add(i)
			continue
		}
		x.Ord[e.Ord].Add(i)
		if e.Kind != KFence && e.Ord.Atomic() {
			x.A.Add(i)
		}
		if e.RMW {
			x.Locked.Add(i)
		}
	}

	x.Po, x.Rf, x.Co, x.Rmw, x.SameLoc, x.Ext = NewRelation(n), NewRelation(n), NewRelation(n), NewRelation(n), NewRelation(n), NewRelation(n)
	for t, evs := range g.Threads {
		var prev []int
		for i := range evs {
			j := x.idx[t][i]
			if j < 0 {
				continue
			}
			for _, p := range prev {
				x.Po.Add(p, j)
			}
			prev = append(prev, j)
			e := &evs[i]
			if e.Kind == KRead && e.Rf != NoSource {
				x.Rf.Add(x.Index(e.Rf), j)
			}
			if e.Kind == KWrite && e.RMW && i > 0 {
				x.Rmw.Add(x.idx[t][i-1], j)
			}
		}
	}
	// A spawned thread's events follow everything up to its spawn.
	spawned := false
	for t := range g.Threads {
		if s, ok := g.Spawner(t); ok {
			spawned = true
			for i := 0; i <= int(s.I); i++ {
				if a := x.idx[s.T][i]; a >= 0 {
					for _, b := range x.idx[t] {
						if b >= 0 {
							x.Po.Add(a, b)
						}
					}
				}
			}
		}
	}
	if spawned {
		x.Po = x.Po.Plus()
	}
	for l, co := range g.Co {
		if len(co) == 0 {
			continue
		}
		order := make([]int, 0, len(co)+1)
		order = append(order, x.Index(InitRef(Loc(l))))
		for _, w := range co {
			order = append(order, x.Index(w))
		}
		for a := range order {
			for b := a + 1; b < len(order); b++ {
				x.Co.Add(order[a], order[b])
			}
		}
	}
	thread := func(i int) int32 { return x.Refs[i].T }
	for i := 0; i < n; i++ {
		li := x.loc(i)
		for j := 0; j < n; j++ {
			if li != NoLoc && li == x.loc(j) {
				x.SameLoc.Add(i, j)
			}
			if thread(i) != thread(j) {
				x.Ext.Add(i, j)
			}
		}
	}
	x.Fr = x.Rf.Inverse().Seq(x.Co)
	for i := 0; i < n; i++ { // (rf⁻¹;co) \ id
		if x.Fr.Has(i, i) {
			x.Fr.b[i*x.Fr.w+i/64] &^= 1 << (uint(i) % 64)
		}
	}
	return x
}

// Of returns the value of the derived relation r in x, computing it at
// most once.
func (x *Exec) Of(r *Derived) Relation {
	x.grow(r.id)
	if x.derived[r.id].b == nil {
		x.derived[r.id] = r.def(x)
	}
	return x.derived[r.id]
}

// grow makes room for derived relation id.
func (x *Exec) grow(id int) {
	if id >= len(x.derived) {
		relsMu.Lock()
		n := nrels
		relsMu.Unlock()
		x.derived = append(x.derived, make([]Relation, n-len(x.derived))...)
	}
}

// Keep reuses in x the static relations (LetStatic) that prev, an Exec of
// a graph with the same events, has computed: a search that varies only
// reads-from and modification order computes them once.
func (x *Exec) Keep(prev *Exec) {
	if prev == nil {
		return
	}
	x.hw = prev.hw
	relsMu.Lock()
	st := statics
	relsMu.Unlock()
	for _, r := range st {
		if r.id < len(prev.derived) && prev.derived[r.id].b != nil {
			x.grow(r.id)
			x.derived[r.id] = prev.derived[r.id]
		}
	}
}

// Index returns the index of event r, or -1 if it is not a memory event.
func (x *Exec) Index(r EventRef) int {
	if r.IsInit() {
		if i, ok := slices.BinarySearch(x.InitLocs, Loc(r.I)); ok {
			return i
		}
		return -1
	}
	return x.idx[r.T][r.I]
}

func (x *Exec) loc(i int) Loc {
	if i < len(x.InitLocs) {
		return x.InitLocs[i]
	}
	if e := x.Evs[i]; e.Kind == KRead || e.Kind == KWrite {
		return e.Loc
	}
	return NoLoc
}

// Id returns the identity relation on s.
func (x *Exec) Id(s Set) Relation {
	out := NewRelation(x.N)
	for i := 0; i < x.N; i++ {
		if s.Has(i) {
			out.Add(i, i)
		}
	}
	return out
}

// Tags returns the union of the events carrying any of the orderings.
func (x *Exec) Tags(ords ...Ordering) Set {
	out := NewSet(x.N)
	for _, o := range ords {
		out = out.Union(x.Ord[o])
	}
	return out
}

// Internal returns the pairs of r within one thread.
func (x *Exec) Internal(r Relation) Relation { return r.Minus(x.Ext) }

// External returns the pairs of r across threads.
func (x *Exec) External(r Relation) Relation { return r.Inter(x.Ext) }
