package model

// Linearization is the judgement of a history by a specification.
type Linearization struct {
	// OK says that the history linearizes: Order is a sequential order of
	// its operations that extends Before, in which the specification
	// accepts every result and promises no synchronisation outside Sync.
	// Pending operations it leaves out took no effect.
	OK    bool
	Order []int
	// Missing, when the history does not linearize only for want of
	// synchronisation, is what Order (an order whose results the
	// specification accepts) lacks: each From must happen before To
	// returns, and does not.
	Missing []SyncEdge
	// DeadEnds, when no order gives the results, are the longest
	// prefixes of orders the specification accepted, each with the
	// operations that could come next and were refused (at most eight).
	DeadEnds []DeadEnd
}

// SyncEdge is synchronisation a specification promises: operation From
// happens before operation To returns.
type SyncEdge struct{ From, To int }

// DeadEnd is where a search for a linearization stopped: the specification
// accepted Prefix, reaching State, and refused each operation of Refused,
// every one of which could have come next.
type DeadEnd struct {
	Prefix  []int
	State   SpecState
	Refused []int
}

// maxDeadEnds bounds the dead ends a Linearization keeps.
const maxDeadEnds = 8

// Linearize judges h by spec: it looks for a sequential order of h's
// operations that extends happens-before (h.Before), in which spec
// accepts every operation's results and promises only synchronisation the
// execution has (h.Sync) — the definition of linearizability under weak
// memory of Raad et al. ("Library correctness under weak memory") and of
// Relinche (Golovin, Kokologiannakis and Vafeiadis, POPL 2025). Pending
// operations may be ordered or left out. The search is Wing and Gong's,
// memoised on the set of operations ordered and the specification's state,
// as porcupine does.
func Linearize(spec Spec, h *History) *Linearization {
	s := newLinSearch(spec, h, true)
	if order, ok := s.run(); ok {
		return &Linearization{OK: true, Order: order}
	}
	if !s.promised {
		return &Linearization{DeadEnds: s.deadEnds}
	}
	// Some step promised synchronisation: was it the results or the
	// synchronisation that no order could give?
	r := newLinSearch(spec, h, false)
	order, ok := r.run()
	if !ok {
		return &Linearization{DeadEnds: r.deadEnds}
	}
	return &Linearization{Order: order, Missing: missingSync(spec, h, order)}
}

// missingSync returns the synchronisation spec promises in order and h
// lacks.
func missingSync(spec Spec, h *History, order []int) []SyncEdge {
	var out []SyncEdge
	// Follow order again, taking at each step the way that lacks the
	// least.
	st := spec.Init()
	for _, i := range order {
		var best []SyncEdge
		var next SpecState
		for k, step := range spec.Step(st, h, i) {
			var lack []SyncEdge
			for _, a := range step.Needs.Members() {
				if a != i && !h.Sync[i].Has(a) {
					lack = append(lack, SyncEdge{From: a, To: i})
				}
			}
			if k == 0 || len(lack) < len(best) {
				best, next = lack, step.Next
			}
		}
		out = append(out, best...)
		st = next
	}
	return out
}

// linSearch is one depth-first search for a linearization.
type linSearch struct {
	spec     Spec
	h        *History
	sync     bool // require the promised synchronisation
	promised bool // some step promised synchronisation
	required DepSet
	seen     map[string]bool
	order    []int
	deadEnds []DeadEnd
	deepest  int
}

func newLinSearch(spec Spec, h *History, sync bool) *linSearch {
	s := &linSearch{spec: spec, h: h, sync: sync, seen: map[string]bool{}, deepest: -1}
	for i := range h.Ops {
		if !h.Ops[i].Pending {
			s.required = s.required.With(i)
		}
	}
	return s
}

func (s *linSearch) run() ([]int, bool) {
	ok := s.visit(nil, s.spec.Init())
	return s.order, ok
}

// visit extends the order so far (done) from state st; it reports
// whether some extension orders every returned operation.
func (s *linSearch) visit(done DepSet, st SpecState) bool {
	if subset(s.required, done) {
		return true
	}
	key := string(appendBits(nil, done)) + "\x00" + string(st)
	if s.seen[key] {
		return false
	}
	s.seen[key] = true
	var refused []int
	for i := range s.h.Ops {
		if done.Has(i) || !subset(s.h.Before[i], done) {
			continue
		}
		accepted := false
		for _, step := range s.spec.Step(st, s.h, i) {
			if len(step.Needs.Members()) > 0 {
				s.promised = true
			}
			if s.sync && !s.synchronised(i, step.Needs) {
				continue
			}
			accepted = true
			s.order = append(s.order, i)
			if s.visit(done.With(i), step.Next) {
				return true
			}
			s.order = s.order[:len(s.order)-1]
		}
		if !accepted {
			refused = append(refused, i)
		}
	}
	if len(refused) > 0 {
		s.deadEnd(st, refused)
	}
	return false
}

// synchronised reports whether every operation i needs happens before
// i returns.
func (s *linSearch) synchronised(i int, needs DepSet) bool {
	for _, a := range needs.Members() {
		if a != i && !s.h.Sync[i].Has(a) {
			return false
		}
	}
	return true
}

// deadEnd keeps the current order as a dead end if it is among the
// longest.
func (s *linSearch) deadEnd(st SpecState, refused []int) {
	switch n := len(s.order); {
	case n > s.deepest:
		s.deepest, s.deadEnds = n, nil
	case n < s.deepest || len(s.deadEnds) >= maxDeadEnds:
		return
	}
	s.deadEnds = append(s.deadEnds, DeadEnd{Prefix: append([]int(nil), s.order...), State: st, Refused: refused})
}

// subset reports whether a ⊆ b.
func subset(a, b DepSet) bool {
	for i, w := range a {
		var o uint64
		if i < len(b) {
			o = b[i]
		}
		if w&^o != 0 {
			return false
		}
	}
	return true
}

// appendBits appends d's words, without trailing zeros, to b.
func appendBits(b []byte, d DepSet) []byte {
	n := len(d)
	for n > 0 && d[n-1] == 0 {
		n--
	}
	for _, w := range d[:n] {
		for k := range 8 {
			b = append(b, byte(w>>(8*k)))
		}
	}
	return b
}
