// Package harnesstest runs the catalogue's Go implementations in tests:
// histories checked by porcupine against a specification, and stress runs
// under Go's race detector in a subprocess.
package harnesstest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/harness"
)

// raceEnv carries the stress configuration to the subprocess.
const raceEnv = "ORDERCHECK_RACE_CONFIG"

// RaceWitness is the body of a package's TestRaceWitness: run by a
// RaceDetector, it stresses the configuration Races passed; run
// directly it skips. A deadlock ends the run; it is not what this test
// looks for.
func RaceWitness(t *testing.T, stress func(harness.Config) ([]porcupine.Operation, error)) {
	enc := os.Getenv(raceEnv)
	if enc == "" {
		t.Skip("run by the race detector tests in a subprocess under -race")
	}
	var cfg harness.Config
	if err := json.Unmarshal([]byte(enc), &cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := stress(cfg); err != nil && !errors.Is(err, harness.ErrDeadlock) {
		t.Fatal(err)
	}
}

// RaceDetector runs a package's TestRaceWitness, built once with the
// race detector, in subprocesses.
type RaceDetector struct {
	dir, binary string
}

// NewRaceDetector builds the test binary of the package in dir with go
// test -race into a temporary directory of t. It fails the test, rather
// than skipping it, when the race detector cannot run here (it needs cgo
// and a C compiler): a missing witness must not pass for agreement.
func NewRaceDetector(t testing.TB, dir string) *RaceDetector {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	rd := &RaceDetector{dir: abs, binary: filepath.Join(t.TempDir(), "witness.test")}
	cmd := exec.Command("go", "test", "-race", "-c", "-o", rd.binary, ".")
	cmd.Dir = abs
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -race could not build the witness (the race detector needs cgo and a C compiler such as gcc): %v\n%s", err, out)
	}
	return rd
}

// Races runs the witness stressing cfg and says whether Go's race
// detector (ThreadSanitizer) reported a data race, with its output.
func (rd *RaceDetector) Races(t testing.TB, cfg harness.Config) (bool, string) {
	t.Helper()
	enc, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rd.binary, "-test.run", "^TestRaceWitness$", "-test.count=1")
	cmd.Dir = rd.dir
	cmd.Env = append(os.Environ(), raceEnv+"="+string(enc))
	out, err := cmd.CombinedOutput()
	text := string(out)
	raced := strings.Contains(text, "WARNING: DATA RACE")
	if err != nil && !raced {
		t.Fatalf("the race witness failed without a race report: %v\n%s", err, text)
	}
	if err == nil && !strings.Contains(text, "PASS") {
		t.Fatalf("the race witness gave no verdict:\n%s", text)
	}
	return raced, text
}

// Expect is what a stress run of one configuration must show.
type Expect struct {
	harness.Config
	Linearizable bool // porcupine finds the history linearizable
	Deadlock     bool // a round blocks
}

// CheckStress stresses each case and checks porcupine's verdict on the
// history (a timeout fails: it is no verdict) and the deadlock watchdog.
func CheckStress(t *testing.T, spec porcupine.Model, stress func(harness.Config) ([]porcupine.Operation, error), cases []Expect) {
	for _, tc := range cases {
		name := tc.Variant
		for k, v := range tc.Params {
			name += "/" + k + "=" + v
		}
		t.Run(name, func(t *testing.T) {
			h, err := stress(tc.Config)
			if blocked := errors.Is(err, harness.ErrDeadlock); err != nil && !blocked {
				t.Fatal(err)
			} else if blocked != tc.Deadlock {
				t.Errorf("deadlock: %v, expected %v", err, tc.Deadlock)
			}
			switch porcupine.CheckOperationsTimeout(spec, h, 10*time.Second) {
			case porcupine.Unknown:
				t.Errorf("porcupine timed out: no verdict")
			case porcupine.Ok:
				if !tc.Linearizable {
					t.Errorf("the history of %d operations linearizes; expected a violation", len(h))
				}
			case porcupine.Illegal:
				if tc.Linearizable {
					t.Errorf("the history of %d operations does not linearize", len(h))
				}
			}
		})
	}
}
