// Package checker is ordercheck's library: it loads protocols (protocol
// files and C programs; package protocols resolves the catalogue's names
// above it), checks their properties under memory models by
// exploring every execution, and compares the fixes under review. The
// ordercheck command is a thin layer over it; package render prints its
// results, package expect checks protocol files' expect clauses, package
// trace saves and replays counterexamples, package simulate walks random
// runs, package history checks the histories of the protocols' Go
// implementations, package herd runs litmus tests as herd7 does.
//
// A protocol is loaded, one of its variants instantiated with parameters,
// and checked under a model:
//
//	pr, err := checker.Load("protocols/dlsym/dlsym.oc")
//	inst, err := pr.Instance("fixed", nil)
//	rep, err := inst.Check(model.RC11, explore.Options{})
//	if rep.Verdict() == checker.VerdictViolated { ... rep.Witness("") ... }
//
// Lower down, Check judges any model.Program, and Explore visits its
// executions one by one. The vocabulary of an exploration (its options,
// statistics, executions, outcomes and witnesses) is package
// checker/explore's.
package checker

import (
	"fmt"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/checker/internal/states"
	"github.com/ordercheck/ordercheck/model"
)

// DefaultModel is the model a check runs under when none is named: RC11,
// C11 as compilers implement it.
var DefaultModel = model.RC11

// LookupModels returns the models names names (model.Lookup), in order;
// none for none.
func LookupModels(names []string) ([]*model.Model, error) {
	var out []*model.Model
	for _, n := range names {
		m, err := model.Lookup(n)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// autoStates reports whether EngineAuto explores p under m by states:
// when the state explorer can, and p has at most 256 locations. Every
// state holds every location, so a program with a large pool of memory an
// execution barely touches (C's static arrays of nodes) is explored by
// graphs, which hold what the execution touches.
func autoStates(p *model.Program, m *model.Model) bool {
	return len(p.Locs) <= 256 && states.Unsupported(p, m) == ""
}

// engineFor decides the engine that explores p under m.
func engineFor(p *model.Program, m *model.Model, opt explore.Options) (explore.Engine, error) {
	switch opt.Engine {
	case explore.EngineAuto:
		if !opt.Preemptions && autoStates(p, m) {
			return explore.EngineStates, nil
		}
		return explore.EngineDPOR, nil
	case explore.EngineStates:
		if opt.Preemptions {
			return 0, fmt.Errorf("the states engine does not bound preemptions; use --engine dpor")
		}
		if why := states.Unsupported(p, m); why != "" {
			return 0, fmt.Errorf("%s", why)
		}
	}
	return opt.Engine, nil
}

// StatesUnsupported says why the state explorer cannot explore p under m,
// or returns "" when it can.
func StatesUnsupported(p *model.Program, m *model.Model) string { return states.Unsupported(p, m) }

// Explore visits every consistent complete execution of p under m exactly
// once, calling visit for each (from several goroutines when opt.Workers
// is above one). It uses optimal dynamic partial-order reduction: its cost
// grows with the number of executions, not of interleavings. With a
// preemption bound it explores the schedules within it. An execution is
// valid until visit returns (the explorer goes on changing its graph):
// visit keeps one by its Clone.
func Explore(p *model.Program, m *model.Model, opt explore.Options, visit func(*explore.Execution)) (explore.Stats, error) {
	return graphs.Explore(engine.NewRunner(p, m, engine.Config{Options: opt}, visit))
}

// History returns the history of an execution's operations, ordered by
// its model's happens-before (model.History).
func History(e *explore.Execution) *model.History {
	if e.History == nil {
		return e.Model.HistoryOf(e.Graph, nil)
	}
	return e.History
}
