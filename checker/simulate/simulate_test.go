package simulate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/herd"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/checker/simulate"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

func simulateJSON(t *testing.T, p *model.Program, m *model.Model, opt simulate.Options) (*simulate.Result, string) {
	t.Helper()
	res, err := simulate.Run(p, m, []checker.Property{checker.DataRace}, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// TestSimulationFindsEveryState checks that enough random runs reach
// exactly the final states the exhaustive explorer finds, that the same
// seed gives the same result, and that frequencies sum to one.
func TestSimulationFindsEveryState(t *testing.T) {
	for _, f := range []string{"SB+rlx", "MP+rlx", "IRIW+rlx", "2+2W+rlx", "CAS+weak"} {
		for _, sched := range []simulate.Scheduler{simulate.Uniform, simulate.PCT} {
			t.Run(fmt.Sprint(f, "/", sched), func(t *testing.T) {
				p, err := litmus.ParseFile("../../protocols/litmus/testdata/" + f + ".litmus")
				if err != nil {
					t.Fatal(err)
				}
				m := progtest.MustModel(t, "rc11")
				exhaustive, err := herd.Run(p, m, explore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				opt := simulate.Options{Runs: 600, Seed: 3, Scheduler: sched}
				res, first := simulateJSON(t, p, m, opt)
				if _, again := simulateJSON(t, p, m, opt); again != first {
					t.Errorf("the same seed gives different results")
				}
				seen := map[string]bool{}
				total := 0.0
				for _, o := range res.Outcomes {
					seen[o.State] = true
					total += o.Frequency
				}
				for _, s := range exhaustive.States {
					if !seen[s] {
						t.Errorf("state %q never reached in %d runs", s, opt.Runs)
					}
				}
				if len(seen) != len(exhaustive.States) {
					t.Errorf("%d states simulated, %d exist", len(seen), len(exhaustive.States))
				}
				if total < 0.999 || total > 1.001 {
					t.Errorf("frequencies sum to %f", total)
				}
			})
		}
	}
}

// TestSimulationIntervals checks the Wilson intervals: a property that
// holds gets zero violations and a positive upper bound; across seeds, the
// estimates of a failing one fall within each other's intervals.
func TestSimulationIntervals(t *testing.T) {
	p, err := litmus.ParseFile("../../protocols/litmus/testdata/MP+na+rlx.litmus")
	if err != nil {
		t.Fatal(err)
	}
	m := progtest.MustModel(t, "rc11")
	var probs []simulate.Prop
	for seed := uint64(1); seed <= 3; seed++ {
		res, _ := simulateJSON(t, p, m, simulate.Options{Runs: 400, Seed: seed})
		probs = append(probs, res.Properties[0])
	}
	for _, a := range probs {
		if a.Violations == 0 || a.CILow > a.Probability || a.CIHigh < a.Probability {
			t.Errorf("bad estimate %+v", a)
		}
		for _, b := range probs {
			if b.Probability < a.CILow-0.05 || b.Probability > a.CIHigh+0.05 {
				t.Errorf("estimates disagree: %.3f outside [%.3f, %.3f]", b.Probability, a.CILow, a.CIHigh)
			}
		}
	}
	q, err := litmus.ParseFile("../../protocols/litmus/testdata/MP+rel+acq.litmus")
	if err != nil {
		t.Fatal(err)
	}
	res, _ := simulateJSON(t, q, m, simulate.Options{Runs: 300, Seed: 1})
	if pr := res.Properties[0]; pr.Violations != 0 || pr.CILow != 0 || pr.CIHigh <= 0 || pr.CIHigh > 0.02 {
		t.Errorf("race-free test: %+v", pr)
	}
}

// TestHomogeneity checks the chi-square comparison: relaxed and seq_cst
// store buffering differ (seq_cst forbids one outcome), two seeds of the
// same program do not.
func TestHomogeneity(t *testing.T) {
	rlx, err := litmus.ParseFile("../../protocols/litmus/testdata/SB+rlx.litmus")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := litmus.ParseFile("../../protocols/litmus/testdata/SB+sc.litmus")
	if err != nil {
		t.Fatal(err)
	}
	m := progtest.MustModel(t, "rc11")
	a, _ := simulateJSON(t, rlx, m, simulate.Options{Runs: 500, Seed: 1})
	b, _ := simulateJSON(t, rlx, m, simulate.Options{Runs: 500, Seed: 2})
	c, _ := simulateJSON(t, sc, m, simulate.Options{Runs: 500, Seed: 3})
	if d := simulate.Homogeneity(a, b); d.P < 0.01 {
		t.Errorf("two seeds of one program differ: p = %g", d.P)
	}
	if d := simulate.Homogeneity(a, c); d.P > 1e-6 || d.DF != 3 {
		t.Errorf("relaxed and seq_cst SB do not differ: p = %g, df %d", d.P, d.DF)
	}
}

// cancelling reports every outcome as a violation and cancels a context
// at its first: a simulation that is interrupted just as it finds one.
type cancelling struct{ cancel context.CancelFunc }

func (cancelling) Name() string { return "any" }

func (c cancelling) Judge(*explore.Outcome) (bool, *explore.Violation) {
	c.cancel()
	return true, &explore.Violation{Prop: "any", Msg: "every execution"}
}

// TestMinimizeInterrupted checks that an interrupted simulation does not
// go on to shrink its counterexample by an exhaustive search (of seconds
// here, dlsym with seven callers under rc11): Ctrl-C stops simulate
// --minimize at once, with the counterexample found.
func TestMinimizeInterrupted(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Instance("fixed", map[string]string{"N": "7"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	res, err := simulate.Run(inst.Prog, model.RC11, []checker.Property{cancelling{cancel}}, simulate.Options{Runs: 100, Minimize: true, Context: ctx,
		Minimized: func(string, int, int) { t.Errorf("a counterexample was shrunk after the interrupt") }})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second { // the search alone takes seconds; a loaded machine is slower
		t.Errorf("interrupted simulation took %v", took)
	}
	if !res.Interrupted || res.Runs != 1 || res.Witness("any") == nil {
		t.Errorf("interrupted after %d runs (interrupted %v), witness %v: want 1 run and its counterexample", res.Runs, res.Interrupted, res.Witness("any"))
	}
}
