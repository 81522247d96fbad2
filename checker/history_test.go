package checker_test

import (
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestHistory checks the operation histories the explorer derives from the
// dlsym protocol's call markers: one operation per caller, returning what
// the caller read, each ordered after another only if the other's call
// happens before its return, and linearizable exactly when every call
// returned 42.
func TestHistory(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"unordered", "fixed"} {
		t.Run(variant, func(t *testing.T) {
			inst, err := pr.Instance(variant, nil)
			if err != nil {
				t.Fatal(err)
			}
			props := pr.Properties()
			stale := 0
			_, err = checker.Explore(inst.Prog, progtest.MustModel(t, "rc11"), explore.Options{}, func(e *explore.Execution) {
				h := checker.History(e)
				if len(h.Ops) != 2 {
					t.Fatalf("%d operations, want one per caller", len(h.Ops))
				}
				all42 := true
				for i, op := range h.Ops {
					if op.Name != "call" || op.Pending || op.Call.I >= op.Ret.I || op.Call.T != op.Ret.T {
						t.Fatalf("bad operation %+v", op)
					}
					all42 = all42 && op.Result() == 42
					if h.Before[i].Has(i) || h.Sync[i].Has(i) {
						t.Fatalf("operation %d is before itself: %v %v", i, h.Before[i], h.Sync[i])
					}
					for _, a := range h.Before[i].Members() {
						if !h.Sync[i].Has(a) {
							t.Fatalf("%d returns before %d is called but is not called before it returns", a, i)
						}
					}
				}
				if !all42 {
					stale++
				}
				lin := true
				for _, v := range checker.Judge(e, props) {
					lin = lin && v.Prop != checker.PropLinearizability
				}
				if lin != all42 {
					t.Errorf("linearizable %v, but every call returned 42: %v", lin, all42)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if (stale > 0) != (variant == "unordered") {
				t.Errorf("%d executions returned a stale value under rc11", stale)
			}
		})
	}
}
