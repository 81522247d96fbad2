package checker_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
)

// TestSpawnLaws checks the explorers on programs that spawn a thread: the
// graph explorer finds the reference explorer's executions, and the state
// explorer the graph explorer's final states and race and deadlock
// verdicts, under sc, tso and rc11.
func TestSpawnLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Spawning(t)
		for _, name := range []string{"sc", "tso", "rc11", "rc11-consume"} {
			m := progtest.MustModel(t, name)
			_, fast := progtest.Outcomes(t, p, m, checker.Explore)
			_, ref := progtest.Outcomes(t, p, m, checker.ExploreReference)
			progtest.Same(t, p, name+": the reference", ref, "the explorer", fast)
			if checker.StatesUnsupported(p, m) != "" {
				continue
			}
			props := checker.Properties(nil, checker.PropDataRace, checker.PropDeadlock)
			byGraphs, err := checker.Check(p, m, props, explore.Options{Engine: explore.EngineDPOR, MaxGraphs: 50000})
			if err != nil {
				t.Fatal(err)
			}
			if !byGraphs.Stats.Exhaustive() {
				continue
			}
			byStates, err := checker.Check(p, m, props, explore.Options{Engine: explore.EngineStates})
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, p)
			}
			for i, want := range byGraphs.Props {
				if got := byStates.Props[i]; got.Status != want.Status {
					t.Fatalf("%s: %s: states say %s, graphs %s (%s) in\n%s", name, want.Name, got.Status, want.Status, want.Message, p)
				}
			}
		}
	})
}
