package states

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// The search is breadth-first, one level at a time: the
// workers (Options.Workers) expand a batch of a level's states, each into
// the result slot of its state, and the results are merged in the level's
// order, batch after batch. The states found, the counts and the
// counterexamples therefore do not depend on the number of workers, and
// every counterexample is a shortest path to its violation.

// link says how the search first reached a state: from the state numbered
// from, by move m, depth moves from the initial state.
type link struct {
	from  int32
	depth int32
	m     move
}

// node is a state of a level, with its number.
type node struct {
	s  *sstate
	id int32
}

// successor is a move a worker made from a state of a level.
type successor struct {
	m    move
	j    int32 // the move's number among those from its state (see moves)
	viol []explore.Violation
	s    *sstate // the state it reached, unless an earlier level had it (nil)
	key  []byte
}

// expansion is what a worker found from a state of a level.
type expansion struct {
	next    []successor
	bounded bool     // a thread could move but for the event bound
	final   *outcome // no thread could move
	err     error
}

// outcome is a state in which no thread can move, judged.
type outcome struct {
	viol    []explore.Violation
	blocked bool // some thread never finishes
}

// search explores every state reachable from the initial one.
func (x *states) search() error {
	if c := x.Config.Cluster; c != nil && x.Config.MaxExecutions == 0 && x.Config.MaxGraphs == 0 {
		return x.searchParts(c)
	}
	s, outs, err := x.initial(nil)
	if err != nil {
		return err
	}
	x.seen.Add(x.key(s))
	x.links = append(x.links[:0], link{from: -1})
	for _, v := range x.judge(outs) {
		x.record(v, 0, nil)
	}
	workers := x.workers()
	defer x.gather(workers)
	results := make([]expansion, batch)
	for level := []node{{s: s}}; len(level) > 0; {
		var next []node
		for lo := 0; lo < len(level); lo += batch {
			part := level[lo:min(lo+batch, len(level))]
			expandAll(workers, part, results)
			var err error
			if next, err = x.merge(next, part, results[:len(part)]); err != nil {
				return err
			}
		}
		level = next
	}
	return nil
}

// expandAll has the workers expand the states of part, each into the
// result slot of its state, and lets go of the states.
func expandAll(workers []*states, part []node, results []expansion) {
	var i atomic.Int64
	c := &claims{m: map[string]int64{}}
	run := func(w *states) {
		for k := int(i.Add(1) - 1); k < len(part); k = int(i.Add(1) - 1) {
			results[k] = w.expand(part[k].s, int64(k)<<32, c)
			part[k].s = nil
		}
	}
	if len(workers) == 1 || len(part) == 1 {
		run(workers[0])
		return
	}
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() { run(w) })
	}
	wg.Wait()
}

// claims says which successor, first in the order of a batch's moves,
// reached each new state the batch found: it alone keeps the state, and
// the batch's others that reach it keep only what they found on the way.
type claims struct {
	mu sync.Mutex
	m  map[string]int64 // per state's key: the claiming move's position (see claim)
}

// claim reports whether the move at position pos (its state's index in
// the batch, then its number among the state's moves) is the first known
// to reach the state with key k; if so, it returns a copy of k.
func (c *claims) claim(k []byte, pos int64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.m[string(k)]; ok && p < pos {
		return nil, false
	}
	c.m[string(k)] = pos
	return slices.Clone(k), true
}

// batch is how many states of a level the workers expand before their
// results are merged: it bounds the successors held at once.
const batch = 128

// workers returns the copies of x that expand a level's states
// (Options.Workers of them).
func (x *states) workers() []*states {
	workers := make([]*states, x.Workers())
	for i := range workers {
		workers[i] = x.worker()
	}
	return workers
}

// gather notes the properties the workers reached.
func (x *states) gather(workers []*states) {
	for _, w := range workers {
		for p := range w.reached {
			x.reached[p] = true
		}
	}
}

// worker returns a copy of x that expands states beside the others: its
// own scratch space and memos, and the properties it reaches.
func (x *states) worker() *states {
	w := *x
	w.room = room{}
	w.keys = make([][]byte, len(x.keys))
	w.opMemo, w.reached = map[opKey]bool{}, map[string]bool{}
	return &w
}

// expand makes every move from s, the state at position pos of its batch
// (see claim), and judges s when there is none. It reads the states of
// earlier levels and writes nothing shared but c.
func (w *states) expand(s *sstate, pos int64, c *claims) expansion {
	var e expansion
	if e.err = w.Step(); e.err != nil {
		return e
	}
	moved := false
	var j int32
	e.bounded = w.moves(s, func(t int, o option) bool {
		moved = true
		n, outs, err := w.apply(s, t, o, nil, &w.spare)
		if err != nil {
			e.err = err
			return false
		}
		sc := successor{m: move{int32(t), o}, j: j, viol: w.judge(outs)}
		j++
		if k := w.key(n); !w.isSeen(k) {
			if key, ok := c.claim(k, pos+int64(sc.j)); ok {
				n.twins, n.twinsKnown = w.twinsIn(n, w.perm, k), true // w.perm and w.keys: n's, from key
				n.keep(t)
				sc.s, sc.key = n, key
			}
		}
		if sc.s != nil || len(sc.viol) > 0 {
			e.next = append(e.next, sc)
		}
		return true
	})
	if e.err == nil && !moved && !e.bounded {
		e.final = w.end(s)
	}
	return e
}

