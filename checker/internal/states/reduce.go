package states

import "github.com/ordercheck/ordercheck/model"

// A partial-order reduction: a thread's access that no other thread can
// ever conflict with runs at once, as part of the move before it, instead
// of being one move among the others'. It is the ample set of one action
// (Clarke, Grumberg, Minea, Peled, "State space reduction using partial
// order techniques", STTT 1999): the action is the thread's only move, it
// stays enabled whatever the others do, and it commutes with everything
// they can still do, because none of them may touch its location in a
// way that conflicts (a write against any access, a read against a
// write) — or only holding a mutex the thread holds now. The unlock of a
// regular mutex (regularMutexes) is such an action too: the others'
// actions on the mutex are locks, which wait for it. Every state the
// full search reaches has a representative the reduced one reaches with
// the same final states, deadlocks, assertions, races and histories
// (each judged on the thread's own steps, happens-before and final
// memory, which the order of independent steps does not change). The
// proviso that no other thread's move is put off forever along a cycle
// holds because only the states inside a move are reduced: every state
// the search keeps has all its moves made, and a thread runs its
// independent actions at once only up to the event bound.
//
// Two assumptions carry it: the futures over-approximate what a thread
// may still access (futures, through accessTargets' value analysis; a
// spawn counts as writing everything), and a thread blocked at an await
// never moves again (the engines do not wake it; the deadlock judge
// reads the final memory, which is no move), so its future is empty.

// independent reports whether thread t's next action in s may run at
// once (see above), and the one way it runs: an access within the event
// bound, with one way, while no other thread's store buffer holds a write
// to its location, that no other thread's future conflicts with but for
// what it does holding a mutex t holds. The flushes of store buffers
// commute with it: the others' write elsewhere, and t's own come before
// its later writes and after its reads of them from its buffer alike.
func (x *states) independent(s *sstate, t int) (model.Way, bool) {
	th := s.th[t]
	a := &th.a
	l := int(a.Loc)
	if th.n >= x.Config.MaxEvents {
		return model.Way{}, false
	}
	// The accesses a step depends on are those a plain access of its kind
	// races with: every write for a read, every access for a write.
	kind, unlock := recPlainRead, false
	switch a.Kind {
	case model.ActRead:
	case model.ActWrite, model.ActRMW, model.ActCAS:
		kind = recPlainWrite
	case model.ActUnlock:
		// A regular mutex's other actions are the others' locks, which
		// wait until this unlock: none can come first.
		if unlock = x.mutexes[l]; !unlock {
			return model.Way{}, false
		}
	default:
		return model.Way{}, false
	}
	if b, ok := s.mem.(model.Buffered); ok {
		for u := range s.th {
			if u != t && b.Buffers(u, a.Loc) {
				return model.Way{}, false
			}
		}
	}
	if !unlock {
		fut, held := x.horizon(s).Futures, x.held[t][th.st.PC]
		for u := range s.th {
			if u != t && x.mayConflict(s, fut, u, l, kind, held) {
				return model.Way{}, false
			}
		}
	}
	x.ways = s.mem.Ways(t, a, x.ways[:0])
	if len(x.ways) != 1 {
		return model.Way{}, false
	}
	return x.ways[0], true
}
