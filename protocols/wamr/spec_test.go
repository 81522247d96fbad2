package wamr

import (
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/lang"
)

// TestSpec checks small histories against the specification: a raise
// that reaches the child instance must be moved back on restore, a raise
// reaches the instance current when it takes effect, and no thread is
// created after an exception; distinct objects are independent.
func TestSpec(t *testing.T) {
	op := func(client int, name string, out int64, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: name, Output: out, Call: call, Return: ret}
	}
	on := func(obj int, o porcupine.Operation) porcupine.Operation {
		o.Input = lang.Op{Object: obj, Name: o.Input.(string)}
		return o
	}
	for _, tc := range []struct {
		name string
		h    []porcupine.Operation
		ok   bool
	}{
		{"raise before the swap", []porcupine.Operation{op(1, OpRaise, ToOwn, 0, 1), op(0, OpSet, 0, 2, 3), op(0, OpRestore, 0, 4, 5), op(0, OpCreate, 0, 6, 7)}, true},
		{"raise into the child, moved back", []porcupine.Operation{op(0, OpSet, 0, 0, 1), op(1, OpRaise, ToChild, 2, 3), op(0, OpRestore, 1, 4, 5)}, true},
		{"raise into the child, lost", []porcupine.Operation{op(0, OpSet, 0, 0, 1), op(1, OpRaise, ToChild, 2, 3), op(0, OpRestore, 0, 4, 5)}, false},
		{"lost, though the raise overlaps the restore", []porcupine.Operation{op(0, OpSet, 0, 0, 1), op(1, OpRaise, ToChild, 2, 9), op(0, OpRestore, 0, 4, 5)}, false},
		{"own instance while the child runs", []porcupine.Operation{op(0, OpSet, 0, 0, 1), op(1, OpRaise, ToOwn, 2, 3), op(0, OpRestore, 0, 4, 5)}, false},
		{"exec_env slots", []porcupine.Operation{op(0, OpSet, 0, 0, 1), op(1, OpRaise, ToEnv, 2, 3), op(0, OpRestore, 0, 4, 5), op(0, OpCreate, 0, 6, 7)}, true},
		{"created after an exception", []porcupine.Operation{op(1, OpRaise, ToOwn, 0, 1), op(0, OpCreate, 1, 2, 3)}, false},
		{"not spread", []porcupine.Operation{op(1, OpRaise, NotSpread, 0, 1), op(0, OpCreate, 1, 2, 3)}, true},
		{"objects apart", []porcupine.Operation{on(1, op(0, OpSet, 0, 0, 1)), on(1, op(1, OpRaise, ToChild, 2, 3)), on(2, op(0, OpRestore, 0, 4, 5)), on(1, op(0, OpRestore, 1, 6, 7))}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := porcupine.CheckOperations(Spec, tc.h); got != tc.ok {
				t.Errorf("linearizable: %v, expected %v", got, tc.ok)
			}
		})
	}
}
