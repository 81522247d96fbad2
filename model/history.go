package model

import (
	"fmt"
	"strings"
)

// Operation is one operation of an execution's history: a thread's call of one
// of the program's operations, with its arguments and, once it returned,
// its results.
type Operation struct {
	Thread  int
	Name    string
	Args    []int64
	Results []int64
	// Pending marks an operation that was called and never returned (its
	// thread blocked or stopped inside it): it may have taken effect or
	// not, with any result, as in Herlihy and Wing's definition.
	Pending bool
	// Call and Ret are its markers in the execution (Ret is NoSource while
	// it is pending); an engine without graphs leaves them zero.
	Call, Ret EventRef
}

// Result returns the operation's first result (0 when it has none).
func (o *Operation) Result() int64 {
	if len(o.Results) == 0 {
		return 0
	}
	return o.Results[0]
}

// History is the operations of one execution and the happens-before order
// between them. Under weak memory there is no global time: an operation
// comes before another when its return happens before the other's call
// (Before), and it may have published something to another when its call
// happens before the other's return (Sync). Both are the happens-before of
// the model's races (Model.HB), read off the operations' markers.
type History struct {
	Ops []Operation
	// Before[b] holds the operations a whose return happens before b's
	// call (those of b's thread before b among them): every order a
	// history is judged by puts a before b.
	Before []DepSet
	// Sync[b] holds the operations a, other than b, whose call happens
	// before b's return: those whose effects b may rely on having seen.
	// The synchronisation a specification promises (Spec.Step) must be
	// among them.
	Sync []DepSet
}

// Spec is a sequential specification: the object a program's operations
// implement, run one operation at a time. Linearize judges a history by it.
type Spec interface {
	// Init returns the object's initial state.
	Init() SpecState
	// Step runs operation i of h in state st and returns the ways the
	// specification accepts it with its arguments and results: none when
	// it refuses them, one when they decide its effect, and for a pending
	// operation one per result it could have given.
	Step(st SpecState, h *History, i int) []SpecStep
	// Describe says in words what op did: "pop() -> empty".
	Describe(op *Operation) string
	// DescribeState says in words what state st holds: "items=[1 2]"
	// ("" for a specification without state).
	DescribeState(st SpecState) string
}

// SpecState is a state of a specification, encoded so that equal states
// are equal strings.
type SpecState string

// SpecStep is one way a specification accepts an operation: the state
// after it, and the operations whose synchronisation it promises — those
// that must happen before the operation returns (History.Sync), such as
// the push whose value a pop returns.
type SpecStep struct {
	Next  SpecState
	Needs DepSet
}

// Key returns an encoding of h: equal keys, equal verdicts by any
// specification (the markers' places aside).
func (h *History) Key() string {
	var b strings.Builder
	for i := range h.Ops {
		o := &h.Ops[i]
		fmt.Fprintf(&b, "%d %s %v %v %t|", o.Thread, o.Name, o.Args, o.Results, o.Pending)
		b.Write(appendBits(nil, h.Before[i]))
		b.WriteByte('|')
		b.Write(appendBits(nil, h.Sync[i]))
		b.WriteByte(';')
	}
	return b.String()
}

// HistoryOf returns the history of g's operations, ordered by m's
// happens-before; clocks, when not nil, are the clocks of g's events
// (NewClock), which then answer where they are m's happens-before.
func (m *Model) HistoryOf(g *Graph, clocks Clocks) *History {
	if clocks != nil && m.clocksAreHB(g) {
		return NewHistory(g, func(a, b EventRef) bool { return int(clocks.Clock(b).view()[a.T]) > int(a.I) })
	}
	x := NewExec(g)
	return NewHistory(g, markerHB(x, m.HappensBefore(x)))
}

// NewHistory returns the history of g's operations: per thread, a call
// marker opens an operation and the next return marker closes it; a call
// never closed is pending. hb(a, b) reports whether event a happens before
// event b, of another thread.
func NewHistory(g *Graph, hb func(a, b EventRef) bool) *History {
	h := &History{}
	for t, evs := range g.Threads {
		open := -1
		for i := range evs {
			r := EventRef{T: int32(t), I: int32(i)}
			switch e := &evs[i]; e.Kind {
			case KCall:
				h.Ops = append(h.Ops, Operation{Thread: t, Name: g.Prog.Threads[t].Code[e.Instr].Msg, Args: e.Vals(), Pending: true, Call: r, Ret: NoSource})
				open = len(h.Ops) - 1
			case KRet:
				if open >= 0 {
					o := &h.Ops[open]
					o.Results, o.Pending, o.Ret = e.Vals(), false, r
					open = -1
				}
			}
		}
	}
	n := len(h.Ops)
	words := (n + 63) / 64
	h.Before, h.Sync = make([]DepSet, n), make([]DepSet, n)
	for b := range h.Ops {
		ob := &h.Ops[b]
		before, sync := make(DepSet, words), make(DepSet, words)
		for a := range h.Ops {
			oa := &h.Ops[a]
			if a == b || oa.Thread == ob.Thread && oa.Call.I > ob.Call.I {
				continue
			}
			bit := uint64(1) << (uint(a) % 64)
			same := oa.Thread == ob.Thread // and a came first
			if !oa.Pending && (same || hb(oa.Ret, ob.Call)) {
				before[a/64] |= bit
			}
			if !ob.Pending && (same || hb(oa.Call, ob.Ret)) {
				sync[a/64] |= bit
			}
		}
		h.Before[b], h.Sync[b] = before, sync
	}
	return h
}

// markerHB extends hb, x's happens-before over its memory events, to
// every event of x's graph (operation markers included): a happens before
// b, of another thread, when the first memory event at or after a in its
// thread happens before (or is) the last one at or before b in its — or,
// when b's thread has none before b, the spawn that started it.
func markerHB(x *Exec, hb Relation) func(a, b EventRef) bool {
	g := x.G
	return func(a, b EventRef) bool {
		from := -1
		for i := int(a.I); i < len(g.Threads[a.T]) && from < 0; i++ {
			from = x.Index(EventRef{T: a.T, I: int32(i)})
		}
		to := -1
		for i := int(b.I); i >= 0 && to < 0; i-- {
			to = x.Index(EventRef{T: b.T, I: int32(i)})
		}
		if to < 0 {
			if s, ok := g.Spawner(int(b.T)); ok {
				to = x.Index(s)
			}
		}
		return from >= 0 && to >= 0 && (from == to || hb.Has(from, to))
	}
}

// Order returns the order happens-before puts between operations of
// different threads (a's return before b's call), without the pairs it
// implies through other operations.
func (h *History) Order() []SyncEdge {
	var out []SyncEdge
	for b := range h.Ops {
		for _, a := range h.Before[b].Members() {
			if h.Ops[a].Thread == h.Ops[b].Thread {
				continue
			}
			implied := false
			for _, c := range h.Before[b].Members() {
				if c != a && h.Before[c].Has(a) {
					implied = true
					break
				}
			}
			if !implied {
				out = append(out, SyncEdge{From: a, To: b})
			}
		}
	}
	return out
}
