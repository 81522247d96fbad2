package model

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// RC11 is repaired C11 (Lahav, Vafeiadis, Kang, Hur, Dreyer, "Repairing
// Sequential Consistency in C/C++11", PLDI 2017), following herd7's
// rc11.cat. A read-modify-write is a read and a write related by rmw; a
// consume load is atomic but never synchronises (herd7's reading).
//
//	let rs  = [W]; (po & loc)?; [W & (RLX|REL|ACQ_REL|ACQ|SC)]; (rf; rmw)*
//	let sw  = [REL|ACQ_REL|SC]; ([F]; po)?; rs; rf;
//	          [R & (RLX|REL|ACQ|ACQ_REL|SC)]; (po; [F])?; [ACQ|ACQ_REL|SC]
//	let hb  = (po | sw)+
//	let eco = (rf | co | fr)+
//	let scb = po | (po\loc); hb; (po\loc) | hb & loc | co | fr
//	let psc = ([SC] | [F&SC]; hb?); scb; ([SC] | hb?; [F&SC])
//	        | [F&SC]; (hb | hb; eco; hb); [F&SC]
//	acyclic po | rf            as no-thin-air
//	empty rmw & (fr; co)       as atomicity
//	irreflexive hb; eco?       as coherence
//	irreflexive rmw; eco       as coherence-rmw
//	acyclic psc                as sc
//	undefined_unless empty dr  as data-race
//
// Its machine, for programs without seq_cst accesses and fences, is the
// promising semantics without promises (see raMachine).
var RC11 = Register(&Model{
	Name:           "rc11",
	Doc:            "repaired C11 (consume as relaxed, as herd7)",
	Axioms:         c11Axioms(HB, PSC),
	Order:          PSC,
	Fast:           func(g *Graph) (bool, bool) { return c11Fast(g, false) },
	Clocks:         true,
	HB:             HB,
	RacesUndefined: true,
	Strength:       4,
	Machine:        raMachine{},
	Stale:          c11Stale(HB, PSC, unorderedRC11),
	Unordered:      unorderedRC11,
})

// The relations of RC11, for the models built on it.
var (
	// SW is RC11's synchronises-with.
	SW = Let("sw", func(x *Exec) Relation { return sw(x, x.R.Inter(x.Tags(Rlx, Rel, Acq, AcqRel, SeqCst)), nil) })
	// HB is RC11's happens-before: (po | sw)+.
	HB = Let("hb", func(x *Exec) Relation { return x.Po.Union(x.Of(SW)).Plus() })
	// ECO is the extended coherence order: (rf | co | fr)+.
	ECO = Let("eco", func(x *Exec) Relation { return x.Rf.Union(x.Co, x.Fr).Plus() })
	// PSC is RC11's partial order of seq_cst events.
	PSC = pscWith(HB)
)

// pscWith defines psc over the happens-before hb.
func pscWith(hb *Derived) *Derived {
	return Let("psc", func(x *Exec) Relation {
		if x.Tags(SeqCst).Empty() {
			return NewRelation(x.N)
		}
		return psc(x, x.Of(hb), x.Of(ECO))
	})
}

// c11Axioms returns RC11's axioms over the happens-before hb and its psc.
func c11Axioms(hb, psc *Derived) []Axiom {
	return []Axiom{
		{"no-thin-air", Acyclic, Let("po | rf", func(x *Exec) Relation { return x.Po.Union(x.Rf) })},
		{"atomicity", Empty, rmwBroken},
		{"coherence", Irreflexive, Let("hb; eco?", func(x *Exec) Relation {
			h := x.Of(hb)
			return h.Union(h.Seq(x.Of(ECO)))
		})},
		{"coherence-rmw", Irreflexive, Let("rmw; eco", func(x *Exec) Relation { return x.Rmw.Seq(x.Of(ECO)) })},
		{"sc", Acyclic, Let("psc", func(x *Exec) Relation {
			if x.Tags(SeqCst).Empty() {
				return noPairs // nothing to order, and nothing to allocate
			}
			return x.Of(psc)
		})},
	}
}

