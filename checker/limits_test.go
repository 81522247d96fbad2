package checker_test

import (
	"context"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
)

// TestLimits checks that every bound stops cleanly, says which bound, and
// never yields a verdict.
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
	m := mustModel(t, "rc11")
	for _, engine := range []string{checker.EngineDPOR, checker.EngineStates} {
		limits(t, p, m, engine, cancelled)
	}
}

func limits(t *testing.T, p *model.Program, m model.Model, engine string, cancelled context.Context) {
	for _, tc := range []struct {
		name  string
		opt   checker.Options
		limit string
	}{
		{"executions", checker.Options{MaxExecutions: 1}, "max-executions"},
		{"graphs", checker.Options{MaxGraphs: 10}, "max-graphs"},
		{"events", checker.Options{MaxEvents: 1}, "max-events"},
		{"interrupt", checker.Options{Context: cancelled}, "interrupted"},
		{"timeout", checker.Options{Timeout: time.Nanosecond}, "timeout"},
		{"memory", checker.Options{MaxMemory: 1}, "max-memory"},
	} {
		t.Run(engine+"/"+tc.name, func(t *testing.T) {
			tc.opt.Engine = engine
			rep, err := checker.Check(p, m, []string{checker.PropDataRace}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stats.Limit != tc.limit {
				t.Errorf("limit %q, want %q", rep.Stats.Limit, tc.limit)
			}
			if max := tc.opt.MaxExecutions; max > 0 && rep.Stats.Executions > max {
				t.Errorf("%d executions counted under a bound of %d", rep.Stats.Executions, max)
			}
			if v := rep.Verdict(); v == "verified" {
				t.Errorf("a bounded search gave the verdict %s", v)
			}
			if s := rep.Props[0].Status; s != checker.Unknown {
				t.Errorf("data-race is %s after a bounded search, want unknown", s)
			}
		})
	}
}
