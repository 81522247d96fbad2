package checker

import (
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/model"
)

// ExploreReference visits the same executions as Explore by the simplest
// method: it adds events in every order, branching on every choice, and
// remembers every partial graph it has seen. The tests hold the optimised
// explorer to it.
func ExploreReference(p *model.Program, m *model.Model, opt explore.Options, visit func(*explore.Execution)) (explore.Stats, error) {
	return graphs.Reference(engine.NewRunner(p, m, engine.Config{Options: opt}, visit))
}

// Candidates returns the model that accepts every graph, so that
// ExploreReference enumerates all candidate executions (those without a
// cycle in po ∪ rf), for checking explorers and models against each other.
func Candidates() *model.Model { return graphs.Candidates }

// CheckWholeHistories is Check judging linearizability on whole histories
// even where the state explorer could judge operations one at a time.
func CheckWholeHistories(p *model.Program, m *model.Model, props []Property, opt explore.Options) (*Report, error) {
	return checkRaces(p, m, props, engine.Config{Options: opt, WholeHistories: true}, nil)
}

// ExploreRaces is Explore finding each execution's data races.
func ExploreRaces(p *model.Program, m *model.Model, opt explore.Options, visit func(*explore.Execution)) (explore.Stats, error) {
	return graphs.Explore(engine.NewRunner(p, m, engine.Config{Options: opt, Races: true}, visit))
}
