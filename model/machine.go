package model

import (
	"encoding/binary"
	"slices"
)

// Machine is a memory model's operational form: an abstract machine whose
// states the state explorer searches. Under such a model a partial
// execution's future depends only on the machine's state (the threads'
// local states and the memory), so two paths to one state need to be
// explored once. A model without one (Model.Machine nil) is explored by
// execution graphs.
type Machine interface {
	// Unsupported says why the machine cannot run p, or returns "" when
	// it can.
	Unsupported(p *Program) string
	// Start returns the memory of p's initial state, in which no thread
	// has started yet (see Memory.Start).
	Start(p *Program) Memory
}

// Buffered is a Memory with store buffers (TSO's): the machine moves on a
// thread's behalf, the oldest write of its buffer reaching memory.
type Buffered interface {
	Memory
	// Internal reports whether the machine can move on thread t's behalf.
	Internal(t int) bool
	// Flush makes that move and returns the location written.
	Flush(t int) Loc
	// Buffers reports whether thread t's store buffer holds a write to l.
	Buffers(t int, l Loc) bool
}

// Internal reports whether the machine can move on thread t's behalf in
// mem: a write of t's store buffer, when mem is Buffered, reaching memory.
func Internal(mem Memory, t int) bool {
	b, ok := mem.(Buffered)
	return ok && b.Internal(t)
}

// Memory is the shared memory of one state of a Machine. A state's memory
// is never changed once the state is made: the explorer clones it, then
// performs one thread's action on the clone. Thread and location numbers
// are the program's; a position is an index into a location's messages
// (see Ways).
type Memory interface {
	// Clone returns a copy to change.
	Clone() Memory
	// Start readies the memory for thread t, which starts now; parent is
	// the thread that spawned it, or -1.
	Start(t, parent int)
	// Ways appends to dst the ways thread t can perform the memory part of
	// action a: which message a read reads, where a write goes, which
	// value a choice takes. It appends nothing when the thread must wait.
	Ways(t int, a *Action, dst []Way) []Way
	// Peek returns the message a read of l by t in way w would read.
	Peek(t int, l Loc, w Way) *Message
	// Read performs thread t's read of l in way w, with ordering o, and
	// returns the message read and which write it was.
	Read(t int, l Loc, w Way, o Ordering) (*Message, Source)
	// Write performs thread t's write of val to l in way w, with ordering
	// o. read is the message a read-modify-write read (nil for a store);
	// clock travels with the message, unchanged (see Message.Clock). It
	// returns where the write went.
	Write(t int, l Loc, w Way, val int64, o Ordering, read *Message, clock []uint32) Source
	// Fence performs thread t's fence with ordering o.
	Fence(t int, o Ordering)
	// Final returns the value of l's last write and its position in
	// modification order (0: the initial write).
	Final(l Loc) (int64, int)
	// Reduce forgets what no thread can observe any more.
	Reduce(h *Horizon)
	// MapClocks replaces the clock of every message: f returns the new
	// clock and whether it differs from the old one.
	MapClocks(f func(l Loc, c []uint32) ([]uint32, bool))
	// AppendThreadKey appends to b what the memory holds of thread t
	// alone that does not depend on the other threads' names (its store
	// buffer, its views), to sort interchangeable threads.
	AppendThreadKey(b []byte, t int) []byte
	// AppendKey appends to b an encoding of the rest of the memory, in
	// which threads come in the order perm (perm[i] is the i-th thread)
	// and clocks' entries too: with each thread's AppendThreadKey in the
	// order perm before it, equal keys, equal futures.
	AppendKey(b []byte, perm []int) []byte
}

// Message is a write in a machine's memory (the promising semantics'
// word). Messages are not changed once made: a change makes a new one.
type Message struct {
	// Val is the value written.
	Val int64
	// Clock is what the write released to the explorer's race detection,
	// one entry per thread; the memory carries it unchanged.
	Clock []uint32
	att   bool     // written by a read-modify-write of the message before it
	view  []uint32 // per location: the view the write released (release/acquire memory; nil: none)
}

