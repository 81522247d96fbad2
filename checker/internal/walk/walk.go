// Package walk runs random executions of a program, one at a time: a
// scheduler picks the thread that moves, and each read or write takes one
// of its consistent choices uniformly at random.
package walk

import (
	"fmt"
	"math/rand/v2"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/model"
)

// Config configures a walk.
type Config struct {
	// PCT picks the thread that moves by probabilistic concurrency
	// testing: random thread priorities with Depth-1 random priority drops
	// (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010); without
	// it any runnable thread moves, uniformly.
	PCT bool
	// Depth is PCT's depth: priority change points plus one.
	Depth int
	// MaxSteps bounds one run (a guard for unbounded loops).
	MaxSteps int
	// Races asks for the data races of the execution.
	Races bool
}

// Run walks one random execution of p under m to its end, with rng's
// choices, and returns it; its data races (by m's happens-before) are
// found when cfg.Races is set.
func Run(p *model.Program, m *model.Model, rng *rand.Rand, cfg Config) (*explore.Execution, error) {
	g := model.NewGraph(p)
	// PCT: the highest priority runs; at Depth-1 random steps within the
	// expected length of a run (the program's instruction count), the
	// running thread drops below all others.
	prio := rng.Perm(len(p.Threads))
	length := 1
	for _, th := range p.Threads {
		length += len(th.Code)
	}
	drops := map[int]int{}
	for i := 1; i < cfg.Depth; i++ {
		drops[rng.IntN(length)] = -i
	}
	for step := 0; ; step++ {
		if step > cfg.MaxSteps {
			return nil, fmt.Errorf("a run exceeded %d steps (an unbounded loop?)", cfg.MaxSteps)
		}
		// A thread blocked on a lock that has since been released retries.
		for t, evs := range g.Threads {
			if n := len(evs); n > 0 {
				if e := &evs[n-1]; e.Kind == model.KRead && p.Locs[e.Loc].Mutex && e.RMW && e.Val != 0 && e.Rf != g.CoMax(e.Loc) {
					g = g.Clone()
					g.Threads[t] = g.Threads[t][:n-1]
				}
			}
		}
		var ready []int
		acts := map[int]model.Action{}
		for t := range p.Threads {
			a, err := engine.Next(g, t)
			if err != nil {
				return nil, err
			}
			if a.Kind != model.ActNone {
				ready = append(ready, t)
				acts[t] = a
			}
		}
		if len(ready) == 0 {
			e, err := engine.NewExecution(g, m, cfg.Races)
			if err != nil {
				return nil, err
			}
			if e != nil {
				return e, nil
			}
			return nil, engine.Internalf("a run ended waiting for a lock released later")
		}
		t := ready[rng.IntN(len(ready))]
		if cfg.PCT {
			best := ready[0]
			for _, u := range ready {
				if prio[u] > prio[best] {
					best = u
				}
			}
			t = best
			if d, ok := drops[step]; ok {
				prio[t] = d
			}
		}
		a := acts[t]
		var next []*model.Graph
		if a.Pending {
			e, pos := g.PendingWrite(t, &a)
			h := g.Clone()
			h.Threads[t] = append(h.Threads[t], e)
			h.InsertCo(a.Loc, model.EventRef{T: int32(t), I: int32(len(h.Threads[t]) - 1)}, pos)
			next = []*model.Graph{h}
		} else {
			next = graphs.Successors(g, t, &a)
			if a.Kind == model.ActLock {
				// A lock request that saw an older, held value would retry:
				// it reads the last value.
				next = next[len(next)-1:]
			}
		}
		// The first consistent graph of a random permutation is a uniform
		// choice among the consistent ones, found with fewer checks.
		// The last successor is the maximal choice (the last write read, or
		// placed last), always consistent; so are fences and choices.
		maximalLast := !a.Pending && !(a.Kind == model.ActCAS && a.Weak)
		var chosen *model.Graph
		for _, k := range rng.Perm(len(next)) {
			if (maximalLast && k == len(next)-1) || a.Kind == model.ActFence || a.Kind == model.ActChoose || a.Kind == model.ActFail || a.Kind == model.ActSpawn || a.Kind == model.ActCall || a.Kind == model.ActRet ||
				m.Check(model.NewExec(next[k])) == "" {
				chosen = next[k]
				break
			}
		}
		if chosen == nil {
			return nil, engine.Internalf("no consistent step for thread %s", p.Threads[t].Name)
		}
		g = chosen
	}
}
