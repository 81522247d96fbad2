package states

import (
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// FinalStates explores p under m by states and calls final for every
// final state it reaches, with each thread's status (Blocked for a thread
// waiting for a lock): the judge sees each, as the end of an execution.
func FinalStates(p *model.Program, m *model.Model, cfg Config, final func(model.FinalState, []model.Status)) (explore.Stats, error) {
	cfg.Judge = func(o *explore.Outcome, _ func(string)) []explore.Violation {
		if o.End {
			status := make([]model.Status, len(o.Threads))
			for t, th := range o.Threads {
				status[t] = th.Status
			}
			final(o.Final, status)
		}
		return nil
	}
	return newStates(p, m, cfg).explore()
}
