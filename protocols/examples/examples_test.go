package examples_test

import (
	"path/filepath"
	"testing"

	"github.com/ordercheck/ordercheck/checker/checkertest"
)

// TestExamples checks every example protocol's expect clauses, a subtest
// per file, variant and model.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("*.oc")
	if err != nil || len(files) != 12 {
		t.Fatalf("want the twelve example protocols, found %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) { checkertest.Run(t, f) })
	}
}
