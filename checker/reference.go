package checker

import (
	"fmt"

	"github.com/ordercheck/ordercheck/model"
)

// reference is the reference explorer: a depth-first search that tries
// every thread at every step and prunes the partial graphs it has seen.
// With a preemption bound it counts preemptions (switching away from the
// last thread while it can still run) and cuts the schedules beyond the
// bound; a graph is then explored again when reached with fewer.
type reference struct {
	*runner
	seen     map[string]int // state -> fewest preemptions it was reached with
	reported map[string]bool
}

func newReference(r *runner) *reference {
	return &reference{runner: r, seen: map[string]int{}, reported: map[string]bool{}}
}

func (x *reference) search(g *model.Graph, last, pre int) error {
	key := g.Key()
	if x.opt.Preemptions {
		key += "|" + string(rune(last+1)) // future preemptions depend on the last thread
	}
	if p, ok := x.seen[key]; ok && p <= pre {
		return nil
	}
	x.seen[key] = pre
	if err := x.step(); err != nil {
		return err
	}
	acts := make([]model.Action, len(g.Threads))
	lastRuns, running := false, false
	for t := range g.Threads {
		a, err := x.action(g, t)
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
			return x.complete(g)
		}
		return nil
	}
	for t, a := range acts {
		if a.Kind == model.ActNone {
			continue
		}
		cost := pre
		if x.opt.Preemptions && lastRuns && t != last {
			cost++
			if cost > x.opt.PreemptionBound {
				x.setLimit(fmt.Sprintf("preemption-bound(%d)", x.opt.PreemptionBound))
				continue
			}
		}
		if len(g.Threads[t]) >= x.opt.MaxEvents {
			x.setLimit("max-events")
			continue
		}
		for _, h := range Successors(g, t, &a) {
			if !x.consistent(h) {
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
		add(simpleEvent(a))
	case model.ActChoose:
		for v := 0; v < a.N; v++ {
			e := simpleEvent(a)
			e.Val = int64(v)
			add(e)
		}
	case model.ActWrite, model.ActUnlock:
		ref := model.EventRef{T: int32(t), I: int32(len(g.Threads[t]))}
		for pos := 1; pos <= len(g.Co[a.Loc])+1; pos++ {
			add(simpleEvent(a)).InsertCo(a.Loc, ref, pos)
		}
	case model.ActRead, model.ActRMW, model.ActCAS, model.ActLock:
		writes := append([]model.EventRef{model.InitRef(a.Loc)}, g.Co[a.Loc]...)
		for _, w := range writes {
			v := g.WriteValue(w)
			for _, spurious := range spuriousChoices(a, v) {
				r, ok, wv := readEvent(a, w, v, spurious)
				if !ok {
					add(r)
					continue
				}
				h := add(r, writeHalf(a, wv))
				ref := model.EventRef{T: int32(t), I: int32(len(g.Threads[t]) + 1)}
				h.InsertCo(a.Loc, ref, g.CoPos(a.Loc, w)+1)
			}
		}
	}
	return out
}