// moves calls try with each move from s, in the order that numbers them
// (a partitioned search names a path by its moves' numbers): for each
// thread, the machine's internal move on its behalf, then the ways of
// its next action. It stops when try returns false, and reports whether
// a thread could move but for the event bound.
func (x *states) moves(s *sstate, try func(t int, o option) bool) (bounded bool) {
	twins := s.twins
	if !s.twinsKnown {
		k := x.key(s) // orders s: x.perm, x.keys
		twins = x.twinsIn(s, x.perm, k)
	}
	for t, th := range s.th {
		if twins != nil && twins[t] {
			continue
		}
		if model.Internal(s.mem, t) && !try(t, option{flush: true}) {
			return bounded
		}
		if th.st.Status != model.Running {
			continue
		}
		ways := s.mem.Ways(t, &th.a, nil)
		if len(ways) > 0 && th.n >= x.Config.MaxEvents {
			bounded = true
			continue
		}
		for _, way := range ways {
			if !try(t, option{way: way}) {
				return bounded
			}
		}
	}
	return bounded
}

// twinsIn marks the threads of s whose moves an earlier interchangeable
// thread makes for them: swapping the two threads' names leaves s as it
// is, so each move of the later one reaches a renaming of what the same
// move of the earlier one reaches, the same state once sorted (and the
// same violations, by the renamed thread). perm is s's order, key s's key
// in it, and x.keys the sort keys order made for it; s's clocks are
// unpacked. It returns nil when no thread is marked.
func (x *states) twinsIn(s *sstate, perm []int, key []byte) []bool {
	if len(x.groups) == 0 {
		return nil
	}
	perm = append(x.twinPerm[:0], perm...)
	x.twinPerm = perm
	var twins []bool
	keyed := false
	for _, g := range x.groups {
		for i := 1; i < len(g); i++ {
			a, b := perm[g[i-1]], perm[g[i]]
			if s.th[a].n != s.th[b].n || !bytes.Equal(x.keys[a], x.keys[b]) {
				continue
			}
			if !keyed { // kept: keyIn reuses the slice key is
				x.twinKey, keyed = append(x.twinKey[:0], key...), true
			}
			perm[g[i-1]], perm[g[i]] = b, a
			same := bytes.Equal(x.twinKey, x.keyIn(s, perm))
			perm[g[i-1]], perm[g[i]] = a, b
			if same {
				if twins == nil {
					twins = make([]bool, len(s.th))
				}
				twins[b] = true
			}
		}
	}
	return twins
}

func (x *states) isSeen(k []byte) bool {
	return x.seen.Has(k)
}

// judge judges outcomes, noting the properties they check, and returns
// their violations.
func (w *states) judge(outs []*explore.Outcome) []explore.Violation {
	var viol []explore.Violation
	for _, o := range outs {
		viol = append(viol, w.cfg.Judge(o, w.check)...)
	}
	return viol
}

// check notes that the search checked property p.
func (w *states) check(p string) { w.reached[p] = true }

// end judges a state in which no thread can move: the end of an
// execution. A thread still running waits for a held mutex.
func (w *states) end(s *sstate) *outcome {
	f := &outcome{}
	o := &explore.Outcome{Prog: w.Prog, End: true, Threads: make([]model.ThreadState, len(s.th)), Final: s.finalState(len(w.Prog.Locs))}
	for t, th := range s.th {
		st := th.st
		if st.Status == model.Cut {
			w.CutLoop(t, st.PC)
		}
		switch st.Status {
		case model.Running: // waiting for a held lock
			st.Status, st.WaitLoc = model.Blocked, th.a.Loc
			f.blocked = true
		case model.Blocked:
			f.blocked = true
		}
		o.Threads[t] = st
	}
	if w.Prog.Aborted(o.Threads) {
		f.blocked = false // the program aborted: its threads stopped where they were
	}
	if w.wholeHistories() {
		o.History = w.history(s)
	}
	f.viol = w.judge([]*explore.Outcome{o})
	return f
}

// merge takes in, in order, what the workers found from the states of
// part of a level, and appends the new states, numbered, to next.
func (x *states) merge(next, part []node, results []expansion) ([]node, error) {
	for _, e := range results {
		if e.err != nil {
			return nil, e.err
		}
	}
	for i, e := range results {
		results[i] = expansion{}
		from := part[i].id
		for j := range e.next {
			sc := &e.next[j]
			for _, v := range sc.viol {
				x.record(v, from, &sc.m)
			}
			if sc.s == nil || !x.seen.Add(sc.key) {
				continue
			}
			id := int32(len(x.links))
			x.links = append(x.links, link{from: from, depth: x.links[from].depth + 1, m: sc.m})
			next = append(next, node{s: sc.s, id: id})
		}
		if e.bounded {
			x.SetLimit(explore.MaxEvents)
		}
		if f := e.final; f != nil {
			// At the execution bound, one final state too many stops the
			// search, as Step would say at the next state.
			if err := x.CountFinal(f.blocked); err != nil {
				return nil, err
			}
			x.free = x.free || !f.blocked
			for _, v := range f.viol {
				x.record(v, from, nil)
			}
		}
	}
	return next, nil
}

// record notes a violation by the state numbered from, or by its move m
// when m is not nil, keeping a shortest path to one.
func (x *states) record(v explore.Violation, from int32, m *move) {
	f := x.found[v.Prop]
	if f == nil {
		f = &finding{}
		x.found[v.Prop] = f
	}
	f.count++
	depth := int(x.links[from].depth)
	if m != nil {
		depth++
	}
	if f.count > 1 && depth >= len(f.path) {
		return
	}
	f.path = make([]move, depth)
	if m != nil {
		f.path[depth-1] = *m
		depth--
	}
	for id := from; id > 0; id = x.links[id].from {
		depth--
		f.path[depth] = x.links[id].m
	}
}
