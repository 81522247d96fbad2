package checker_test

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// withOperations makes each thread of p an operation — get, or put with
// an argument — returning one of its registers, sometimes after an
// operation with no visible step, so that p has histories to check for
// the linearizability property.
func withOperations(t *rapid.T, p *model.Program) *model.Program {
	for ti := range p.Threads {
		th := &p.Threads[ti]
		name := rapid.SampledFrom([]string{"get", "put"}).Draw(t, "op")
		var args []*model.Expr
		if name == "put" {
			args = []*model.Expr{model.Const(int64(rapid.IntRange(1, 2).Draw(t, "put's argument")))}
		}
		ret := model.Const(0)
		if len(th.Regs) > 0 {
			ret = model.RegExpr(model.Reg(rapid.IntRange(0, len(th.Regs)-1).Draw(t, "result")))
		}
		var code []model.Instr
		if rapid.Bool().Draw(t, "empty operation first") {
			// An operation with no visible step: it returns at once.
			code = append(code, model.Instr{Op: model.OpCall, Msg: "get", Dst: model.NoReg, Dst2: model.NoReg},
				model.Instr{Op: model.OpRet, Msg: "get", Args: []*model.Expr{model.Const(int64(rapid.IntRange(0, 2).Draw(t, "at once")))}, Dst: model.NoReg, Dst2: model.NoReg})
		}
		shift := len(code) + 1
		code = append(code, model.Instr{Op: model.OpCall, Msg: name, Args: args, Dst: model.NoReg, Dst2: model.NoReg})
		for _, in := range th.Code {
			if in.Op == model.OpBranch || in.Op == model.OpJump || in.Await {
				in.Target += shift
			}
			code = append(code, in)
		}
		th.Code = append(code, model.Instr{Op: model.OpRet, Msg: name, Args: []*model.Expr{ret}, Dst: model.NoReg, Dst2: model.NoReg})
	}
	return p
}

// specs are sequential specifications of get and put, in the protocol
// language: without state (each rejects one result), a counter of puts
// no get may exceed, a register whose get synchronises with the put it
// reads, and a queue of the puts' arguments whose gets take them in
// order, synchronising with their put.
var specs = []string{
	`spec {
  op get { require result != 1 }
  op put(v) { require result != 2 }
}`,
	`spec {
  state puts = 0
  op put(v) { puts = puts + 1 }
  op get { require result <= puts }
}`,
	`spec {
  state x = 0
  op put(v) { store(x, v, rel) }
  op get { require result == 0 || result == load(x, acq) }
}`,
	`spec {
  state q = []
  op put(v) { push_back(q, v, rel) }
  op get {
    if len(q) == 0 {
      require result == 0
    } else {
      require result == pop_front(q, acq)
    }
  }
}`,
}

// parseSpec compiles the spec section text.
func parseSpec(t interface{ Fatal(...any) }, text string) *lang.Spec {
	pr, err := lang.Parse("spec.oc", "protocol spec\nthread t {\n  op get {\n    return 0\n  }\n}\n"+text)
	if err != nil {
		t.Fatal(err)
	}
	return pr.Spec
}

// drawSpec draws one of specs; stateless says its operations leave its
// state as it was.
func drawSpec(t *rapid.T) (spec model.Spec, stateless bool) {
	k := rapid.IntRange(0, len(specs)-1).Draw(t, "spec")
	return parseSpec(t, specs[k]), k == 0
}

// linSized bounds the programs of the linearizability laws: three
// operations of up to three steps.
var linSized = progtest.Spec{Threads: 3, Instrs: 3, Locs: 2, Locks: true}

