package dlsym

import (
	"os"
	"os/exec"
	"sort"
	"strings"
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

// TestRaceDetectorAgrees checks that Go's race detector (ThreadSanitizer)
// reports a race in exactly the implementations whose model variant
// violates data-race: the plain cache, not the atomic, locked or uncached
// ones.
func TestRaceDetectorAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test -race in a subprocess")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("the race detector needs cgo and a C compiler")
	}
	racy := map[string]bool{"original": true, "fixed": false, "dcl": false, "nocache": false}
	for v, want := range racy {
		t.Run(v, func(t *testing.T) {
			cmd := exec.Command("go", "test", "-race", "-count=1", "-run", "^TestRaceWitness$", ".")
			cmd.Env = append(os.Environ(), "ORDERCHECK_RACE_VARIANT="+v, "CGO_ENABLED=1")
			out, _ := cmd.CombinedOutput()
			got := strings.Contains(string(out), "WARNING: DATA RACE")
			if got != want {
				t.Errorf("race detector reports a race: %v, the model says %v\n%s", got, want, out)
			}
		})
	}
}
