package checker

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ordercheck/ordercheck/model"
)

// SimOptions configure a simulation.
type SimOptions struct {
	Runs int
	Seed uint64
	// Scheduler is "uniform" (any runnable thread, uniformly) or "pct"
	// (probabilistic concurrency testing: random thread priorities with
	// Depth-1 random priority drops, Burckhardt et al., ASPLOS 2010).
	Scheduler string
	Depth     int
	// MaxSteps bounds one run (a guard for unbounded loops); 0 means 10,000.
	MaxSteps int
	// Progress, when set, is called about once a second with the runs done.
	Progress func(done int, elapsed time.Duration)
	// Spec is the sequential specification for the linearizability property.
	Spec *porcupine.Model
}

// SimProp is a property's statistics over the runs.
type SimProp struct {
	Name        string  `json:"name"`
	Violations  int     `json:"violations"`
	Probability float64 `json:"probability"`
	CILow       float64 `json:"ci_low"`
	CIHigh      float64 `json:"ci_high"`
	// Witness is the first violating run.
	Witness *Witness `json:"-"`
}

// SimOutcome is a final state and how often the runs ended in it.
type SimOutcome struct {
	State     string  `json:"state"`
	Count     int     `json:"count"`
	Frequency float64 `json:"frequency"`
}

// SimResult is the result of a simulation.
type SimResult struct {
	Runs       int          `json:"runs"`
	Seed       uint64       `json:"seed"`
	Properties []SimProp    `json:"properties"`
	Outcomes   []SimOutcome `json:"outcomes"`
	// Blocked counts runs that ended with a thread blocked.
	Blocked int `json:"blocked"`
}

// Simulate runs p under m opt.Runs times, each time walking one execution:
// a scheduler picks the thread, and each read or write takes one of its
// consistent choices uniformly at random. The same seed gives the same
// result.
func Simulate(p *model.Program, m model.Model, props []string, opt SimOptions) (*SimResult, error) {
	if opt.Runs <= 0 {
		return nil, fmt.Errorf("the number of runs must be positive")
	}
	if opt.MaxSteps == 0 {
		opt.MaxSteps = 10000
	}
	if opt.Scheduler == "" {
		opt.Scheduler = "uniform"
	}
	if opt.Scheduler != "uniform" && opt.Scheduler != "pct" {
		return nil, fmt.Errorf("unknown scheduler %q (uniform, pct)", opt.Scheduler)
	}
	if opt.Depth <= 0 {
		opt.Depth = 3
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6f72646572636865))
	res := &SimResult{Runs: opt.Runs, Seed: opt.Seed}
	index := map[string]int{}
	for _, name := range props {
		index[name] = len(res.Properties)
		res.Properties = append(res.Properties, SimProp{Name: name})
	}
	spec := opt.Spec
	if !slices.Contains(props, PropLinearizability) {
		spec = nil
	}
	show := finalShow(p)
	counts := map[string]int{}
	start, last := time.Now(), time.Now()
	for run := 0; run < opt.Runs; run++ {
		if opt.Progress != nil && time.Since(last) > time.Second {
			last = time.Now()
			opt.Progress(run, time.Since(start))
		}
		e, err := walk(p, m, rng, opt, slices.Contains(props, PropDataRace))
		if err != nil {
			return nil, err
		}
		counts[FormatState(p, show, &e.Final)]++
		if len(e.Blocked) > 0 {
			res.Blocked++
		}
		for _, v := range Judge(e, spec) {
			k, ok := index[v.Prop]
			if !ok {
				continue
			}
			sp := &res.Properties[k]
			sp.Violations++
			if sp.Witness == nil {
				sp.Witness = &Witness{Execution: e, Violation: v}
			}
		}
	}
	for i := range res.Properties {
		sp := &res.Properties[i]
		sp.Probability = float64(sp.Violations) / float64(opt.Runs)
		sp.CILow, sp.CIHigh = wilson(sp.Violations, opt.Runs)
	}
	for s, c := range counts {
		res.Outcomes = append(res.Outcomes, SimOutcome{State: s, Count: c, Frequency: float64(c) / float64(opt.Runs)})
	}
	sort.Slice(res.Outcomes, func(i, j int) bool {
		a, b := res.Outcomes[i], res.Outcomes[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.State < b.State
	})
	return res, nil
}

// finalShow is what a final state shows: the litmus condition's
// observables, or every shared location.
func finalShow(p *model.Program) []model.Observable {
	if p.Final != nil && len(p.Final.Show) > 0 {
		return p.Final.Show
	}
	var out []model.Observable
	for l, loc := range p.Locs {
		if !loc.Mutex {
			out = append(out, model.Observable{Thread: -1, Reg: model.NoReg, Loc: model.Loc(l)})
		}
	}
	return out
}

