package cluster

import (
	"testing"

	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/harness/harnesstest"
	"github.com/ordercheck/ordercheck/protocols/wamr"
)

// TestImplementationsLinearize stresses every Go variant and checks what
// the model predicts: the plain and the atomic swap both lose an exception
// spread into the callee's instance after the transfer; PR #2685 and
// exceptions kept in the exec_env do not.
func TestImplementationsLinearize(t *testing.T) {
	cfg := func(v string) harness.Config {
		return harness.Config{Variant: v, Clients: 4, Rounds: 200, Seed: 1}
	}
	harnesstest.CheckStress(t, wamr.Spec, Stress, []harnesstest.Expect{
		{Config: cfg("original"), Linearizable: false},
		{Config: cfg("pr2685"), Linearizable: true},
		{Config: cfg("atomic-acqrel"), Linearizable: false},
		{Config: cfg("exc-in-env"), Linearizable: true},
	})
}

// TestRaceWitness runs a stress of the configuration TestEvidence passes
// it, under the race detector.
func TestRaceWitness(t *testing.T) { harnesstest.RaceWitness(t, Stress) }
