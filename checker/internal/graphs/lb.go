package graphs

import (
	"errors"

	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
)

// Models that allow load buffering (arm, riscv) have consistent
// executions with a cycle in po ∪ rf, which an explorer adding events in
// po ∪ rf order never builds. HMC (Kokologiannakis, Vafeiadis, "HMC: Model
// Checking for Hardware Memory Models", ASPLOS 2020) builds them with one
// more kind of backward revisit: a write w may also revisit a read r of
// its location that lies in its po ∪ rf prefix, provided r is not in its
// dependency prefix — the events w's existence, address or value depends
// on, through addr, data and ctrl dependencies, read-modify-writes and
// rf. HMC is complete for such models, and when no graph of the search
// ever offers such a revisit it performs exactly the backward revisits of
// TruSt, which Explore performs: its executions are then all there are.
//
// LoadBufferingFree runs that search once, without visiting executions,
// and reports whether no graph offered a load-buffering revisit: then
// Explore's po ∪ rf-ordered search is exact for r's model, at its own
// cost. Otherwise, or when a bound cuts the probe, the model's executions
// are explored by speculation. The dependencies are the interpreter's
// syntactic ones, which the hardware models order by; a dependency the
// interpreter does not record makes the prefix smaller, so that more
// revisits count as possible: the test errs towards speculation.
func LoadBufferingFree(r *engine.Runner) (bool, error) {
	probe := engine.NewRunner(r.Prog, r.Model, r.Config, nil)
	stats, err := newDPOR(probe, true).run()
	switch {
	case errors.Is(err, errLoadBuffering):
		return false, nil
	case err != nil:
		return false, err
	}
	return stats.Exhaustive(), nil
}

// errLoadBuffering stops a probe that met a load-buffering revisit.
var errLoadBuffering = errors.New("a load-buffering revisit is possible")

// loadBuffering reports whether write w, just added to s, could revisit a
// read of its location, of another thread, that is in its po ∪ rf prefix
// (pre) but not in its dependency prefix, into a graph the model may
// allow. (A read of w's own thread before it cannot read from it: that
// breaks coherence.)
func (d *dpor) loadBuffering(s *dstate, w model.EventRef, pre []int) bool {
	g := &s.g
	loc := g.Ev(w).Loc
	var deps map[model.EventRef]bool
	var x *model.Exec
	for t, evs := range g.Threads {
		if t == int(w.T) {
			continue
		}
		for i := 0; i < pre[t] && i < len(evs); i++ {
			r := model.EventRef{T: int32(t), I: int32(i)}
			if evs[i].Kind != model.KRead || evs[i].Loc != loc {
				continue
			}
			if deps == nil {
				deps = dependencyPrefix(g, w, d.waits)
			}
			if deps[r] {
				continue
			}
			if d.Model.Ordered == nil {
				return true
			}
			if x == nil {
				x = model.NewExec(g)
			}
			if !cycles(s, x, d.Model, r, w, deps) {
				return true
			}
		}
	}
	return false
}

// cycles reports whether the revisit of r by w would certainly make a
// graph m forbids: a path from r to w, over the events the revisit keeps
// (those added before r, and w's dependency prefix deps), of pairs m
// orders whatever rf and co are (Model.Ordered) and of rf across threads,
// which with w's rf to r closes a cycle the model's acyclicity axiom
// forbids. HMC's revisit to such a graph is rejected at once.
func cycles(s *dstate, x *model.Exec, m *model.Model, r, w model.EventRef, deps map[model.EventRef]bool) bool {
	stamp := s.m(r).stamp
	keep := model.NewSet(x.N)
	for i, e := range x.Refs {
		if !e.IsInit() && (deps[e] || s.m(e).stamp <= stamp) {
			keep.Add(i)
		}
	}
	path := x.Of(m.Ordered).Union(x.External(x.Rf)).Dom(keep).Rng(keep).Plus()
	return path.Has(x.Index(r), x.Index(w))
}

// dependencyPrefix returns the events e depends on, itself included:
// through the address, data and control dependencies of each, the read of
// each read-modify-write's write, the write each read reads from, and the
// spawn of each spawned thread. A thread goes past a lock or an await (its
// instructions marked in waits) only once its reads there returned what it
// waits for, as a branch on them would (GenMC's locks and spin-assumes are
// such branches): every later event of the thread depends on them.
func dependencyPrefix(g *model.Graph, e model.EventRef, waits [][]bool) map[model.EventRef]bool {
	in := map[model.EventRef]bool{e: true}
	todo := []model.EventRef{e}
	add := func(r model.EventRef) {
		if !in[r] {
			in[r] = true
			todo = append(todo, r)
		}
	}
	for len(todo) > 0 {
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		ev := g.Ev(x)
		for _, ds := range []model.DepSet{ev.Addr(), ev.Data(), ev.Ctrl()} {
			for _, k := range ds.Members() {
				add(model.EventRef{T: x.T, I: int32(k)})
			}
		}
		// The last blocking read before x; the earlier ones follow from
		// it.
		for i := x.I - 1; i >= 0; i-- {
			if b := &g.Threads[x.T][i]; b.Kind == model.KRead && (g.Prog.Locs[b.Loc].Mutex || waits[x.T][b.Instr]) {
				add(model.EventRef{T: x.T, I: i})
				break
			}
		}
		if ev.Kind == model.KWrite && ev.RMW && x.I > 0 {
			add(model.EventRef{T: x.T, I: x.I - 1})
		}
		if ev.Kind == model.KRead && !ev.Rf.IsInit() {
			add(ev.Rf)
		}
		if x.I == 0 {
			if sp, ok := g.Spawner(int(x.T)); ok {
				add(sp)
			}
		}
	}
	return in
}

// awaitInstrs marks, per thread, the instructions that evaluate an
// await's condition.
func awaitInstrs(p *model.Program) [][]bool {
	out := make([][]bool, len(p.Threads))
	for t, th := range p.Threads {
		out[t] = make([]bool, len(th.Code))
		for i, in := range th.Code {
			if in.Op == model.OpAssume && in.Await {
				for k := in.Target; k <= i && k >= 0; k++ {
					out[t][k] = true
				}
			}
		}
	}
	return out
}
