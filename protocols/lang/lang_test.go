package lang

import (
	"errors"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/model"
)

const small = `protocol small "a small protocol"
param N = 2
param ORD = rel
variant plain ORD=rlx "relaxed" default
variant fenced "with a fence" { replace body { fence(sc) } }
shared x = 0
shared s { a = 1, b = 2 }
mutex m
property p "the property"
proc twice(v) { return v * 2 }
thread t[N] {
  block body { }
  store(x, twice(self) + 1, ORD)
  r = s.b
  q = &s
  w = q->b
  lock(m)
  unlock(m)
  assert p: r == w, "fields differ"
}
`

func TestCompile(t *testing.T) {
	pr, err := Parse("small.oc", small)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Compile("", map[string]string{"N": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if inst.Variant != "plain" || inst.ParamString() != "N=3 ORD=rlx" {
		t.Errorf("variant %s, params %s", inst.Variant, inst.ParamString())
	}
	p := inst.Prog
	if len(p.Threads) != 3 || p.Threads[2].Name != "t[2]" {
		t.Fatalf("threads: %v", p.Threads)
	}
	if l := p.LocIndex("s.b"); l == model.NoLoc || p.Locs[l].Init != 2 {
		t.Errorf("s.b: %v", p.Locs)
	}
	var ops []string
	for _, in := range p.Threads[1].Code {
		ops = append(ops, in.Op.String())
	}
	if got, want := strings.Join(ops, " "), "assign assign jump store load assign load lock unlock assert"; got != want {
		t.Errorf("t[1] compiles to %s, want %s\n%s", got, want, p)
	}
	f, err := pr.Compile("fenced", nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Prog.Threads[0].Code[0].Op != model.OpFence {
		t.Errorf("variant fenced does not replace block body:\n%s", f.Prog)
	}
}

func TestErrors(t *testing.T) {
	thread := func(body string) string {
		return "protocol e\nshared x = 0\nmutex m\nproperty p\nparam ORD = rel\nthread t {\n" + body + "\n}\n"
	}
	for _, tc := range []struct {
		name, src, variant string
		params             map[string]string
		want               string
	}{
		{"syntax", "protocol e\nthread t {\n  x = = 1\n}\n", "", nil, "3:7: expected an expression"},
		{"no header", "thread t { }", "", nil, "1:1: expected \"protocol\""},
		{"unknown variable", thread("  r = y"), "", nil, "7:7: unknown variable y"},
		{"rel load", thread("  r = load(x, rel)"), "", nil, "7:15: rel is not a valid ordering for a load"},
		{"rel load by parameter", thread("  r = load(x, ORD)"), "", nil, "7:15: rel (parameter ORD) is not a valid ordering for a load"},
		{"acq store", thread("  store(x, 1, acq)"), "", nil, "7:15: acq is not a valid ordering for a store"},
		{"bad ordering", thread("  store(x, 1, fast)"), "", nil, "\"fast\" is not an ordering"},
		{"unknown property", thread("  assert q: x == 0"), "", nil, "7:3: unknown property q"},
		{"unknown procedure", thread("  f()"), "", nil, "7:3: unknown procedure f"},
		{"lock a variable", thread("  lock(x)"), "", nil, "7:3: lock takes a mutex"},
		{"await on a read-modify-write", thread("  await fetch_add(x, 1, acq) == 3"), "", nil, "7:9: an await's condition may not make a read-modify-write (fetch_add)"},
		{"loop without max", thread("  while x == 0 {\n  }"), "", nil, "7:16: a loop needs a bound: while COND max K { ... }, K the rounds the exploration gives it; to wait until a condition holds, write await COND"},
		{"store without ordering", thread("  store(x, 1)"), "", nil, "7:3: store needs an ordering: store(x, v, rlx|rel|sc)"},
		{"load without ordering", thread("  r = load(x)"), "", nil, "7:7: load takes 1 value(s) and 1 ordering(s): load(x, rlx|acq|sc)"},
		{"fetch_add without ordering", thread("  r = fetch_add(x, 1)"), "", nil, "7:20: fetch_add needs an ordering last: fetch_add(x, v, rlx|acq|rel|acq_rel|sc)"},
		{"fence without ordering", thread("  fence()"), "", nil, "7:3: fence needs an ordering: fence(acq|rel|acq_rel|sc)"},
		{"assert without a property", thread("  assert x == 0, \"zero\""), "", nil, "7:3: assert needs a property name: assert NAME: cond, \"message\""},
		{"assert of a built-in property", "protocol e\nshared x = 0\nproperty data-race\nthread t {\n  assert data-race: x == 0\n}\n", "", nil, "5:3: data-race is a built-in property, which ordercheck checks itself"},
		{"misspelt ordering", thread("  store(x, 1, seqcst)"), "", nil, "\"seqcst\" is not an ordering (na, rlx, con, acq, rel, acq_rel, sc) or a parameter holding one (did you mean seq_cst?)"},
		{"misspelt keyword", "protocol e\nthraed t {\n}\n", "", nil, "2:1: expected param, variant, shared, struct, mutex, property, proc, op, thread, final, expect or spec, found \"thraed\" (did you mean thread?)"},
		{"misspelt block", "protocol e\nshared x = 0\nvariant v \"\" default {\n  replace slwo {\n  }\n}\nthread t {\n  block slow {\n    x = 1\n  }\n}\n", "v", nil, "replaces block slwo, which no thread has (did you mean slow?)"},
		{"read a mutex", thread("  r = m"), "", nil, "7:7: m is a mutex"},
		{"unknown parameter", thread("  x = 1"), "", map[string]string{"K": "1"}, "has no parameter \"K\""},
		{"unknown variant", thread("  x = 1"), "fast", nil, "has no variant \"fast\""},
		{"bad parameter value", thread("  x = 1"), "", map[string]string{"ORD": "sideways"}, "--param ORD: parameter ORD: \"sideways\" is neither"},
		{"integer for an ordering parameter", thread("  x = 1"), "", map[string]string{"ORD": "3"}, "--param ORD: parameter ORD holds an ordering, not the integer 3"},
		{"ordering for an integer parameter", "protocol e\nparam N = 2\nvariant a N=acq default\nthread t { }\n", "", nil, "3:13: parameter N holds an integer, not the ordering acq"},
		{"unknown struct field", "protocol e\nshared s { a = 0 }\nthread t {\n  r = s.z\n}\n", "", nil, "4:7: struct s has no field z"},
		{"misspelt struct field", "protocol e\nshared s { data = 0 }\nthread t {\n  r = s.dat\n}\n", "", nil, "4:7: struct s has no field dat (did you mean data?)"},
		{"misspelt procedure", "protocol e\nshared x = 0\nproc load_it() { x = 1 }\nthread t { load_i() }\n", "", nil, "4:12: unknown procedure load_i (did you mean load_it?)"},
		{"misspelt variant", "protocol e\nvariant fixed \"\" default\nthread t { }\n", "fxed", nil, "has no variant \"fxed\" (did you mean fixed?)"},
		{"misspelt parameter", "protocol e\nparam ORDER = rel\nthread t { }\n", "", map[string]string{"ORDR": "rlx"}, "has no parameter \"ORDR\" (did you mean ORDER?)"},
		{"recursion", "protocol e\nproc f() { f() }\nthread t {\n  f()\n}\n", "", nil, "2:12: procedure f calls itself"},
		{"two defaults", "protocol e\nvariant a \"\" default\nvariant b \"\" default\nthread t { }\n", "", nil, "exactly one variant must be marked default"},
		{"two shipped", "protocol e\nvariant a \"\" default shipped\nvariant b \"\" shipped\nthread t { }\n", "", nil, "3:9: variant b is marked shipped, as a is: at most one variant is the code as shipped"},
		{"variant of unknown param", "protocol e\nvariant a K=1 default\nthread t { }\n", "", nil, "2:13: unknown parameter K in variant a"},
		{"replace unknown block", "protocol e\nvariant a default { replace zz { } }\nthread t { }\n", "", nil, "2:32: variant a replaces block zz, which no thread has"},
		{"loop bound not constant", thread("  r = 0\n  while r < 1 max r { r = 1 }"), "", nil, "8:19: r is not a constant"},
		{"spawn unspawnable", "protocol e\nthread a { spawn b }\nthread b { }\n", "", nil, "2:12: thread b is not declared \"spawned\""},
		{"duplicate field", "protocol e\nshared s { a = 0, a = 1 }\nthread t { s.a = 1 }\n", "", nil, "2:19: field a of s is already declared"},
		{"duplicate procedure parameter", "protocol e\nshared x = 0\nproc f(a, a) { x = a }\nthread t { f(1, 2) }\n", "", nil, "3:11: procedure f has two parameters called a"},
		{"duplicate property", "protocol e\nshared x = 0\nproperty p\nproperty p\nthread t { x = 1 }\n", "", nil, "4:10: property p is already declared at e.oc:3:1"},
		{"spawn itself", "protocol e\nthread t spawned { spawn t }\nthread m { spawn t }\n", "", nil, "2:20: thread t spawns itself"},
		{"spawned twice through a procedure", "protocol e\nthread t spawned { }\nproc start() {\n  spawn t\n}\nthread m {\n  start()\n  start()\n}\n", "", nil, "4:3: thread t is already spawned at e.oc:4:3"},
		{"spawned by a procedure in a loop", "protocol e\nthread t spawned { }\nproc start() {\n  spawn t\n}\nthread m {\n  for i in 0..2 {\n    start()\n  }\n}\n", "", nil, "4:3: spawn t in a loop"},
		{"spawned twice", "protocol e\nthread t spawned { }\nthread m {\n  spawn t\n  spawn t\n}\n", "", nil, "5:3: thread t is already spawned at e.oc:4:3"},
		{"spawned by two threads", "protocol e\nthread t spawned { }\nthread m { spawn t }\nthread n { spawn t }\n", "", nil, "4:12: thread t is already spawned at e.oc:3:12"},
		{"spawned in a loop", "protocol e\nthread t spawned { }\nthread m {\n  for i in 0..2 { spawn t }\n}\n", "", nil, "4:19: spawn t in a loop"},
		{"spawned by every instance", "protocol e\nthread t spawned { }\nthread m[2] { spawn t }\n", "", nil, "3:15: every instance of thread m would spawn thread t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := Parse("e.oc", tc.src)
			if err == nil {
				_, err = pr.Compile(tc.variant, tc.params)
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			var le *Error
			if errors.As(err, &le) && !strings.HasPrefix(err.Error(), "e.oc:") && !strings.HasPrefix(err.Error(), "--param") {
				t.Errorf("located error without the file name: %v", err)
			}
		})
	}
}

// newSyntax uses arrays, break and continue, ?:, && over memory and
// final conditions over registers.
const newSyntax = `protocol n "new syntax"
param N = 2
variant a "" default
variant b "" { replace body { break } }
shared flag = 0
shared slots[N] = {1, 2}
shared ring[2] { seq = 0, val = 0 }
shared none[1]
property p
thread t[N] {
  i = load(flag, acq)
  for k in 0..N {
    if k == 1 { continue }
    v = flag == 1 && slots[i] == 2 ? ring[i].val : -1
    store(ring[self].seq, v, rel)
    while load(flag, acq) == 0 || none[0] max 2 { block body { continue } }
  }
  q = &ring[i]
  r = q->val
}
final p: t[0].r == 0 || slots[1] == 2 && ring[1].seq != 1
`

// TestFormatNewSyntax checks that the new constructs print as text that
// parses to the same programs.
func TestFormatNewSyntax(t *testing.T) {
	pr, err := Parse("n.oc", newSyntax)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse("printed.oc", pr.Format())
	if err != nil {
		t.Fatalf("%v\n%s", err, pr.Format())
	}
	if again.Format() != pr.Format() {
		t.Errorf("printing is not stable:\n%s\nthen\n%s", pr.Format(), again.Format())
	}
	for _, v := range []string{"a", "b"} {
		x, err := pr.Compile(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		y, err := again.Compile(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if x.Prog.String() != y.Prog.String() {
			t.Errorf("variant %s compiles differently after printing:\n%s\nvs\n%s", v, x.Prog, y.Prog)
		}
	}
}

// FuzzParse checks that no input makes the protocol parser or compiler
// panic or hang.
func FuzzParse(f *testing.F) {
	f.Add(small)
	f.Add(newSyntax)
	f.Add(small + "expect *: holds\nexpect plain with N=3 under sc, rc11: violates p (every execution)\n")
	f.Add(counter)
	f.Fuzz(func(t *testing.T, src string) {
		pr, err := Parse("f.oc", src)
		if err != nil {
			return
		}
		pr.Compile("", nil)
		pr.Expectations([]string{"sc", "rc11"})
		if pr.Spec != nil {
			m := pr.Spec.Model()
			for _, op := range pr.Spec.Ops {
				m.Step(m.Init(), op.Name, int64(1))
			}
		}
		if _, err := Parse("printed.oc", pr.Format()); err != nil {
			t.Fatalf("a parsed protocol prints as text that does not parse: %v\n%s", err, pr.Format())
		}
		out, err := FormatSource("f.oc", src)
		if err != nil {
			t.Fatalf("a parsed protocol does not format: %v", err)
		}
		if again, err := FormatSource("f.oc", out); err != nil || again != out {
			t.Fatalf("formatting is not idempotent (%v):\n%s\nthen\n%s", err, out, again)
		}
	})
}

// TestSpawnThroughProcedures checks that a spawn in a procedure stands
// where each call does: two calls in the two arms of an if start the
// thread at most once, and are accepted.
func TestSpawnThroughProcedures(t *testing.T) {
	src := "protocol e\nshared x = 0\nthread t spawned { }\nproc start() {\n  spawn t\n}\nthread m {\n  if x == 0 {\n    start()\n  } else {\n    start()\n  }\n}\n"
	if _, err := Parse("e.oc", src); err != nil {
		t.Fatal(err)
	}
}
