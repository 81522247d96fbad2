package explore_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker/explore"
)

func TestBoundsOptions(t *testing.T) {
	opt, err := explore.NewBounds().Options()
	if err != nil || opt.MaxMemory != explore.DefaultMaxMemory() || opt.Engine != explore.EngineAuto || opt.Preemptions || opt.Workers != explore.AllCores {
		t.Fatalf("NewBounds().Options() = %+v, %v", opt, err)
	}
	b := explore.NewBounds()
	b.MaxExecutions, b.PreemptionBound, b.MaxMemory, b.Timeout = 5, 0, "1GB", time.Second
	if opt, err = b.Options(); err != nil || opt.Engine != explore.EngineDPOR || !opt.Preemptions || opt.PreemptionBound != 0 || opt.MaxMemory != 1e9 || opt.Timeout != time.Second {
		t.Errorf("Options() = %+v, %v: want the graph explorer, preemption bound 0, 1GB, 1s", opt, err)
	}
	for _, tc := range []struct {
		set  func(*explore.Bounds)
		want string
	}{
		{func(b *explore.Bounds) { b.MaxExecutions = -1 }, "--max-executions -1"},
		{func(b *explore.Bounds) { b.MaxStates = -1 }, "--max-states -1"},
		{func(b *explore.Bounds) { b.Timeout = -time.Second }, "--timeout -1s"},
		{func(b *explore.Bounds) { b.PreemptionBound = -2 }, "--preemption-bound -2"},
		{func(b *explore.Bounds) { b.MaxDepth = 0 }, "--max-depth 0"},
		{func(b *explore.Bounds) { b.Workers = 0 }, "--workers 0"},
		{func(b *explore.Bounds) { b.MaxMemory = "lots" }, "--max-memory"},
		{func(b *explore.Bounds) { b.Engine = "bfs" }, `unknown engine "bfs"`},
		{func(b *explore.Bounds) { b.Engine, b.MaxExecutions = "states", 5 }, "--max-states"},
		// The first flag out of range is the one named.
		{func(b *explore.Bounds) { b.MaxDepth, b.MaxStates = 0, -1 }, "--max-states -1"},
	} {
		b := explore.NewBounds()
		tc.set(&b)
		if _, err := b.Options(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Options() = %v, want an error naming %q", err, tc.want)
		}
	}
}
