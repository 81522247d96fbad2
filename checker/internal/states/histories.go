package states

import (
	"errors"
	"reflect"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker/internal/engine"
)

// opKey is an operation's name and result.
type opKey struct {
	name string
	val  int64
}

// errStateful stops a search that judges operations one at a time when
// the specification turns out to have state.
var errStateful = errors.New("the specification's operations change its state")

// operation returns thread t's operation returning val at instruction
// instr, called at time call and returning at time ret.
func (x *states) operation(t, instr int, val, call, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: t, Input: x.Prog.Threads[t].Code[instr].Msg, Call: call, Output: val, Return: ret}
}

// judgeOp judges, one at a time, thread t's operation returning val at
// instruction instr: the judge must accept it alone. While every step
// the specification accepts leaves its initial state as it was, that
// state is the only one any history can reach, so a history linearizes
// exactly when each of its operations is accepted: the search keeps no
// history and calls and returns need no place among the other threads'
// steps. A step that accepts an operation into another state ends the
// search with errStateful (explore then checks whole histories).
func (x *states) judgeOp(t, instr int, val int64) (bool, error) {
	k := opKey{name: x.Prog.Threads[t].Code[instr].Msg, val: val}
	ok, seen := x.opMemo[k]
	if !seen {
		accepted, next := x.spec.Step(x.spec.Init(), k.name, val)
		if accepted && !x.sameSpecState(x.spec.Init(), next) { // a fresh initial state: Step may have changed the one it was given
			return false, errStateful
		}
		o := &engine.Outcome{Prog: x.Prog, History: []porcupine.Operation{x.operation(t, instr, val, 0, 1)}}
		ok = len(x.cfg.Judge(o, func(string) {})) == 0
		x.opMemo[k] = ok
	}
	return ok, nil
}

// sameSpecState compares two states of the specification: by its Equal
// when it has one, otherwise deeply.
func (x *states) sameSpecState(a, b interface{}) bool {
	if x.spec.Equal != nil {
		return x.spec.Equal(a, b)
	}
	return reflect.DeepEqual(a, b)
}

// history returns a history of marks as porcupine's operations: a return
// pairs with its thread's last open call; times are the marks' places.
func (x *states) history(h []mark) []porcupine.Operation {
	ops := []porcupine.Operation{}
	open := map[int32]int{}
	for i, m := range h {
		if !m.ret {
			open[m.t] = i
			continue
		}
		c, ok := open[m.t]
		if !ok {
			continue
		}
		delete(open, m.t)
		ops = append(ops, x.operation(int(m.t), int(m.instr), m.val, int64(c), int64(i)))
	}
	return ops
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
