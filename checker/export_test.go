package checker

import (
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/checker/internal/states"
	"github.com/ordercheck/ordercheck/model"
)

// FinalStatesByStates explores p under m by states and calls final for
// every final state it reaches, with each thread's status (Blocked for a
// thread waiting for a lock).
func FinalStatesByStates(p *model.Program, m *model.Model, opt Options, final func(model.FinalState, []model.Status)) (Stats, error) {
	return states.FinalStates(p, m, states.Config{Options: opt}, final)
}

// ExploreSpeculating explores p under m by speculation, as the models
// that allow load buffering are, whatever m is.
func ExploreSpeculating(p *model.Program, m *model.Model, opt Options, visit func(*Execution)) (Stats, error) {
	return graphs.Speculate(engine.NewRunner(p, m, opt, visit))
}

// LoadBufferingFree reports whether the search for load-buffering
// revisits finds none for p under m, so that Explore builds m's
// executions in po ∪ rf order.
func LoadBufferingFree(p *model.Program, m *model.Model) (bool, error) {
	return graphs.LoadBufferingFree(engine.NewRunner(p, m, Options{}, nil))
}

// SetTopJobs sets the subtrees a split graph search leaves to the
// workers at least (when the tree has them), and returns the old value.
func SetTopJobs(n int) int {
	old := topJobs
	topJobs = n
	return old
}

// VerifyGrowth has the graph explorer compare every verdict of a model's
// clocks with its full check's (an internal error when they differ) while
// on, and returns the old setting.
func VerifyGrowth(on bool) bool { return graphs.VerifyGrowth.Swap(on) }
