package dlsym

import (
	"os"
	"sort"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// TestImplementationsLinearize checks the recorded histories of every Go
// implementation against the protocol's sequential specification.
func TestImplementationsLinearize(t *testing.T) {
	var names []string
	for n := range Implementations {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, v := range names {
		t.Run(v, func(t *testing.T) {
			h := Stress(v, 4, 50, 1)
			switch porcupine.CheckOperationsTimeout(Spec, h, 10*time.Second) {
			case porcupine.Illegal:
				t.Errorf("the %s implementation's history is not linearizable", v)
			case porcupine.Unknown:
				t.Errorf("porcupine timed out: no verdict")
			}
		})
	}
}

// TestRaceWitness runs one stress round of the variant named by
// ORDERCHECK_RACE_VARIANT; TestRaceDetectorAgrees runs it under -race.
func TestRaceWitness(t *testing.T) {
	v := os.Getenv("ORDERCHECK_RACE_VARIANT")
	if v == "" {
		t.Skip("run by TestRaceDetectorAgrees under the race detector")
	}
	Stress(v, 4, 20, 1)
}
