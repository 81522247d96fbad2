package model

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// queueSpec is a FIFO queue of integers whose dequeue synchronises with
// the enqueue of the value it returns (0: empty). Its state lists the
// items as "value/enqueuer" (the enqueuer's index in the history).
type queueSpec struct{}

func (queueSpec) Init() SpecState { return "" }

func (queueSpec) items(st SpecState) (vals, from []int) {
	for _, f := range strings.Fields(string(st)) {
		v, w, _ := strings.Cut(f, "/")
		a, _ := strconv.Atoi(v)
		b, _ := strconv.Atoi(w)
		vals, from = append(vals, a), append(from, b)
	}
	return vals, from
}

func (q queueSpec) Step(st SpecState, h *History, i int) []SpecStep {
	op := &h.Ops[i]
	if op.Name == "enq" {
		return []SpecStep{{Next: SpecState(fmt.Sprintf("%s %d/%d", st, op.Args[0], i))}}
	}
	vals, from := q.items(st)
	rest := func() SpecState {
		var b strings.Builder
		for k := 1; k < len(vals); k++ {
			fmt.Fprintf(&b, " %d/%d", vals[k], from[k])
		}
		return SpecState(b.String())
	}
	switch {
	case len(vals) == 0 && (op.Pending || op.Result() == 0):
		return []SpecStep{{Next: st}}
	case len(vals) > 0 && (op.Pending || op.Result() == int64(vals[0])):
		return []SpecStep{{Next: rest(), Needs: DepSet(nil).With(from[0])}}
	}
	return nil
}

func (queueSpec) Describe(op *Operation) string {
	return fmt.Sprintf("%s%v -> %v", op.Name, op.Args, op.Results)
}

func (queueSpec) DescribeState(st SpecState) string { return string(st) }

// drawHistory draws a history of enqueues and dequeues on up to three
// threads, ordered by a random partial order that extends each thread's
// order, and synchronised at least as much.
func drawHistory(t *rapid.T) *History {
	n := rapid.IntRange(1, 6).Draw(t, "ops")
	h := &History{}
	threadOf := make([]int, n)
	for i := range n {
		threadOf[i] = rapid.IntRange(0, 2).Draw(t, "thread")
		op := Operation{Thread: threadOf[i], Name: rapid.SampledFrom([]string{"enq", "deq"}).Draw(t, "name")}
		if op.Name == "enq" {
			op.Args = []int64{int64(rapid.IntRange(1, 2).Draw(t, "value"))}
		} else {
			op.Results = []int64{int64(rapid.IntRange(0, 2).Draw(t, "result"))}
		}
		h.Ops = append(h.Ops, op)
	}
	// Index order is a topological order: an edge goes from a lower
	// index to a higher one. A thread's operations are ordered; only its
	// last may be pending.
	before := make([][]bool, n)
	for b := range n {
		before[b] = make([]bool, n)
		for a := range b {
			before[b][a] = threadOf[a] == threadOf[b] || rapid.IntRange(0, 3).Draw(t, "edge") == 0
		}
	}
	for b := range n { // transitive closure
		for a := range b {
			if before[b][a] {
				for c := range a {
					if before[a][c] {
						before[b][c] = true
					}
				}
			}
		}
	}
	for i := range n {
		last := true
		for j := i + 1; j < n; j++ {
			last = last && threadOf[j] != threadOf[i]
		}
		if last && !slicesHasBefore(before, i) && rapid.IntRange(0, 4).Draw(t, "pending") == 0 {
			h.Ops[i].Pending, h.Ops[i].Results = true, nil
		}
	}
	for b := range n {
		var bef, syn DepSet
		for a := range n {
			if a == b {
				continue
			}
			if before[b][a] && !h.Ops[a].Pending {
				bef = bef.With(a)
			}
			// call(a) happens before ret(b): whenever a comes first, and
			// sometimes when they overlap.
			if !h.Ops[b].Pending && (before[b][a] || !before[a][b] && rapid.Bool().Draw(t, "sync")) {
				syn = syn.With(a)
			}
		}
		h.Before, h.Sync = append(h.Before, bef), append(h.Sync, syn)
	}
	return h
}

// slicesHasBefore reports whether some operation comes after i.
func slicesHasBefore(before [][]bool, i int) bool {
	for b := range before {
		if before[b][i] {
			return true
		}
	}
	return false
}

