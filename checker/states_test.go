package checker_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/c"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// TestStatesAtomicity checks, on programs whose every behaviour hangs on
// it, that the state explorer keeps read-modify-writes atomic, locks
// exclusive and a spawn after its parent's stores, under each memory: the
// same verdicts as the graph explorer (the random programs spawn nothing).
func TestStatesAtomicity(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"fetch-add", `
shared x = 0
thread t[3] {
  r = fetch_add(x, 1, rlx)
}
property count "no increment is lost"
final count: x == 3, "an increment was lost"`},
		{"lock", `
shared x = 0
mutex m
property count "no increment is lost"
thread t[3] {
  lock(m)
  r = x
  x = r + 1
  unlock(m)
}
final count: x == 3, "an increment was lost"`},
		{"cas", `
shared x = 0
shared won = 0
property one "one winner"
thread t[2] {
  ok = cas(x, 0, 1, rlx)
  if ok {
    r = fetch_add(won, 1, rlx)
  }
}
final one: won == 1, "not exactly one winner"`},
		{"spawn", `
shared x = 0
property seen "a spawned thread sees what its parent stored before"
thread parent {
  store(x, 1, rlx)
  spawn child
}
thread child spawned {
  r = load(x, rlx)
  assert seen: r == 1, "the child missed its parent's store"
}`},
	} {
		for _, m := range progtest.Machines() {
			t.Run(tc.name+"/"+m.Name, func(t *testing.T) {
				p, own := compileProtocol(t, tc.name, tc.src)
				props := checker.Properties(nil, append([]string{checker.PropDataRace, checker.PropDeadlock}, own...)...)
				want, err := checker.Check(p, m, props, explore.Options{Engine: explore.EngineDPOR})
				if err != nil {
					t.Fatal(err)
				}
				got, err := checker.Check(p, m, props, explore.Options{Engine: explore.EngineStates})
				if err != nil {
					t.Fatal(err)
				}
				for i := range want.Props {
					if got.Props[i].Status != want.Props[i].Status || want.Props[i].Status != checker.Holds {
						t.Errorf("%s: states %s, graphs %s (%s)", want.Props[i].Name, got.Props[i].Status, want.Props[i].Status, got.Props[i].Message)
					}
				}
			})
		}
	}
}

// TestOperationsEdges checks the state explorer's judging of operations
// one at a time where it must give way to whole histories: a bounded
// search that stops before the operation that shows the specification
// has state.
func TestOperationsEdges(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		bounds    []int64 // MaxGraphs of bounded runs, which must end cleanly
	}{
		{"bounded", `
shared x = 0
property early "fails first"
property linearizability
thread a {
  assert early: 0 == 1, "fails"
}
thread b {
  r = load(x, rlx)
  r2 = load(x, rlx)
  op put {
    return 1
  }
}
spec {
  state puts = 0
  op put { puts = puts + 1 }
}`, []int64{1, 2, 3}},
	} {
		for _, m := range progtest.Machines() {
			t.Run(tc.name+"/"+m.Name, func(t *testing.T) {
				pr, err := checker.Parse(tc.name+".oc", "protocol "+tc.name+"\n"+tc.src)
				if err != nil {
					t.Fatal(err)
				}
				inst, err := pr.Instance("", nil)
				if err != nil {
					t.Fatal(err)
				}
				props := pr.Properties()
				opt := explore.Options{Engine: explore.EngineStates}
				got, err := checker.Check(inst.Prog, m, props, opt)
				if err != nil {
					t.Fatal(err)
				}
				for by, check := range map[string]checkBy{
					"whole histories": wholeHistories(opt),
					"graphs":          checkWith(explore.Options{Engine: explore.EngineDPOR}),
				} {
					want, err := check(inst.Prog, m, props)
					if err != nil {
						t.Fatal(err)
					}
					for i, w := range want.Props {
						if g := got.Props[i]; g.Status != w.Status {
							t.Errorf("%s: one at a time %s (%s), by %s %s", w.Name, g.Status, g.Message, by, w.Status)
						}
					}
				}
				for _, bound := range tc.bounds {
					opt.MaxGraphs = bound
					rep, err := checker.Check(inst.Prog, m, props, opt)
					if err != nil {
						t.Fatalf("MaxGraphs %d: %v", bound, err)
					}
					for _, pr := range rep.Props {
						if pr.Status == checker.Violated && pr.Witness == nil {
							t.Errorf("MaxGraphs %d: %s violated without a witness", bound, pr.Name)
						}
					}
				}
			})
		}
	}
}

// compileProtocol compiles the protocol named name whose body is src and
// returns its program and the names of its properties.
func compileProtocol(t *testing.T, name, src string) (*model.Program, []string) {
	t.Helper()
	pr, err := lang.Parse(name+".oc", "protocol "+name+"\n"+src)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Compile("", nil)
	if err != nil {
		t.Fatal(err)
	}
	var props []string
	for _, pp := range pr.Props {
		props = append(props, pp.Name)
	}
	return inst.Prog, props
}

// checkBy is a way of checking a program's properties under a model.
type checkBy func(p *model.Program, m *model.Model, props []checker.Property) (*checker.Report, error)

// checkWith checks with opt.
func checkWith(opt explore.Options) checkBy {
	return func(p *model.Program, m *model.Model, props []checker.Property) (*checker.Report, error) {
		return checker.Check(p, m, props, opt)
	}
}

// wholeHistories checks with opt, linearizability on whole histories even
// where operations could be judged one at a time.
func wholeHistories(opt explore.Options) checkBy {
	return func(p *model.Program, m *model.Model, props []checker.Property) (*checker.Report, error) {
		return checker.CheckWholeHistories(p, m, props, opt)
	}
}

