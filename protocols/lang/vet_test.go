package lang

import (
	"strings"
	"testing"
)

func TestVet(t *testing.T) {
	src := `protocol v "suspicious but legal"
param N = 2 "used as a count"
param UNUSED = 3 "read by nothing"
param ORD = rel "an ordering"
variant a "" default
variant b ORD=rel "the same as a"
variant c ORD=rlx "differs"
shared x = 0
property checked
property unchecked "nothing names it"
property linearizability
thread t[N] {
  store(x, 1, ORD)
  r = load(x, acq)
  assert checked: r >= 0
  while 1 max 3 {
    x = 2
  }
  while 1 max 3 {
    if r == 1 { break }
  }
}
`
	pr, err := Parse("v.oc", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range pr.Vet() {
		got = append(got, f.String())
	}
	want := []string{
		"v.oc:3:7: parameter UNUSED is never used",
		"v.oc:6:9: variant b compiles to the same program as variant a",
		"v.oc:10:1: property unchecked is never checked",
		"v.oc:11:1: property linearizability has no operation to check",
		"v.oc:16:3: this loop's condition is always true",
	}
	if len(got) != len(want) {
		t.Fatalf("findings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("finding %d: %q, want it to start with %q", i, got[i], want[i])
		}
	}
}
