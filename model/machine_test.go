package model

import (
	"slices"
	"strings"
	"testing"
)

// machineProg is a program of three threads over x and y, without code:
// the machines read only its locations and its number of threads.
var machineProg = &Program{Locs: []Location{{Name: "x"}, {Name: "y"}}, Threads: make([]Thread, 3)}

// start returns the initial memory of model's machine with threads 0 and
// 1 started (thread 2 is left for a spawn).
func start(t *testing.T, model string) Memory {
	t.Helper()
	m, err := Lookup(model)
	if err != nil {
		t.Fatal(err)
	}
	mem := m.Machine.Start(machineProg)
	mem.Start(0, -1)
	mem.Start(1, -1)
	return mem
}

// store performs thread t's store of v to l at its first way (the newest position).
func store(m Memory, t int, l Loc, v int64, o Ordering) Source {
	ws := m.Ways(t, &Action{Kind: ActWrite, Loc: l, Ord: o, Val: v}, nil)
	return m.Write(t, l, ws[0], v, o, nil, nil)
}

// load performs thread t's read of l at position pos and returns the value read.
func load(m Memory, t int, l Loc, pos int, o Ordering) int64 {
	msg, _ := m.Read(t, l, Way{Pos: pos}, o)
	return msg.Val
}

// update performs thread t's read-modify-write of l: it reads the message
// at pos and writes v right after it.
func update(m Memory, t int, l Loc, pos int, v int64, o Ordering) {
	msg, _ := m.Read(t, l, Way{Pos: pos}, o)
	m.Write(t, l, Way{Pos: pos + 1}, v, o, msg, nil)
}

// all is the future of a thread that may touch everything.
var all = Future{PlainR: ^uint64(0), PlainW: ^uint64(0), AtomR: ^uint64(0), AtomW: ^uint64(0), AcqFence: true}

// horizon is the horizon of machineProg in which the threads with the
// given futures run (thread 2 does not).
func horizon(futures ...Future) *Horizon {
	h := &Horizon{Running: make([]bool, 3), Futures: make([]Future, 3), Regular: make([]bool, 2)}
	for t, f := range futures {
		h.Running[t], h.Futures[t] = true, f
	}
	return h
}

