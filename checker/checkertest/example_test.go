package checkertest_test

import (
	"testing"

	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/checker/explore"
)

// A package's protocols checked by go test: each cell the expect clauses
// of testdata/once.oc decide is a subtest, once.oc/VARIANT/MODEL.
func ExampleRun() {
	// In a _test.go file of the package:
	_ = func(t *testing.T) {
		checkertest.Run(t, "testdata/once.oc")
	}
}

// The same with a bound on each cell: a cell the bound cuts short has no
// verdict, and its subtest fails.
func ExampleRunOptions() {
	_ = func(t *testing.T) {
		checkertest.RunOptions(t, "testdata/once.oc", explore.Options{MaxGraphs: 1_000_000})
	}
}
