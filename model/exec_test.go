package model

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// mpRMW is message passing through a release fence and a release store,
// read by an acquire load after a choice (not a memory event), then a
// read-modify-write of the data. Its Exec indices: 0, 1 initial writes of
// x and y; 2 Wx, 3 F, 4 Wy (thread 0); 5 Ry, 6 Rx, 7 Wx (thread 1).
var mpRMW = shape{threads: [][]Event{
	{wr(X, 1, Rlx), fence(Rel), wr(Y, 1, Rel)},
	{{Kind: KChoice, Loc: NoLoc}, rd(Y, Acq, ref(0, 2)), rmwR(X, Rlx, ref(0, 0)), rmwW(X, 2, Rlx)},
}}

// spawnChain has thread 0 spawn thread 1 between its two writes, and
// thread 1 spawn thread 2. Indices: 2 Wx, 3 spawn, 4 Wy (thread 0); 5
// spawn, 6 Rx (thread 1); 7 Ry (thread 2).
var spawnChain = shape{threads: [][]Event{
	{wr(X, 1, Rlx), spawn(1), wr(Y, 1, Rlx)},
	{spawn(2), rd(X, Rlx, InitRef(X))},
	{rd(Y, Rlx, ref(0, 2))},
}}

// sb is store buffering in which both loads read the initial values.
// Indices: 2 Wx, 3 Ry (thread 0); 4 Wy, 5 Rx (thread 1).
var sb = shape{threads: [][]Event{
	{wr(X, 1, Rlx), rd(Y, Rlx, InitRef(Y))},
	{wr(Y, 1, Rlx), rd(X, Rlx, InitRef(X))},
}}

// coReorder has two writes of thread 0 to x, in modification order as in
// program order or reversed, and a read of the first. Indices: 0 the
// initial write of x (y, not accessed, has none), 1, 2 the writes, 3 the
// read.
func coReorder(reversed bool) shape {
	s := shape{threads: [][]Event{{wr(X, 1, Rlx), wr(X, 2, Rlx)}, {rd(X, Rlx, ref(0, 0))}}}
	if reversed {
		s.co = map[Loc][]EventRef{X: {ref(0, 1), ref(0, 0)}}
	}
	return s
}