// TestDRFSCStates checks the state explorer's stand-in for RC11 on
// programs whose atomics are all seq_cst (checker.Report.Via): on random
// programs, with locks, plain accesses and awaits, as drawn, made so, or
// made so but for one access, the data-race
// and deadlock verdicts equal the graph explorer's under rc11, and where
// the stand-in applied (no race in the SC executions), rc11 has exactly
// sc's final states — DRF-SC itself, locks included, checked on the
// models' own explorations.
func TestDRFSCStates(t *testing.T) {
	rc11, sc := progtest.MustModel(t, "rc11"), progtest.MustModel(t, "sc")
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, rapid.SampledFrom([]progtest.Spec{progtest.LitmusSized, progtest.ProtocolSized}).Draw(t, "size"))
		// As drawn; every atomic seq_cst; or all but the first, where the
		// stand-in must not apply.
		mode := rapid.IntRange(0, 2).Draw(t, "mode")
		spare := mode == 2
		for i := range p.Threads {
			for k := range p.Threads[i].Code {
				in := &p.Threads[i].Code[k]
				switch {
				case mode == 0 || !in.Ord.Atomic() || in.Op == model.OpLock || in.Op == model.OpUnlock:
				case spare:
					spare = false
				default:
					in.Ord = model.SeqCst
					if in.FailOrd.Atomic() {
						in.FailOrd = model.SeqCst
					}
				}
			}
		}
		props := checker.Properties(nil, checker.PropDataRace, checker.PropDeadlock)
		want, err := checker.Check(p, rc11, props, explore.Options{Engine: explore.EngineDPOR, MaxGraphs: 50000})
		if err != nil {
			t.Fatal(err)
		}
		if !want.Stats.Exhaustive() {
			t.Skip("exploration exceeds the budget")
		}
		got, err := checker.Check(p, rc11, props, explore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want.Props {
			if g := got.Props[i]; g.Status != w.Status {
				t.Fatalf("%s: via %v %s, by graphs %s (%s) in\n%s", w.Name, got.Via, g.Status, w.Status, w.Message, p)
			}
		}
		if got.Via == nil {
			return
		}
		byRC11, _ := progtest.Outcomes(t, p, rc11, checker.Explore)
		bySC, _ := progtest.Outcomes(t, p, sc, checker.Explore)
		if k, ok := progtest.Subset(byRC11, bySC); !ok {
			t.Fatalf("explored under sc, rc11 has the final state %s sc has not:\n%s", k, p)
		}
		if k, ok := progtest.Subset(bySC, byRC11); !ok {
			t.Fatalf("sc has the final state %s rc11 has not:\n%s", k, p)
		}
	})
}

// TestDRFSCMixed checks that one weaker atomic keeps the stand-in away:
// message passing through a relaxed flag, with seq_cst data accesses, is
// race-free and correct under sc, yet rc11 lets the reader see the flag
// and not the data.
func TestDRFSCMixed(t *testing.T) {
	in := checkertest.Instance(t, `protocol mp
shared x = 0
shared y = 0
property seen
thread w {
  store(x, 1, sc)
  store(y, 1, rlx)
}
thread r {
  a = load(y, rlx)
  if a == 1 {
    b = load(x, sc)
    assert seen: b == 1
  }
}
`)
	rep, err := checker.Check(in.Prog, progtest.MustModel(t, "rc11"), checker.Properties(nil, checker.PropDataRace, "seen"), explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Via != nil || rep.Props[1].Status != checker.Violated {
		t.Errorf("explored via %v: seen %s, want violated", rep.Via, rep.Props[1].Status)
	}
}

// TestAssertBeforeFirstAction checks that an assertion a thread evaluates
// before any event of its own (one whose condition is constant) is
// reached, by both engines: the property holds, not "only vacuously".
func TestAssertBeforeFirstAction(t *testing.T) {
	pr, err := checker.Parse("fold.oc", "protocol fold\nproperty ok\nthread t {\n  assert ok: 1 == 1, \"always\"\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Instance("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range []explore.Engine{explore.EngineStates, explore.EngineDPOR} {
		rep, err := inst.Check(progtest.MustModel(t, "sc"), explore.Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		if p := rep.Props[0]; p.Status != checker.Holds || p.Reached == 0 || p.Message != "" {
			t.Errorf("by %s: %s, reached %d, %q", eng, p.Status, p.Reached, p.Message)
		}
	}
}

// TestAutoEngineByLocations checks that --engine auto explores by graphs
// a program of more than 256 locations, whose every state would hold
// them all (the C Treiber stack over a static pool of 768 nodes), and by
// states a small one, with the same verdicts.
func TestAutoEngineByLocations(t *testing.T) {
	pr, err := checker.LoadC("../protocols/c/testdata/pool.c", c.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("release", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range []explore.Engine{explore.EngineAuto, explore.EngineStates} {
		rep, err := checker.Check(in.Prog, progtest.MustModel(t, "rc11"), in.Protocol.Properties(), explore.Options{Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		want := eng
		if eng == explore.EngineAuto {
			want = explore.EngineDPOR
		}
		if rep.Engine != want || rep.Verdict() != checker.VerdictVerified {
			t.Errorf("%d locations, --engine %s: explored by %s, %s", len(in.Prog.Locs), eng, rep.Engine, rep.VerdictText())
		}
	}
	dl, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	small, err := dl.Instance("fixed", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := checker.Check(small.Prog, progtest.MustModel(t, "rc11"), small.Protocol.Properties(), explore.Options{}); err != nil || rep.Engine != explore.EngineStates {
		t.Errorf("dlsym by --engine auto: %v, %v", rep.Engine, err)
	}
}