// noPairs is a relation without pairs, over no events: what an axiom
// that does not apply constrains (it is acyclic, irreflexive and empty;
// it takes part in no algebra).
var noPairs = Relation{b: []uint64{}}

// sw is RC11's synchronises-with, with the reads that may end it and,
// when fenceReaders is not nil, further reads that end it only through an
// acquire fence after them.
func sw(x *Exec, readers, fenceReaders Set) Relation {
	atomicW := x.W.Inter(x.Tags(Rlx, Rel, AcqRel, Acq, SeqCst))
	rfrmw := x.Rf.Seq(x.Rmw).Star()
	rs := x.Id(x.W).Seq(x.Po.Inter(x.SameLoc).Opt()).Rng(atomicW).Seq(rfrmw)
	fpo := x.Id(x.F).Seq(x.Po).Opt()
	pof := x.Po.Rng(x.F).Opt()
	rel := x.Tags(Rel, AcqRel, SeqCst)
	acq := x.Tags(Acq, AcqRel, SeqCst)
	out := fpo.Dom(rel).Seq(rs).Seq(x.Rf.Rng(readers)).Seq(pof).Rng(acq)
	if fenceReaders != nil {
		out = out.Union(fpo.Dom(rel).Seq(rs).Seq(x.Rf.Rng(fenceReaders)).Seq(x.Po.Rng(x.F.Inter(acq))))
	}
	return out
}

// releaseRf relates a release write (or a release fence before a write) to
// the reads that read from its release sequence.
func releaseRf(x *Exec) Relation {
	atomicW := x.W.Inter(x.Tags(Rlx, Rel, AcqRel, Acq, SeqCst))
	rs := x.Id(x.W).Seq(x.Po.Inter(x.SameLoc).Opt()).Rng(atomicW).Seq(x.Rf.Seq(x.Rmw).Star())
	fpo := x.Id(x.F).Seq(x.Po).Opt()
	return fpo.Dom(x.Tags(Rel, AcqRel, SeqCst)).Seq(rs).Seq(x.Rf)
}

func psc(x *Exec, hb, eco Relation) Relation {
	sc := x.Tags(SeqCst)
	fsc := x.F.Inter(sc)
	sbl := x.Po.Minus(x.SameLoc)
	scb := x.Po.Union(sbl.Seq(hb).Seq(sbl), hb.Inter(x.SameLoc), x.Co, x.Fr)
	left := x.Id(sc).Union(x.Id(fsc).Seq(hb))
	right := x.Id(sc).Union(hb.Rng(fsc))
	pscb := left.Seq(scb).Seq(right)
	pscf := hb.Union(hb.Seq(eco).Seq(hb)).Dom(fsc).Rng(fsc)
	return pscb.Union(pscf)
}

