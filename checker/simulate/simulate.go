// Package simulate walks random executions of a program: a scheduler
// picks the thread that moves (uniformly, or by PCT's priorities) and each
// read or write takes one of its consistent choices at random. It
// estimates how often each property fails, with Wilson intervals, tests
// whether two simulations' final states are distributed alike (Pearson's
// chi-square) and can shrink a counterexample found by a bounded
// exhaustive search. A simulation proves nothing: its counterexamples are
// real, its silence is no verdict.
package simulate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/walk"
	"github.com/ordercheck/ordercheck/model"
)

// Scheduler picks the thread that moves in a simulation.
type Scheduler uint8

// The schedulers: Uniform picks any runnable thread, uniformly; PCT
// (probabilistic concurrency testing, Burckhardt et al., ASPLOS 2010)
// gives the threads random priorities and drops them at Depth-1 random
// points.
const (
	Uniform Scheduler = iota
	PCT
)

func (s Scheduler) String() string { return [...]string{"uniform", "pct"}[s] }

// ParseScheduler reads a scheduler's name: uniform or pct.
func ParseScheduler(s string) (Scheduler, error) {
	switch s {
	case "uniform", "":
		return Uniform, nil
	case "pct":
		return PCT, nil
	}
	return 0, fmt.Errorf("unknown scheduler %q (uniform, pct)", s)
}

// Options configure a simulation.
type Options struct {
	Runs int
	Seed uint64
	// Scheduler picks the thread that moves; Depth is PCT's depth
	// (priority change points plus one; 0 means 3).
	Scheduler Scheduler
	Depth     int
	// MaxSteps bounds one run (a guard for unbounded loops); 0 means 10,000.
	MaxSteps int
	// Progress, when set, is called about once a second with the runs done.
	Progress func(done int, elapsed time.Duration)
	// Minimize replaces each counterexample found by the shortest one a
	// bounded exhaustive search finds, when that is shorter.
	Minimize bool
	// Minimized, when set, is told of each counterexample Minimize shrank.
	Minimized func(prop string, from, to int)
	// Context, when set, cancels the simulation: it stops with the runs
	// done so far (Runs then says how many).
	Context context.Context
}

// Prop is a property's statistics over the runs.
type Prop struct {
	Name        string  `json:"name"`
	Violations  int     `json:"violations"`
	Probability float64 `json:"probability"`
	CILow       float64 `json:"ci_low"`
	CIHigh      float64 `json:"ci_high"`
	// Witness is the first violating run.
	Witness *explore.Witness `json:"-"`
}

// Outcome is a final state and how often the runs ended in it.
type Outcome struct {
	State     string  `json:"state"`
	Count     int     `json:"count"`
	Frequency float64 `json:"frequency"`
}

