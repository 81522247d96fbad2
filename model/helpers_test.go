package model

import (
	"fmt"
	"slices"
)

// Locations of the hand-built graphs and programs.
const (
	X Loc = 0
	Y Loc = 1
	Z Loc = 2
)

// ref names the i-th event of thread t.
func ref(t, i int) EventRef { return EventRef{T: int32(t), I: int32(i)} }

// wr is a store of v to l.
func wr(l Loc, v int64, o Ordering) Event { return Event{Kind: KWrite, Loc: l, Ord: o, Val: v} }

// rd is a load of l reading from w (shape.graph fills in the value).
func rd(l Loc, o Ordering, w EventRef) Event { return Event{Kind: KRead, Loc: l, Ord: o, Rf: w} }

// rmwR and rmwW are the read and the write halves of a read-modify-write.
func rmwR(l Loc, o Ordering, w EventRef) Event {
	e := rd(l, o, w)
	e.RMW = true
	return e
}

func rmwW(l Loc, v int64, o Ordering) Event {
	e := wr(l, v, o)
	e.RMW = true
	return e
}

// fence is a fence.
func fence(o Ordering) Event { return Event{Kind: KFence, Loc: NoLoc, Ord: o} }

// spawn starts thread t.
func spawn(t int) Event { return Event{Kind: KSpawn, Loc: NoLoc, Val: int64(t)} }

// addrDep makes e's address depend on the reads at indices on of its thread.
func addrDep(e Event, on ...int) Event {
	var d DepSet
	for _, i := range on {
		d = d.With(i)
	}
	e.deps = newDeps(d, e.Data(), e.Ctrl())
	return e
}

// shape describes an execution graph to build by hand.
type shape struct {
	// locs is the number of locations x, y, z, w (default 2), all initially 0.
	locs int
	// threads are the events of each thread in program order; a thread is
	// spawned when a spawn event names it.
	threads [][]Event
	// co lists the writes of a location in modification order after its
	// initial write; a location left out has its writes in thread order.
	co map[Loc][]EventRef
}

// graph builds s, giving each read the value of the write it reads.
func (s shape) graph() *Graph {
	nl := s.locs
	if nl == 0 {
		nl = 2
	}
	p := &Program{Name: "hand-built"}
	for l := range nl {
		p.Locs = append(p.Locs, Location{Name: string("xyzw"[l])})
	}
	g := &Graph{Prog: p, Threads: make([][]Event, len(s.threads)), Co: make([][]EventRef, nl)}
	for t, evs := range s.threads {
		p.Threads = append(p.Threads, Thread{Name: fmt.Sprintf("T%d", t)})
		g.Threads[t] = slices.Clone(evs)
	}
	for t, evs := range g.Threads {
		for i, e := range evs {
			switch {
			case e.Kind == KSpawn:
				p.Threads[e.Val].Spawned = true
			case e.Kind == KWrite && s.co[e.Loc] == nil:
				g.Co[e.Loc] = append(g.Co[e.Loc], ref(t, i))
			}
		}
	}
	for l, co := range s.co {
		g.Co[l] = co
	}
	for _, evs := range g.Threads {
		for i := range evs {
			if evs[i].Kind == KRead {
				evs[i].Val = g.WriteValue(evs[i].Rf)
			}
		}
	}
	return g
}

// pairs lists the pairs of r in the order Each gives them.
func pairs(r Relation) [][2]int {
	out := [][2]int{}
	r.Each(func(i, j int) { out = append(out, [2]int{i, j}) })
	return out
}

// members lists the members of s below n.
func members(s Set, n int) []int {
	out := []int{}
	for i := range n {
		if s.Has(i) {
			out = append(out, i)
		}
	}
	return out
}

// rel builds the relation over n events with the given pairs.
func rel(n int, ps ...[2]int) Relation {
	r := NewRelation(n)
	for _, p := range ps {
		r.Add(p[0], p[1])
	}
	return r
}

// set builds the set over n events with the given members.
func set(n int, ms ...int) Set {
	s := NewSet(n)
	for _, m := range ms {
		s.Add(m)
	}
	return s
}
