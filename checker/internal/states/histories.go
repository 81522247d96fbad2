package states

import (
	"errors"
	"slices"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// opKey is an operation's instruction, arguments and results.
type opKey struct {
	instr         int32
	thread        int
	args, results string
}

// errStateful stops a search that judges operations one at a time when
// the specification turns out to have state.
var errStateful = errors.New("the specification's operations change its state")

// wholeHistories reports whether the search keeps whole histories.
func (x *states) wholeHistories() bool { return x.spec != nil && !x.perOp }

// judgeOp judges, one at a time, thread t's operation called with args
// and returning at a: the
// judge must accept it alone, as the history of that one operation
// (which it returns). While every step the specification accepts leaves
// its initial state as it was, that state is the only one any history
// can reach and no step can promise synchronisation (nothing was
// published), so a history linearizes exactly when each of its operations
// is accepted: the search keeps no history. A step that accepts an
// operation into another state ends the search with errStateful (explore
// then checks whole histories).
func (x *states) judgeOp(t int, args []int64, a *model.Action) (*model.History, bool, error) {
	op := model.Operation{Thread: t, Name: a.Msg, Args: args, Results: a.Vals, Call: model.NoSource, Ret: model.NoSource}
	h := &model.History{Ops: []model.Operation{op}, Before: []model.DepSet{nil}, Sync: []model.DepSet{nil}}
	k := opKey{instr: int32(a.Instr), thread: t, args: fmtVals(op.Args), results: fmtVals(a.Vals)}
	ok, seen := x.opMemo[k]
	if !seen {
		init := x.spec.Init()
		for _, step := range x.spec.Step(init, h, 0) {
			if step.Next != init {
				return nil, false, errStateful
			}
		}
		o := &explore.Outcome{Prog: x.Prog, History: h}
		ok = len(x.cfg.Judge(o, func(string) {})) == 0
		x.opMemo[k] = ok
	}
	return h, ok, nil
}

// callOp checks, when judging operations one at a time, the call of
// thread t's operation at a: should it never return, it may still have
// taken effect (with any result), so a specification step that would
// leave the initial state ends the search with errStateful as a
// returning one does.
func (x *states) callOp(t int, a *model.Action) error {
	k := opKey{instr: int32(a.Instr), thread: t, args: fmtVals(a.Vals), results: "pending"}
	if _, seen := x.opMemo[k]; seen {
		return nil
	}
	x.opMemo[k] = true
	op := model.Operation{Thread: t, Name: a.Msg, Args: a.Vals, Pending: true, Call: model.NoSource, Ret: model.NoSource}
	h := &model.History{Ops: []model.Operation{op}, Before: []model.DepSet{nil}, Sync: []model.DepSet{nil}}
	init := x.spec.Init()
	for _, step := range x.spec.Step(init, h, 0) {
		if step.Next != init {
			return errStateful
		}
	}
	return nil
}

// fmtVals encodes values for a memo key.
func fmtVals(vs []int64) string {
	b := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		for k := range 8 {
			b = append(b, byte(v>>(8*k)))
		}
	}
	return string(b)
}

// mark records thread t's operation marker a in s (whole histories): a
// call starts an operation, with what happens before it; a return ends
// the thread's open one, with what happened before it. The marker ticks
// the thread's clock, so that what follows it in the thread, and what
// that releases, tells which markers happen before what.
func (x *states) mark(s *sstate, t int, a *model.Action) {
	k := x.lay
	k.tick(s.clk, t)
	view := k.vec(s.clk, k.c(t))
	th := s.th[t]
	if a.Kind == model.ActCall {
		th.ops = append(th.ops, opRec{instr: int32(a.Instr), args: a.Vals, call: view[t], before: x.known(s, t, view, true)})
		return
	}
	n := len(th.ops)
	if n == 0 || th.ops[n-1].ret != 0 {
		return // a return with no open call is no operation
	}
	th.ops = slices.Clone(th.ops)
	op := &th.ops[n-1]
	op.results, op.ret, op.sync = a.Vals, view[t], x.known(s, t, view, false)
}

// known returns, per thread, how many of its operations thread t, whose
// view is view, knows of: returned (rets) or called (otherwise) before
// now in happens-before. Its own before the operation now are all known.
func (x *states) known(s *sstate, t int, view []uint32, rets bool) []uint16 {
	out := make([]uint16, len(s.th))
	for u, th := range s.th {
		if u == t {
			n := len(th.ops) // at a call, the new operation is not there yet
			if !rets {
				n-- // at a return, it is the last
			}
			out[u] = uint16(n)
			continue
		}
		for _, op := range th.ops {
			ts := op.call
			if rets {
				ts = op.ret
			}
			if ts == 0 || ts > view[u] {
				break
			}
			out[u]++
		}
	}
	return out
}

// history returns the history of s's operations.
func (x *states) history(s *sstate) *model.History {
	h := &model.History{}
	first := make([]int, len(s.th)) // per thread: the index of its first operation
	for t, th := range s.th {
		first[t] = len(h.Ops)
		for _, op := range th.ops {
			o := model.Operation{Thread: t, Name: x.Prog.Threads[t].Code[op.instr].Msg, Args: op.args, Results: op.results, Pending: op.ret == 0, Call: model.NoSource, Ret: model.NoSource}
			h.Ops = append(h.Ops, o)
		}
	}
	set := func(counts []uint16) model.DepSet {
		d := make(model.DepSet, (len(h.Ops)+63)/64)
		for u, n := range counts {
			for i := range int(n) {
				j := first[u] + i
				d[j/64] |= 1 << (uint(j) % 64)
			}
		}
		return d
	}
	for _, th := range s.th {
		for _, op := range th.ops {
			h.Before = append(h.Before, set(op.before))
			h.Sync = append(h.Sync, set(op.sync))
		}
	}
	return h
}