// Way is one way of performing a memory action (see Memory.Ways).
type Way struct {
	// Pos is the position of the message read, the position a write
	// takes, or the value a choice takes; FromBuffer for a read of the
	// thread's own store buffer.
	Pos int
	// Spurious makes a weak compare-exchange fail although it read its
	// expected value.
	Spurious bool
}

// FromBuffer is the position of a read from the thread's own store
// buffer: its last write to the location there.
const FromBuffer = -1

// Source says which write a read read, or where a write went: the write
// at Pos in modification order (0: the initial write) or, when Buffer is
// not negative, the thread's store buffer at that index.
type Source struct {
	Pos, Buffer int
}

// Future over-approximates what a thread may still do: the locations it
// may access by kind (bit l for location l; an access through a computed
// address may touch any location).
type Future struct {
	PlainR, PlainW uint64 // plain reads and writes
	AtomR, AtomW   uint64 // atomic reads (of read-modify-writes too) and writes (a spawn: all)
	AcqFence       bool   // an acquire fence
	Marks          bool   // an operation's call or return marker
}

// Touches reports whether f may access location l.
func (f *Future) Touches(l int) bool { return InSet(f.PlainR|f.PlainW|f.AtomR|f.AtomW, l) }

// InSet reports whether location l is in set, a set of locations as a
// Future holds them (bit l for location l). A location beyond the set's
// 64 bits always is: futures are not computed for programs with more
// locations, and unknown means anything.
func InSet(set uint64, l int) bool { return l >= 64 || set>>uint(l)&1 != 0 }

// Horizon is what the threads of a state may still do, for Memory.Reduce.
type Horizon struct {
	// Running says, per thread, whether it may still move.
	Running []bool
	// Futures is, per thread, what it may still do.
	Futures []Future
	// Regular marks the locations that are regular mutexes: only lock and
	// unlock touch them, each unlock by a thread that holds it, so only
	// their last write is ever read.
	Regular []bool
}

// messages is the memory the machines here build on: per location, the
// writes that can still be read, in modification order, and how many
// were dropped before them. A clone shares the locations' lists until it
// changes them (see set); they are never appended to in place.
type messages struct {
	msgs [][]*Message
	base []int
	mine []bool // per location: its list is this memory's own (nil: none is)
}

func newMessages(p *Program) messages {
	m := messages{msgs: make([][]*Message, len(p.Locs)), base: make([]int, len(p.Locs))}
	for l, loc := range p.Locs {
		m.msgs[l] = []*Message{{Val: loc.Init}}
	}
	return m
}

// clone returns a copy of m that shares its lists, their capacities cut
// so that an append copies. As the views of raMemory, it relies on m
// not changing any more.
func (m *messages) clone() messages {
	c := messages{msgs: make([][]*Message, len(m.msgs)), base: slices.Clone(m.base)}
	for l, ms := range m.msgs {
		c.msgs[l] = slices.Clip(ms)
	}
	return c
}

// set replaces the message at position i of l, copying l's list first
// unless it is this memory's own.
func (m *messages) set(l Loc, i int, msg *Message) {
	if m.mine == nil {
		m.mine = make([]bool, len(m.msgs))
	}
	if !m.mine[l] {
		m.msgs[l] = slices.Clone(m.msgs[l])
		m.mine[l] = true
	}
	m.msgs[l][i] = msg
}

func (m *messages) Final(l Loc) (int64, int) {
	ms := m.msgs[l]
	return ms[len(ms)-1].Val, m.base[l] + len(ms) - 1
}

func (m *messages) source(l Loc, p int) Source { return Source{Pos: m.base[l] + p, Buffer: -1} }

// insert adds message n to l at position q.
func (m *messages) insert(l Loc, q int, n *Message) {
	ms := m.msgs[l]
	m.msgs[l] = append(ms[:q:q], append([]*Message{n}, ms[q:]...)...)
}

// at returns the place in l's list of the message at absolute position p:
// views hold the place a message had when the view was set plus the
// messages dropped before it (base), so that dropping messages (drop)
// changes no view; a position before the first message kept stands for
// it. Making room in the middle of a list (raMemory.shift) moves the views after.
func (m *messages) at(l Loc, p uint32) int { return max(int(p)-m.base[l], 0) }

