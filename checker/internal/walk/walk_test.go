package walk

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
)

// finals returns the final states of every execution of p under m, by the
// graph explorer.
func finals(t interface{ Fatal(...any) }, p *model.Program, m *model.Model) map[string]bool {
	out := map[string]bool{}
	r := engine.NewRunner(p, m, engine.Config{Options: explore.Options{Workers: 1}}, func(e *explore.Execution) {
		out[fmt.Sprint(e.Final)] = true
	})
	if _, err := graphs.Explore(r); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWalksEndInReachableStates checks that every random walk, uniform or
// PCT, ends in a final state the exhaustive explorer finds, under sc, tso
// and rc11, on random programs.
func TestWalksEndInReachableStates(t *testing.T) {
	for _, m := range progtest.Machines() {
		t.Run(m.Name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p := progtest.Program(t, progtest.ProtocolSized)
				want := finals(t, p, m)
				cfg := Config{PCT: rapid.Bool().Draw(t, "pct"), Depth: rapid.IntRange(1, 3).Draw(t, "depth"), MaxSteps: 10000}
				rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
				for range 20 {
					e, err := Run(p, m, rng, cfg)
					if err != nil {
						t.Fatal(err)
					}
					if !want[fmt.Sprint(e.Final)] {
						t.Fatalf("a walk ended in %v, which no execution reaches", e.Final)
					}
				}
			})
		})
	}
}

// TestWalksReachEveryOutcome checks that uniform walks find each of store
// buffering's four outcomes under rc11 and only SC's three under sc, with
// fixed seeds (so the test is deterministic).
func TestWalksReachEveryOutcome(t *testing.T) {
	p := &model.Program{Locs: progtest.Locs(2)}
	for i := range 2 {
		th := model.Thread{Name: fmt.Sprint("P", i), Regs: []string{"r"}}
		th.Code = []model.Instr{progtest.Store(i, 1, model.Rlx), progtest.Load(0, 1-i, model.Rlx)}
		p.Threads = append(p.Threads, th)
	}
	for _, tc := range []struct {
		model string
		want  int
	}{{"sc", 3}, {"rc11", 4}} {
		t.Run(tc.model, func(t *testing.T) {
			m := progtest.MustModel(t, tc.model)
			all := finals(t, p, m)
			if len(all) != tc.want {
				t.Fatalf("the explorer finds %d final states, want %d", len(all), tc.want)
			}
			seen := map[string]bool{}
			rng := rand.New(rand.NewPCG(1, 2))
			for range 200 {
				e, err := Run(p, m, rng, Config{MaxSteps: 100})
				if err != nil {
					t.Fatal(err)
				}
				seen[fmt.Sprint(e.Final)] = true
			}
			if len(seen) != len(all) {
				t.Errorf("200 walks found %d of the %d final states", len(seen), len(all))
			}
		})
	}
}

// TestWalkStepBound checks that a walk longer than MaxSteps stops with an
// error that says so.
func TestWalkStepBound(t *testing.T) {
	p := &model.Program{Locs: progtest.Locs(1)}
	th := model.Thread{Name: "P0", Regs: []string{"r"}}
	for range 10 {
		th.Code = append(th.Code, progtest.Store(0, 1, model.Rlx))
	}
	p.Threads = append(p.Threads, th)
	_, err := Run(p, progtest.MustModel(t, "sc"), rand.New(rand.NewPCG(1, 1)), Config{MaxSteps: 5})
	if err == nil || !strings.Contains(err.Error(), "exceeded 5 steps") {
		t.Fatalf("got %v, want the step bound", err)
	}
}
