package model

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
)

// EventKind tells what an event is.
type EventKind uint8

// Event kinds.
const (
	KRead   EventKind = iota // a load, or the read half of an RMW, CAS or lock
	KWrite                   // a store, the write half of an RMW, CAS or lock, or an unlock
	KFence                   // a fence
	KChoice                  // a nondeterministic choice (Val holds the value chosen)
	KError                   // a failed assertion (the thread stops)
	KSpawn                   // the start of thread Val
	KCall                    // an operation begins (history marker)
	KRet                     // an operation returns Val (history marker)
)

var kindNames = [...]string{"R", "W", "F", "C", "E", "S", "B", "D"}

func (k EventKind) String() string { return kindNames[k] }

// EventRef names an event: the I-th event of thread T, or, when T is
// InitThread, the initial write of location I.
type EventRef struct{ T, I int32 }

// InitThread is the pseudo-thread of initial writes.
const InitThread = -1

// NoSource is the source of a read not chosen yet. A graph with such
// reads, and with writes missing from modification order, is partial: an
// Exec of it has no rf, co or fr edges for them, and since the models'
// axioms only grow stricter with more edges, a partial graph that
// violates one has no consistent completion.
var NoSource = EventRef{T: -2}

// InitRef returns the initial write of l.
func InitRef(l Loc) EventRef { return EventRef{InitThread, int32(l)} }

// IsInit reports whether r is an initial write.
func (r EventRef) IsInit() bool { return r.T == InitThread }

func (r EventRef) String() string {
	if r.IsInit() {
		return fmt.Sprintf("init(%d)", r.I)
	}
	return fmt.Sprintf("%d.%d", r.T, r.I)
}

// DepSet is a set of event indices within one thread (a bitset).
type DepSet []uint64

// Has reports whether i is in d.
func (d DepSet) Has(i int) bool { return i/64 < len(d) && d[i/64]&(1<<(uint(i)%64)) != 0 }

// With returns d ∪ {i}, without changing d.
func (d DepSet) With(i int) DepSet {
	n := max(len(d), i/64+1)
	out := make(DepSet, n)
	copy(out, d)
	out[i/64] |= 1 << (uint(i) % 64)
	return out
}

// Union returns d ∪ e, sharing storage with an argument when possible.
func (d DepSet) Union(e DepSet) DepSet {
	if len(e) == 0 {
		return d
	}
	if len(d) == 0 {
		return e
	}
	a, b := d, e
	if len(a) < len(b) {
		a, b = b, a
	}
	same := true
	for i := range b {
		if a[i]|b[i] != a[i] {
			same = false
			break
		}
	}
	if same {
		return a
	}
	out := make(DepSet, len(a))
	copy(out, a)
	for i := range b {
		out[i] |= b[i]
	}
	return out
}

// Members lists the indices in d, in increasing order.
func (d DepSet) Members() []int {
	var out []int
	for w, x := range d {
		for x != 0 {
			b := bits.TrailingZeros64(x)
			out = append(out, w*64+b)
			x &^= 1 << uint(b)
		}
	}
	return out
}

// Event is a node of an execution graph.
type Event struct {
	Kind EventKind
	Loc  Loc
	Ord  Ordering
	// Val is the value read (KRead), written (KWrite) or chosen (KChoice).
	Val int64
	// Rf is the write a read reads from.
	Rf EventRef
	// RMW marks the read of a read-modify-write, compare-exchange or lock
	// (locked instructions on x86), and the write half of one, which then
	// immediately follows its read in program order.
	RMW bool
	// Spurious marks the read of a weak compare-exchange that failed
	// although it read the expected value.
	Spurious bool
	// Instr is the index of the instruction that produced the event.
	Instr int32
	// deps are the reads of the same thread its address, value and
	// execution depend on (nil: none), shared by the copies of the event.
	deps *deps
}

// deps are an event's dependencies (Event.Addr, Data, Ctrl) and, for an
// operation marker, its values (Event.Vals).
type deps struct {
	addr, data, ctrl DepSet
	vals             []int64
}

