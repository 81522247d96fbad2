package checker

import "github.com/ordercheck/ordercheck/model"

// FinalStatesByStates explores p under m by states and calls final for
// every final state it reaches, with each thread's status (Blocked for a
// thread waiting for a lock).
func FinalStatesByStates(p *model.Program, m model.Model, opt Options, final func(model.FinalState, []model.Status)) (Stats, error) {
	x := newStates(newRunner(p, m, opt, nil), opt.Spec)
	x.onFinal = func(s *sstate) {
		fs := s.finalState()
		var status []model.Status
		for _, th := range s.th {
			st := th.st.Status
			if st == model.Running {
				st = model.Blocked
			}
			status = append(status, st)
		}
		final(fs, status)
	}
	return x.explore()
}

// StatesUnsupported says why the state explorer cannot explore p under m.
func StatesUnsupported(p *model.Program, m model.Model) string { return statesUnsupported(p, m) }

// WholeHistories returns opt with the state explorer checking
// linearizability on whole histories even when the specification allows
// judging operations one at a time.
func WholeHistories(opt Options) Options {
	opt.wholeHistories = true
	return opt
}
