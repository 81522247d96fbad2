package lang

import (
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// counter is a protocol with a stateful specification: a counter whose
// increments return the old value, and a reset.
const counter = `protocol counter "a fetch-and-add counter"
shared c = 0
property linearizability
thread t[2] {
  op inc {
    v = fetch_add(c, 1, rlx)
    return v
  }
}
thread r {
  op reset {
    store(c, 0, rlx)
  }
}
spec {
  state n = 0, resets = 0
  op inc {
    require result == n
    n = n + 1
  }
  op reset returns 0 "reset" {
    n = 0
    resets = resets + 1
  }
}
`

func TestSpecModel(t *testing.T) {
	pr, err := Parse("counter.oc", counter)
	if err != nil {
		t.Fatal(err)
	}
	m := pr.Spec.Model()
	op := func(client int, name string, out, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: name, Output: out, Call: call, Return: ret}
	}
	for _, tc := range []struct {
		name string
		h    []porcupine.Operation
		ok   bool
	}{
		{"in order", []porcupine.Operation{op(0, "inc", 0, 0, 1), op(1, "inc", 1, 2, 3)}, true},
		{"a value twice", []porcupine.Operation{op(0, "inc", 0, 0, 1), op(1, "inc", 0, 2, 3)}, false},
		{"overlapping, either order", []porcupine.Operation{op(0, "inc", 1, 0, 3), op(1, "inc", 0, 1, 2)}, true},
		{"after a reset", []porcupine.Operation{op(0, "inc", 0, 0, 1), op(2, "reset", 0, 2, 3), op(1, "inc", 0, 4, 5)}, true},
		{"a result outside returns", []porcupine.Operation{op(2, "reset", 1, 0, 1)}, false},
		{"an operation the spec lacks", []porcupine.Operation{op(0, "dec", 0, 0, 1)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := porcupine.CheckOperations(*m, tc.h); got != tc.ok {
				t.Errorf("linearizable %v, want %v", got, tc.ok)
			}
		})
	}
	if got := m.DescribeOperation("reset", int64(0)); got != "reset() -> reset" {
		t.Errorf("described %q", got)
	}
	if got := m.DescribeOperation("inc", int64(3)); got != "inc() -> 3" {
		t.Errorf("described %q", got)
	}
	ok, st := m.Step(m.Init(), "inc", int64(0))
	if !ok || m.DescribeState(st) != "n=1 resets=0" {
		t.Errorf("step: %v, state %s", ok, m.DescribeState(st))
	}
	if m.Partition == nil {
		t.Error("a spec with state partitions histories by object")
	}
	stateless, err := Parse("s.oc", "protocol s\nthread t { op get { return 42 } }\nspec { op get returns 42 { } }\n")
	if err != nil {
		t.Fatal(err)
	}
	if sm := stateless.Spec.Model(); sm.Partition != nil || !sm.Equal(sm.Init(), sm.Init()) {
		t.Error("a spec without state is judged one operation at a time: no partition, and its one state equal to itself")
	}
}

func TestSpecErrors(t *testing.T) {
	proto := func(spec string) string {
		return "protocol e\nshared x = 0\nthread t {\n  op get { return x }\n}\n" + spec + "\n"
	}
	for _, tc := range []struct{ name, src, want string }{
		{"second spec", proto("spec { op get { } }\nspec { op get { } }"), "7:1: a second spec section (the first is at e.oc:6:1)"},
		{"state twice", proto("spec { state a = 0, a = 1\n op get { } }"), "6:21: state variable a is already declared at e.oc:6:14"},
		{"result as state", proto("spec { state result = 0\n op get { } }"), "6:14: result names an operation's result"},
		{"operation twice", proto("spec { op get { }\n op get { } }"), "7:5: operation get is already specified at e.oc:6:11"},
		{"result twice", proto("spec { op get returns 1, 1 { } }"), "operation get lists the result 1 twice"},
		{"unspecified operation", proto("spec { op got { } }"), "4:3: operation get is not in the spec at e.oc:6:1 (it specifies got) (did you mean"},
		{"unknown name", proto("spec { state n = 0\n op get { require resul == n } }"), "7:19: resul is neither a state variable of the spec nor result (did you mean result?)"},
		{"assign a non-state", proto("spec { state n = 0\n op get { m = 1 } }"), "7:11: m is not a state variable of the spec"},
		{"memory in a spec", proto("spec { op get { store(x, 1, rlx) } }"), "6:17: a spec's operation may only assign its state"},
		{"shared variable in a spec", proto("spec { op get { require x == 0 } }"), "6:25: x is neither a state variable"},
		{"not a number", proto("spec { state n = zero\n op get { } }"), "6:18: expected an integer"},
		{"unknown section", proto("spec { rule get { } }"), "6:8: expected state or op in a spec"},
		{"unterminated", proto("spec { op get { }"), "6:1: unterminated spec"},
		{"require in a thread", "protocol e\nthread t {\n  require 1\n}\n", "3:3: require belongs in a spec's operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("e.oc", tc.src)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestSpecFormat checks that a spec prints as text that parses to the
// same spec.
func TestSpecFormat(t *testing.T) {
	pr, err := Parse("counter.oc", counter)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse("printed.oc", pr.Format())
	if err != nil {
		t.Fatalf("%v\n%s", err, pr.Format())
	}
	if again.Format() != pr.Format() || !strings.Contains(pr.Format(), "\nspec {\n  state n = 0\n") {
		t.Errorf("printing is not stable:\n%s\nthen\n%s", pr.Format(), again.Format())
	}
}
