package dlsym

import (
	"testing"

	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/harness/harnesstest"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// TestImplementationsLinearize checks the recorded histories of every Go
// implementation against the protocol's sequential specification: on
// x86 (tso) even the racy cache hands out the initialised library.
func TestImplementationsLinearize(t *testing.T) {
	var cases []harnesstest.Expect
	for v := range Implementations { // with cgo, also the real loader's
		cases = append(cases, harnesstest.Expect{Config: harness.Config{Variant: v, Clients: 4, Rounds: 50, Seed: 1}, Linearizable: true})
	}
	pr, err := lang.Parse("dlsym.oc", Source)
	if err != nil {
		t.Fatal(err)
	}
	harnesstest.CheckStress(t, *pr.Spec.Model(), Stress, cases)
}

// TestRaceWitness runs a stress of the configuration TestEvidence passes
// it, under the race detector.
func TestRaceWitness(t *testing.T) { harnesstest.RaceWitness(t, Stress) }
