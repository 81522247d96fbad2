package graphs

import (
	"slices"

	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
)

// maxDomain bounds the values speculation lets a read guess for one
// location; a program that can write more is reported as bounded.
const maxDomain = 64

// Speculate visits every consistent complete execution of r's program
// under a model that allows cycles in po ∪ rf (Model.LoadBuffering): a
// load may read a write that its own thread makes only later, through
// other threads. Explorers that add events in po ∪ rf order never build
// such an execution. Speculate builds them as herd7 does: each read
// guesses its value among those the program can write to its location
// (found by a fixed point from the initial values), each thread runs on
// its guesses alone, and every way of matching the reads of one run per
// thread to writes of the values they guessed, in every modification
// order, is put to the model. Its cost grows with the product of the
// threads' runs and of the matchings, far faster than Explore's: it suits
// litmus tests and small protocols.
func Speculate(r *engine.Runner) (engine.Stats, error) {
	return r.Finish(r.Run(func() error { return speculate(r) }))
}

// run is one way a thread runs on guessed read values: its events, with
// the reads' sources still unset, and its final state.
type run struct {
	evs []model.Event
	st  model.ThreadState
}

func speculate(r *engine.Runner) error {
	p := r.Prog
	dom := make([]map[int64]bool, len(p.Locs))
	for l := range p.Locs {
		dom[l] = map[int64]bool{p.Locs[l].Init: true}
	}
	// Round k runs the threads on the values of writes grounded in at
	// most k steps: a write's value and existence depend only on reads
	// ordered before it (by dependencies, which both hardware models
	// keep), so following the sources of the values an execution reads
	// never comes back to a write, and no chain is longer than the
	// execution's writes. The rounds stop when no value is new or the
	// chains are as long as the most writes the runs make.
	var runs [][]run
	for round := 0; ; round++ {
		runs = make([][]run, len(p.Threads))
		grew, most := false, 0
		for t := range p.Threads {
			var err error
			if runs[t], err = threadRuns(r, t, dom); err != nil {
				return err
			}
			writes := 0
			for _, u := range runs[t] {
				n := 0
				for i := range u.evs {
					e := &u.evs[i]
					if e.Kind != model.KWrite {
						continue
					}
					n++
					if !dom[e.Loc][e.Val] {
						grew = true
					}
				}
				writes = max(writes, n)
			}
			most += writes
		}
		if !grew || round >= most {
			break
		}
		for t := range runs {
			for _, u := range runs[t] {
				for i := range u.evs {
					if e := &u.evs[i]; e.Kind == model.KWrite && !dom[e.Loc][e.Val] {
						if len(dom[e.Loc]) == maxDomain {
							r.SetLimit(engine.MaxGraphs)
							return engine.ErrStop
						}
						dom[e.Loc][e.Val] = true
					}
				}
			}
		}
	}
	pick := make([]int, len(p.Threads))
	var combine func(t int) error
	combine = func(t int) error {
		if t == len(p.Threads) {
			return matchings(r, runs, pick)
		}
		for i := range runs[t] {
			pick[t] = i
			if err := combine(t + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return combine(0)
}

// threadRuns lists thread t's runs when its reads of a location l may
// return any value of dom[l]. A run the event bound cuts is left out, and
// the exploration marked bounded.
func threadRuns(r *engine.Runner, t int, dom []map[int64]bool) ([]run, error) {
	p := r.Prog
	values := make([][]int64, len(dom))
	for l, d := range dom {
		for v := range d {
			values[l] = append(values[l], v)
		}
		slices.Sort(values[l])
	}
	var out []run
	if p.Threads[t].Spawned {
		st, _, err := p.Replay(t, nil)
		if err != nil {
			return nil, err
		}
		st.Status = model.Unborn
		out = append(out, run{st: st})
	}
	var walk func(evs []model.Event) error
	walk = func(evs []model.Event) error {
		if err := r.Step(); err != nil {
			return err
		}
		st, a, err := p.Replay(t, evs)
		if err != nil {
			return err
		}
		if a.Kind == model.ActNone {
			out = append(out, run{evs: evs, st: st})
			return nil
		}
		if a.Pending {
			last := &evs[len(evs)-1]
			_, wv, _ := a.Outcome(last.Val, last.Spurious)
			return walk(append(slices.Clip(evs), a.WriteHalf(wv)))
		}
		if len(evs) >= r.Options.MaxEvents {
			r.SetLimit(engine.MaxEvents)
			return nil
		}
		switch {
		case a.IsReadAction():
			for _, v := range values[a.Loc] {
				for _, spurious := range a.SpuriousChoices(v) {
					e, _, _ := a.ReadEvent(model.InitRef(a.Loc), v, spurious)
					if err := walk(append(slices.Clip(evs), e)); err != nil {
						return err
					}
				}
			}
			return nil
		case a.Kind == model.ActChoose:
			for v := 0; v < a.N; v++ {
				e := a.SimpleEvent()
				e.Val = int64(v)
				if err := walk(append(slices.Clip(evs), e)); err != nil {
					return err
				}
			}
			return nil
		}
		return walk(append(slices.Clip(evs), a.SimpleEvent()))
	}
	return out, walk(nil)
}

// matchings puts to the model every graph of the runs picked: each read
// reading some write of its location and value (its own thread's later
// ones included, but not its own RMW's), in every modification order.
func matchings(r *engine.Runner, runs [][]run, pick []int) error {
	p := r.Prog
	g := model.NewGraph(p)
	states := make([]model.ThreadState, len(p.Threads))
	for t := range p.Threads {
		u := runs[t][pick[t]]
		g.Threads[t] = slices.Clone(u.evs)
		states[t] = u.st
	}
	// A spawned thread runs when, and only when, its spawner spawned it
	// (its runs begin with the empty one of an unborn thread).
	for t := range p.Threads {
		if _, ok := g.Spawner(t); p.Threads[t].Spawned && ok != (pick[t] > 0) {
			return nil
		}
	}
	var reads []model.EventRef
	writes := make([][]model.EventRef, len(p.Locs))
	for t, evs := range g.Threads {
		for i := range evs {
			ref := model.EventRef{T: int32(t), I: int32(i)}
			switch evs[i].Kind {
			case model.KRead:
				reads = append(reads, ref)
			case model.KWrite:
				writes[evs[i].Loc] = append(writes[evs[i].Loc], ref)
			}
		}
	}
	var order func(l int) error
	order = func(l int) error {
		if l == len(p.Locs) {
			if err := r.Step(); err != nil {
				return err
			}
			if !r.Consistent(g) {
				return nil
			}
			x := &model.Graph{Prog: p, Threads: make([][]model.Event, len(g.Threads)), Co: make([][]model.EventRef, len(g.Co))}
			for t := range g.Threads {
				x.Threads[t] = slices.Clone(g.Threads[t])
			}
			for l := range g.Co {
				x.Co[l] = slices.Clone(g.Co[l])
			}
			return r.Complete(x, states)
		}
		return permute(writes[l], 0, func(co []model.EventRef) error {
			g.Co[l] = co
			return order(l + 1)
		})
	}
	var match func(k int) error
	match = func(k int) error {
		if k == len(reads) {
			return order(0)
		}
		rd := reads[k]
		e := &g.Threads[rd.T][rd.I]
		if p.Locs[e.Loc].Init == e.Val {
			e.Rf = model.InitRef(e.Loc)
			if err := match(k + 1); err != nil {
				return err
			}
		}
		for _, w := range writes[e.Loc] {
			own := w.T == rd.T && w.I == rd.I+1 && g.Threads[w.T][w.I].RMW && e.RMW
			if own || g.Threads[w.T][w.I].Val != e.Val {
				continue
			}
			e.Rf = w
			if err := match(k + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return match(0)
}

// permute calls f with every order of ws; f must not keep its argument.
func permute(ws []model.EventRef, k int, f func([]model.EventRef) error) error {
	if k >= len(ws)-1 {
		return f(ws)
	}
	for i := k; i < len(ws); i++ {
		ws[k], ws[i] = ws[i], ws[k]
		if err := permute(ws, k+1, f); err != nil {
			return err
		}
		ws[k], ws[i] = ws[i], ws[k]
	}
	return nil
}
