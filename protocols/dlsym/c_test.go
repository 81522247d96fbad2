package dlsym_test

import (
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestCAgrees holds the C program c/dlsym.c to the protocol dlsym.oc: the
// same variants, and under every model the same verdicts — its assertion
// is lib-init (linearizability has no counterpart in C).
func TestCAgrees(t *testing.T) {
	want, got := compare(t, "dlsym"), compare(t, "c/dlsym.c")
	checkertest.SameTable(t, got, want, map[string]string{"assertion": "lib-init"}, "linearizability")
}

// compare loads a protocol and compares its variants under every model.
func compare(t *testing.T, ref string) *checker.Comparison {
	t.Helper()
	p, err := protocols.Load(ref)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Compare(checker.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
