package states

import (
	"math/bits"
	"slices"

	"github.com/ordercheck/ordercheck/model"
)

// clocks lays out the vector clocks of a state in one slice of vectors,
// each with an entry per thread: per thread its happens-before view (c),
// its view at its last release fence (f), the views its relaxed reads
// brought for a later acquire fence (a) and, per location, its view at its
// last release write there (rel); per location and thread, the clock
// values of that thread's last write, plain write, read and plain read
// there (acc). What a write releases travels in its message (model.Message.Clock).
type clocks struct{ n, nl int }

func (k clocks) c(t int) int                   { return t }
func (k clocks) f(t int) int                   { return k.n + t }
func (k clocks) a(t int) int                   { return 2*k.n + t }
func (k clocks) rel(t int, l model.Loc) int    { return 3*k.n + t*k.nl + int(l) }
func (k clocks) acc(l model.Loc, kind int) int { return 3*k.n + k.n*k.nl + recKinds*int(l) + kind }

// record indexes the mutexes held at thread t's last access of kind to l.
func (k clocks) record(l model.Loc, kind, t int) int { return (recKinds*int(l)+kind)*k.n + t }

func (k clocks) vectors() int { return 3*k.n + k.n*k.nl + recKinds*k.nl }
func (k clocks) size() int    { return k.vectors() * k.n }

func (k clocks) vec(clk []uint32, v int) []uint32 { return clk[v*k.n : (v+1)*k.n] }

