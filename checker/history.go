package checker

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
)

// PropLinearizability is the built-in property that every execution's
// history of operations is linearizable with respect to the protocol's
// sequential specification.
const PropLinearizability = "linearizability"

// History returns the operations of an execution, for porcupine: each
// operation marked in the program (call and return events) with its
// thread as client, its name as input and its result as output. Times are
// the positions of its call and return in the execution's presentation
// order (an SC order when one exists). Operations that never returned are
// left out.
func History(e *Execution) []porcupine.Operation {
	g := e.Graph
	at := map[model.EventRef]int64{}
	for i, r := range Steps(g) {
		at[r] = int64(i)
	}
	var out []porcupine.Operation
	for t, evs := range g.Threads {
		var call *model.EventRef
		for i := range evs {
			r := model.EventRef{T: int32(t), I: int32(i)}
			switch evs[i].Kind {
			case model.KCall:
				call = &r
			case model.KRet:
				if call == nil {
					continue
				}
				name := g.Prog.Threads[t].Code[evs[i].Instr].Msg
				out = append(out, porcupine.Operation{ClientId: t, Input: name, Call: at[*call], Output: evs[i].Val, Return: at[r]})
				call = nil
			}
		}
	}
	return out
}

// linearizable checks an execution's history against spec.
func linearizable(e *Execution, spec porcupine.Model) (bool, string) {
	return checkHistory(e.Graph.Prog, History(e), spec)
}

// checkHistory checks a history of p's operations against spec.
func checkHistory(p *model.Program, h []porcupine.Operation, spec porcupine.Model) (bool, string) {
	if len(h) == 0 {
		return true, ""
	}
	res, _ := porcupine.CheckOperationsVerbose(spec, h, 0)
	if res == porcupine.Ok {
		return true, ""
	}
	var ops []string
	for _, op := range h {
		desc := fmt.Sprintf("%v -> %v", op.Input, op.Output)
		if spec.DescribeOperation != nil {
			desc = spec.DescribeOperation(op.Input, op.Output)
		}
		ops = append(ops, fmt.Sprintf("%s: %s", p.Threads[op.ClientId].Name, desc))
	}
	return false, fmt.Sprintf("no sequential order of %v matches the specification", ops)
}
