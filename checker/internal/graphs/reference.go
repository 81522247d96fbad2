package graphs

import (
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
)

// Reference visits the same executions as Explore by the simplest
// method: it adds events in every order, branching on every choice, and
// remembers every partial graph it has seen. It serves as the reference
// that the optimised explorer is tested against; with a preemption bound
// it explores the schedules within the bound.
func Reference(r *engine.Runner) (explore.Stats, error) {
	return r.Finish(newReference(r).search(model.NewGraph(r.Prog), -1, 0))
}

// Candidates is the model that accepts every graph: with it Reference
// enumerates the candidate executions (those without a cycle in po ∪ rf),
// as herd7 builds them before it applies a model.
var Candidates = &model.Model{Name: "candidates", Doc: "every candidate execution", HB: model.HB}

// reference is the reference explorer: a depth-first search that tries
// every thread at every step and prunes the partial graphs it has seen.
// With a preemption bound it counts preemptions (switching away from the
// last thread while it can still run) and cuts the schedules beyond the
// bound; a graph is then explored again when reached with fewer.
type reference struct {
	*engine.Runner
	seen     map[string]int // state -> fewest preemptions it was reached with
	reported map[string]bool
}

func newReference(r *engine.Runner) *reference {
	return &reference{Runner: r, seen: map[string]int{}, reported: map[string]bool{}}
}

func (x *reference) search(g *model.Graph, last, pre int) error {
	key := g.Key()
	if x.Config.Preemptions {
		key += "|" + string(rune(last+1)) // future preemptions depend on the last thread
	}
	if p, ok := x.seen[key]; ok && p <= pre {
		return nil
	}
	x.seen[key] = pre
	if err := x.Step(); err != nil {
		return err
	}
	acts := make([]model.Action, len(g.Threads))
	lastRuns, running := false, false
	for t := range g.Threads {
		a, err := engine.Next(g, t)
		if err != nil {
			return err
		}
		acts[t] = a
		if a.Kind != model.ActNone {
			running = true
			lastRuns = lastRuns || t == last
		}
	}
	if !running {
		if k := g.Key(); !x.reported[k] {
			x.reported[k] = true
			return x.Complete(g, nil, nil, nil)
		}
		return nil
	}
	for t, a := range acts {
		if a.Kind == model.ActNone {
			continue
		}
		cost := pre
		if x.Config.Preemptions && lastRuns && t != last {
			cost++
			if cost > x.Config.PreemptionBound {
				x.SetLimit(explore.PreemptionBound)
				continue
			}
		}
		if len(g.Threads[t]) >= x.Config.MaxEvents {
			x.SetLimit(explore.MaxEvents)
			continue
		}
		for _, h := range Successors(g, t, &a) {
			if !x.Consistent(h) {
				continue
			}
			if err := x.search(h, t, cost); err != nil {
				return err
			}
		}
	}
	return nil
}

// Successors returns the graphs that extend g by thread t performing a: one
// per write a read may read from, per modification-order position a write
// may take, and per value a choice may pick. They are not checked for
// consistency.
func Successors(g *model.Graph, t int, a *model.Action) []*model.Graph {
	var out []*model.Graph
	add := func(evs ...model.Event) *model.Graph {
		h := g.Clone()
		h.Threads[t] = append(h.Threads[t], evs...)
		out = append(out, h)
		return h
	}
	switch a.Kind {
	case model.ActFence, model.ActFail, model.ActSpawn, model.ActCall, model.ActRet:
		add(a.SimpleEvent())
	case model.ActChoose:
		for v := 0; v < a.N; v++ {
			e := a.SimpleEvent()
			e.Val = int64(v)
			add(e)
		}
	case model.ActWrite, model.ActUnlock:
		ref := model.EventRef{T: int32(t), I: int32(len(g.Threads[t]))}
		for pos := 1; pos <= len(g.Co[a.Loc])+1; pos++ {
			add(a.SimpleEvent()).InsertCo(a.Loc, ref, pos)
		}
	case model.ActRead, model.ActRMW, model.ActCAS, model.ActLock:
		writes := append([]model.EventRef{model.InitRef(a.Loc)}, g.Co[a.Loc]...)
		for _, w := range writes {
			v := g.WriteValue(w)
			for _, spurious := range a.SpuriousChoices(v) {
				r, ok, wv := a.ReadEvent(w, v, spurious)
				if !ok {
					add(r)
					continue
				}
				h := add(r, a.WriteHalf(wv))
				ref := model.EventRef{T: int32(t), I: int32(len(g.Threads[t]) + 1)}
				h.InsertCo(a.Loc, ref, g.CoPos(a.Loc, w)+1)
			}
		}
	}
	return out
}