// TestLinearizabilityEnginesAgree checks that every engine computes the
// one definition of linearizability (model.Linearize over the model's
// happens-before) on random programs whose threads are operations, under
// every model: the state explorer judging operations one at a time and on
// whole histories, the graph explorer, and the reference explorer's
// executions judged one by one give the same verdict, and a witness shows
// the violation again when judged alone.
func TestLinearizabilityEnginesAgree(t *testing.T) {
	for _, m := range model.All() {
		t.Run(m.Name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p := withOperations(t, progtest.Program(t, linSized))
				if m.Machine != nil {
					p = progtest.WithTwins(t, p)
					progtest.Explorable(p, m)
				}
				spec, _ := drawSpec(t)
				props := checker.Properties(spec, checker.PropLinearizability, checker.PropDeadlock)
				verdicts := map[string]checker.Status{}
				ref, err := checker.ExploreReference(p, m, explore.Options{MaxGraphs: 3000}, func(e *explore.Execution) {
					for _, v := range checker.Judge(e, props[:1]) {
						if v.Prop == checker.PropLinearizability {
							verdicts["reference"] = checker.Violated
						}
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				if !ref.Exhaustive() {
					t.Skip("exploration exceeds the budget")
				}
				if verdicts["reference"] != checker.Violated {
					verdicts["reference"] = checker.Holds
				}
				checks := map[string]checkBy{"graphs": checkWith(explore.Options{Engine: explore.EngineDPOR})}
				if m.Machine != nil {
					checks["states"] = checkWith(explore.Options{Engine: explore.EngineStates})
					checks["states, whole histories"] = wholeHistories(explore.Options{Engine: explore.EngineStates})
				}
				for by, check := range checks {
					rep, err := check(p, m, props)
					if err != nil {
						t.Fatalf("%s: %v\n%s", by, err, p)
					}
					if !rep.Stats.Exhaustive() {
						t.Skip("exploration exceeds the budget")
					}
					pr := rep.Props[0]
					if pr.Status != verdicts["reference"] {
						t.Fatalf("linearizability by %s: %s (%s); by the reference explorer's executions: %s\n%s", by, pr.Status, pr.Message, verdicts["reference"], p)
					}
					if pr.Status != checker.Violated {
						continue
					}
					if pr.Witness == nil {
						t.Fatalf("%s: violated without a witness", by)
					}
					again := checker.Judge(pr.Witness.Execution, props[:1])
					if len(again) == 0 || again[0].Msg != pr.Witness.Violation.Msg {
						t.Fatalf("%s: the witness judged alone gives %v, not %q", by, again, pr.Witness.Violation.Msg)
					}
				}
			})
		})
	}
}

// TestLinearizeTextbook checks objects written in the protocol language
// whose verdicts are derived by hand, under every model, by both engines
// where the model has a machine. Each case says why in its comment.
func TestLinearizeTextbook(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		// violated under the models named (by their names); holds under
		// the others. "weak" names every model but sc and tso.
		violated string
		why      string // a phrase the message must have, when violated
	}{
		// A flag published with a release store and read with an acquire
		// load: set happens before a take that returns 1, as the spec
		// promises; a take that returns 0 goes first.
		{"set-take rel/acq", setTake("rel", "acq"), "", ""},
		// The same with relaxed accesses gives the same results, but no
		// take synchronises with the set whose flag it read: clients of
		// the flag would race. Under every model: synchronisation is C11's
		// happens-before, the same for all.
		{"set-take relaxed", setTake("rlx", "rlx"), "sc tso rc11 rc11-consume arm riscv", "does not happen before b's take() -> 1 returns"},
		// A counter incremented by a load and a store, not an atomic
		// read-modify-write: two increments can both read 0 and return
		// it, under every model (SC interleaves them so too), and no
		// order of two increments returns 0 twice.
		{"lost update", `
shared c = 0
property linearizability
thread inc[2] {
  op inc {
    r = load(c, acq)
    store(c, r + 1, rel)
    return r
  }
}
spec {
  state n = 0
  op inc {
    require result == n
    n = n + 1
  }
}`, "sc tso rc11 rc11-consume arm riscv", "the specification refuses inc() -> 0"},
	} {
		for _, m := range model.All() {
			t.Run(tc.name+"/"+m.Name, func(t *testing.T) {
				pr, err := checker.Parse(tc.name+".oc", "protocol textbook\n"+tc.src)
				if err != nil {
					t.Fatal(err)
				}
				inst, err := pr.Instance("", nil)
				if err != nil {
					t.Fatal(err)
				}
				want := checker.Holds
				if strings.Contains(" "+tc.violated+" ", " "+m.Name+" ") {
					want = checker.Violated
				}
				engines := []explore.Engine{explore.EngineDPOR}
				if m.Machine != nil {
					engines = append(engines, explore.EngineStates)
				}
				for _, eng := range engines {
					rep, err := inst.Check(m, explore.Options{Engine: eng})
					if err != nil {
						t.Fatal(err)
					}
					lin := rep.Props[0]
					if lin.Status != want {
						t.Fatalf("by %s: %s (%s), want %s", eng, lin.Status, lin.Message, want)
					}
					if want == checker.Violated && !strings.Contains(lin.Message, tc.why) {
						t.Errorf("by %s: %q does not say %q", eng, lin.Message, tc.why)
					}
				}
			})
		}
	}
}

// setTake is the publish-once flag with the store's and the load's
// progtest.Orderings.
func setTake(store, load string) string {
	return `
shared x = 0
shared y = 0
property linearizability
thread a {
  op set {
    y = 1
    store(x, 1, ` + store + `)
    return 0
  }
}
thread b {
  op take {
    r = load(x, ` + load + `)
    return r
  }
}
spec {
  state n = 0
  op set { store(n, 1, rel) }
  op take returns 0, 1 { require result == load(n, acq) }
}`
}