// wilson returns the Wilson score interval at 95% for k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	z := distuv.UnitNormal.Quantile(0.975)
	ph := float64(k) / float64(n)
	nn := float64(n)
	den := 1 + z*z/nn
	mid := (ph + z*z/(2*nn)) / den
	half := z * math.Sqrt(ph*(1-ph)/nn+z*z/(4*nn*nn)) / den
	lo, hi = math.Max(0, mid-half), math.Min(1, mid+half)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

// walk runs one random execution to its end.
func walk(p *model.Program, m model.Model, rng *rand.Rand, opt SimOptions, races bool) (*Execution, error) {
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
	for i := 1; i < opt.Depth; i++ {
		drops[rng.IntN(length)] = -i
	}
	r := &runner{p: p, m: m}
	for step := 0; ; step++ {
		if step > opt.MaxSteps {
			return nil, fmt.Errorf("a run exceeded %d steps (an unbounded loop?)", opt.MaxSteps)
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
			a, err := r.action(g, t)
			if err != nil {
				return nil, err
			}
			if a.Kind != model.ActNone {
				ready = append(ready, t)
				acts[t] = a
			}
		}
		if len(ready) == 0 {
			e, err := NewExecution(g, m, races)
			if err != nil {
				return nil, err
			}
			if e != nil {
				return e, nil
			}
			return nil, fmt.Errorf("internal error: a run ended waiting for a lock released later")
		}
		t := ready[rng.IntN(len(ready))]
		if opt.Scheduler == "pct" {
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
			e, pos := pendingWrite(g, t, &a)
			h := g.Clone()
			h.Threads[t] = append(h.Threads[t], e)
			h.InsertCo(a.Loc, model.EventRef{T: int32(t), I: int32(len(h.Threads[t]) - 1)}, pos)
			next = []*model.Graph{h}
		} else {
			next = Successors(g, t, &a)
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
			return nil, fmt.Errorf("internal error: no consistent step for thread %s", p.Threads[t].Name)
		}
		g = chosen
	}
}

// WriteText prints the statistics, a bar chart of the final states, and
// the first counterexample of each violated property.
func (s *SimResult) WriteText(w io.Writer, m model.Model) {
	fmt.Fprintf(w, "%d runs, seed %d\n\n", s.Runs, s.Seed)
	width := 0
	for _, p := range s.Properties {
		width = max(width, len(p.Name))
	}
	for _, p := range s.Properties {
		line := fmt.Sprintf("  %-*s  %6d violations  p = %.4f  95%% CI [%.4f, %.4f]", width, p.Name, p.Violations, p.Probability, p.CILow, p.CIHigh)
		if p.Violations > 0 {
			line += fmt.Sprintf("  ~%.0f runs to the first failure", 1/p.Probability)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "\nfinal states:")
	sw := 0
	for _, o := range s.Outcomes {
		sw = max(sw, len(o.State))
	}
	for _, o := range s.Outcomes {
		bar := strings.Repeat("#", int(math.Round(o.Frequency*40)))
		fmt.Fprintf(w, "  %-*s  %6d  %6.2f%%  %s\n", sw, o.State, o.Count, 100*o.Frequency, bar)
	}
	for _, p := range s.Properties {
		if p.Witness != nil {
			fmt.Fprintf(w, "\ncounterexample for %s (%s):\n%s", p.Name, p.Witness.Violation.Msg, FormatWitness(p.Witness, m))
		}
	}
}

// Homogeneity tests whether two simulations' final-state distributions
// differ: Pearson's chi-square test on their contingency table. It returns
// the statistic, the degrees of freedom and the p-value.
func Homogeneity(a, b *SimResult) (chi2 float64, df int, p float64) {
	ca, cb := map[string]float64{}, map[string]float64{}
	states := map[string]bool{}
	for _, o := range a.Outcomes {
		ca[o.State] = float64(o.Count)
		states[o.State] = true
	}
	for _, o := range b.Outcomes {
		cb[o.State] = float64(o.Count)
		states[o.State] = true
	}
	na, nb := float64(a.Runs), float64(b.Runs)
	for s := range states {
		col := ca[s] + cb[s]
		for _, cell := range []struct{ obs, n float64 }{{ca[s], na}, {cb[s], nb}} {
			exp := col * cell.n / (na + nb)
			chi2 += (cell.obs - exp) * (cell.obs - exp) / exp
		}
	}
	df = len(states) - 1
	if df == 0 {
		return 0, 0, 1
	}
	return chi2, df, distuv.ChiSquared{K: float64(df)}.Survival(chi2)
}
