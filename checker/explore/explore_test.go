package explore_test

import (
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

func TestParseEngine(t *testing.T) {
	for _, e := range []explore.Engine{explore.EngineAuto, explore.EngineDPOR, explore.EngineStates} {
		got, err := explore.ParseEngine(e.String())
		if err != nil || got != e {
			t.Errorf("ParseEngine(%q) = %v, %v", e, got, err)
		}
	}
	if _, err := explore.ParseEngine("bfs"); err == nil {
		t.Error("ParseEngine(bfs): no error")
	}
}

func TestStatsAdd(t *testing.T) {
	a, b := model.Pos{File: "p.oc", Line: 3, Col: 2}, model.Pos{File: "p.oc", Line: 1, Col: 5}
	for _, tc := range []struct {
		name      string
		s, o      explore.Stats
		limit     explore.Limit
		text      string
		loopCount int
	}{
		{"exhaustive parts", explore.Stats{Executions: 2}, explore.Stats{Executions: 3, Blocked: 1}, explore.NoLimit, "exhaustive", 0},
		{"the first bound stays", explore.Stats{Limit: explore.Timeout}, explore.Stats{Limit: explore.MaxMemory}, explore.Timeout, "bounded by timeout", 0},
		{"a bound of a part counts", explore.Stats{}, explore.Stats{Limit: explore.PreemptionBound, PreemptionBound: 2}, explore.PreemptionBound, "bounded by preemption-bound(2)", 0},
		{"a cut thread wins", explore.Stats{Limit: explore.Timeout}, explore.Stats{Limit: explore.MaxEvents}, explore.MaxEvents, "bounded by max-events", 0},
		{"loops merge, once each", explore.Stats{Limit: explore.LoopBound, Loops: []model.Pos{a}}, explore.Stats{Limit: explore.LoopBound, Loops: []model.Pos{b, a}}, explore.LoopBound, "bounded by loop-bound of the loop at p.oc:1:5, p.oc:3:2", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			s.Add(tc.o)
			if s.Executions != tc.s.Executions+tc.o.Executions || s.Blocked != tc.s.Blocked+tc.o.Blocked {
				t.Errorf("counts %d (%d blocked), want the sums", s.Executions, s.Blocked)
			}
			if s.Limit != tc.limit || len(s.Loops) != tc.loopCount {
				t.Errorf("limit %v loops %v, want %v and %d loops", s.Limit, s.Loops, tc.limit, tc.loopCount)
			}
			if s.Exhaustive() != (tc.limit == explore.NoLimit) {
				t.Errorf("Exhaustive() = %v with limit %v", s.Exhaustive(), s.Limit)
			}
			if got := s.String(); !strings.Contains(got, tc.text) {
				t.Errorf("String() = %q, want it to say %q", got, tc.text)
			}
		})
	}
}