// TestMachineWays drives each machine through a few steps by hand and
// checks the ways of a thread's next action (positions newest first).
func TestMachineWays(t *testing.T) {
	read := func(o Ordering) Action { return Action{Kind: ActRead, Loc: X, Ord: o} }
	write := Action{Kind: ActWrite, Loc: X, Ord: Rlx, Val: 9}
	rmw := Action{Kind: ActRMW, Loc: X, Ord: Rlx, RMW: FetchAdd, Val: 1}
	ways := func(ps ...int) []Way {
		var out []Way
		for _, p := range ps {
			out = append(out, Way{Pos: p})
		}
		return out
	}
	twoX := func(m Memory) { store(m, 0, X, 1, Rlx); store(m, 0, X, 2, Rlx) }
	bufferY := func(m Memory) { store(m, 0, Y, 1, Rlx) }
	// mp writes x then flag y with ordering flag; reader thread 1 reads the flag with ordering r.
	mp := func(flag, r Ordering) func(m Memory) {
		return func(m Memory) {
			store(m, 0, X, 1, Rlx)
			store(m, 0, Y, 1, flag)
			load(m, 1, Y, 1, r)
		}
	}
	cases := []struct {
		model, name string
		steps       func(m Memory)
		t           int
		a           Action
		want        []Way
	}{
		{"sc", "a read has one way: the last write", twoX, 1, read(Rlx), ways(2)},
		{"sc", "a write goes last", twoX, 1, write, ways(3)},
		{"sc", "a lock takes a free mutex", nil, 1, Action{Kind: ActLock, Loc: Y}, ways(0)},
		{"sc", "a lock waits for a held mutex", bufferY, 1, Action{Kind: ActLock, Loc: Y}, nil},
		{"sc", "a weak CAS reading its expected value may fail", nil, 1, Action{Kind: ActCAS, Loc: X, Ord: Rlx, Weak: true}, []Way{{Pos: 0}, {Pos: 0, Spurious: true}}},
		{"sc", "a strong one may not", nil, 1, Action{Kind: ActCAS, Loc: X, Ord: Rlx}, ways(0)},
		{"sc", "a choice takes each value", nil, 1, Action{Kind: ActChoose, N: 3}, ways(0, 1, 2)},

		{"tso", "a thread reads its own buffered store", bufferY, 0, Action{Kind: ActRead, Loc: Y}, ways(FromBuffer)},
		{"tso", "another thread still reads memory", bufferY, 1, Action{Kind: ActRead, Loc: Y}, ways(0)},
		{"tso", "a read of another location reads memory", bufferY, 0, read(Rlx), ways(0)},
		{"tso", "a locked RMW waits for a non-empty buffer", bufferY, 0, rmw, nil},
		{"tso", "a lock waits for it too", bufferY, 0, Action{Kind: ActLock, Loc: X}, nil},
		{"tso", "another thread's RMW does not", bufferY, 1, rmw, ways(0)},
		{"tso", "a seq_cst fence waits", bufferY, 0, Action{Kind: ActFence, Ord: SeqCst}, nil},
		{"tso", "an acq_rel fence does not", bufferY, 0, Action{Kind: ActFence, Ord: AcqRel}, ways(0)},
		{"tso", "a seq_cst store waits", bufferY, 0, Action{Kind: ActWrite, Loc: X, Ord: SeqCst}, nil},
		{"tso", "a release store does not", bufferY, 0, Action{Kind: ActWrite, Loc: X, Ord: Rel}, ways(1)},
		{"tso", "a spawn waits", bufferY, 0, Action{Kind: ActSpawn, Val: 2}, nil},
		{"tso", "after a flush, the store is in memory", func(m Memory) { bufferY(m); m.(Buffered).Flush(0) }, 1, Action{Kind: ActRead, Loc: Y}, ways(1)},

		{"rc11", "a relaxed read may read any message from the thread's view on", twoX, 1, read(Rlx), ways(2, 1, 0)},
		{"rc11", "the writer's view is at its last write", twoX, 0, read(Rlx), ways(2)},
		{"rc11", "a read raises the view", func(m Memory) { twoX(m); load(m, 1, X, 1, Rlx) }, 1, read(Rlx), ways(2, 1)},
		{"rc11", "an acquire read of a release write raises the view", mp(Rel, Acq), 1, read(Rlx), ways(1)},
		{"rc11", "a relaxed read of it does not", mp(Rel, Rlx), 1, read(Rlx), ways(1, 0)},
		{"rc11", "an acquire fence after it does", func(m Memory) { mp(Rel, Rlx)(m); m.Fence(1, Acq) }, 1, read(Rlx), ways(1)},
		{"rc11", "a consume read of it does not", mp(Rel, Con), 1, read(Rlx), ways(1, 0)},
		{"rc11", "nor an acquire fence after it", func(m Memory) { mp(Rel, Con)(m); m.Fence(1, Acq) }, 1, read(Rlx), ways(1, 0)},
		{"rc11", "an acquire read of a relaxed write does not", mp(Rlx, Acq), 1, read(Rlx), ways(1, 0)},
		{"rc11", "a release fence before a relaxed flag releases", func(m Memory) {
			store(m, 0, X, 1, Rlx)
			m.Fence(0, Rel)
			store(m, 0, Y, 1, Rlx)
			load(m, 1, Y, 1, Acq)
		}, 1, read(Rlx), ways(1)},
		{"rc11", "a write may go anywhere after the thread's view", twoX, 1, write, ways(3, 2, 1)},
		{"rc11", "the writer's next write goes after its last", twoX, 0, write, ways(3)},
		{"rc11", "no write between an RMW's message and the one it read", func(m Memory) { update(m, 0, X, 0, 1, Rlx) }, 1, write, ways(2)},
		{"rc11", "no RMW reads a message an RMW read", func(m Memory) { update(m, 0, X, 0, 1, Rlx) }, 1, rmw, ways(1)},
		{"rc11", "a spawned thread starts with its parent's view", func(m Memory) { twoX(m); m.Start(2, 0) }, 2, read(Rlx), ways(2)},
		{"rc11", "a thread started alone starts at memory's start", func(m Memory) { twoX(m); m.Start(2, -1) }, 2, read(Rlx), ways(2, 1, 0)},
	}
	for _, c := range cases {
		t.Run(c.model+"/"+c.name, func(t *testing.T) {
			m := start(t, c.model)
			if c.steps != nil {
				c.steps(m)
			}
			if got := m.Ways(c.t, &c.a, nil); !slices.Equal(got, c.want) {
				t.Errorf("Ways = %v, want %v", got, c.want)
			}
		})
	}
}