// newDeps returns the dependencies given, nil when there are none.
func newDeps(addr, data, ctrl DepSet) *deps {
	if len(addr) == 0 && len(data) == 0 && len(ctrl) == 0 {
		return nil
	}
	return &deps{addr: addr, data: data, ctrl: ctrl}
}

// withVals returns d with the values vals.
func (d *deps) withVals(vals []int64) *deps {
	if len(vals) == 0 {
		return d
	}
	n := &deps{vals: vals}
	if d != nil {
		n.addr, n.data, n.ctrl = d.addr, d.data, d.ctrl
	}
	return n
}

// MarshalJSON encodes e with its dependencies as the fields Addr, Data and
// Ctrl, and a marker's values as Vals, for a process that renders a
// witness.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	return json.Marshal(struct {
		plain
		Addr, Data, Ctrl DepSet
		Vals             []int64 `json:",omitempty"`
	}{plain(e), e.Addr(), e.Data(), e.Ctrl(), e.Vals()})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (e *Event) UnmarshalJSON(data []byte) error {
	type plain Event
	var w struct {
		plain
		Addr, Data, Ctrl DepSet
		Vals             []int64
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = Event(w.plain)
	e.deps = newDeps(w.Addr, w.Data, w.Ctrl).withVals(w.Vals)
	return nil
}

// Vals returns an operation marker's values: a call's arguments, a
// return's results (the first is also Val).
func (e *Event) Vals() []int64 {
	if e.deps == nil {
		return nil
	}
	return e.deps.vals
}

// Addr returns the reads of the event's thread (by index) that its
// address depends on.
func (e *Event) Addr() DepSet {
	if e.deps == nil {
		return nil
	}
	return e.deps.addr
}

// Data returns the reads of the event's thread that the value it writes
// depends on.
func (e *Event) Data() DepSet {
	if e.deps == nil {
		return nil
	}
	return e.deps.data
}

// Ctrl returns the reads of the event's thread that decided whether it
// happens.
func (e *Event) Ctrl() DepSet {
	if e.deps == nil {
		return nil
	}
	return e.deps.ctrl
}

// IsRead reports whether e reads memory.
func (e *Event) IsRead() bool { return e.Kind == KRead }

// IsWrite reports whether e writes memory.
func (e *Event) IsWrite() bool { return e.Kind == KWrite }

// Graph is an execution graph: the events of each thread in program order,
// what each read reads from, and the modification order of each location.
type Graph struct {
	Prog    *Program
	Threads [][]Event
	// Co lists, per location, its non-initial writes in modification order;
	// the initial write precedes them all.
	Co [][]EventRef
}

// NewGraph returns the empty graph of p: initial writes only.
func NewGraph(p *Program) *Graph {
	return &Graph{Prog: p, Threads: make([][]Event, len(p.Threads)), Co: make([][]EventRef, len(p.Locs))}
}

// Clone returns a copy of g that shares no mutable state with it.
func (g *Graph) Clone() *Graph {
	h := &Graph{Prog: g.Prog, Threads: make([][]Event, len(g.Threads)), Co: make([][]EventRef, len(g.Co))}
	for t, evs := range g.Threads {
		h.Threads[t] = append(make([]Event, 0, len(evs)+2), evs...)
	}
	for l, co := range g.Co {
		if len(co) > 0 {
			h.Co[l] = append(make([]EventRef, 0, len(co)+1), co...)
		}
	}
	return h
}

// Ev returns the event r names; r must not be an initial write.
func (g *Graph) Ev(r EventRef) *Event { return &g.Threads[r.T][r.I] }

// Size returns the number of events, initial writes excluded.
func (g *Graph) Size() int {
	n := 0
	for _, evs := range g.Threads {
		n += len(evs)
	}
	return n
}

// WriteValue returns the value written by w.
func (g *Graph) WriteValue(w EventRef) int64 {
	if w.IsInit() {
		return g.Prog.Locs[w.I].Init
	}
	return g.Ev(w).Val
}

// CoPos returns the position of write w in the modification order of its
// location: 0 for the initial write, i+1 for Co[loc][i]; -1 if absent.
func (g *Graph) CoPos(l Loc, w EventRef) int {
	if w.IsInit() {
		return 0
	}
	for i, x := range g.Co[l] {
		if x == w {
			return i + 1
		}
	}
	return -1
}

// CoMax returns the last write to l in modification order.
func (g *Graph) CoMax(l Loc) EventRef {
	if co := g.Co[l]; len(co) > 0 {
		return co[len(co)-1]
	}
	return InitRef(l)
}

// InsertCo places w in the modification order of l at position pos
// (1 = right after the initial write, len(Co[l])+1 = last).
func (g *Graph) InsertCo(l Loc, w EventRef, pos int) {
	co := g.Co[l]
	co = append(co, EventRef{})
	copy(co[pos:], co[pos-1:])
	co[pos-1] = w
	g.Co[l] = co
}

// FinalMem appends the final memory state to mem and returns it: the
// value of the last write of each location.
func (g *Graph) FinalMem(mem []int64) []int64 {
	for l := range g.Co {
		mem = append(mem, g.WriteValue(g.CoMax(Loc(l))))
	}
	return mem
}

// Key returns a canonical fingerprint of g: two graphs have the same key
// exactly when they have the same events, reads-from and modification order.
func (g *Graph) Key() string {
	var b []byte
	put := func(v int64) { b = binary.AppendVarint(b, v) }
	for _, evs := range g.Threads {
		put(int64(len(evs)))
		for i := range evs {
			e := &evs[i]
			flags := int64(e.Kind)
			if e.RMW {
				flags |= 8
			}
			if e.Spurious {
				flags |= 16
			}
			put(flags)
			put(int64(e.Loc))
			put(e.Val)
			if e.Kind == KRead {
				put(int64(e.Rf.T))
				put(int64(e.Rf.I))
			}
		}
	}
	for _, co := range g.Co {
		put(int64(len(co)))
		for _, w := range co {
			put(int64(w.T))
			put(int64(w.I))
		}
	}
	return string(b)
}

// String renders g for debugging.
func (g *Graph) String() string {
	var s strings.Builder
	for t, evs := range g.Threads {
		fmt.Fprintf(&s, "T%d:", t)
		for i := range evs {
			e := &evs[i]
			fmt.Fprintf(&s, " %s", g.EventString(e))
		}
		s.WriteByte('\n')
	}
	for l, co := range g.Co {
		if len(co) > 0 {
			fmt.Fprintf(&s, "co(%s): init %v\n", g.Prog.Locs[l].Name, co)
		}
	}
	return s.String()
}

// EventString renders one event compactly, e.g. "Rrlx x=1<-0.2".
func (g *Graph) EventString(e *Event) string {
	switch e.Kind {
	case KRead:
		return fmt.Sprintf("R%s %s=%s<-%v", e.Ord, g.Prog.Locs[e.Loc].Name, g.Prog.FormatValue(e.Val), e.Rf)
	case KWrite:
		return fmt.Sprintf("W%s %s=%s", e.Ord, g.Prog.Locs[e.Loc].Name, g.Prog.FormatValue(e.Val))
	case KFence:
		return fmt.Sprintf("F%s", e.Ord)
	case KChoice:
		return fmt.Sprintf("C=%d", e.Val)
	case KSpawn:
		return fmt.Sprintf("spawn %s", g.Prog.Threads[e.Val].Name)
	case KCall:
		return "call"
	case KRet:
		return fmt.Sprintf("ret=%d", e.Val)
	}
	return "E"
}

// Spawner returns the spawn event that starts thread t, if there is one.
func (g *Graph) Spawner(t int) (EventRef, bool) {
	for u, evs := range g.Threads {
		for i := range evs {
			if evs[i].Kind == KSpawn && evs[i].Val == int64(t) {
				return EventRef{int32(u), int32(i)}, true
			}
		}
	}
	return EventRef{}, false
}

// Steps orders the events of g for presentation, initial writes
// omitted: an order of po ∪ rf ∪ co ∪ fr when there is one (each read then
// reads the last write before it, as on an SC machine), else of po ∪ rf ∪
// co, else of po ∪ rf, else (load buffering) of po alone; a thread keeps
// running while it can.
func (g *Graph) Steps() []EventRef { return g.StepsBy(nil, Relation{}) }

// StepsBy orders the events of g for presentation as Steps does, and
// where it can also by order, a relation over the events of x (an
// execution of g): a model's order of seq_cst events, say.
func (g *Graph) StepsBy(x *Exec, order Relation) []EventRef {
	var before func(r EventRef, done func(EventRef) bool) bool
	if x != nil && order.b != nil {
		before = func(r EventRef, done func(EventRef) bool) bool {
			j := x.Index(r)
			if j < 0 {
				return true
			}
			for i := 0; i < x.N; i++ {
				if order.Has(i, j) && !done(x.Refs[i]) {
					return false
				}
			}
			return true
		}
	}
	for _, extra := range []bool{true, false} {
		if extra && before == nil {
			continue
		}
		for _, level := range []int{2, 1, 0} {
			b := before
			if !extra {
				b = nil
			}
			if out := g.topo(level, b); out != nil {
				return out
			}
		}
	}
	return g.topo(-1, nil) // load buffering: program order alone
}

// topo sorts the events by po ∪ rf (level 0), ∪ co (1), ∪ fr (2), or by
// po alone (level -1: where load buffering makes po ∪ rf cyclic, a read
// may come before the write it reads) and, when before is not nil, by
// what it demands; nil if cyclic.
func (g *Graph) topo(level int, before func(EventRef, func(EventRef) bool) bool) []EventRef {
	next := make([]int, len(g.Threads))
	done := func(r EventRef) bool { return r.IsInit() || int(r.I) < next[r.T] }
	coBefore := func(l Loc, w EventRef) []EventRef {
		var out []EventRef
		for _, x := range g.Co[l] {
			if x == w {
				break
			}
			out = append(out, x)
		}
		return out
	}
	ready := func(t int) bool {
		if next[t] >= len(g.Threads[t]) {
			return false
		}
		if g.Prog.Threads[t].Spawned && next[t] == 0 {
			if s, ok := g.Spawner(t); ok && !done(s) {
				return false
			}
		}
		if before != nil && !before(EventRef{T: int32(t), I: int32(next[t])}, done) {
			return false
		}
		e := &g.Threads[t][next[t]]
		switch e.Kind {
		case KRead:
			if level >= 0 && !done(e.Rf) {
				return false
			}
		case KWrite:
			self := EventRef{T: int32(t), I: int32(next[t])}
			if level >= 1 {
				for _, w := range coBefore(e.Loc, self) {
					if !done(w) {
						return false
					}
				}
			}
			if level >= 2 { // fr: the reads of earlier writes come first
				pos := g.CoPos(e.Loc, self)
				for u, evs := range g.Threads {
					for i := range evs {
						r := &evs[i]
						if r.Kind == KRead && r.Loc == e.Loc && g.CoPos(e.Loc, r.Rf) < pos && !done(EventRef{T: int32(u), I: int32(i)}) {
							return false
						}
					}
				}
			}
		}
		return true
	}
	var out []EventRef
	cur := 0
	for len(out) < g.Size() {
		if !ready(cur) {
			cur = -1
			for t := range g.Threads {
				if ready(t) {
					cur = t
					break
				}
			}
			if cur < 0 {
				return nil
			}
		}
		out = append(out, EventRef{T: int32(cur), I: int32(next[cur])})
		next[cur]++
	}
	return out
}

// LockHolder returns the thread holding mutex m at the end of g: the
// writer of its last write, when that write is a lock's (a lock writes 1,
// whoever takes it, so that identical threads stay interchangeable).
func (g *Graph) LockHolder(m Loc) (int, bool) {
	w := g.CoMax(m)
	if w.IsInit() || g.Ev(w).Val == 0 {
		return 0, false
	}
	return int(w.T), true
}

// HolderName names the thread holding mutex m at the end of g, or
// "nobody".
func (g *Graph) HolderName(m Loc) string {
	if t, ok := g.LockHolder(m); ok {
		return g.Prog.Threads[t].Name
	}
	return "nobody"
}
