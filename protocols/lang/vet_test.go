package lang

import (
	"fmt"
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

// TestCompileBounds checks that procedure calls expanding exponentially,
// and threads of too many statements or registers, are refused where
// they cross the bound, quickly.
func TestCompileBounds(t *testing.T) {
	var expo strings.Builder
	expo.WriteString("protocol e\nshared x = 0\nproc f0() { x = 1 }\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&expo, "proc f%d() {\n  f%d()\n  f%d()\n}\n", i, i-1, i-1)
	}
	expo.WriteString("thread t { f39() }\n")
	var long strings.Builder
	long.WriteString("protocol l\nshared x = 0\nthread t {\n")
	for i := range MaxInstructions + 10 {
		fmt.Fprintf(&long, "  x = %d\n", i)
	}
	long.WriteString("}\n")
	var regs strings.Builder
	regs.WriteString("protocol r\nshared x = 0\nthread t {\n")
	for i := range MaxRegisters + 10 {
		fmt.Fprintf(&regs, "  r%d = x\n", i)
	}
	regs.WriteString("}\n")
	for _, tc := range []struct{ name, src, want string }{
		{"exponential calls", expo.String(), "e.oc:3:13: thread t has more than 65536 registers here (procedure calls expand at each call)"},
		{"long thread", long.String(), "e.oc:262148:3: thread t compiles to more than 262144 instructions here"},
		{"many registers", regs.String(), "e.oc:32772:3: thread t has more than 65536 registers here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("e.oc", tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