// Result is the result of a simulation.
type Result struct {
	Runs       int       `json:"runs"`
	Seed       uint64    `json:"seed"`
	Properties []Prop    `json:"properties"`
	Outcomes   []Outcome `json:"outcomes"`
	// Blocked counts runs that ended with a thread blocked.
	Blocked int `json:"blocked"`
	// Interrupted says that the simulation stopped early, its context
	// cancelled, after Runs runs.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Witness returns the first run that violated property prop, or any
// property when prop is ""; nil when there is none.
func (s *Result) Witness(prop string) *explore.Witness {
	for _, p := range s.Properties {
		if p.Witness != nil && (prop == "" || p.Name == prop) {
			return p.Witness
		}
	}
	return nil
}

// Violated reports whether some run violated a property.
func (s *Result) Violated() bool {
	for _, p := range s.Properties {
		if p.Violations > 0 {
			return true
		}
	}
	return false
}

// Verdict sums up the simulation: violated when some run violated a
// property, else bounded, since random runs prove nothing.
func (s *Result) Verdict() checker.Verdict {
	if s.Violated() {
		return checker.VerdictViolated
	}
	return checker.VerdictBounded
}

// Run runs p under m opt.Runs times, each time walking one execution:
// a scheduler picks the thread, and each read or write takes one of its
// consistent choices uniformly at random; each run is judged on props.
// The same seed gives the same result. Under a model that allows load
// buffering the runs sample only the executions without it.
func Run(p *model.Program, m *model.Model, props []checker.Property, opt Options) (*Result, error) {
	if opt.Runs <= 0 {
		return nil, fmt.Errorf("the number of runs must be positive")
	}
	if opt.MaxSteps == 0 {
		opt.MaxSteps = 10000
	}
	if opt.Depth <= 0 {
		opt.Depth = 3
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6f72646572636865))
	res := &Result{Runs: opt.Runs, Seed: opt.Seed}
	index := map[string]int{}
	for _, pr := range props {
		index[pr.Name()] = len(res.Properties)
		res.Properties = append(res.Properties, Prop{Name: pr.Name()})
	}
	races := false
	for _, pr := range props {
		if n, ok := pr.(checker.Needer); ok && n.Needs().Races {
			races = true
		}
	}
	show := finalShow(p)
	counts := map[string]int{}
	start, last := time.Now(), time.Now()
	for run := 0; run < opt.Runs; run++ {
		if opt.Context != nil && opt.Context.Err() != nil {
			res.Runs, res.Interrupted = run, true
			break
		}
		if opt.Progress != nil && time.Since(last) > time.Second {
			last = time.Now()
			opt.Progress(run, time.Since(start))
		}
		e, err := walk.Run(p, m, rng, walk.Config{PCT: opt.Scheduler == PCT, Depth: opt.Depth, MaxSteps: opt.MaxSteps, Races: races})
		if err != nil {
			return nil, err
		}
		counts[p.FormatState(show, &e.Final)]++
		if len(e.Blocked) > 0 {
			res.Blocked++
		}
		for _, v := range checker.Judge(e, props) {
			sp := &res.Properties[index[v.Prop]]
			sp.Violations++
			if sp.Witness == nil {
				sp.Witness = &explore.Witness{Execution: e, Violation: v}
			}
		}
	}
	for i := range res.Properties {
		sp := &res.Properties[i]
		if res.Runs > 0 {
			sp.Probability = float64(sp.Violations) / float64(res.Runs)
			sp.CILow, sp.CIHigh = wilson(sp.Violations, res.Runs)
		}
	}
	for s, c := range counts {
		res.Outcomes = append(res.Outcomes, Outcome{State: s, Count: c, Frequency: float64(c) / float64(res.Runs)})
	}
	sort.Slice(res.Outcomes, func(i, j int) bool {
		a, b := res.Outcomes[i], res.Outcomes[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.State < b.State
	})
	if opt.Minimize {
		minimize(p, m, props, res, opt)
	}
	return res, nil
}

// Instance simulates the instance in under m, judging the protocol's
// properties.
func Instance(in *checker.Instance, m *model.Model, opt Options) (*Result, error) {
	return Run(in.Prog, m, in.Protocol.Properties(), opt)
}

// minimize replaces each simulated counterexample by the shortest one a
// bounded exhaustive search finds, when it is shorter. Cancelling the
// simulation's context stops it too, the counterexamples as they are.
func minimize(p *model.Program, m *model.Model, props []checker.Property, res *Result, opt Options) {
	for i := range res.Properties {
		sp := &res.Properties[i]
		if sp.Witness == nil || opt.Context != nil && opt.Context.Err() != nil {
			continue
		}
		rep, err := checker.Check(p, m, []checker.Property{props[i]}, explore.Options{MaxExecutions: 100000, Timeout: 30 * time.Second, Context: opt.Context})
		if err != nil || rep.Props[0].Witness == nil {
			continue
		}
		if w := rep.Props[0].Witness; len(w.Cone()) < len(sp.Witness.Cone()) {
			if opt.Minimized != nil {
				opt.Minimized(sp.Name, len(sp.Witness.Cone()), len(w.Cone()))
			}
			sp.Witness = w
		}
	}
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

// Difference is Pearson's chi-square test of whether two simulations'
// final-state distributions differ.
type Difference struct {
	Chi2 float64
	DF   int
	P    float64
}

// Significant reports a difference at the 5% level.
func (d Difference) Significant() bool { return d.P < 0.05 }

// Homogeneity tests whether two simulations' final-state distributions
// differ: Pearson's chi-square test on their contingency table.
func Homogeneity(a, b *Result) Difference {
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
	var d Difference
	na, nb := float64(a.Runs), float64(b.Runs)
	for s := range states {
		col := ca[s] + cb[s]
		for _, cell := range []struct{ obs, n float64 }{{ca[s], na}, {cb[s], nb}} {
			exp := col * cell.n / (na + nb)
			d.Chi2 += (cell.obs - exp) * (cell.obs - exp) / exp
		}
	}
	d.DF = len(states) - 1
	if d.DF == 0 {
		return Difference{P: 1}
	}
	d.P = distuv.ChiSquared{K: float64(d.DF)}.Survival(d.Chi2)
	return d
}

// Against simulates p under m as opt says, but from the next seed, so that
// the samples are independent, and tests whether its final states are
// distributed as s's.
func (s *Result) Against(p *model.Program, m *model.Model, props []checker.Property, opt Options) (*Result, Difference, error) {
	opt.Seed = s.Seed + 1
	opt.Minimize = false
	other, err := Run(p, m, props, opt)
	if err != nil {
		return nil, Difference{}, err
	}
	return other, Homogeneity(s, other), nil
}
