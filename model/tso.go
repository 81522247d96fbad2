package model

import "encoding/binary"

// TSO is x86-TSO (Owens, Sarkar, Sewell, TPHOLs 2009) in the axiomatic
// form of herd7's x86tso.cat, applied to C programs through the standard
// C11-to-x86 mapping: every load is a MOV, a non-seq_cst store a MOV, a
// seq_cst store MOV;MFENCE, every read-modify-write, compare-exchange
// (failed ones included) and lock a locked instruction, and a seq_cst fence
// an MFENCE; other fences emit nothing.
//
//	acyclic po-loc | rf | co | fr                    as uniproc
//	empty rmw & (fr; co)                             as atomicity
//	let ppo     = (W*W | R*M) & po
//	let implied = po & (W*R) & (Locked*_ | _*Locked)
//	let mfence  = po; [F & SC | Spawn]; po | [W & SC]; po
//	acyclic ppo | implied | mfence | rfe | co | fr   as tso
//
// Its machine is x86-TSO's: SC's memory behind a FIFO store buffer per
// thread.
var TSO = Register(&Model{
	Name: "tso",
	Doc:  "x86-TSO, through the C11-to-x86 mapping",
	Axioms: []Axiom{
		{"uniproc", Acyclic, Let("po-loc | rf | co | fr", func(x *Exec) Relation {
			return x.Po.Inter(x.SameLoc).Union(x.Rf, x.Co, x.Fr)
		})},
		{"atomicity", Empty, rmwBroken},
		{"tso", Acyclic, Let("ppo | implied | mfence | rfe | co | fr", func(x *Exec) Relation {
			mem := x.R.Union(x.W)
			ppo := x.Po.Inter(Cross(x.N, x.W, x.W).Union(Cross(x.N, x.R, mem)))
			wr := x.Po.Inter(Cross(x.N, x.W, x.R))
			implied := wr.Dom(x.Locked).Union(wr.Rng(x.Locked))
			fsc := x.F.Inter(x.Ord[SeqCst]).Union(x.Spawn) // creating a thread fences
			mfence := x.Po.Rng(fsc).Seq(x.Po).Union(x.Po.Dom(x.W.Inter(x.Ord[SeqCst])))
			return ppo.Union(implied, mfence, x.External(x.Rf), x.Co, x.Fr)
		})},
	},
	HB: HB,
	// Not riscv: the mappings fence seq_cst accesses differently (MFENCE
	// after an x86 store, a full fence before a RISC-V load), so a plain
	// store then a seq_cst load may pass each other on x86 only
	// (docs/semantics.md).
	Within:    []*Model{RC11},
	Strength:  2,
	Unordered: unorderedC11,
	Machine:   tsoMachine{},
	Stale: func(x *Exec, r, w int, step func(int) string) string {
		return "under x86-TSO a store waits in its thread's store buffer, and later loads may run before it drains"
	},
})

// tsoMachine is x86-TSO's machine. A store that is not seq_cst (an x86
// MOV; an unlock too) enters its thread's store buffer; a load reads the
// thread's last buffered store to its location, else memory; a separate
// move writes a buffer's oldest store to memory. Locked instructions
// (read-modify-writes, compare-exchanges, locks), MFENCE (a seq_cst fence
// or store) and spawning a thread wait for an empty buffer; a seq_cst
// store then writes memory directly, which is MOV;MFENCE without the wait
// in between.
type tsoMachine struct{}

func (tsoMachine) Unsupported(*Program) string { return "" }

func (tsoMachine) Start(p *Program) Memory {
	return &tsoMemory{scMemory: scMemory{newMessages(p)}, bufs: make([][]pending, len(p.Threads))}
}

// tsoMemory is SC's memory and the threads' store buffers.
type tsoMemory struct {
	scMemory
	bufs [][]pending // per thread: its store buffer, oldest first (never changed in place)
}

// pending is a write in a store buffer.
type pending struct {
	l Loc
	m *Message
}

func (m *tsoMemory) Clone() Memory {
	return &tsoMemory{scMemory: scMemory{m.clone()}, bufs: append([][]pending(nil), m.bufs...)}
}

