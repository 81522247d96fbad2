package graphs

import (
	"slices"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
)

// maxDomain bounds the values speculation lets a read guess for one
// location; a program that can write more is reported as bounded
// (engine.MaxValues).
const maxDomain = 64

// Speculate visits every consistent complete execution of r's program
// under a model that allows cycles in po ∪ rf (Model.LoadBuffering): a
// load may read a write that its own thread makes only later, through
// other threads. Explorers that add events in po ∪ rf order never build
// such an execution. Speculate builds them as herd7 does: each read
// guesses its value among those other threads can write to its location
// and its own thread's last write there (found in rounds, from the
// initial values), each thread runs on its guesses alone, and every way of matching the reads of one run per
// thread to writes of the values they guessed, in every modification
// order, is put to the model. Its cost grows with the product of the
// threads' runs and of the matchings, far faster than Explore's: it suits
// litmus tests and small protocols.
func Speculate(r *engine.Runner) (explore.Stats, error) {
	return r.Finish(r.Run(func() error { return speculate(r) }))
}

// run is one way a thread runs on guessed read values: its events, with
// the reads' sources still unset, and its final state, or the error the
// program ran into after those events.
type run struct {
	evs []model.Event
	st  model.ThreadState
	err error
}

// values holds, per thread and location, the values the thread's runs
// write there.
type values [][]map[int64]bool

