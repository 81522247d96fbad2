package checker

// The memory of the state explorer. Under SC a location holds one value:
// reads see the last write. Under release/acquire and relaxed accesses
// (RC11 without seq_cst accesses or fences) it is the timestamped memory
// of the promising semantics without promises (Kang, Hur, Lahav,
// Vafeiadis, Dreyer, POPL 2017): each location keeps the messages that
// can still be read, in modification order; each thread has views — the
// newest message of each location it must not read before (cur), the
// same after an acquire fence (acq), and what its release fence (fence)
// and its release writes per location (rel) pass on — and a message
// carries the view its writer released. Timestamps are positions in the
// message lists; a read-modify-write's message is attached to the one it
// read, so that no write can come between them.

import (
	"encoding/binary"
	"slices"

	"github.com/ordercheck/ordercheck/model"
)

// msg is a write that can still be read. Messages are not changed once
// made: an update makes a new one.
type msg struct {
	val  int64
	att  bool     // written by a read-modify-write of the message before it
	view []uint32 // per location: the view the write released (weak memory; nil: none)
	vc   []uint32 // per thread: the clocks the write released (races; nil: none)
}

// tview is a thread's views under weak memory (positions per location).
// States share views: only the state that made them (gen) changes them,
// any other copies them first (see sstate.view).
type tview struct {
	cur, acq, fence []uint32
	rel             [][]uint32 // per location; nil: no release write there yet
	gen             uint64
}

// newView returns the views, made by state generation gen, of a thread
// starting at cur (zero: memory's first messages).
func newView(nl int, cur []uint32, gen uint64) *tview {
	if cur == nil {
		cur = make([]uint32, nl)
	}
	return &tview{cur: clone32(cur), acq: clone32(cur), rel: make([][]uint32, nl), gen: gen}
}

// view returns thread t's views in s to change: a copy unless s made them.
func (s *sstate) view(t int) *tview {
	if v := s.views[t]; v.gen != s.gen {
		c := v.clone()
		c.gen = s.gen
		s.views[t] = c
	}
	return s.views[t]
}

func (v *tview) clone() *tview {
	c := &tview{cur: clone32(v.cur), acq: clone32(v.acq), fence: clone32(v.fence), rel: make([][]uint32, len(v.rel))}
	for l, r := range v.rel {
		c.rel[l] = clone32(r)
	}
	return c
}

func clone32(v []uint32) []uint32 {
	if v == nil {
		return nil
	}
	return append([]uint32(nil), v...)
}

// joinView joins src into dst, making dst when it is nil.
func joinView(dst, src []uint32) []uint32 {
	if src == nil {
		return dst
	}
	if dst == nil {
		return clone32(src)
	}
	join(dst, src)
	return dst
}

// option is one way to perform a memory action: the position of the
// message read (or, for a store, where its message goes) and, for a weak
// compare-exchange, whether it fails spuriously.
type option struct {
	pos      int
	spurious bool
	flush    bool // not the thread's action: the oldest write of its store buffer reaches memory (tso)
}

// fromBuffer is the position of a read from the thread's own store buffer
// (tso): its last write to the location there.
const fromBuffer = -1

// pending is a write in a thread's store buffer (tso).
type pending struct {
	l model.Loc
	m *msg
}

// buffered reports whether action a's write enters its thread's store
// buffer: under tso, a store that is not seq_cst (an x86 MOV; unlock
// included). A seq_cst store is MOV;MFENCE: it waits for an empty buffer
// (see waitsForBuffer) and then writes memory, which is the same as
// buffering it and draining.
func (x *states) buffered(a *model.Action) bool {
	return x.tso && (a.Kind == model.ActWrite || a.Kind == model.ActUnlock) && a.Ord != model.SC
}

// waitsForBuffer reports whether thread t's action a must wait in s for
// its store buffer to drain: under tso, locked instructions (read-modify-
// writes, compare-exchanges, locks), MFENCE (a seq_cst fence or store) and
// spawning a thread.
func (x *states) waitsForBuffer(s *sstate, t int, a *model.Action) bool {
	if !x.tso || len(s.bufs[t]) == 0 {
		return false
	}
	switch a.Kind {
	case model.ActRMW, model.ActCAS, model.ActLock, model.ActSpawn:
		return true
	case model.ActFence, model.ActWrite:
		return a.Ord == model.SC
	}
	return false
}

