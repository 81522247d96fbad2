package graphs_test

import (
	"context"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

// speculate explores p under m by speculation, as the models that allow
// load buffering are, whatever m is.
func speculate(p *model.Program, m *model.Model, opt explore.Options, visit func(*explore.Execution)) (explore.Stats, error) {
	return graphs.Speculate(engine.NewRunner(p, m, engine.Config{Options: opt}, visit))
}

// TestSpeculation checks the explorer of the models that allow load
// buffering against the optimised one under the models that do not, where
// every execution is built in po ∪ rf order: speculating finds exactly the
// same executions. Under arm and riscv, TestExplorerMatchesAxioms checks
// it against candidates enumerated as herd7 does.
func TestSpeculation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.LitmusSized)
		for _, name := range []string{"sc", "tso", "rc11", "rc11-consume"} {
			m := progtest.MustModel(t, name)
			_, fast := progtest.Outcomes(t, p, m, checker.Explore)
			_, spec := progtest.Outcomes(t, p, m, speculate)
			progtest.Same(t, p, name+": the explorer", fast, "speculation", spec)
		}
	})
}

// TestLoadBufferingProbe checks the shortcut of the models that allow
// load buffering: when the search for HMC's load-buffering revisits finds
// none, the explorer builds executions in po ∪ rf order, and they must be
// exactly those speculation builds (which TestExplorerMatchesAxioms holds
// to herd7's enumeration). It counts the programs the shortcut took, so
// that the law is not vacuous.
func TestLoadBufferingProbe(t *testing.T) {
	free, total := 0, 0
	for _, spec := range []struct {
		name string
		gen  progtest.Spec
	}{{"litmus-sized", progtest.LitmusSized}, {"protocol-sized", progtest.ProtocolSized}, {"dependent", progtest.Dependent}} {
		t.Run(spec.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p := progtest.Program(t, spec.gen)
				for _, name := range []string{"arm", "riscv"} {
					m := progtest.MustModel(t, name)
					ok, err := graphs.LoadBufferingFree(engine.NewRunner(p, m, engine.Config{}, nil))
					if err != nil {
						t.Fatal(err)
					}
					total++
					if !ok {
						continue
					}
					free++
					_, fast := progtest.Outcomes(t, p, m, checker.Explore)
					_, spec := progtest.Outcomes(t, p, m, speculate)
					progtest.Same(t, p, name+": the explorer (no load-buffering revisit found)", fast, "speculation", spec)
				}
			})
		})
	}
	if free == 0 || free == total {
		t.Errorf("the probe found load buffering possible in %d of %d programs: the law tests nothing", total-free, total)
	}
	t.Logf("%d of %d programs free of load-buffering revisits", free, total)
}

// TestGrowthMatchesFullCheck checks the graph explorer's incremental
// consistency check (model.Grown, from clocks kept per event) and its
// clock-found races against the models' full check: with Config.Verify,
// every graph the clocks decide is decided again from scratch, and a
// difference is an error. Random
// programs of every generator, and the herd7 corpus, under the models
// that keep clocks.
func TestGrowthMatchesFullCheck(t *testing.T) {
	var clocked []*model.Model
	for _, m := range model.All() {
		if m.Clocks {
			clocked = append(clocked, m)
		}
	}
	run := func(t interface{ Fatalf(string, ...any) }, p *model.Program) {
		for _, m := range clocked {
			cfg := engine.Config{Options: explore.Options{MaxGraphs: 50000}, Races: true, Verify: true}
			if _, err := graphs.Explore(engine.NewRunner(p, m, cfg, nil)); err != nil {
				t.Fatalf("%s: %v\n%s", m.Name, err, p)
			}
		}
	}
	t.Run("random", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			var p *model.Program
			switch rapid.IntRange(0, 3).Draw(t, "shape") {
			case 0:
				p = progtest.Program(t, rapid.SampledFrom([]progtest.Spec{progtest.LitmusSized, progtest.ProtocolSized, progtest.Large, progtest.ThreeLocs}).Draw(t, "size"))
			case 1:
				p = progtest.Guarded(t)
			case 2:
				p = progtest.Spawning(t) // a spawned thread goes on from its spawner's clock
			default:
				p = progtest.Chain(t)
			}
			run(t, p)
		})
	})
	t.Run("corpus", func(t *testing.T) {
		for _, f := range progtest.LitmusFiles(t) {
			p, err := litmus.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			run(t, p)
		}
	})
}

// TestSpeculationStopsInTime checks that speculation, the explorer of
// arm and riscv for programs that may buffer loads, honours a timeout and
// a cancellation within a second on a program whose speculation takes
// minutes: the Treiber stack of the examples with two pushers and a
// popper (its search once ran past both, stopping only at leaves it never
// reached). Checked as a user would, the same program finishes in a
// moment: no load buffering is possible in it, so its executions are
// built in po ∪ rf order. -short checks arm alone (the two models share
// the speculation; each bound costs its seconds).
func TestSpeculationStopsInTime(t *testing.T) {
	pr, err := protocols.Load("../../../protocols/examples/treiber.oc")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Instance("fixed", map[string]string{"POPS": "1"})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"arm", "riscv"}
	if testing.Short() {
		names = names[:1]
	}
	for _, name := range names {
		m := progtest.MustModel(t, name)
		t.Run(name+"/timeout", func(t *testing.T) {
			start := time.Now()
			st, err := speculate(inst.Prog, m, explore.Options{Timeout: 2 * time.Second}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 3*time.Second || st.Limit != explore.Timeout {
				t.Errorf("stopped after %v by %s, want the timeout within 3 s", took, st.Limit)
			}
		})
		t.Run(name+"/cancel", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			start := time.Now()
			st, err := speculate(inst.Prog, m, explore.Options{Context: ctx}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 2*time.Second || st.Limit != explore.Interrupted {
				t.Errorf("stopped after %v by %s, want the cancellation within a second", took, st.Limit)
			}
		})
		t.Run(name+"/check", func(t *testing.T) {
			rep, err := inst.Check(m, explore.Options{Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict() != checker.VerdictVerified {
				t.Errorf("%s (%s), want verified", rep.VerdictText(), rep.Stats.LimitText())
			}
		})
	}
}