// bruteForce tries every sequence of h's operations that contains each
// returned one and extends Before: whether some gives the results, and
// whether some also has the synchronisation the specification promises.
func bruteForce(spec Spec, h *History) (results, synced bool) {
	var try func(done DepSet, st SpecState, missing bool)
	try = func(done DepSet, st SpecState, missing bool) {
		complete := true
		for i := range h.Ops {
			complete = complete && (done.Has(i) || h.Ops[i].Pending)
		}
		if complete {
			results = true
			synced = synced || !missing
		}
		for i := range h.Ops {
			if done.Has(i) || !subset(h.Before[i], done) {
				continue
			}
			for _, step := range spec.Step(st, h, i) {
				lack := false
				for _, a := range step.Needs.Members() {
					lack = lack || a != i && !h.Sync[i].Has(a)
				}
				try(done.With(i), step.Next, missing || lack)
			}
		}
	}
	try(nil, spec.Init(), false)
	return results, synced
}

// TestLinearizeMatchesBruteForce holds Linearize to the definition, tried
// order by order: it linearizes exactly when some order gives the results
// with the synchronisation promised; it blames the synchronisation
// exactly when some order gives the results; its order and missing edges
// are right.
func TestLinearizeMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := drawHistory(t)
		spec := queueSpec{}
		results, synced := bruteForce(spec, h)
		lin := Linearize(spec, h)
		if lin.OK != synced {
			t.Fatalf("linearizes: %v, by brute force %v", lin.OK, synced)
		}
		if !lin.OK && (lin.Missing != nil) != results {
			t.Fatalf("blames synchronisation: %v (%v), yet some order gives the results: %v", lin.Missing != nil, lin.Missing, results)
		}
		if lin.OK || lin.Missing != nil {
			checkOrder(t, h, lin.Order)
		}
		if lin.Missing != nil && len(missingSync(spec, h, lin.Order)) == 0 {
			t.Fatalf("order %v misses no synchronisation", lin.Order)
		}
		if !lin.OK && lin.Missing == nil && len(lin.DeadEnds) == 0 {
			t.Fatalf("no dead end said why")
		}
	})
}

// checkOrder checks that order has every returned operation of h once,
// after its predecessors.
func checkOrder(t *rapid.T, h *History, order []int) {
	var done DepSet
	for _, i := range order {
		if done.Has(i) || !subset(h.Before[i], done) {
			t.Fatalf("order %v: %d twice or before a predecessor", order, i)
		}
		done = done.With(i)
	}
	for i := range h.Ops {
		if !h.Ops[i].Pending && !done.Has(i) {
			t.Fatalf("order %v leaves out %d", order, i)
		}
	}
}

// TestLinearizeExamples checks hand-derived histories.
func TestLinearizeExamples(t *testing.T) {
	enq := func(th int, v int64) Operation { return Operation{Thread: th, Name: "enq", Args: []int64{v}} }
	deq := func(th int, v int64) Operation { return Operation{Thread: th, Name: "deq", Results: []int64{v}} }
	set := func(idx ...int) DepSet {
		var d DepSet
		for _, i := range idx {
			d = d.With(i)
		}
		return d
	}
	for _, tc := range []struct {
		name       string
		h          History
		ok, blamed bool // linearizes; blames synchronisation
	}{
		{"deq after its enq, synchronised", History{Ops: []Operation{enq(0, 1), deq(1, 1)}, Before: []DepSet{nil, nil}, Sync: []DepSet{nil, set(0)}}, true, false},
		{"deq of a value unsynchronised", History{Ops: []Operation{enq(0, 1), deq(1, 1)}, Before: []DepSet{nil, nil}, Sync: []DepSet{nil, nil}}, false, true},
		{"empty deq may go first", History{Ops: []Operation{enq(0, 1), deq(1, 0)}, Before: []DepSet{nil, nil}, Sync: []DepSet{nil, nil}}, true, false},
		{"empty deq after the enq returned", History{Ops: []Operation{enq(0, 1), deq(1, 0)}, Before: []DepSet{nil, set(0)}, Sync: []DepSet{nil, set(0)}}, false, false},
		{"FIFO violated", History{Ops: []Operation{enq(0, 1), enq(0, 2), deq(1, 2)}, Before: []DepSet{nil, set(0), nil}, Sync: []DepSet{nil, set(0), set(0, 1)}}, false, false},
		{"pending enq supplies the value", History{Ops: []Operation{{Thread: 0, Name: "enq", Args: []int64{1}, Pending: true}, deq(1, 1)}, Before: []DepSet{nil, nil}, Sync: []DepSet{nil, set(0)}}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lin := Linearize(queueSpec{}, &tc.h)
			if lin.OK != tc.ok || (lin.Missing != nil) != tc.blamed {
				t.Errorf("OK %v, missing %v; want OK %v, blamed %v", lin.OK, lin.Missing, tc.ok, tc.blamed)
			}
		})
	}
}