// lastBuffered returns the index of thread t's last write to l in its
// store buffer, or -1.
func (s *sstate) lastBuffered(t int, l model.Loc) int {
	if s.bufs == nil {
		return -1
	}
	for i := len(s.bufs[t]) - 1; i >= 0; i-- {
		if s.bufs[t][i].l == l {
			return i
		}
	}
	return -1
}

// bufferWrite appends message m for l to thread t's store buffer.
func (x *states) bufferWrite(s *sstate, t int, l model.Loc, m *msg) {
	buf := s.bufs[t]
	s.bufs[t] = append(buf[:len(buf):len(buf)], pending{l: l, m: m})
}

// flush moves the oldest write of thread t's store buffer to memory.
func (x *states) flush(s *sstate, t int, b *builder) {
	p := s.bufs[t][0]
	s.bufs[t] = s.bufs[t][1:]
	s.msgs[p.l] = append(s.msgs[p.l], p.m)
	b.flush(t, p.l)
}

// appendBuffer encodes the locations and values of a store buffer.
func appendBuffer(b []byte, buf []pending) []byte {
	b = binary.AppendUvarint(b, uint64(len(buf)))
	for _, p := range buf {
		b = binary.AppendUvarint(b, uint64(p.l))
		b = binary.AppendVarint(b, p.m.val)
	}
	return b
}

// options lists the ways thread t can perform action a in s; none when it
// waits for a lock (and for actions that touch no memory, one).
func (x *states) options(s *sstate, t int, a *model.Action) []option {
	if x.waitsForBuffer(s, t, a) {
		return nil
	}
	switch a.Kind {
	case model.ActChoose:
		out := make([]option, a.N)
		for v := range out {
			out[v].pos = v
		}
		return out
	case model.ActRead:
		if s.lastBuffered(t, a.Loc) >= 0 {
			return []option{{pos: fromBuffer}}
		}
	case model.ActRMW, model.ActCAS, model.ActLock:
	case model.ActWrite, model.ActUnlock:
		ms := s.msgs[a.Loc]
		if !x.weak {
			return []option{{pos: len(ms)}}
		}
		var out []option
		for q := len(ms); q > int(s.views[t].cur[a.Loc]); q-- {
			if q == len(ms) || !ms[q].att {
				out = append(out, option{pos: q})
			}
		}
		return out
	default:
		return []option{{}}
	}
	ms := s.msgs[a.Loc]
	lo := len(ms) - 1
	if x.weak {
		lo = int(s.views[t].cur[a.Loc])
	}
	var out []option
	for p := len(ms) - 1; p >= lo; p-- {
		for _, sp := range spuriousChoices(a, ms[p].val) {
			writes, _, blocked := a.Outcome(ms[p].val, sp)
			if blocked || writes && p+1 < len(ms) && ms[p+1].att {
				continue
			}
			out = append(out, option{pos: p, spurious: sp})
		}
	}
	return out
}

// readMsg applies thread t's read of the message at p of location l with
// ordering o to its views and returns the message.
func (x *states) readMsg(s *sstate, t int, l model.Loc, p int, o model.Ordering) *msg {
	m := s.msgs[l][p]
	if !x.weak {
		return m
	}
	v := s.view(t)
	v.cur[l] = max(v.cur[l], uint32(p))
	if o.Atomic() && o != model.Con && m.view != nil {
		join(v.acq, m.view)
		if o.IsAcquire() {
			join(v.cur, m.view)
		}
	}
	join(v.acq, v.cur)
	return m
}

// writeMsg adds thread t's write of val to l with ordering o at position
// q; read, for a read-modify-write, is the message it read (its new
// message is attached to it). vc is the clocks the write releases.
func (x *states) writeMsg(s *sstate, t int, l model.Loc, q int, val int64, o model.Ordering, read *msg, vc []uint32) {
	m := &msg{val: val, att: read != nil, vc: vc}
	if x.weak {
		x.shift(s, l, q)
		v := s.view(t)
		v.cur[l] = uint32(q)
		join(v.acq, v.cur)
		if o.Atomic() {
			if o.IsRelease() {
				v.rel[l] = clone32(v.cur)
			}
			m.view = joinView(clone32(v.fence), v.rel[l])
			if o.IsRelease() {
				m.view = joinView(m.view, v.cur)
			}
			if read != nil {
				m.view = joinView(m.view, read.view)
			}
		}
	}
	ms := s.msgs[l]
	s.msgs[l] = append(ms[:q:q], append([]*msg{m}, ms[q:]...)...)
}