// join raises dst to src, entry by entry.
func join(dst, src []uint32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

// nonzero reports whether vector v has an entry other than zero.
func nonzero(v []uint32) bool {
	for _, e := range v {
		if e != 0 {
			return true
		}
	}
	return false
}

// tick starts a new event of thread t.
func (k clocks) tick(clk []uint32, t int) { k.vec(clk, k.c(t))[t]++ }

// acquire applies a read by t with ordering o of a message that
// released vc: an atomic read (consume excepted) synchronises with the
// release the write heads, at once when it is an acquire, else at t's next
// acquire fence.
func (k clocks) acquire(clk []uint32, t int, vc []uint32, o model.Ordering) {
	if !o.Atomic() || o == model.Con || vc == nil {
		return
	}
	join(k.vec(clk, k.a(t)), vc)
	if o.IsAcquire() {
		join(k.vec(clk, k.c(t)), vc)
	}
}

// release returns the clocks a write by t to l with ordering o releases:
// t's at its last release fence, at its release writes to l before it
// and, for a release write, now; a read-modify-write also passes on what
// the message it read released (release sequences). A plain write
// releases nothing (nil).
func (k clocks) release(clk []uint32, t int, l model.Loc, o model.Ordering, read *model.Message) []uint32 {
	switch {
	case !o.Atomic():
		return nil
	case o == model.Con:
		// A consume write heads no release sequence and continues none of
		// its thread's: it passes on only what its read read.
		if read != nil && read.Clock != nil {
			return slices.Clone(read.Clock)
		}
		return nil
	}
	rel := k.vec(clk, k.rel(t, l))
	if o.IsRelease() {
		copy(rel, k.vec(clk, k.c(t)))
	}
	m := slices.Clone(k.vec(clk, k.f(t)))
	join(m, rel)
	if read != nil && read.Clock != nil {
		join(m, read.Clock)
	}
	return m
}

// fence applies a fence of t with ordering o.
func (k clocks) fence(clk []uint32, t int, o model.Ordering) {
	c := k.vec(clk, k.c(t))
	if o.IsAcquire() {
		join(c, k.vec(clk, k.a(t)))
	}
	if o.IsRelease() {
		copy(k.vec(clk, k.f(t)), c)
	}
}

// access checks an access by t to l against the other threads' last
// accesses there, reporting a data race (two accesses, one a write and one
// plain, unordered by happens-before), and records it.
func (k clocks) access(clk []uint32, locks []uint64, t int, l model.Loc, write bool, o model.Ordering, held uint64) bool {
	c := k.vec(clk, k.c(t))
	plain := !o.Atomic()
	var against [2]int // the kinds of record the access conflicts with
	switch {
	case plain && write:
		against = [2]int{recWrite, recRead}
	case plain:
		against = [2]int{recWrite, recWrite}
	case write:
		against = [2]int{recPlainWrite, recPlainRead}
	default:
		against = [2]int{recPlainWrite, recPlainWrite}
	}
	raced := false
	for _, kind := range against {
		for u, e := range k.vec(clk, k.acc(l, kind)) {
			if u != t && e > c[u] {
				raced = true
			}
		}
	}
	note := func(kind int) {
		k.vec(clk, k.acc(l, kind))[t] = c[t]
		locks[k.record(l, kind, t)] = held
	}
	if write {
		note(recWrite)
		if plain {
			note(recPlainWrite)
		}
	} else {
		note(recRead)
		if plain {
			note(recPlainRead)
		}
	}
	return raced
}

// future returns what thread t of s may still do.
func (x *states) future(s *sstate, t int) model.Future { return futureIn(x.futs, s, t) }

// futureIn returns thread t's future in s from the table futs.
func futureIn(futs [][]model.Future, s *sstate, t int) model.Future {
	switch st := s.th[t].st; {
	case futs == nil:
		return model.Future{PlainR: ^uint64(0), PlainW: ^uint64(0), AtomR: ^uint64(0), AtomW: ^uint64(0), AcqFence: true, Marks: true}
	case st.Status == model.Running:
		return futs[t][st.PC]
	case st.Status == model.Unborn:
		return futs[t][0]
	}
	return model.Future{}
}

// mayConflict reports whether thread t (whose future is fut[t]) may still
// make an access that conflicts with a record of kind at location l made
// holding the regular mutexes held. An access made holding one of them
// cannot race with it: the mutex's unlocks and locks order the two by
// happens-before.
func (x *states) mayConflict(s *sstate, fut []model.Future, t, l, kind int, held uint64) bool {
	if !conflicts(&fut[t], l, kind) {
		return false
	}
	for held != 0 {
		m := bits.TrailingZeros64(held)
		held &^= 1 << uint(m)
		if f := futureIn(x.guarded[m], s, t); !conflicts(&f, l, kind) {
			return false
		}
	}
	return true
}

// record is an access record normalize keeps: its location, kind, clock
// value and the regular mutexes held at the access.
type record struct {
	l, kind int
	e       uint32
	held    uint64
}

// normalize keeps of s's clocks only what the threads' futures can
// observe (an over-approximation: futures). Views no future step reads
// are cleared: a thread's release views when it writes no more (there),
// its pending acquires when it has no acquire fence ahead, a location's
// released view when nobody reads it atomically again. A record of thread
// u's access is dropped when every live thread that may still make a
// conflicting access knows it. Then every value in u's column is lowered
// to the greatest record at or below it, and numbered by that record's
// rank: comparisons with records, joins, and u's later clock values
// (greater than all) give the same answers, and equal states get equal
// clocks.
func (x *states) normalize(s *sstate) {
	k, clk := x.lay, s.clk
	n := k.n
	fut := x.hz.Futures // apply computed them for this state
	var reads uint64
	for t, th := range s.th {
		f := &fut[t]
		reads |= f.AtomR
		if th.st.Status != model.Running {
			continue
		}
		for l := range k.nl {
			if !model.InSet(f.AtomW, l) {
				clear(k.vec(clk, k.rel(t, model.Loc(l))))
			}
		}
		if f.AtomW == 0 {
			clear(k.vec(clk, k.f(t)))
		}
		if !f.AcqFence {
			clear(k.vec(clk, k.a(t)))
		}
	}
	if len(x.recs) < n {
		x.recs = make([][]uint32, n)
	}
	// The access records' vectors with an entry, and the threads that
	// pass on no more views: most records are zero, most threads not.
	live := x.liveRecs[:0]
	for v := k.acc(0, 0); v < k.vectors(); v++ {
		if nonzero(k.vec(clk, v)) {
			live = append(live, v-k.acc(0, 0))
		}
	}
	x.liveRecs = live
	passive := x.passive[:0]
	for t := range n {
		if s.th[t].st.Status == model.Running && fut[t].AtomW == 0 {
			passive = append(passive, t)
		}
	}
	x.passive = passive
	for u := range n {
		recs := x.recs[u][:0]
		kept := x.kept[:0]
		for _, r := range live {
			l, kind := r/recKinds, r%recKinds
			i := k.acc(model.Loc(l), kind)*n + u
			e := clk[i]
			if e == 0 {
				continue
			}
			keep := false
			held := s.locks[k.record(model.Loc(l), kind, u)]
			for t := range n {
				if t != u && (s.th[t].st.Status == model.Unborn || clk[k.c(t)*n+u] < e) &&
					x.mayConflict(s, fut, t, l, kind, held) {
					keep = true
					break
				}
			}
			if keep {
				recs = append(recs, e)
				kept = append(kept, record{l: l, kind: kind, e: e, held: held})
			} else {
				clk[i] = 0
				s.locks[k.record(model.Loc(l), kind, u)] = 0
			}
		}
		x.kept = kept
		// The markers of u's operations are records too, kept for good:
		// every later marker compares its view with them.
		start := len(recs)
		for _, op := range s.th[u].ops {
			for _, e := range [2]uint32{op.call, op.ret} {
				if e != 0 {
					recs = append(recs, e)
				}
			}
		}
		marks := recs[start:]
		// A thread that passes on no more views needs to know only the
		// records it may itself conflict with, and the markers when it has
		// markers of its own ahead.
		for _, t := range passive {
			if t == u {
				continue
			}
			for _, v := range [2]int{k.c(t), k.a(t)} {
				i := v*n + u
				best := uint32(0)
				for _, r := range kept {
					if r.e <= clk[i] && r.e > best && x.mayConflict(s, fut, t, r.l, r.kind, r.held) {
						best = r.e
					}
				}
				if fut[t].Marks {
					for _, e := range marks {
						if e <= clk[i] && e > best {
							best = e
						}
					}
				}
				clk[i] = best
			}
		}
		slices.Sort(recs)
		recs = slices.Compact(recs)
		x.recs[u] = recs
		x.rankMarks(s, u)
	}
	for row := 0; row < len(clk); row += n { // a vector's entry u is u's column
		for u, e := range clk[row : row+n] {
			if e != 0 { // rank 0, as no record is 0
				clk[row+u] = rank(x.recs[u], e)
			}
		}
	}
	// The messages' clocks are in the columns too; a message whose
	// clocks change (or are read by nobody) is a new one.
	s.mem.MapClocks(func(l model.Loc, c []uint32) ([]uint32, bool) { return x.rankClock(c, model.InSet(reads, int(l))) })
}

// rankMarks numbers the clock values of thread u's operation markers by
// the ranks of the records normalize kept, copying the thread's
// operations when they change.
func (x *states) rankMarks(s *sstate, u int) {
	th := s.th[u]
	for k, op := range th.ops {
		if rank(x.recs[u], op.call) == op.call && rank(x.recs[u], op.ret) == op.ret {
			continue
		}
		c := *th
		c.ops = slices.Clone(th.ops)
		for j := k; j < len(c.ops); j++ {
			c.ops[j].call, c.ops[j].ret = rank(x.recs[u], c.ops[j].call), rank(x.recs[u], c.ops[j].ret)
		}
		s.th[u] = &c
		return
	}
}

// rankClock returns a message's clock c with its values numbered by the
// ranks of the records normalize kept, or no clock when nobody reads the
// message (read false), and whether that differs from c.
func (x *states) rankClock(c []uint32, read bool) ([]uint32, bool) {
	if c == nil {
		return nil, false
	}
	if !read {
		return nil, true
	}
	for u, e := range c {
		if rank(x.recs[u], e) != e {
			r := slices.Clone(c)
			for u, e := range r {
				r[u] = rank(x.recs[u], e)
			}
			return r, true
		}
	}
	return c, false
}

// rank returns the number of records (sorted) at or below clock value e.
func rank(recs []uint32, e uint32) uint32 {
	r := uint32(0)
	for r < uint32(len(recs)) && recs[r] <= e {
		r++
	}
	return r
}

// retire forgets the views of a thread that will not move again.
func (k clocks) retire(clk []uint32, t int) {
	clear(k.vec(clk, k.c(t)))
	clear(k.vec(clk, k.f(t)))
	clear(k.vec(clk, k.a(t)))
	for l := range k.nl {
		clear(k.vec(clk, k.rel(t, model.Loc(l))))
	}
}
