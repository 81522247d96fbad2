package states

import (
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// FinalStates explores p under m by states and calls final for every
// final state it reaches, with each thread's status (Blocked for a thread
// waiting for a lock).
func FinalStates(p *model.Program, m *model.Model, cfg Config, final func(model.FinalState, []model.Status)) (explore.Stats, error) {
	x := newStates(p, m, cfg)
	x.onFinal = func(s *sstate) {
		var status []model.Status
		for _, th := range s.th {
			st := th.st.Status
			if st == model.Running {
				st = model.Blocked
			}
			status = append(status, st)
		}
		final(s.finalState(len(p.Locs)), status)
	}
	return x.explore()
}
