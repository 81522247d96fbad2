package lang

import (
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
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
		{"unknown name", proto("spec { state n = 0\n op get { require resul == n } }"), "7:19: resul is neither a state variable of the spec, a parameter nor result (did you mean result?)"},
		{"assign a non-state", proto("spec { state n = 0\n op get { m = 1 } }"), "7:11: m is not a state variable of the spec"},
		{"assign the result", proto("spec { state n = 0\n op get { result = 1 } }"), "7:11: result is what the operation returned: a spec reads it"},
		{"memory in a spec", proto("spec { op get { store(x, 1, rlx) } }"), "6:23: x is not a state variable of the spec"},
		{"lock in a spec", proto("spec { op get { lock(m) } }"), "6:17: a spec's operation may only assign its state"},
		{"store to a sequence", proto("spec { state q = []\n op get { store(q, 1, rel) } }"), "7:17: q is not an integer"},
		{"acquire on a write", proto("spec { state q = []\n op get { push_back(q, 1, acq) } }"), "7:27: acq is not an ordering for a write of a spec's state"},
		{"release on a read", proto("spec { state n = 0\n op get { require load(n, rel) == 0 } }"), "7:27: rel is not an ordering for a read"},
		{"unknown built-in", proto("spec { state q = []\n op get { require pop(q) == 0 } }"), "7:19: pop is not a built-in of a spec"},
		{"built-in for nothing", proto("spec { state q = []\n op get { len(q) } }"), "7:11: len changes nothing"},
		{"set as an integer", proto("spec { state s = {}\n op get { require s == 0 } }"), "7:19: s is not an integer"},
		{"index of a state", proto("spec { state n = 0\n op get { require n[0] == 0 } }"), "7:19: a spec indexes only its result"},
		{"parameters differ", proto("spec { op get(v) { } }"), "takes 0 argument(s) here and 1 in the spec"},
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

// TestSpecSteps checks what the built-ins of a specification's state do,
// step by step: the results they accept, the state they leave and the
// synchronisation they promise.
func TestSpecSteps(t *testing.T) {
	const src = `protocol objects
thread t {
  op get {
    return 0
  }
}
spec {
  state stack = [], queue = [7], set = {3, 1}, reg = 0
  op push(v) { push_back(stack, v, rel) }
  op pop returns 0 "empty", any {
    if len(stack) == 0 {
      require result == 0
    } else {
      require result == pop_back(stack, acq)
    }
  }
  op enq(v) { push_back(queue, v) }
  op deq { require result == pop_front(queue, acq) }
  op add(v) returns 0, 1 { require result == !contains(set, v); insert(set, v, rel) }
  op del(v) returns 0, 1 { require result == remove(set, v, acq) }
  op write(v) { store(reg, v, rel) }
  op read { require result == load(reg, acq) }
  op move { store(reg, pop_back(stack, acq), rel) }
  op pair { require result == reg && result[1] == len(stack) }
  op get { }
}
`
	pr, err := Parse("objects.oc", src)
	if err != nil {
		t.Fatal(err)
	}
	s := pr.Spec
	op := func(name string, args []int64, results ...int64) model.Operation {
		return model.Operation{Name: name, Args: args, Results: results}
	}
	for _, tc := range []struct {
		name  string
		ops   []model.Operation
		state string // after the last step; "" when it is refused
		needs []int  // what the last step promises
	}{
		{"push, pop", []model.Operation{op("push", []int64{5}), op("pop", nil, 5)}, "stack=[] queue=[7] set={1 3} reg=0", []int{0}},
		{"pop empty", []model.Operation{op("pop", nil, 0)}, "stack=[] queue=[7] set={1 3} reg=0", nil},
		{"pop a value never pushed", []model.Operation{op("pop", nil, 4)}, "", nil},
		{"last in, first out", []model.Operation{op("push", []int64{1}), op("push", []int64{2}), op("pop", nil, 1)}, "", nil},
		{"first in, first out", []model.Operation{op("enq", []int64{8}), op("deq", nil, 7)}, "stack=[] queue=[8] set={1 3} reg=0", nil},
		{"a relaxed enqueue publishes nothing", []model.Operation{op("enq", []int64{8}), op("deq", nil, 7), op("deq", nil, 8)}, "stack=[] queue=[] set={1 3} reg=0", nil},
		{"set", []model.Operation{op("add", []int64{2}, 1), op("del", []int64{2}, 1)}, "stack=[] queue=[7] set={1 3} reg=0", []int{0}},
		{"set refuses a second add", []model.Operation{op("add", []int64{3}, 1)}, "", nil},
		{"register", []model.Operation{op("write", []int64{4}), op("read", nil, 4)}, "stack=[] queue=[7] set={1 3} reg=4", []int{0}},
		{"a write publishes what it acquired", []model.Operation{op("push", []int64{5}), op("move", nil), op("read", nil, 5)}, "stack=[] queue=[7] set={1 3} reg=5", []int{0, 1}},
		{"a write publishes only what it acquired", []model.Operation{op("push", []int64{5}), op("pop", nil, 5), op("write", []int64{1}), op("read", nil, 1)}, "stack=[] queue=[7] set={1 3} reg=1", []int{2}},
		{"pairs", []model.Operation{op("write", []int64{4}), op("push", []int64{9}), op("pair", nil, 4, 1)}, "stack=[9] queue=[7] set={1 3} reg=4", nil},
		{"a pair refused", []model.Operation{op("pair", nil, 0, 1)}, "", nil},
		{"an operation it lacks", []model.Operation{op("put", nil)}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &model.History{Ops: tc.ops}
			st := s.Init()
			var steps []model.SpecStep
			for i := range tc.ops {
				steps = s.Step(st, h, i)
				if len(steps) == 0 {
					break
				}
				st = steps[0].Next
			}
			if tc.state == "" {
				if len(steps) != 0 {
					t.Fatalf("accepted, leaving %s", s.DescribeState(steps[0].Next))
				}
				return
			}
			if len(steps) != 1 {
				t.Fatalf("%d ways, want one", len(steps))
			}
			if got := s.DescribeState(st); got != tc.state {
				t.Errorf("state %s, want %s", got, tc.state)
			}
			if got := steps[0].Needs.Members(); !slices.Equal(got, tc.needs) {
				t.Errorf("promises %v, want %v", got, tc.needs)
			}
		})
	}
	// A pending operation may have given any result it lists.
	h := &model.History{Ops: []model.Operation{{Name: "add", Args: []int64{3}, Pending: true}}}
	if steps := s.Step(s.Init(), h, 0); len(steps) != 1 {
		t.Errorf("pending add of a member: %d ways, want 1 (result 0)", len(steps))
	}
	h.Ops[0].Args = []int64{2}
	if steps := s.Step(s.Init(), h, 0); len(steps) != 1 || s.DescribeState(steps[0].Next) != "stack=[] queue=[7] set={1 2 3} reg=0" {
		t.Errorf("pending add of a new value: %v", steps)
	}
	if got := s.Describe(&model.Operation{Name: "pop", Results: []int64{0}}); got != "pop() -> empty" {
		t.Errorf("described %q", got)
	}
	if got := s.Describe(&model.Operation{Name: "pair", Results: []int64{1, 2}}); got != "pair() -> (1, 2)" {
		t.Errorf("described %q", got)
	}
	if got := s.Describe(&model.Operation{Name: "push", Args: []int64{3}, Pending: true}); got != "push(3) (pending)" {
		t.Errorf("described %q", got)
	}
}