// fenceViews applies a fence with ordering o to thread t's views.
func (x *states) fenceViews(s *sstate, t int, o model.Ordering) {
	if !x.weak {
		return
	}
	v := s.view(t)
	if o.IsAcquire() {
		join(v.cur, v.acq)
	}
	if o.IsRelease() {
		v.fence = clone32(v.cur)
	}
}

// shift makes room at position q of location l: every view at or after q
// moves up one.
func (x *states) shift(s *sstate, l model.Loc, q int) {
	x.remap(s, l, func(p uint32) uint32 {
		if p >= uint32(q) {
			return p + 1
		}
		return p
	})
}

// remap replaces every view's position p of location l by f(p), in the
// threads' views and the messages' (a changed message is a new one).
func (x *states) remap(s *sstate, l model.Loc, f func(uint32) uint32) {
	changes := func(v []uint32) bool { return v != nil && f(v[l]) != v[l] }
	set := func(v []uint32) {
		if v != nil {
			v[l] = f(v[l])
		}
	}
	for t, v := range s.views {
		if v == nil || !changes(v.cur) && !changes(v.acq) && !changes(v.fence) && !slices.ContainsFunc(v.rel, changes) {
			continue
		}
		v = s.view(t)
		set(v.cur)
		set(v.acq)
		set(v.fence)
		for _, r := range v.rel {
			set(r)
		}
	}
	for _, ms := range s.msgs {
		for i, m := range ms {
			if m.view != nil && f(m.view[l]) != m.view[l] {
				c := *m
				c.view = clone32(m.view)
				c.view[l] = f(m.view[l])
				ms[i] = &c
			}
		}
	}
}

// collect drops the messages no thread can read any more: those before
// the cur view of every running thread that may still access the location
// (a spawner counts as accessing every location: its new thread starts
// with its views), keeping each location's last message (its final
// value), and of a regular mutex only its last (see regularMutexes).
// Views below the first message kept become that message: they only meet
// views at or after it again.
func (x *states) collect(s *sstate) {
	for l, ms := range s.msgs {
		lo := len(ms) - 1
		if x.weak && !x.mutexes[l] {
			for t, th := range s.th {
				if f := x.future(s, t); th.st.Status == model.Running && f.touches(l) {
					lo = min(lo, int(s.views[t].cur[l]))
				}
			}
		}
		if lo <= 0 {
			continue
		}
		s.msgs[l] = ms[lo:len(ms):len(ms)]
		s.base[l] += lo
		if x.weak {
			x.remap(s, model.Loc(l), func(p uint32) uint32 { return uint32(max(int(p)-lo, 0)) })
		}
	}
}

// trimViews forgets the views no future step reads (see future): a
// thread's release views where it writes no more, its fence view when it
// writes nothing, its acquire view without an acquire fence ahead, its
// views of locations it neither accesses nor passes on, a stopped
// thread's views, and the views of messages no thread reads atomically.
func (x *states) trimViews(s *sstate) {
	var reads uint64
	for t, th := range s.th {
		f := x.future(s, t)
		reads |= f.atomR
		v := s.views[t]
		if v == nil {
			continue
		}
		if th.st.Status != model.Running {
			s.views[t] = nil
			continue
		}
		own := func() *tview { // changed views are s's own
			v = s.view(t)
			return v
		}
		for l, r := range v.rel {
			if f.atomW>>uint(l)&1 == 0 && r != nil {
				own().rel[l] = nil
			}
		}
		if f.atomW == 0 {
			if v.fence != nil {
				own().fence = nil
			}
			for l := range v.cur {
				if !f.touches(l) && v.cur[l] != 0 {
					own().cur[l] = 0
				}
			}
		}
		if !f.acqFence && !slices.Equal(v.acq, v.cur) {
			copy(own().acq, v.cur)
		}
	}
	for l, ms := range s.msgs {
		if reads>>uint(l)&1 != 0 {
			continue
		}
		for i, m := range ms {
			if m.view != nil {
				c := *m
				c.view = nil
				ms[i] = &c
			}
		}
	}
}