// DataRaces returns the data races of x, as pairs of event indices: two
// accesses to one location from different threads, at least one a write and
// at least one plain, initial writes excepted, unordered by hb.
func DataRaces(x *Exec, hb Relation) [][2]int {
	var out [][2]int
	for i := len(x.InitLocs); i < x.N; i++ {
		for j := i + 1; j < x.N; j++ {
			if !x.SameLoc.Has(i, j) || !x.Ext.Has(i, j) {
				continue
			}
			if !x.W.Has(i) && !x.W.Has(j) {
				continue
			}
			if x.A.Has(i) && x.A.Has(j) {
				continue
			}
			if hb.Has(i, j) || hb.Has(j, i) {
				continue
			}
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// c11Stale explains a stale read under a C11 model with happens-before
// hb and seq_cst order psc: reading a write older than one that happens
// before the read breaks coherence; otherwise nothing ordered the newer
// write before the read — no release/acquire chain, and, where seq_cst
// events stand between them, not psc either.
func c11Stale(hb, psc *Derived, unordered func(*Exec, int, int, func(int) string) string) func(*Exec, int, int, func(int) string) string {
	return func(x *Exec, r, w int, step func(int) string) string {
		if x.Of(hb).Has(w, r) {
			return fmt.Sprintf("%s happens before this read, so reading an older write breaks coherence", step(w))
		}
		why := fmt.Sprintf("%s is not happens-before this read — %s", step(w), unordered(x, w, r, step))
		if x.Tags(SeqCst).Empty() {
			return why
		}
		// The seq_cst events of the writer's thread from the write on, and
		// of the reader's up to the read: psc would have to order one of the
		// first before one of the second.
		after, upTo := x.scAround(w, true), x.scAround(r, false)
		switch {
		case len(after) == 0:
			return fmt.Sprintf("%s; nor does psc, the order of seq_cst events: none follows %s in its thread", why, step(w))
		case len(upTo) == 0:
			return why + "; nor does psc, the order of seq_cst events: none precedes this read in its thread"
		}
		p := x.Of(psc)
		for _, b := range upTo {
			for _, a := range after {
				if p.Has(b, a) {
					return fmt.Sprintf("%s; nor does psc, the order of seq_cst events: it puts %s before %s", why, step(b), step(a))
				}
			}
		}
		return why + "; nor does psc, the order of seq_cst events: it leaves those between them unordered"
	}
}

// scAround returns the seq_cst events (accesses and fences) of event i's
// thread that come after it in program order, i included (after), or
// before it, i included (not after).
func (x *Exec) scAround(i int, after bool) []int {
	ref := x.Refs[i]
	var out []int
	for j := 0; j < x.N; j++ {
		if j == i || x.Refs[j].T == ref.T && (after && x.Po.Has(i, j) || !after && x.Po.Has(j, i)) {
			if x.Ord[SeqCst].Has(j) {
				out = append(out, j)
			}
		}
	}
	return out
}

// unorderedRC11 explains why event a is not happens-before event b under
// RC11, where a consume load never synchronises.
func unorderedRC11(x *Exec, a, b int, step func(int) string) string {
	why, r := syncGap(x, a, b, step)
	if r != nil && r.Ord == Con {
		why += " (a consume load never synchronises in rc11)"
	}
	return why
}

// unorderedC11 explains why event a is not happens-before event b under
// C11 with consume: a consume load orders only what depends on it.
func unorderedC11(x *Exec, a, b int, step func(int) string) string {
	why, r := syncGap(x, a, b, step)
	if r != nil && r.Ord == Con {
		why += " for what does not depend on the consume load"
	}
	return why
}

// syncGap explains why event a of one thread is not happens-before event
// b of another: the usual story is that b's thread saw a's write (or a
// later one of a's thread) through a pair that does not synchronise. It
// returns the explanation and that pair's read (nil when there is none).
func syncGap(x *Exec, a, b int, step func(int) string) (string, *Event) {
	g := x.G
	ra, rb := x.Refs[a], x.Refs[b]
	for i := int(rb.I) - 1; i >= 0; i-- { // b's own read of a is the race, not a path to it
		e := &g.Threads[rb.T][i]
		if e.Kind != KRead || e.Rf.IsInit() || e.Rf.T != ra.T || e.Rf.I < ra.I {
			continue
		}
		src := g.Ev(e.Rf)
		return fmt.Sprintf("%s reads %s through %s and %s, which do not synchronise", step(x.Index(EventRef{T: rb.T, I: int32(i)})), step(x.Index(e.Rf)),
			OrdPhrase(src.Ord, "store"), OrdPhrase(e.Ord, "load")), e
	}
	return "no release/acquire chain orders them", nil
}

// OrdPhrase names an ordering with its article: "a relaxed store".
func OrdPhrase(o Ordering, what string) string {
	if !o.Atomic() {
		return "a plain " + what
	}
	name := map[Ordering]string{Rlx: "relaxed", Con: "consume", Acq: "acquire", Rel: "release", AcqRel: "acq_rel", SeqCst: "seq_cst"}[o]
	if strings.ContainsAny(name[:1], "aeiou") {
		return "an " + name + " " + what
	}
	return "a " + name + " " + what
}

// raMachine is RC11's operational form for programs without seq_cst: the
// timestamped memory of the promising semantics without promises (Kang,
// Hur, Lahav, Vafeiadis, Dreyer, POPL 2017). Each location keeps the
// messages that can still be read, in modification order; each thread has
// views — the newest message of each location it must not read before
// (cur), the same after an acquire fence (acq), and what its release
// fence (fence) and its release writes per location (rel) pass on — and a
// message carries the view its writer released. Timestamps are positions
// in the message lists, counted from the first message ever (messages.at
// makes them places in the lists as they are now); a read-modify-write's
// message is attached to the one it read, so that no write can come
// between them.
type raMachine struct{}

func (raMachine) Unsupported(p *Program) string {
	for _, th := range p.Threads {
		for _, in := range th.Code {
			if in.Ord == SeqCst || in.FailOrd == SeqCst {
				return fmt.Sprintf("%s: seq_cst accesses and fences have no operational form here under rc11", in.Pos)
			}
		}
	}
	return ""
}

func (raMachine) Start(p *Program) Memory {
	gens := new(atomic.Uint64)
	return &raMemory{messages: newMessages(p), views: make([]*tview, len(p.Threads)), gens: gens, gen: gens.Add(1), nl: len(p.Locs)}
}

// raMemory is the messages and the threads' views.
type raMemory struct {
	messages
	views []*tview // per thread; nil: not started, or stopped
	// gen is this memory's generation: the views it made, it may change
	// (see view). States share views until one changes them.
	gen  uint64
	gens *atomic.Uint64
	nl   int
}

// tview is a thread's views: positions per location, absolute (see at).
type tview struct {
	cur, acq, fence []uint32
	rel             [][]uint32 // per location; nil: no release write there yet
	gen             uint64
}

// newView returns the views, made by generation gen, of a thread starting
// at cur (zero: memory's first messages).
func newView(nl int, cur []uint32, gen uint64) *tview {
	if cur == nil {
		cur = make([]uint32, nl)
	}
	return &tview{cur: slices.Clone(cur), acq: slices.Clone(cur), rel: make([][]uint32, nl), gen: gen}
}

// view returns thread t's views to change: a copy unless m made them,
// its vectors in one block.
func (m *raMemory) view(t int) *tview {
	if v := m.views[t]; v.gen != m.gen {
		size := len(v.cur) + len(v.acq) + len(v.fence)
		for _, r := range v.rel {
			size += len(r)
		}
		block := make([]uint32, 0, size)
		vec := func(src []uint32) []uint32 {
			if src == nil {
				return nil
			}
			block = append(block, src...)
			return slices.Clip(block[len(block)-len(src):])
		}
		c := &tview{cur: vec(v.cur), acq: vec(v.acq), fence: vec(v.fence), rel: make([][]uint32, len(v.rel)), gen: m.gen}
		for l, r := range v.rel {
			c.rel[l] = vec(r)
		}
		m.views[t] = c
	}
	return m.views[t]
}

// join sets dst to the entrywise maximum of dst and src.
func join[V int32 | uint32](dst, src []V) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

// joinView joins src into dst, making dst when it is nil.
func joinView(dst, src []uint32) []uint32 {
	if src == nil {
		return dst
	}
	if dst == nil {
		return slices.Clone(src)
	}
	join(dst, src)
	return dst
}

func (m *raMemory) Clone() Memory {
	return &raMemory{messages: m.clone(), views: slices.Clone(m.views), gens: m.gens, gen: m.gens.Add(1), nl: m.nl}
}

func (m *raMemory) Start(t, parent int) {
	if parent < 0 {
		m.views[t] = newView(m.nl, nil, m.gen)
		return
	}
	// The new thread comes after its spawner's events in po: it goes on
	// from all of the spawner's views — a release fence or release write
	// before the spawn heads release sequences its writes continue, and
	// relaxed reads before it feed its acquire fences.
	p := m.views[parent]
	v := newView(m.nl, p.cur, m.gen)
	v.acq, v.fence = slices.Clone(p.acq), slices.Clone(p.fence)
	for l, r := range p.rel {
		v.rel[l] = slices.Clone(r)
	}
	m.views[t] = v
}

func (m *raMemory) Ways(t int, a *Action, dst []Way) []Way {
	switch a.Kind {
	case ActChoose:
		return chooseWays(a.N, dst)
	case ActRead, ActRMW, ActCAS, ActLock:
		return readWays(m.msgs[a.Loc], m.at(a.Loc, m.views[t].cur[a.Loc]), a, dst)
	case ActWrite, ActUnlock:
		ms := m.msgs[a.Loc]
		for q := len(ms); q > m.at(a.Loc, m.views[t].cur[a.Loc]); q-- {
			if q == len(ms) || !ms[q].att {
				dst = append(dst, Way{Pos: q})
			}
		}
		return dst
	}
	return append(dst, Way{})
}

func (m *raMemory) Peek(t int, l Loc, w Way) *Message { return m.msgs[l][w.Pos] }

// Read reads the message at w.Pos: the thread may read nothing older
// again, and an atomic read (consume excepted) takes the view the message
// released, at once when it is an acquire, else at its next acquire fence.
func (m *raMemory) Read(t int, l Loc, w Way, o Ordering) (*Message, Source) {
	msg := m.msgs[l][w.Pos]
	v := m.view(t)
	v.cur[l] = max(v.cur[l], m.abs(l, w.Pos))
	if o.Atomic() && o != Con && msg.view != nil {
		join(v.acq, msg.view)
		if o.IsAcquire() {
			join(v.cur, msg.view)
		}
	}
	join(v.acq, v.cur)
	return msg, m.source(l, w.Pos)
}

// Write places a message at w.Pos. It releases the thread's view at its
// last release fence and at its last release write to the location, its
// current view when it is a release, and, for a read-modify-write, what
// the message it read released (release sequences).
func (m *raMemory) Write(t int, l Loc, w Way, val int64, o Ordering, read *Message, clock []uint32) Source {
	q := w.Pos
	n := &Message{Val: val, Clock: clock, att: read != nil}
	m.shift(l, q)
	v := m.view(t)
	v.cur[l] = m.abs(l, q)
	join(v.acq, v.cur)
	switch {
	case o == Con:
		// A consume write heads no release sequence and continues none of
		// its thread's: it passes on only what its read read.
		if read != nil {
			n.view = slices.Clone(read.view)
		}
	case o.Atomic():
		if o.IsRelease() {
			v.rel[l] = slices.Clone(v.cur)
		}
		n.view = joinView(slices.Clone(v.fence), v.rel[l])
		if o.IsRelease() {
			n.view = joinView(n.view, v.cur)
		}
		if read != nil {
			n.view = joinView(n.view, read.view)
		}
	}
	m.insert(l, q, n)
	return m.source(l, q)
}

func (m *raMemory) Fence(t int, o Ordering) {
	v := m.view(t)
	if o.IsAcquire() {
		join(v.cur, v.acq)
	}
	if o.IsRelease() {
		v.fence = slices.Clone(v.cur)
	}
}

// shift makes room at place q of location l: every view at or after it
// moves up one, in the threads' views and the messages' (a changed
// message is a new one).
func (m *raMemory) shift(l Loc, q int) {
	from := m.abs(l, q)
	changes := func(v []uint32) bool { return v != nil && v[l] >= from }
	set := func(v []uint32) {
		if v != nil && v[l] >= from {
			v[l]++
		}
	}
	for t, v := range m.views {
		if v == nil || !changes(v.cur) && !changes(v.acq) && !changes(v.fence) && !slices.ContainsFunc(v.rel, changes) {
			continue
		}
		v = m.view(t)
		set(v.cur)
		set(v.acq)
		set(v.fence)
		for _, r := range v.rel {
			set(r)
		}
	}
	for k, ms := range m.msgs {
		for i, msg := range ms {
			if changes(msg.view) {
				c := *msg
				c.view = slices.Clone(msg.view)
				c.view[l]++
				m.set(Loc(k), i, &c)
			}
		}
	}
}

// Reduce drops the messages no thread can read any more and forgets the
// views no thread reads (see collect and trimViews).
func (m *raMemory) Reduce(h *Horizon) {
	m.collect(h)
	m.trimViews(h)
}

// collect drops the messages no thread can read any more: those before
// the cur view of every running thread that may still access the location
// (a spawner counts as accessing every location: its new thread starts
// with its views), keeping each location's last message (its final
// value), and of a regular mutex only its last. Views below the first
// message kept stand for that message (see at): they only meet views at
// or after it again.
func (m *raMemory) collect(h *Horizon) {
	for l, ms := range m.msgs {
		lo := len(ms) - 1
		if !h.Regular[l] {
			for t, run := range h.Running {
				if run && h.Futures[t].Touches(l) {
					lo = min(lo, m.at(Loc(l), m.views[t].cur[l]))
				}
			}
		}
		lo = m.sameFrom(Loc(l), lo, h)
		if lo <= 0 {
			continue
		}
		m.drop(Loc(l), lo)
	}
}

// sameFrom returns the last position of the run of messages of l from
// lo on that no future step tells apart: the same value, race clock and
// released view (but at l itself, which a read of the message supersedes),
// with no thread that may still write l placed before the run's end. A
// thread may read any message of the run from its place on, with the same
// effect as reading the run's last, and no write can come between them:
// the run's last stands for all of it.
func (m *raMemory) sameFrom(l Loc, lo int, h *Horizon) int {
	ms := m.msgs[l]
	hi := len(ms) - 1
	for t, run := range h.Running {
		if run && InSet(h.Futures[t].PlainW|h.Futures[t].AtomW, int(l)) {
			hi = min(hi, m.at(l, m.views[t].cur[l]))
		}
	}
	e := lo
	for e < hi && m.sameMessage(ms[lo], ms[e+1], int(l)) {
		e++
	}
	return e
}

// sameMessage reports whether messages a and b of location l have the
// same value, race clock and released view, but at l.
func (m *raMemory) sameMessage(a, b *Message, l int) bool {
	return a.Val == b.Val && slices.Equal(a.Clock, b.Clock) && m.samePlaces(a.view, b.view, l)
}

// place returns the place in location i's list that view v holds (see
// at); a view without entries (nil) holds the first.
func (m *raMemory) place(v []uint32, i int) int {
	if i >= len(v) {
		return 0
	}
	return m.at(Loc(i), v[i])
}

// samePlaces reports whether views a and b hold the same places but at
// location except (-1: none).
func (m *raMemory) samePlaces(a, b []uint32, except int) bool {
	for i := range max(len(a), len(b)) {
		if i != except && m.place(a, i) != m.place(b, i) {
			return false
		}
	}
	return true
}

// trimViews forgets the views no future step reads: a thread's release
// views where it writes no more, its fence view when it writes nothing,
// its acquire view without an acquire fence ahead, its views of locations
// it neither accesses nor passes on, a stopped thread's views, and the
// views of messages no thread reads atomically.
func (m *raMemory) trimViews(h *Horizon) {
	var reads uint64
	for t, run := range h.Running {
		f := &h.Futures[t]
		reads |= f.AtomR
		v := m.views[t]
		if v == nil {
			continue
		}
		if !run {
			m.views[t] = nil
			continue
		}
		own := func() *tview { // changed views are m's own
			v = m.view(t)
			return v
		}
		for l, r := range v.rel {
			if !InSet(f.AtomW, l) && r != nil {
				own().rel[l] = nil
			}
		}
		if f.AtomW == 0 {
			if v.fence != nil {
				own().fence = nil
			}
			for l := range v.cur {
				if !f.Touches(l) && m.at(Loc(l), v.cur[l]) != 0 {
					own().cur[l] = 0
				}
			}
		}
		if !f.AcqFence && !m.samePlaces(v.acq, v.cur, -1) {
			copy(own().acq, v.cur)
		}
	}
	for l, ms := range m.msgs {
		if InSet(reads, l) {
			continue
		}
		for i, msg := range ms {
			if msg.view != nil {
				c := *msg
				c.view = nil
				m.set(Loc(l), i, &c)
			}
		}
	}
}

func (m *raMemory) AppendKey(b []byte, perm []int) []byte { return m.appendKey(b, perm) }

// AppendThreadKey appends thread t's views: positions in the locations'
// lists, which name no thread.
func (m *raMemory) AppendThreadKey(b []byte, t int) []byte {
	v := m.views[t]
	if v == nil {
		return append(b, 0)
	}
	b = m.appendPlaces(b, v.cur)
	b = m.appendPlaces(b, v.acq)
	b = m.appendPlaces(b, v.fence)
	for _, r := range v.rel {
		b = m.appendPlaces(b, r)
	}
	return b
}