func speculate(r *engine.Runner) error {
	p := r.Prog
	written := make(values, len(p.Threads))
	for t := range written {
		written[t] = make([]map[int64]bool, len(p.Locs))
		for l := range p.Locs {
			written[t][l] = map[int64]bool{}
		}
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
		for t := range p.Threads {
			var err error
			if runs[t], err = threadRuns(r, t, written); err != nil {
				return err
			}
		}
		grew, most := false, 0
		for t := range runs {
			writes := 0
			for _, u := range runs[t] {
				n := 0
				for i := range u.evs {
					if e := &u.evs[i]; e.Kind == model.KWrite {
						n++
						if !written[t][e.Loc][e.Val] {
							if len(written[t][e.Loc]) == maxDomain {
								r.SetLimit(explore.MaxValues)
								return engine.ErrStop
							}
							written[t][e.Loc][e.Val], grew = true, true
						}
					}
				}
				writes = max(writes, n)
			}
			most += writes
		}
		if !grew || round >= most {
			break
		}
	}
	pick := make([]int, len(p.Threads))
	var combine func(t int) error
	combine = func(t int) error {
		if t == len(p.Threads) {
			return matchings(r, runs, pick)
		}
		if err := r.Step(); err != nil {
			return err
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

// threadRuns lists thread t's runs when a read of location l may return
// what another thread writes there, or the thread's own last write to l
// (the initial value when it has none): coherence rules out older ones.
// A run the event bound cuts is left out, and the exploration marked
// bounded.
func threadRuns(r *engine.Runner, t int, written values) ([]run, error) {
	p := r.Prog
	others := make([][]int64, len(p.Locs)) // sorted, for a fixed order of runs
	for l := range p.Locs {
		seen := map[int64]bool{}
		for u := range written {
			for v := range written[u][l] {
				if u != t && !seen[v] {
					seen[v] = true
					others[l] = append(others[l], v)
				}
			}
		}
		slices.Sort(others[l])
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
		if err != nil || a.Kind == model.ActNone {
			out = append(out, run{evs: evs, st: st, err: err})
			return nil
		}
		next := func(e model.Event) error { return walk(append(slices.Clip(evs), e)) }
		if a.Pending {
			last := &evs[len(evs)-1]
			_, wv, _ := a.Outcome(last.Val, last.Spurious)
			return next(a.WriteHalf(wv))
		}
		if len(evs) >= r.Config.MaxEvents {
			r.SetLimit(explore.MaxEvents)
			return nil
		}
		switch {
		case a.IsReadAction():
			own := p.Locs[a.Loc].Init
			for i := len(evs) - 1; i >= 0; i-- {
				if evs[i].Kind == model.KWrite && evs[i].Loc == a.Loc {
					own = evs[i].Val
					break
				}
			}
			vals := others[a.Loc]
			if !slices.Contains(vals, own) {
				vals = append(slices.Clip(vals), own)
			}
			for _, v := range vals {
				for _, spurious := range a.SpuriousChoices(v) {
					e, _, _ := a.ReadEvent(model.InitRef(a.Loc), v, spurious)
					if err := next(e); err != nil {
						return err
					}
				}
			}
			return nil
		case a.Kind == model.ActChoose:
			for v := 0; v < a.N; v++ {
				if err := next(a.ChoiceEvent(v)); err != nil {
					return err
				}
			}
			return nil
		}
		return next(a.SimpleEvent())
	}
	return out, walk(nil)
}

// matchings puts to the model every graph of the runs picked: each read
// reading some write of its location and value (its own thread's later
// ones included, but not its own RMW's), in every modification order. It
// goes location by location and makes only the choices under which the
// location is coherent (SC per location, which every model requires):
// the modification order keeps each thread's writes in program order, a
// thread never sees it go back, and an RMW's write follows the write its
// read reads at once.
func matchings(r *engine.Runner, runs [][]run, pick []int) error {
	p := r.Prog
	g := model.NewGraph(p)
	states := make([]model.ThreadState, len(p.Threads))
	for t := range p.Threads {
		u := runs[t][pick[t]]
		g.Threads[t] = u.evs
		states[t] = u.st
	}
	// A spawned thread runs when, and only when, its spawner spawned it
	// (its runs begin with the empty one of an unborn thread).
	for t := range p.Threads {
		if _, ok := g.Spawner(t); p.Threads[t].Spawned && ok != (pick[t] > 0) {
			return nil
		}
	}
	for t := range g.Threads {
		g.Threads[t] = slices.Clone(g.Threads[t])
		for i := range g.Threads[t] {
			g.Threads[t][i].Rf = model.NoSource
		}
	}
	acc := make([][][]model.EventRef, len(p.Locs))    // by location, by thread: its accesses, in program order
	writes := make([][][]model.EventRef, len(p.Locs)) // the same, writes only
	for l := range p.Locs {
		acc[l] = make([][]model.EventRef, len(p.Threads))
		writes[l] = make([][]model.EventRef, len(p.Threads))
	}
	for t, evs := range g.Threads {
		for i := range evs {
			ref := model.EventRef{T: int32(t), I: int32(i)}
			switch e := &evs[i]; e.Kind {
			case model.KRead:
				acc[e.Loc][t] = append(acc[e.Loc][t], ref)
			case model.KWrite:
				acc[e.Loc][t] = append(acc[e.Loc][t], ref)
				writes[e.Loc][t] = append(writes[e.Loc][t], ref)
			}
		}
	}
	// The locations one thread alone accesses go first: coherence leaves
	// their sources and order no choice, so the model is put the partial
	// graph only after a location shared by threads, where it prunes.
	shared := func(l int) bool {
		n := 0
		for _, th := range acc[l] {
			if len(th) > 0 {
				n++
			}
		}
		return n > 1
	}
	order := make([]int, 0, len(p.Locs))
	for l := range p.Locs {
		if !shared(l) {
			order = append(order, l)
		}
	}
	firstShared := len(order)
	for l := range p.Locs {
		if shared(l) {
			order = append(order, l)
		}
	}
	// consistent checks g, partial or complete, under the model; the
	// relations that depend on the events alone are computed once, as
	// every graph here has the same events.
	var prev *model.Exec
	consistent := func() bool {
		x := model.NewExec(g)
		x.Keep(prev)
		prev = x
		return r.Model.Check(x) == ""
	}
	var loc func(k int) error
	loc = func(k int) error {
		// Every choice counts against the bounds, so that a bound (a
		// timeout, a cancellation, memory) stops the search within a
		// moment of being reached, however many choices lead to no leaf.
		if err := r.Step(); err != nil {
			return err
		}
		if k == len(order) {
			if !consistent() {
				return nil
			}
			for t := range pick {
				if err := runs[t][pick[t]].err; err != nil {
					return err // a consistent execution runs into it
				}
			}
			return r.Complete(g.Clone(), states, nil, nil)
		}
		l := order[k]
		placed := make([]int, len(p.Threads)) // per thread: how many of its writes to l co holds
		// isPlaced: w is the initial write, or no later than the last of
		// its thread's writes that co holds (they are placed in order).
		isPlaced := func(w model.EventRef) bool {
			if w.IsInit() {
				return true
			}
			n := placed[w.T]
			return n > 0 && writes[l][w.T][n-1].I >= w.I
		}
		// fits says whether write w may come next in co: an RMW's write
		// right after what its read read; a thread's reads before w
		// reading what co already holds, and those after w not.
		fits := func(w model.EventRef, co []model.EventRef) bool {
			if e := g.Ev(w); e.RMW && w.I > 0 {
				prev := model.InitRef(model.Loc(l))
				if len(co) > 0 {
					prev = co[len(co)-1]
				}
				if g.Threads[w.T][w.I-1].Rf != prev {
					return false
				}
			}
			for _, a := range acc[l][w.T] {
				if e := g.Ev(a); e.Kind == model.KRead && isPlaced(e.Rf) != (a.I < w.I) {
					return false
				}
			}
			return true
		}
		reads := slices.DeleteFunc(slices.Concat(acc[l]...), func(a model.EventRef) bool { return g.Ev(a).Kind != model.KRead })
		err := choose(g, reads, writes[l], r.Step, func() error {
			return interleave(writes[l], placed, nil, fits, r.Step, func(co []model.EventRef) error {
				g.Co[l] = co
				if !coherent(g, model.Loc(l), acc[l]) {
					return nil
				}
				// Prune: a partial graph the model rejects has no
				// consistent completion.
				if k >= firstShared && k+1 < len(order) && !consistent() {
					return nil
				}
				return loc(k + 1)
			})
		})
		g.Co[l] = nil
		for _, th := range acc[l] {
			for _, ref := range th {
				g.Ev(ref).Rf = model.NoSource
			}
		}
		return err
	}
	return loc(0)
}

// choose calls f for every choice of sources for reads: writes of their
// location and value (the initial one included), but neither a read's
// own RMW's nor a later one of its own thread. Each choice is a step
// (the runner's bounds).
func choose(g *model.Graph, reads []model.EventRef, ws [][]model.EventRef, step, f func() error) error {
	if len(reads) == 0 {
		return f()
	}
	if err := step(); err != nil {
		return err
	}
	rd := reads[0]
	e := g.Ev(rd)
	try := func(w model.EventRef) error {
		e.Rf = w
		return choose(g, reads[1:], ws, step, f)
	}
	if g.WriteValue(model.InitRef(e.Loc)) == e.Val {
		if err := try(model.InitRef(e.Loc)); err != nil {
			return err
		}
	}
	for _, thread := range ws {
		for _, w := range thread {
			if g.Ev(w).Val != e.Val || w.T == rd.T && w.I > rd.I {
				continue
			}
			if err := try(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// interleave calls f with every interleaving of the threads' write
// sequences ws (placed[t] of thread t's are placed) appended to co, in
// which each write fits where it is put. Each placing is a step.
func interleave(ws [][]model.EventRef, placed []int, co []model.EventRef, fits func(model.EventRef, []model.EventRef) bool, step func() error, f func([]model.EventRef) error) error {
	if err := step(); err != nil {
		return err
	}
	done := true
	for t := range ws {
		if placed[t] == len(ws[t]) {
			continue
		}
		done = false
		w := ws[t][placed[t]]
		if !fits(w, co) {
			continue
		}
		placed[t]++
		err := interleave(ws, placed, append(co, w), fits, step, f)
		placed[t]--
		if err != nil {
			return err
		}
	}
	if done {
		return f(co)
	}
	return nil
}

// coherent reports whether location l of g, whose accesses by thread are
// acc, is SC per location: no thread sees modification order go back (a
// write stands at its place, a read at its source's, and a write comes
// strictly after what came before it).
func coherent(g *model.Graph, l model.Loc, acc [][]model.EventRef) bool {
	for _, th := range acc {
		at := 0 // the thread's position in co so far (0: the initial write)
		for _, ref := range th {
			switch e := g.Ev(ref); e.Kind {
			case model.KWrite:
				p := g.CoPos(l, ref)
				if p <= at {
					return false
				}
				at = p
			case model.KRead:
				p := g.CoPos(l, e.Rf)
				if p < at {
					return false
				}
				at = p
			}
		}
	}
	return true
}
