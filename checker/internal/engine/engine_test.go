package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// program is a one-thread program with a store at each of three lines.
func program() *model.Program {
	th := model.Thread{Name: "P0"}
	for line := 1; line <= 3; line++ {
		th.Code = append(th.Code, model.Instr{Op: model.OpStore, Pos: model.Pos{File: "p.oc", Line: line, Col: 1}})
	}
	return &model.Program{Threads: []model.Thread{th}, Locs: []model.Location{{Name: "x"}}}
}

func runner(t *testing.T, opt explore.Options) *Runner {
	t.Helper()
	m, err := model.Lookup("sc")
	if err != nil {
		t.Fatal(err)
	}
	return NewRunner(program(), m, Config{Options: opt}, nil)
}

// TestRunnerBounds checks that Step and CountFinal stop an exploration at
// each bound, and that Finish reports the bound without an error.
func TestRunnerBounds(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name  string
		opt   explore.Options
		steps int // Steps that pass before the bound
		final bool
		want  explore.Limit
	}{
		{"graphs", explore.Options{MaxGraphs: 3}, 3, false, explore.MaxGraphs},
		{"executions", explore.Options{MaxExecutions: 2}, 2, true, explore.MaxExecutions},
		{"interrupt", explore.Options{Context: cancelled}, 0, false, explore.Interrupted},
		{"timeout", explore.Options{Timeout: time.Nanosecond}, 0, false, explore.Timeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := runner(t, tc.opt)
			time.Sleep(time.Millisecond) // past the timeout
			var err error
			for i := 0; i <= tc.steps; i++ {
				if tc.final {
					err = x.CountFinal(false)
				} else {
					err = x.Step()
				}
				if err != nil && i < tc.steps {
					t.Fatalf("stopped after %d of %d: %v", i, tc.steps, err)
				}
			}
			if !errors.Is(err, ErrStop) {
				t.Fatalf("got %v, want ErrStop", err)
			}
			if err := x.Step(); !errors.Is(err, ErrStop) {
				t.Errorf("a step after the bound: %v, want ErrStop", err)
			}
			st, err := x.Finish(err)
			if err != nil || st.Limit != tc.want {
				t.Errorf("Finish: %v, limit %s; want no error, %s", err, st.LimitText(), tc.want)
			}
		})
	}
}

// TestRunnerForks checks that the subtrees handed to Fork all run, on the
// workers or in place, and that the first error a worker meets ends Run.
func TestRunnerForks(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		x := runner(t, explore.Options{Workers: workers})
		var ran atomic.Int64
		err := x.Run(func() error {
			for range 100 {
				if err := x.Fork(func() error { ran.Add(1); return nil }); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || ran.Load() != 100 {
			t.Errorf("%d workers: %d of 100 subtrees ran, error %v", workers, ran.Load(), err)
		}
	}
	x := runner(t, explore.Options{Workers: 2})
	boom := errors.New("boom")
	err := x.Run(func() error {
		for range 10 {
			if err := x.Fork(func() error { return boom }); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want a worker's error", err)
	}
}

// TestCutLoops checks that a cut loop bounds the exploration and that its
// lines are listed once each, in order.
func TestCutLoops(t *testing.T) {
	x := runner(t, explore.Options{})
	for _, pc := range []int{2, 0, 2} {
		x.CutLoop(0, pc)
	}
	st, _ := x.Finish(nil)
	if st.Limit != explore.LoopBound || len(st.Loops) != 2 || st.Loops[0].Line != 1 || st.Loops[1].Line != 3 {
		t.Errorf("limit %s, loops %v; want loop-bound at lines 1 and 3", st.LimitText(), st.Loops)
	}
}

// TestInternalf checks that an engine's internal error is one.
func TestInternalf(t *testing.T) {
	var ie *explore.InternalError
	if err := Internalf("thread %d", 1); !errors.As(err, &ie) || err.Error() == "" {
		t.Errorf("%v is not an internal error", err)
	}
}