// TestRelincheStack checks a Treiber stack against the three stack
// specifications of GenMC's Relinche suite (tests/correct/relinche/stack,
// GenMC v0.11.0, --check-lin-spec): pops synchronise with the push of
// their value (v), and also pushes with every earlier push (SYNC_INS, vi)
// or pops with every earlier pop (SYNC_REM, vr). GenMC's tb-stack (push:
// acquire load of top, relaxed store of next, release compare-exchange;
// pop: acquire load, release compare-exchange; top tagged with a
// counter) is linearizable against all three (tb-stack2x2: 42 executions
// each, 97, 84 and 111 hints checked), and so is ours with its progtest.Orderings
// and its counter, two pushers and two poppers, under sc, tso and rc11 by
// both engines. Without the counter a compare-exchange can succeed on an
// older write of the same value (top back at empty) while its acquire load
// read another: its read half is relaxed, and the push-to-push or
// pop-to-pop synchronisation is lost — GenMC's tb-stack-dyn, whose
// pointers carry no counter, fails vi and vr the same way (sync_fail:
// "does not induce all the synchronization required"), and so does ours.
// The textbook progtest.Orderings (a relaxed load in push, an acquire-only
// compare-exchange in pop) keep v but fail vi and vr even with the
// counter.
func TestRelincheStack(t *testing.T) {
	// top is a node number (1 or 2; 0: empty) plus 16 times the counter.
	impl := func(pushLoad, popCAS string, counter bool) string {
		tag := "(t / 16 + 1) * 16"
		if !counter {
			tag = "0"
		}
		return `
shared top = 0
shared node[2] { val = 0, next = 0 }
property linearizability
op push(v) {
  ok = 0
  while ok == 0 max 4 {
    t = load(top, ` + pushLoad + `)
    store(node[self].next, t % 16, rlx)
    ok = cas(top, t, self + 1 + ` + tag + `, rel, rlx)
  }
}
op pop() {
  while 1 max 4 {
    t = load(top, acq)
    i = t % 16
    if i == 0 {
      return 0
    }
    nx = load(node[i - 1].next, rlx)
    if cas(top, t, nx + ` + tag + `, ` + popCAS + `, rlx) == 1 {
      return node[i - 1].val
    }
  }
}
thread pusher[2] {
  node[self].val = self + 1
  push(self + 1)
}
thread popper[2] {
  r = pop()
}
`
	}
	specs := map[string]string{
		"v": `spec {
  state stack = []
  op push(v) { push_back(stack, v, rel) }
  op pop returns 0 "empty", any {
    if len(stack) == 0 { require result == 0 } else { require result == pop_back(stack, acq) }
  }
}`,
		"vi": `spec {
  state stack = [], pushes = 0
  op push(v) {
    store(pushes, load(pushes, acq) + 1, rel)
    push_back(stack, v, rel)
  }
  op pop returns 0 "empty", any {
    if len(stack) == 0 { require result == 0 } else { require result == pop_back(stack, acq) }
  }
}`,
		"vr": `spec {
  state stack = [], pops = 0
  op push(v) { push_back(stack, v, rel) }
  op pop returns 0 "empty", any {
    if len(stack) == 0 {
      require result == 0
    } else {
      require result == pop_back(stack, acq)
      store(pops, load(pops, acq) + 1, rel)
    }
  }
}`,
	}
	for _, tc := range []struct {
		name             string
		pushLoad, popCAS string
		counter          bool
		violated         map[string]bool // by spec
	}{
		{"genmc", "acq", "rel", true, nil},
		{"genmc without a counter", "acq", "rel", false, map[string]bool{"vi": true, "vr": true}},
		{"textbook", "rlx", "acq", true, map[string]bool{"vi": true, "vr": true}},
	} {
		for spec, text := range specs {
			for _, m := range []string{"sc", "tso", "rc11"} {
				t.Run(tc.name+"/"+spec+"/"+m, func(t *testing.T) {
					pr, err := checker.Parse("stack.oc", "protocol stack\n"+impl(tc.pushLoad, tc.popCAS, tc.counter)+text)
					if err != nil {
						t.Fatal(err)
					}
					inst, err := pr.Instance("", nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, eng := range []explore.Engine{explore.EngineStates, explore.EngineDPOR} {
						rep, err := inst.Check(progtest.MustModel(t, m), explore.Options{Engine: eng})
						if err != nil {
							t.Fatal(err)
						}
						lin := rep.Props[0]
						want := checker.Holds
						if tc.violated[spec] {
							want = checker.Violated
						}
						if lin.Status != want || want == checker.Violated && !strings.Contains(lin.Message, "lacks synchronisation") {
							t.Errorf("by %s: %s (%s), want %s", eng, lin.Status, lin.Message, want)
						}
					}
				})
			}
		}
	}
}