// TestTSOBuffer checks x86-TSO's store buffer: stores enter it in order,
// the thread reads its last one back, and Flush moves the oldest to
// memory, which the other threads then read.
func TestTSOBuffer(t *testing.T) {
	m := start(t, "tso")
	for i, s := range []struct {
		l Loc
		v int64
	}{{X, 1}, {Y, 2}, {X, 3}} {
		if got := store(m, 0, s.l, s.v, Rlx); got != (Source{Buffer: i}) {
			t.Errorf("store %d went to %+v, want buffer %d", i, got, i)
		}
	}
	if msg, src := m.Read(0, X, Way{Pos: FromBuffer}, Rlx); msg.Val != 3 || src != (Source{Buffer: 2}) || m.Peek(0, X, Way{Pos: FromBuffer}) != msg {
		t.Errorf("own read of x = %d from %+v, want 3 from buffer 2", msg.Val, src)
	}
	steps := []struct {
		loc      Loc
		x, y     int64 // the final values
		xPos     int   // x's last position in modification order
		internal bool
	}{{X, 1, 0, 1, true}, {Y, 1, 2, 1, true}, {X, 3, 2, 2, false}}
	for i, s := range steps {
		if got := m.(Buffered).Flush(0); got != s.loc {
			t.Errorf("flush %d wrote location %d, want %d", i, got, s.loc)
		}
		x, xPos := m.Final(X)
		y, _ := m.Final(Y)
		if x != s.x || y != s.y || xPos != s.xPos || Internal(m, 0) != s.internal {
			t.Errorf("after flush %d: x = %d at %d, y = %d, Internal = %v; want %d at %d, %d, %v", i, x, xPos, y, Internal(m, 0), s.x, s.xPos, s.y, s.internal)
		}
	}
	if got := store(m, 1, X, 4, SeqCst); got != (Source{Pos: 3, Buffer: -1}) {
		t.Errorf("a seq_cst store on an empty buffer went to %+v, want memory position 3", got)
	}
}

// TestMachineReduce checks that Reduce forgets only messages no thread can
// read, and that positions stay those of modification order afterwards.
func TestMachineReduce(t *testing.T) {
	cases := []struct {
		model, name string
		steps       func(m Memory)
		h           *Horizon
		want        []Way // thread 1's ways to read x after Reduce (asked when it may)
		readPos     int   // the position in modification order of the newest
	}{
		{"sc", "only the last write stays", nil, horizon(all, all), []Way{{Pos: 0}}, 2},
		{"tso", "only the last write stays", nil, horizon(all, all), []Way{{Pos: 0}}, 2},
		{"rc11", "a thread's view keeps every message", nil, horizon(all, all), []Way{{Pos: 2}, {Pos: 1}, {Pos: 0}}, 2},
		{"rc11", "messages before every view go", func(m Memory) { load(m, 1, X, 1, Rlx) }, horizon(all, all), []Way{{Pos: 1}, {Pos: 0}}, 2},
		{"rc11", "a thread that will not touch x keeps nothing", nil, horizon(all, Future{}), nil, 0},
	}
	for _, c := range cases {
		t.Run(c.model+"/"+c.name, func(t *testing.T) {
			m := start(t, c.model)
			store(m, 0, X, 1, Rlx)
			store(m, 0, X, 2, Rlx)
			if c.model == "tso" {
				m.(Buffered).Flush(0)
				m.(Buffered).Flush(0)
			}
			if c.steps != nil {
				c.steps(m)
			}
			m.Reduce(c.h)
			if v, pos := m.Final(X); v != 2 || pos != 2 {
				t.Errorf("Final(x) = %d at %d, want 2 at 2", v, pos)
			}
			if c.h.Futures[1].Touches(int(X)) {
				ws := m.Ways(1, &Action{Kind: ActRead, Loc: X, Ord: Rlx}, nil)
				if !slices.Equal(ws, c.want) {
					t.Fatalf("Ways = %v, want %v", ws, c.want)
				}
				if msg, src := m.Read(1, X, ws[0], Rlx); msg.Val != 2 || src.Pos != c.readPos {
					t.Errorf("read %d from position %d, want 2 from %d", msg.Val, src.Pos, c.readPos)
				}
			}
		})
	}
}

// memoryKey returns m's key with threads in the order perm: each
// thread's AppendThreadKey, then AppendKey.
func memoryKey(m Memory, perm []int) string {
	var b []byte
	for _, t := range perm {
		b = m.AppendThreadKey(b, t)
	}
	return string(m.AppendKey(b, perm))
}

