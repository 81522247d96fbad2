package c_test

import (
	"path/filepath"
	"testing"

	"github.com/ordercheck/ordercheck/checker/checkertest"
)

// TestPrograms checks the C programs under testdata against their
// "// ordercheck: expect" clauses, and that both engines agree on them.
func TestPrograms(t *testing.T) {
	files, err := filepath.Glob("testdata/*.c")
	if err != nil || len(files) < 8 {
		t.Fatalf("want the C programs, found %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			checkertest.Run(t, f)
			checkertest.SameVerdicts(t, f, "sc", "tso", "rc11")
		})
	}
}
