package checker_test

import (
	"path/filepath"
	"testing"

	"github.com/ordercheck/ordercheck/checker/checkertest"
)

// TestMemorySafety checks the heap protocols of testdata/memory: GenMC's
// tests/wrong/memory patterns, whose expectations are GenMC's verdicts,
// and the heap's checks written by hand. Each file's expect clauses hold,
// and under sc, tso and rc11 the state explorer (where the model has a
// machine for the program) and the graph explorer give the same verdict
// on every property.
func TestMemorySafety(t *testing.T) {
	files, err := filepath.Glob("testdata/memory/*.oc")
	if err != nil || len(files) < 8 {
		t.Fatalf("want the memory protocols, found %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			checkertest.Run(t, f)
			checkertest.SameVerdicts(t, f, "sc", "tso", "rc11")
		})
	}
}
