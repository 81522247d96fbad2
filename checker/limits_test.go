package checker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
)

// TestLimits checks that every bound stops cleanly, says which bound, and
// never yields a verdict; a check cancelled before it begins explores
// nothing.
func TestLimits(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	p := sbN(6)
	// The registers shown, so that the state explorer too finds many final
	// states (64) for the execution bound to cut.
	p.Final = &model.Final{Quant: model.Forall, Cond: &model.Cond{Kind: model.CTrue}}
	for ti := range p.Threads {
		p.Final.Show = append(p.Final.Show, model.Observable{Thread: ti, Reg: 0, Loc: model.NoLoc})
	}
	m := progtest.MustModel(t, "rc11")
	for _, engine := range []explore.Engine{explore.EngineDPOR, explore.EngineStates} {
		limits(t, p, m, engine, cancelled)
	}
}

func limits(t *testing.T, p *model.Program, m *model.Model, engine explore.Engine, cancelled context.Context) {
	for _, tc := range []struct {
		name  string
		opt   explore.Options
		limit explore.Limit
	}{
		{"executions", explore.Options{MaxExecutions: 1}, explore.MaxExecutions},
		{"graphs", explore.Options{MaxGraphs: 10}, explore.MaxGraphs},
		{"events", explore.Options{MaxEvents: 1}, explore.MaxEvents},
		{"interrupt", explore.Options{Context: cancelled}, explore.Interrupted},
		{"timeout", explore.Options{Timeout: time.Nanosecond}, explore.Timeout},
		{"memory", explore.Options{MaxMemory: 1}, explore.MaxMemory},
	} {
		t.Run(engine.String()+"/"+tc.name, func(t *testing.T) {
			tc.opt.Engine = engine
			rep, err := checker.Check(p, m, []checker.Property{checker.DataRace}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stats.Limit != tc.limit {
				t.Errorf("limit %s, want %s", rep.Stats.Limit, tc.limit)
			}
			if st := rep.Stats; tc.limit == explore.Interrupted && st.States+st.Graphs+st.Executions != 0 {
				// Cancelled before it began (a test run's cells left when
				// Ctrl-C comes): no analysis, no step.
				t.Errorf("an interrupted check explored %d states, %d graphs", st.States, st.Graphs)
			}
			if max := tc.opt.MaxExecutions; max > 0 && rep.Stats.Executions > max {
				t.Errorf("%d executions counted under a bound of %d", rep.Stats.Executions, max)
			}
			if v := rep.Verdict(); v == checker.VerdictVerified {
				t.Errorf("a bounded search gave the verdict %s", v)
			}
			if s := rep.Props[0].Status; s != checker.Unknown {
				t.Errorf("data-race is %s after a bounded search, want unknown", s)
			}
		})
	}
}

// TestLoopBound checks that only a loop whose bound cuts behaviour makes a
// verdict unknown, and that the report names that loop: a loop that
// may exit early, or run out of rounds while its flag is still unset (it
// counts its tries, so it is no spin loop, which would be a wait).
func TestLoopBound(t *testing.T) {
	spin := `
shared flag = 0
property done "the waiter sees the flag"
thread setter {
  store(flag, 1, rel)
}
thread waiter {
  f = load(flag, acq)
  tries = 0
  while f == 0 max 2 {
    f = load(flag, acq)
    tries = tries + 1
  }
  assert done: f == 1 && tries >= 0, "never saw the flag"
}`
	counted := `
shared x = 0
property done "the loop ran twice"
thread counter {
  i = 0
  while i < 2 max 3 {
    store(x, i, rlx)
    i = i + 1
  }
  assert done: i == 2, "the loop did not run twice"
}`
	p, own := compileProtocol(t, "counted", counted)
	for _, m := range progtest.Machines() {
		rep, err := checker.Check(p, m, checker.Properties(nil, own...), explore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict() != checker.VerdictVerified {
			t.Errorf("%s: a loop that ends by its condition gives %s (%s)", m.Name, rep.VerdictText(), rep.Stats.LimitText())
		}
	}
	p, own = compileProtocol(t, "spin", spin)
	for _, m := range progtest.Machines() {
		for _, eng := range []explore.Engine{explore.EngineDPOR, explore.EngineStates} {
			rep, err := checker.Check(p, m, checker.Properties(nil, own...), explore.Options{Engine: eng})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stats.Limit != explore.LoopBound || len(rep.Stats.Loops) != 1 || rep.Stats.Loops[0].Line != 11 {
				t.Errorf("%s by %s: limit %s at %v, want the loop of line 11", m.Name, eng, rep.Stats.Limit, rep.Stats.Loops)
			}
			if rep.Props[0].Status != checker.Unknown || !strings.Contains(rep.Props[0].Message, "spin.oc:11:3") {
				t.Errorf("%s by %s: %s %q", m.Name, eng, rep.Props[0].Status, rep.Props[0].Message)
			}
		}
	}
}

// racesOf is a property of a user's own, violated by an execution with a
// data race; declared says it declares that it needs them.
type racesOf struct{ declared bool }

func (racesOf) Name() string { return "my-races" }

func (racesOf) Judge(o *explore.Outcome) (bool, *explore.Violation) {
	if len(o.Races) > 0 {
		return true, &explore.Violation{Prop: "my-races", Msg: "a race"}
	}
	return o.End, nil
}

// declaredRaces declares what it reads.
type declaredRaces struct{ racesOf }

func (declaredRaces) Needs() checker.Needs { return checker.Needs{Races: true} }

// TestPropertyNeeds checks that properties declare what the engines must
// record: a property of the user's own that reads data races gets them
// when it says so, under both engines, without the built-in data-race
// property beside it; one that does not say so gets none (its verdict is
// about what it was given).
func TestPropertyNeeds(t *testing.T) {
	p, _ := compileProtocol(t, "racy", `
shared x = 0
property data-race
thread a {
  x = 1
}
thread b {
  r = x
}`)
	m := progtest.MustModel(t, "rc11")
	for _, eng := range []explore.Engine{explore.EngineDPOR, explore.EngineStates} {
		for _, tc := range []struct {
			prop checker.Property
			want checker.Status
		}{{declaredRaces{}, checker.Violated}, {racesOf{}, checker.Holds}} {
			rep, err := checker.Check(p, m, []checker.Property{tc.prop}, explore.Options{Engine: eng})
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Props[0].Status; got != tc.want {
				t.Errorf("%s, %T: %s, want %s", eng, tc.prop, got, tc.want)
			}
		}
	}
	rep, err := checker.Check(p, m, checker.Properties(nil, checker.PropLinearizability), explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pr := rep.Props[0]; pr.Status != checker.Unknown || !strings.Contains(pr.Message, "no sequential specification") {
		t.Errorf("linearizability without a specification: %s %q", pr.Status, pr.Message)
	}
}

// TestTimeoutCoversRaces checks that a check's timeout bounds the whole
// check, the C11 race search that a model which is not C11's runs after
// its own included: dlsym fixed at N=7 takes seconds under tso and longer
// under rc11 for its races; with a second's timeout the check ends within
// 1.7 s (1.8 s when each search had the whole second), with no verdict.
func TestTimeoutCoversRaces(t *testing.T) {
	inst := catalogueInstance(t, "dlsym", "fixed", map[string]string{"N": "7"})
	start := time.Now()
	rep, err := inst.Check(model.TSO, explore.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 1700*time.Millisecond || rep.Verdict() == checker.VerdictVerified {
		t.Errorf("took %v, verdict %s: want no verdict within 1.7 s", took, rep.Verdict())
	}
}
