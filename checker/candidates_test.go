package checker_test

import (
	"fmt"
	"slices"

	"github.com/ordercheck/ordercheck/model"
)

// herdCandidates calls f with every candidate execution of p the way herd7
// enumerates them, with no explorer in between: each thread runs on every
// value its reads could return, each read reads any write of its location
// and value, and each location's writes come in any order. It returns an
// error when p is not a litmus-sized program of progtest.Program (constant
// addresses and written values, no spawns, locks or waits) or when the
// candidates exceed budget.
//
// The values a read may return are over-approximated statically: a
// location's initial value or a constant stored there, plus the increments
// of any subset of the fetch-adds to it (each runs at most once, as the
// programs have no loops).
func herdCandidates(p *model.Program, budget int, f func(*model.Graph)) error {
	domain, err := valueDomains(p)
	if err != nil {
		return err
	}
	runs := make([][][]model.Event, len(p.Threads))
	for t := range p.Threads {
		if p.Threads[t].Spawned {
			return fmt.Errorf("thread %d is spawned", t)
		}
		if runs[t], err = allRuns(p, t, domain); err != nil {
			return err
		}
	}
	n := 0
	g := model.NewGraph(p)
	var combine func(t int) error
	combine = func(t int) error {
		if t < len(p.Threads) {
			for _, evs := range runs[t] {
				g.Threads[t] = slices.Clone(evs)
				if err := combine(t + 1); err != nil {
					return err
				}
			}
			return nil
		}
		var reads []*model.Event
		writes := make([][]model.EventRef, len(p.Locs))
		for t, evs := range g.Threads {
			for i := range evs {
				switch e := &evs[i]; e.Kind {
				case model.KRead:
					reads = append(reads, e)
				case model.KWrite:
					writes[e.Loc] = append(writes[e.Loc], model.EventRef{T: int32(t), I: int32(i)})
				}
			}
		}
		var read func(k int) error
		read = func(k int) error {
			if k < len(reads) {
				r := reads[k]
				for _, w := range append([]model.EventRef{model.InitRef(r.Loc)}, writes[r.Loc]...) {
					if g.WriteValue(w) == r.Val {
						r.Rf = w
						if err := read(k + 1); err != nil {
							return err
						}
					}
				}
				return nil
			}
			var order func(l int) error
			order = func(l int) error {
				if l == len(p.Locs) {
					if n++; n > budget {
						return fmt.Errorf("more than %d candidates", budget)
					}
					f(g)
					return nil
				}
				return permutations(writes[l], func(co []model.EventRef) error {
					g.Co[l] = co
					return order(l + 1)
				})
			}
			return order(0)
		}
		return read(0)
	}
	return combine(0)
}

// valueDomains returns, per location, the values a read of it may return.
func valueDomains(p *model.Program) ([]map[int64]bool, error) {
	bases := make([][]int64, len(p.Locs))
	incs := make([][]int64, len(p.Locs))
	for l, loc := range p.Locs {
		bases[l] = []int64{loc.Init}
	}
	for t, th := range p.Threads {
		for i, in := range th.Code {
			switch in.Op {
			case model.OpLoad, model.OpFence, model.OpBranch:
				continue
			case model.OpStore, model.OpRMW, model.OpCAS:
			default:
				return nil, fmt.Errorf("thread %d instruction %d: %v is not a litmus instruction", t, i, in.Op)
			}
			if in.Addr.Kind != model.EConst || in.Val.Kind != model.EConst {
				return nil, fmt.Errorf("thread %d instruction %d: address or value not constant", t, i)
			}
			l, ok := p.LocOf(in.Addr.Val)
			if !ok {
				return nil, fmt.Errorf("thread %d instruction %d: no location", t, i)
			}
			if in.Op == model.OpRMW && in.RMW == model.FetchAdd {
				incs[l] = append(incs[l], in.Val.Val)
			} else {
				bases[l] = append(bases[l], in.Val.Val)
			}
		}
	}
	out := make([]map[int64]bool, len(p.Locs))
	for l := range p.Locs {
		out[l] = map[int64]bool{}
		for _, b := range bases[l] {
			sums := []int64{b}
			for _, d := range incs[l] {
				for _, s := range sums {
					sums = append(sums, s+d)
				}
			}
			for _, s := range sums {
				out[l][s] = true
			}
		}
	}
	return out, nil
}

// allRuns lists thread t's runs with its reads returning every value of
// their location's domain.
func allRuns(p *model.Program, t int, domain []map[int64]bool) ([][]model.Event, error) {
	var out [][]model.Event
	var walk func(evs []model.Event) error
	walk = func(evs []model.Event) error {
		_, a, err := p.Replay(t, evs)
		if err != nil {
			return err
		}
		next := func(e model.Event) error { return walk(append(slices.Clip(evs), e)) }
		switch {
		case a.Kind == model.ActNone:
			out = append(out, evs)
			return nil
		case a.Pending:
			last := &evs[len(evs)-1]
			_, wv, _ := a.Outcome(last.Val, last.Spurious)
			return next(a.WriteHalf(wv))
		case a.IsReadAction():
			vals := make([]int64, 0, len(domain[a.Loc]))
			for v := range domain[a.Loc] {
				vals = append(vals, v)
			}
			slices.Sort(vals)
			for _, v := range vals {
				for _, spurious := range a.SpuriousChoices(v) {
					e, _, _ := a.ReadEvent(model.InitRef(a.Loc), v, spurious)
					if err := next(e); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return next(a.SimpleEvent())
	}
	return out, walk(nil)
}

// permutations calls f with every order of ws.
func permutations(ws []model.EventRef, f func([]model.EventRef) error) error {
	order := make([]model.EventRef, 0, len(ws))
	used := make([]bool, len(ws))
	var rec func() error
	rec = func() error {
		if len(order) == len(ws) {
			return f(order)
		}
		for i, w := range ws {
			if !used[i] {
				used[i] = true
				order = append(order, w)
				err := rec()
				order = order[:len(order)-1]
				used[i] = false
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	return rec()
}