// TestExecSets checks the event sets NewExec indexes.
func TestExecSets(t *testing.T) {
	x, sp := NewExec(mpRMW.graph()), NewExec(spawnChain.graph())
	cases := []struct {
		name string
		x    *Exec
		got  Set
		want []int
	}{
		{"R", x, x.R, []int{5, 6}},
		{"W has the initial writes", x, x.W, []int{0, 1, 2, 4, 7}},
		{"F", x, x.F, []int{3}},
		{"IW", x, x.IW, []int{0, 1}},
		{"A", x, x.A, []int{2, 4, 5, 6, 7}},
		{"Locked", x, x.Locked, []int{6, 7}},
		{"no Spawn", x, x.Spawn, []int{}},
		{"rlx", x, x.Ord[Rlx], []int{2, 6, 7}},
		{"rel", x, x.Ord[Rel], []int{3, 4}},
		{"acq", x, x.Ord[Acq], []int{5}},
		{"initial writes carry no ordering", x, x.Ord[NA], []int{}},
		{"Tags(rel, acq)", x, x.Tags(Rel, Acq), []int{3, 4, 5}},
		{"Spawn", sp, sp.Spawn, []int{3, 5}},
		{"a spawn is no access", sp, sp.R.Union(sp.W).Union(sp.F).Union(sp.Ord[NA]), []int{0, 1, 2, 4, 6, 7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := members(c.got, c.x.N); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	t.Run("initial writes of accessed locations only", func(t *testing.T) {
		c := NewExec(coReorder(false).graph())
		if !slices.Equal(c.InitLocs, []Loc{X}) || c.Index(InitRef(Y)) != -1 || c.Index(InitRef(X)) != 0 || c.N != 4 {
			t.Errorf("InitLocs = %v, Index(init y) = %d, Index(init x) = %d, N = %d", c.InitLocs, c.Index(InitRef(Y)), c.Index(InitRef(X)), c.N)
		}
	})
	t.Run("index", func(t *testing.T) {
		if x.N != 8 || x.Index(InitRef(Y)) != 1 || x.Index(ref(1, 0)) != -1 || x.Index(ref(1, 1)) != 5 || x.Refs[5] != ref(1, 1) || x.Evs[0] != nil || x.Evs[5] != &x.G.Threads[1][1] {
			t.Errorf("N = %d, Index(init y) = %d, Index(choice) = %d, Index(1.1) = %d, Refs[5] = %v, Evs[0] = %v",
				x.N, x.Index(InitRef(Y)), x.Index(ref(1, 0)), x.Index(ref(1, 1)), x.Refs[5], x.Evs[0])
		}
	})
}

// TestExecRelations checks NewExec's base relations: po (within threads,
// and from everything up to a spawn to the spawned thread, transitively),
// rf, co (the initial write first), fr = rf⁻¹;co \ id, rmw, loc and ext,
// and the helpers Id, Internal and External.
func TestExecRelations(t *testing.T) {
	x, sp, sbx := NewExec(mpRMW.graph()), NewExec(spawnChain.graph()), NewExec(sb.graph())
	inOrder, reversed := NewExec(coReorder(false).graph()), NewExec(coReorder(true).graph())
	n := x.N
	xs, ys := set(n, 0, 2, 6, 7), set(n, 1, 4, 5)
	init, t0, t1 := set(n, 0, 1), set(n, 2, 3, 4), set(n, 5, 6, 7)
	cases := []struct {
		name string
		got  Relation
		want [][2]int
	}{
		{"po", x.Po, [][2]int{{2, 3}, {2, 4}, {3, 4}, {5, 6}, {5, 7}, {6, 7}}},
		{"rf", x.Rf, [][2]int{{2, 6}, {4, 5}}},
		{"co", x.Co, [][2]int{{0, 2}, {0, 7}, {1, 4}, {2, 7}}},
		{"fr", x.Fr, [][2]int{{6, 7}}},
		{"rmw", x.Rmw, [][2]int{{6, 7}}},
		{"loc", x.SameLoc, pairs(Cross(n, xs, xs).Union(Cross(n, ys, ys)))},
		{"ext", x.Ext, pairs(Cross(n, init, t0.Union(t1)).Union(Cross(n, t0, init.Union(t1)), Cross(n, t1, init.Union(t0))))},
		{"id F", x.Id(x.F), [][2]int{{3, 3}}},
		{"internal po", x.Internal(x.Po), pairs(x.Po)},
		{"external rf", x.External(x.Rf), pairs(x.Rf)},
		{"internal rf", x.Internal(x.Rf), [][2]int{}},
		{"spawn po", sp.Po, [][2]int{{2, 3}, {2, 4}, {2, 5}, {2, 6}, {2, 7}, {3, 4}, {3, 5}, {3, 6}, {3, 7}, {5, 6}, {5, 7}}},
		{"sb fr from the initial writes", sbx.Fr, [][2]int{{3, 4}, {5, 2}}},
		{"sb rf", sbx.Rf, [][2]int{{0, 5}, {1, 3}}},
		{"co in program order", inOrder.Co, [][2]int{{0, 1}, {0, 2}, {1, 2}}},
		{"fr to every later write", inOrder.Fr, [][2]int{{3, 2}}},
		{"co reversed", reversed.Co, [][2]int{{0, 1}, {0, 2}, {2, 1}}},
		{"no fr from the last write", reversed.Fr, [][2]int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pairs(c.got); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestOf checks that Of computes a derived relation once per execution,
// also when it is defined after the execution was made and when another
// derived relation asks for it.
func TestOf(t *testing.T) {
	g := mpRMW.graph()
	x := NewExec(g)
	x.Of(HB) // sizes x's table of derived relations
	calls := 0
	po := Let("test: counted po", func(x *Exec) Relation { calls++; return x.Po })
	poPo := Let("test: po;po", func(x *Exec) Relation { return x.Of(po).Seq(x.Of(po)) })
	none := 0
	empty := Let("test: counted nothing", func(*Exec) Relation { none++; return noPairs })
	for range 2 {
		if got, want := pairs(x.Of(po)), pairs(x.Po); !slices.Equal(got, want) {
			t.Errorf("Of(po) = %v, want %v", got, want)
		}
		x.Of(poPo)
		x.Of(empty)
	}
	if calls != 1 || none != 1 {
		t.Errorf("in one execution: %d and %d calls, want 1 and 1", calls, none)
	}
	NewExec(g).Of(poPo)
	if calls != 2 {
		t.Errorf("in two executions: %d calls, want 2", calls)
	}
}

// TestSteps checks the presentation order of Steps: po ∪ rf ∪ co ∪ fr
// when acyclic, else po ∪ rf ∪ co, else po ∪ rf; a thread runs on while
// it can; a spawned thread starts after its spawn.
func TestSteps(t *testing.T) {
	cases := []struct {
		name string
		s    shape
		want []EventRef
	}{
		{"mp, new values", shape{threads: [][]Event{{wr(X, 1, Rlx), wr(Y, 1, Rlx)}, {rd(Y, Rlx, ref(0, 1)), rd(X, Rlx, ref(0, 0))}}},
			[]EventRef{ref(0, 0), ref(0, 1), ref(1, 0), ref(1, 1)}},
		{"mp, old values first (fr)", shape{threads: [][]Event{{wr(X, 1, Rlx), wr(Y, 1, Rlx)}, {rd(Y, Rlx, InitRef(Y)), rd(X, Rlx, InitRef(X))}}},
			[]EventRef{ref(1, 0), ref(1, 1), ref(0, 0), ref(0, 1)}},
		{"sb, cyclic with fr", sb, []EventRef{ref(0, 0), ref(0, 1), ref(1, 0), ref(1, 1)}},
		{"co order", shape{threads: [][]Event{{wr(X, 1, Rlx)}, {wr(X, 2, Rlx)}}, co: map[Loc][]EventRef{X: {ref(1, 0), ref(0, 0)}}},
			[]EventRef{ref(1, 0), ref(0, 0)}},
		{"spawned thread after its spawn", shape{threads: [][]Event{{rd(Y, Rlx, ref(1, 0))}, {wr(Y, 1, Rlx), spawn(0)}}},
			[]EventRef{ref(1, 0), ref(1, 1), ref(0, 0)}},
		// Load buffering: po ∪ rf is cyclic, so program order alone.
		{"lb, cyclic po ∪ rf", shape{threads: [][]Event{{rd(X, Rlx, ref(1, 1)), wr(Y, 1, Rlx)}, {rd(Y, Rlx, ref(0, 1)), wr(X, 1, Rlx)}}},
			[]EventRef{ref(0, 0), ref(0, 1), ref(1, 0), ref(1, 1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.s.graph().Steps(); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestFinalMemAndCoPos checks FinalMem (the value of each location's last
// write in co, its initial value when unwritten), CoPos and CoMax.
func TestFinalMemAndCoPos(t *testing.T) {
	s := shape{locs: 3, threads: [][]Event{{wr(X, 1, Rlx), wr(X, 2, Rlx), wr(Y, 5, Rlx)}}, co: map[Loc][]EventRef{X: {ref(0, 1), ref(0, 0)}}}
	g := s.graph()
	g.Prog.Locs[Z].Init = 7
	if got := g.FinalMem(nil); !slices.Equal(got, []int64{1, 5, 7}) {
		t.Errorf("FinalMem = %v, want [1 5 7]", got)
	}
	cases := []struct {
		l    Loc
		w    EventRef
		want int
	}{{X, InitRef(X), 0}, {X, ref(0, 1), 1}, {X, ref(0, 0), 2}, {Y, ref(0, 0), -1}, {Z, InitRef(Z), 0}}
	for _, c := range cases {
		if got := g.CoPos(c.l, c.w); got != c.want {
			t.Errorf("CoPos(%d, %v) = %d, want %d", c.l, c.w, got, c.want)
		}
	}
	if g.CoMax(X) != ref(0, 0) || g.CoMax(Z) != InitRef(Z) {
		t.Errorf("CoMax(x) = %v, CoMax(z) = %v; want 0.0, init(2)", g.CoMax(X), g.CoMax(Z))
	}
}

// TestKey checks that Key tells graphs apart exactly by their events,
// reads-from and modification order.
func TestKey(t *testing.T) {
	mp := func(rx EventRef) shape {
		return shape{threads: [][]Event{{wr(X, 1, Rlx), wr(Y, 1, Rlx)}, {rd(Y, Rlx, ref(0, 1)), rd(X, Rlx, rx)}}}
	}
	base := mp(ref(0, 0)).graph()
	changed := func(f func(e *Event)) *Graph {
		g := base.Clone()
		f(&g.Threads[0][1])
		return g
	}
	fences := func(t0, t1 int) *Graph {
		return shape{threads: [][]Event{slices.Repeat([]Event{fence(Rlx)}, t0), slices.Repeat([]Event{fence(Rlx)}, t1)}}.graph()
	}
	cases := []struct {
		name  string
		a, b  *Graph
		equal bool
	}{
		{"built again", base, mp(ref(0, 0)).graph(), true},
		{"clone", base, base.Clone(), true},
		{"another rf", base, mp(InitRef(X)).graph(), false},
		{"another value", base, changed(func(e *Event) { e.Val = 2 }), false},
		{"an RMW flag", base, changed(func(e *Event) { e.RMW = true }), false},
		{"another kind", base, changed(func(e *Event) { e.Kind = KFence }), false},
		{"another co", coReorder(false).graph(), coReorder(true).graph(), false},
		{"events split otherwise between threads", fences(2, 0), fences(1, 1), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.a.Key() == c.b.Key(); got != c.equal {
				t.Errorf("equal keys = %v, want %v", got, c.equal)
			}
		})
	}
}

// TestLockHolder checks LockHolder and HolderName on a mutex at y: the
// writer of its last write when that write is a lock's (1).
func TestLockHolder(t *testing.T) {
	lock := []Event{rmwR(Y, Acq, InitRef(Y)), rmwW(Y, 1, Rlx)}
	unlock := wr(Y, 0, Rel)
	cases := []struct {
		name   string
		s      shape
		holder int
		held   bool
		who    string
	}{
		{"never locked", shape{threads: [][]Event{{}, {}}}, 0, false, "nobody"},
		{"locked by T1", shape{threads: [][]Event{{}, lock}}, 1, true, "T1"},
		{"unlocked", shape{threads: [][]Event{{}, append(slices.Clone(lock), unlock)}}, 0, false, "nobody"},
		{"taken by T0 after T1's unlock", shape{
			threads: [][]Event{{rmwR(Y, Acq, ref(1, 2)), rmwW(Y, 1, Rlx)}, append(slices.Clone(lock), unlock)},
			co:      map[Loc][]EventRef{Y: {ref(1, 1), ref(1, 2), ref(0, 1)}},
		}, 0, true, "T0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := c.s.graph()
			if holder, held := g.LockHolder(Y); holder != c.holder || held != c.held {
				t.Errorf("LockHolder = %d, %v; want %d, %v", holder, held, c.holder, c.held)
			}
			if got := g.HolderName(Y); got != c.who {
				t.Errorf("HolderName = %q, want %q", got, c.who)
			}
		})
	}
}

// TestEventJSON checks that an event crosses a process boundary (a
// witness in a worker's report) with its dependencies, which the hardware
// models' explanations read.
func TestEventJSON(t *testing.T) {
	for _, e := range []Event{wr(X, 1, Rel), addrDep(rd(Y, Acq, ref(1, 0)), 0, 2)} {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Event
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Errorf("%s: read back as %+v, want %+v", data, back, e)
		}
	}
}