// TestOperationDeclarations checks operations declared with parameters
// and called by threads, and several results: the markers carry the
// arguments and the results.
func TestOperationDeclarations(t *testing.T) {
	const src = `protocol ops
shared x = 0
op put(v) {
  store(x, v, rel)
  return v, v + 1
}
thread t {
  a = put(self + 3)
  assert ok: a == 3, "first result"
}
property ok
spec {
  op put(v) { require result == v && result[1] == v + 1 }
}
`
	pr, err := Parse("ops.oc", src)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Compile("", nil)
	if err != nil {
		t.Fatal(err)
	}
	var call, ret *model.Instr
	for i := range inst.Prog.Threads[0].Code {
		in := &inst.Prog.Threads[0].Code[i]
		switch in.Op {
		case model.OpCall:
			call = in
		case model.OpRet:
			ret = in
		}
	}
	if call == nil || ret == nil || len(call.Args) != 1 || len(ret.Args) != 2 || call.Msg != "put" {
		t.Fatalf("markers %v %v", call, ret)
	}
	for _, tc := range []struct{ name, src, want string }{
		{"nested", "protocol n\nthread t {\n  op a {\n    op b {\n    }\n  }\n}\n", "4:5: operation b inside operation a: operations do not nest"},
		{"nested through a call", "protocol n\nop b() {\n}\nthread t {\n  op a {\n    b()\n  }\n}\n", "6:5: operation b inside operation a"},
		{"results differ", "protocol n\nthread t {\n  op a {\n    if 1 == 1 {\n      return 1\n    }\n    return 1, 2\n  }\n}\n", "7:5: operation a returns 2 values here and 1 at"},
		{"procedure returns two", "protocol n\nproc f() {\n  return 1, 2\n}\nthread t {\n  r = f()\n  assert p: r == 1\n}\nproperty p\n", "3:13: procedure f returns one value"},
		{"an op block named as a declared op", "protocol n\nop a() {\n}\nthread t {\n  op a {\n  }\n}\n", "5:3: op a names an operation declared"},
		{"defined twice", "protocol n\nop a() {\n}\nproc a() {\n}\nthread t {\n  a()\n}\n", "4:1: a is already defined at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.name+".oc", tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestParseSpec checks a spec section read alone.
func TestParseSpec(t *testing.T) {
	s, err := ParseSpec("c.spec", "spec {\n  state n = 0\n  op inc { require result == n; n = n + 1 }\n}\n")
	if err != nil || len(s.Ops) != 1 {
		t.Fatalf("%v %v", s, err)
	}
	for _, tc := range []struct{ src, want string }{
		{"protocol p\n", "c.spec:1:1: expected a spec section"},
		{"spec { op inc { } }\nthread t { }\n", "c.spec:2:1: expected the end after the spec section"},
		{"spec { op inc { m = 1 } }", "c.spec:1:17: m is not a state variable"},
	} {
		if _, err := ParseSpec("c.spec", tc.src); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}