// waits reports whether thread t must wait for its store buffer to drain
// before action a.
func (m *tsoMemory) waits(t int, a *Action) bool {
	if len(m.bufs[t]) == 0 {
		return false
	}
	switch a.Kind {
	case ActRMW, ActCAS, ActLock, ActSpawn:
		return true
	case ActFence, ActWrite:
		return a.Ord == SeqCst
	}
	return false
}

// lastBuffered returns the index of thread t's last write to l in its
// store buffer, or -1.
func (m *tsoMemory) lastBuffered(t int, l Loc) int {
	for i := len(m.bufs[t]) - 1; i >= 0; i-- {
		if m.bufs[t][i].l == l {
			return i
		}
	}
	return -1
}

func (m *tsoMemory) Ways(t int, a *Action, dst []Way) []Way {
	if m.waits(t, a) {
		return dst
	}
	if a.Kind == ActRead && m.lastBuffered(t, a.Loc) >= 0 {
		return append(dst, Way{Pos: FromBuffer})
	}
	return m.scMemory.Ways(t, a, dst)
}

func (m *tsoMemory) Internal(t int) bool { return len(m.bufs[t]) > 0 }

func (m *tsoMemory) Buffers(t int, l Loc) bool { return m.lastBuffered(t, l) >= 0 }

func (m *tsoMemory) Flush(t int) Loc {
	p := m.bufs[t][0]
	m.bufs[t] = m.bufs[t][1:]
	m.msgs[p.l] = append(m.msgs[p.l], p.m)
	return p.l
}

func (m *tsoMemory) Peek(t int, l Loc, w Way) *Message {
	if w.Pos == FromBuffer {
		return m.bufs[t][m.lastBuffered(t, l)].m
	}
	return m.scMemory.Peek(t, l, w)
}

func (m *tsoMemory) Read(t int, l Loc, w Way, o Ordering) (*Message, Source) {
	if w.Pos == FromBuffer {
		i := m.lastBuffered(t, l)
		return m.bufs[t][i].m, Source{Buffer: i}
	}
	return m.scMemory.Read(t, l, w, o)
}

// Write buffers a store that is not seq_cst; the write of a locked
// instruction and a seq_cst store (whose buffer is empty) go to memory.
func (m *tsoMemory) Write(t int, l Loc, w Way, val int64, o Ordering, read *Message, clock []uint32) Source {
	if read != nil || o == SeqCst {
		return m.scMemory.Write(t, l, w, val, o, read, clock)
	}
	buf := m.bufs[t]
	m.bufs[t] = append(buf[:len(buf):len(buf)], pending{l: l, m: &Message{Val: val, Clock: clock}})
	return Source{Buffer: len(buf)}
}

func (m *tsoMemory) MapClocks(f func(l Loc, c []uint32) ([]uint32, bool)) {
	m.messages.MapClocks(f)
	for t, buf := range m.bufs {
		owned := false
		for i, p := range buf {
			c, changed := f(p.l, p.m.Clock)
			if !changed {
				continue
			}
			if !owned { // the buffer is shared with the state this one came from
				buf, owned = append([]pending(nil), buf...), true
				m.bufs[t] = buf
			}
			n := *p.m
			n.Clock = c
			buf[i].m = &n
		}
	}
}

func (m *tsoMemory) AppendKey(b []byte, perm []int) []byte {
	b = m.appendKey(b, perm)
	for _, t := range perm {
		for _, p := range m.bufs[t] { // their locations and values: AppendThreadKey
			b = AppendVector(b, p.m.Clock, perm)
		}
	}
	return b
}

func (m *tsoMemory) AppendThreadKey(b []byte, t int) []byte { return appendBuffer(b, m.bufs[t]) }

// appendBuffer encodes the locations and values of a store buffer.
func appendBuffer(b []byte, buf []pending) []byte {
	b = binary.AppendUvarint(b, uint64(len(buf)))
	for _, p := range buf {
		b = binary.AppendUvarint(b, uint64(p.l))
		b = binary.AppendVarint(b, p.m.Val)
	}
	return b
}
