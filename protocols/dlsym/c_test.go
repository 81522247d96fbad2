package dlsym_test

import (
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestCAgrees holds the C program c/dlsym.c to the protocol dlsym.oc: the
// same variants, and under every model the same verdicts — its assertion
// is lib-init (linearizability has no counterpart in C).
func TestCAgrees(t *testing.T) {
	oc, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	c, err := protocols.Load("c/dlsym.c")
	if err != nil {
		t.Fatal(err)
	}
	want, err := oc.Compare(checker.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Compare(checker.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cases) != len(want.Cases) || len(got.Models) != len(want.Models) {
		t.Fatalf("%d variants × %d models, dlsym.oc has %d × %d", len(got.Cases), len(got.Models), len(want.Cases), len(want.Models))
	}
	same := map[string]string{"assertion": "lib-init", "data-race": "data-race", "deadlock": "deadlock"}
	for i, in := range got.Cases {
		if in.Variant != want.Cases[i].Variant {
			t.Fatalf("variant %d is %s, dlsym.oc's %s", i, in.Variant, want.Cases[i].Variant)
		}
		for j, m := range got.Models {
			for _, p := range got.Reports[i][j].Props {
				w := status(want.Reports[i][j], same[p.Name])
				if p.Status != w {
					t.Errorf("%s under %s: %s %v, dlsym.oc's %s %v", in.Variant, m, p.Name, p.Status, same[p.Name], w)
				}
			}
		}
	}
}

// status is the status of property name in r.
func status(r *checker.Report, name string) checker.Status {
	for _, p := range r.Props {
		if p.Name == name {
			return p.Status
		}
	}
	return checker.Unknown
}