// TestMachineKeys checks that the keys tell memories apart by their
// messages, buffers and views, and not by how they were reached.
func TestMachineKeys(t *testing.T) {
	cases := []struct {
		model, name string
		a, b        func(m Memory)
		equal       bool
	}{
		{"sc", "same stores", func(m Memory) { store(m, 0, X, 1, Rlx) }, func(m Memory) { store(m, 1, X, 1, Rlx) }, true},
		{"sc", "other values", func(m Memory) { store(m, 0, X, 1, Rlx) }, func(m Memory) { store(m, 0, X, 2, Rlx) }, false},
		{"tso", "buffered or flushed", func(m Memory) { store(m, 0, X, 1, Rlx) }, func(m Memory) { store(m, 0, X, 1, Rlx); m.(Buffered).Flush(0) }, false},
		{"tso", "whose buffer", func(m Memory) { store(m, 0, X, 1, Rlx) }, func(m Memory) { store(m, 1, X, 1, Rlx) }, false},
		{"rc11", "a view raised or not", func(m Memory) { store(m, 0, X, 1, Rlx) }, func(m Memory) { store(m, 0, X, 1, Rlx); load(m, 1, X, 1, Rlx) }, false},
		{"rc11", "same stores in another order", func(m Memory) { store(m, 0, X, 1, Rlx); store(m, 0, Y, 1, Rlx) },
			func(m Memory) { store(m, 0, Y, 1, Rlx); store(m, 0, X, 1, Rlx) }, true},
	}
	perm := []int{0, 1, 2}
	for _, c := range cases {
		t.Run(c.model+"/"+c.name, func(t *testing.T) {
			a, b := start(t, c.model), start(t, c.model)
			c.a(a)
			c.b(b)
			if got := memoryKey(a, perm) == memoryKey(b, perm); got != c.equal {
				t.Errorf("equal keys = %v, want %v", got, c.equal)
			}
		})
	}
}

// TestMachineClone checks that changing a clone leaves the original as it was.
func TestMachineClone(t *testing.T) {
	perm := []int{0, 1, 2}
	for _, model := range []string{"sc", "tso", "rc11"} {
		t.Run(model, func(t *testing.T) {
			m := start(t, model)
			store(m, 0, X, 1, Rel)
			before := memoryKey(m, perm)
			c := m.Clone()
			store(c, 0, X, 2, Rlx)
			store(c, 1, Y, 3, Rlx)
			if Internal(c, 0) {
				c.(Buffered).Flush(0)
			}
			load(c, 1, X, 1, Acq)
			c.Start(2, 1)
			if after := memoryKey(m, perm); after != before {
				t.Error("changing a clone changed the original")
			}
		})
	}
}

// TestUnsupported checks which programs each machine runs: rc11's none
// with a seq_cst access or fence; rc11-consume has no machine.
func TestUnsupported(t *testing.T) {
	prog := func(code ...Instr) *Program {
		return &Program{Locs: []Location{{Name: "x"}}, Threads: []Thread{{Name: "T0", Code: code}}}
	}
	at := Pos{File: "p.c", Line: 3, Col: 5}
	cases := []struct {
		name string
		p    *Program
		rc11 string // the start of rc11's reason; sc and tso run everything
	}{
		{"release/acquire", prog(Instr{Op: OpStore, Ord: Rel}, Instr{Op: OpLoad, Ord: Acq}, Instr{Op: OpFence, Ord: AcqRel}), ""},
		{"a seq_cst store", prog(Instr{Op: OpStore, Ord: SeqCst, Pos: at}), "p.c:3:5: seq_cst"},
		{"a seq_cst fence", prog(Instr{Op: OpFence, Ord: SeqCst, Pos: at}), "p.c:3:5: seq_cst"},
		{"a CAS failing seq_cst", prog(Instr{Op: OpCAS, Ord: AcqRel, FailOrd: SeqCst, Pos: at}), "p.c:3:5: seq_cst"},
	}
	for _, m := range All() {
		for _, c := range cases {
			t.Run(m.Name+"/"+c.name, func(t *testing.T) {
				if m.Machine == nil {
					if m.Name != "rc11-consume" && !m.LoadBuffering {
						t.Errorf("%s has no machine", m.Name)
					}
					return
				}
				want := ""
				if m.Name == "rc11" {
					want = c.rc11
				}
				got := m.Machine.Unsupported(c.p)
				if want == "" && got != "" || !strings.HasPrefix(got, want) {
					t.Errorf("Unsupported = %q, want %q...", got, want)
				}
			})
		}
	}
}

// TestReduceBeyond64Locations checks that under rc11 Reduce keeps, at a
// location numbered 64 or more, the messages a thread that may touch
// everything can still read. The checker's state explorer hands the
// machine such all-ones futures for programs of more than 64 locations.
func TestReduceBeyond64Locations(t *testing.T) {
	p := &Program{Locs: make([]Location, 65), Threads: make([]Thread, 2)}
	m := RC11.Machine.Start(p)
	m.Start(0, -1)
	m.Start(1, -1)
	far := Loc(64)
	store(m, 0, far, 1, Rlx)
	store(m, 0, far, 2, Rlx)
	m.Reduce(&Horizon{Running: []bool{true, true}, Futures: []Future{all, all}, Regular: make([]bool, 65)})
	if got := m.Ways(1, &Action{Kind: ActRead, Loc: far, Ord: Rlx}, nil); len(got) != 3 {
		t.Errorf("thread 1 can read %d messages of location 64, want 3 (all.Touches(64) = %v)", len(got), all.Touches(64))
	}
}