// abs returns the absolute position of place q of l's list (see at).
func (m *messages) abs(l Loc, q int) uint32 { return uint32(m.base[l] + q) }

// drop forgets the first lo messages of l. The first message left is
// attached to none: nothing can come before it any more.
func (m *messages) drop(l Loc, lo int) {
	ms := m.msgs[l]
	m.msgs[l] = ms[lo:len(ms):len(ms)]
	m.base[l] += lo
	if first := m.msgs[l][0]; first.att {
		c := *first
		c.att = false
		m.set(l, 0, &c)
	}
}

func (m *messages) MapClocks(f func(l Loc, c []uint32) ([]uint32, bool)) {
	for l, ms := range m.msgs {
		for i, msg := range ms {
			if c, changed := f(Loc(l), msg.Clock); changed {
				n := *msg
				n.Clock = c
				m.set(Loc(l), i, &n)
			}
		}
	}
}

func (m *messages) appendKey(b []byte, perm []int) []byte {
	for _, ms := range m.msgs {
		b = binary.AppendUvarint(b, uint64(len(ms)))
		for _, msg := range ms {
			b = binary.AppendVarint(b, msg.Val)
			att := byte(0)
			if msg.att {
				att = 1
			}
			b = append(b, att)
			b = m.appendPlaces(b, msg.view)
			b = AppendVector(b, msg.Clock, perm)
		}
	}
	return b
}

// appendPlaces appends an encoding of view v (as AppendVector does): the
// places in the locations' lists its absolute positions hold, a position
// before the first message kept holding it (see messages.at).
func (m *messages) appendPlaces(b []byte, v []uint32) []byte {
	if v == nil {
		return append(b, 0)
	}
	return appendSparse(append(b, 1), v, nil, m.base)
}

// chooseWays appends the values a choice among n may take.
func chooseWays(n int, dst []Way) []Way {
	for v := range n {
		dst = append(dst, Way{Pos: v})
	}
	return dst
}

// readWays appends the ways a read-like action a can read one of the
// messages ms[lo:], newest first: a weak compare-exchange that reads its
// expected value may also fail spuriously; a lock does not take a held
// mutex (it waits), and a read-modify-write's write cannot come between a
// message and the one attached to it.
func readWays(ms []*Message, lo int, a *Action, dst []Way) []Way {
	for p := len(ms) - 1; p >= lo; p-- {
		for _, sp := range a.SpuriousChoices(ms[p].Val) {
			writes, _, blocked := a.Outcome(ms[p].Val, sp)
			if blocked || writes && p+1 < len(ms) && ms[p+1].att {
				continue
			}
			dst = append(dst, Way{Pos: p, Spurious: sp})
		}
	}
	return dst
}

// AppendVector appends an encoding of a vector (nil: none) to b, its
// entries in the order perm when perm is not nil.
func AppendVector(b []byte, v []uint32, perm []int) []byte {
	if v == nil {
		return append(b, 0)
	}
	return AppendSparse(append(b, 1), v, perm)
}

// AppendSparse appends an encoding of a vector to b, its entries in the
// order perm (or their own). Most clock and view entries are zero, so a
// vector of up to 63 entries is the set of its non-zero entries, then
// their values.
func AppendSparse(b []byte, v []uint32, perm []int) []byte { return appendSparse(b, v, perm, nil) }

// appendSparse is AppendSparse of v with each entry i lowered by base[i]
// (not below zero) when base is given: positions made places (see
// messages.at).
func appendSparse(b []byte, v []uint32, perm []int, base []int) []byte {
	at := func(i int) uint32 {
		if perm != nil {
			i = perm[i]
		}
		if base != nil {
			return uint32(max(int(v[i])-base[i], 0))
		}
		return v[i]
	}
	if len(v) > 63 {
		for i := range v {
			b = binary.AppendUvarint(b, uint64(at(i)))
		}
		return b
	}
	var mask uint64
	for i := range v {
		if at(i) != 0 {
			mask |= 1 << uint(i)
		}
	}
	b = binary.AppendUvarint(b, mask)
	for i := range v {
		if e := at(i); e != 0 {
			b = binary.AppendUvarint(b, uint64(e))
		}
	}
	return b
}
