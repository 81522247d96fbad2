package execenv

import (
	"testing"

	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/harness/harnesstest"
	"github.com/ordercheck/ordercheck/protocols/wamr"
)

// TestImplementationsLinearize stresses every Go variant on both spawn
// paths and checks what the model predicts: the original swap loses an
// exception spread into the child instance, and the variants that hold
// cluster->lock across a trapping start (or instantiation) block.
func TestImplementationsLinearize(t *testing.T) {
	embedder := map[string]string{"SPAWN": "embedder"}
	cfg := func(v string, params map[string]string) harness.Config {
		return harness.Config{Variant: v, Params: params, Clients: 4, Rounds: 100, Seed: 1}
	}
	harnesstest.CheckStress(t, wamr.Spec, Stress, []harnesstest.Expect{
		{Config: cfg("original", nil), Linearizable: false},
		{Config: cfg("skip-start", nil), Linearizable: true},
		{Config: cfg("lock-across-start", nil), Linearizable: true, Deadlock: true},
		{Config: cfg("pr2685", nil), Linearizable: true},
		{Config: cfg("pr2882", nil), Linearizable: true},
		{Config: cfg("temp-env", nil), Linearizable: true},
		{Config: cfg("temp-env", map[string]string{"HWB": "0"}), Linearizable: true},
		{Config: cfg("start-in-child", nil), Linearizable: true},
		{Config: cfg("exc-in-env", nil), Linearizable: true},
		{Config: cfg("original", embedder), Linearizable: true, Deadlock: true},
		{Config: cfg("pr2685", embedder), Linearizable: true, Deadlock: true},
		{Config: cfg("pr2882", embedder), Linearizable: true},
	})
}

// TestRaceWitness runs a stress of the configuration TestEvidence passes
// it, under the race detector.
func TestRaceWitness(t *testing.T) { harnesstest.RaceWitness(t, Stress) }
