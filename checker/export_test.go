package checker

import "github.com/ordercheck/ordercheck/model"

// FinalStatesByStates explores p under m by states and calls final for
// every final state it reaches, with each thread's status (Blocked for a
// thread waiting for a lock).
func FinalStatesByStates(p *model.Program, m model.Model, opt Options, final func(model.FinalState, []model.Status)) (Stats, error) {
	r := newRunner(p, m, opt, nil)
	x := newStates(r, opt.Spec)
	x.onFinal = func(s *sstate) {
		fs := model.FinalState{Mem: s.mem, Regs: make([][]int64, len(s.th))}
		var status []model.Status
		for t, th := range s.th {
			fs.Regs[t] = th.st.Regs
			st := th.st.Status
			if st == model.Running {
				st = model.Blocked
			}
			status = append(status, st)
		}
		final(fs, status)
	}
	err := r.run(func() error {
		s, err := x.initial(nil)
		if err != nil {
			return err
		}
		x.fresh(s)
		return x.search(s)
	})
	return r.finish(err)
}
