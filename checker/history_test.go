package checker_test

import (
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker"
)

// TestHistory checks the operation histories the explorer derives from the
// dlsym protocol's call markers: one operation per caller, returning what
// the caller read, linearizable exactly when every call returned 42.
func TestHistory(t *testing.T) {
	pr, err := checker.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Instance("unordered", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := pr.Spec
	stale := 0
	_, err = checker.Explore(inst.Prog, mustModel(t, "rc11"), checker.Options{}, func(e *checker.Execution) {
		h := checker.History(e)
		if len(h) != 2 {
			t.Fatalf("%d operations, want one per caller", len(h))
		}
		all42 := true
		for _, op := range h {
			if op.Input != "call" || op.Call >= op.Return {
				t.Fatalf("bad operation %+v", op)
			}
			all42 = all42 && op.Output == int64(42)
		}
		if !all42 {
			stale++
		}
		if got := porcupine.CheckOperations(*spec, h); got != all42 {
			t.Errorf("linearizable %v, but every call returned 42: %v", got, all42)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if stale == 0 {
		t.Error("no execution returned a stale value under rc11")
	}
}
