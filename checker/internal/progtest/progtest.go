// Package progtest draws random programs for the property tests of the
// checker and its engines: litmus-sized and protocol-sized programs of
// loads, stores, read-modify-writes, fences, locks and choices, chains of
// message passing, guarded plain accesses, spawned threads, and copies of
// a thread for symmetry reduction.
package progtest

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/model"
)

// Spec bounds the random programs of the property tests.
type Spec struct {
	Threads, Instrs, Locs int
	Locks, Choices        bool
	// Deps lets stores write a register's value (a data dependency) and
	// take a register into their address (r*0: an address dependency).
	Deps bool
}

// LitmusSized programs have the size of the litmus tests of the corpus.
var LitmusSized = Spec{Threads: 3, Instrs: 3, Locs: 2}

// ProtocolSized programs add a mutex, choices and awaits.
var ProtocolSized = Spec{Threads: 3, Instrs: 4, Locs: 2, Locks: true, Choices: true}

// Large programs have a thread more.
var Large = Spec{Threads: 4, Instrs: 4, Locs: 2, Locks: true, Choices: true}

// Dependent programs read and then write through dependencies, the
// shapes of load buffering.
var Dependent = Spec{Threads: 3, Instrs: 4, Locs: 2, Deps: true}

// Orderings are the memory orderings drawOrd draws from.
var Orderings = []model.Ordering{model.NA, model.Rlx, model.Con, model.Acq, model.Rel, model.AcqRel, model.SeqCst}

// drawOrd draws one of the orderings ok accepts.
func drawOrd(t *rapid.T, name string, ok func(model.Ordering) bool) model.Ordering {
	var valid []model.Ordering
	for _, o := range Orderings {
		if ok(o) {
			valid = append(valid, o)
		}
	}
	return rapid.SampledFrom(valid).Draw(t, name)
}

// addReg adds a register r0, r1, ... to th, starting at 0.
func addReg(th *model.Thread) model.Reg {
	th.Regs = append(th.Regs, fmt.Sprintf("r%d", len(th.Regs)))
	th.Init = append(th.Init, 0)
	return model.Reg(len(th.Regs) - 1)
}

// Program draws a random program: loads, stores, RMWs, compare-exchanges
// (strong and weak), fences, branches over loaded values and, for
// protocol-sized programs, locks, nondeterministic choices and awaits.
func Program(t *rapid.T, spec Spec) *model.Program {
	p := &model.Program{Name: "random"}
	nl := rapid.IntRange(1, spec.Locs).Draw(t, "locs")
	for l := 0; l < nl; l++ {
		p.Locs = append(p.Locs, model.Location{Name: fmt.Sprintf("x%d", l)})
	}
	mutex := model.NoLoc
	if spec.Locks && rapid.Bool().Draw(t, "mutex") {
		p.Locs = append(p.Locs, model.Location{Name: "m", Mutex: true})
		mutex = model.Loc(len(p.Locs) - 1)
	}
	nt := rapid.IntRange(1, spec.Threads).Draw(t, "threads")
	for ti := 0; ti < nt; ti++ {
		th := model.Thread{Name: fmt.Sprintf("P%d", ti)}
		newReg := func() model.Reg { return addReg(&th) }
		loc := func() *model.Expr {
			return model.Const(model.AddrOf(model.Loc(rapid.IntRange(0, nl-1).Draw(t, "loc"))))
		}
		val := func() *model.Expr { return model.Const(int64(rapid.IntRange(1, 2).Draw(t, "val"))) }
		ni := rapid.IntRange(1, spec.Instrs).Draw(t, "instrs")
		locked := false
		for k := 0; k < ni; k++ {
			in := model.Instr{Dst: model.NoReg, Dst2: model.NoReg}
			if spec.Choices && rapid.IntRange(0, 9).Draw(t, "await") == 0 {
				// await load(x) == v: a wait, deadlocked when the final
				// memory leaves it false.
				r := newReg()
				th.Code = append(th.Code, model.Instr{Op: model.OpLoad, Dst: r, Dst2: model.NoReg, Addr: loc(), Ord: drawOrd(t, "await ord", model.Ordering.ValidForLoad)})
				in.Op, in.Await, in.Target = model.OpAssume, true, len(th.Code)-1
				in.Cond = model.Bin(model.Eq, model.RegExpr(r), val())
				th.Code = append(th.Code, in)
				continue
			}
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1, 2:
				in.Op, in.Dst, in.Addr = model.OpLoad, newReg(), loc()
				in.Ord = drawOrd(t, "ord", model.Ordering.ValidForLoad)
			case 3, 4, 5:
				in.Op, in.Addr, in.Val = model.OpStore, loc(), val()
				in.Ord = drawOrd(t, "ord", model.Ordering.ValidForStore)
				if spec.Deps && len(th.Regs) > 0 {
					r := model.RegExpr(model.Reg(rapid.IntRange(0, len(th.Regs)-1).Draw(t, "dep reg")))
					switch rapid.IntRange(0, 2).Draw(t, "dep") {
					case 1:
						in.Val = model.Bin(model.Add, r, in.Val)
					case 2:
						in.Addr = model.Bin(model.Add, in.Addr, model.Bin(model.Mul, r, model.Const(0)))
					}
				}
			case 6:
				in.Op, in.Dst, in.Addr, in.Val = model.OpRMW, newReg(), loc(), val()
				in.RMW = rapid.SampledFrom([]model.RMWOp{model.Xchg, model.FetchAdd}).Draw(t, "rmw")
				in.Ord = drawOrd(t, "ord", model.Ordering.Atomic)
			case 7:
				in.Op, in.Dst, in.Dst2, in.Addr = model.OpCAS, newReg(), newReg(), loc()
				in.Expected, in.Val = model.Const(int64(rapid.IntRange(0, 1).Draw(t, "exp"))), val()
				in.Ord = drawOrd(t, "ord", model.Ordering.Atomic)
				in.FailOrd = drawOrd(t, "failord", func(o model.Ordering) bool { return o.Atomic() && o.ValidForLoad() })
				in.Weak = rapid.Bool().Draw(t, "weak")
			case 8:
				in.Op = model.OpFence
				in.Ord = drawOrd(t, "ord", model.Ordering.ValidForFence)
			case 9:
				switch {
				case mutex != model.NoLoc && !locked && rapid.Bool().Draw(t, "lock"):
					in.Op, in.Addr, locked = model.OpLock, model.Const(model.AddrOf(mutex)), true
				case mutex != model.NoLoc && locked:
					in.Op, in.Addr, locked = model.OpUnlock, model.Const(model.AddrOf(mutex)), false
				case spec.Choices && rapid.Bool().Draw(t, "choose"):
					in.Op, in.Dst, in.N = model.OpChoose, newReg(), 2
				case len(th.Regs) > 0:
					// if (r == v) skip the next instruction
					r := model.Reg(rapid.IntRange(0, len(th.Regs)-1).Draw(t, "reg"))
					in.Op = model.OpBranch
					in.Cond = model.Bin(model.Eq, model.RegExpr(r), model.Const(int64(rapid.IntRange(0, 1).Draw(t, "cmp"))))
					in.Target = len(th.Code) + 2
				default:
					in.Op = model.OpFence
					in.Ord = model.SeqCst
				}
			}
			th.Code = append(th.Code, in)
		}
		if locked {
			th.Code = append(th.Code, model.Instr{Op: model.OpUnlock, Dst: model.NoReg, Dst2: model.NoReg, Addr: model.Const(model.AddrOf(mutex))})
		}
		for i := range th.Code {
			if th.Code[i].Op == model.OpBranch && th.Code[i].Target > len(th.Code) {
				th.Code[i].Target = len(th.Code)
			}
		}
		p.Threads = append(p.Threads, th)
	}
	f := &model.Final{Quant: model.Forall, Cond: &model.Cond{Kind: model.CTrue}}
	for ti, th := range p.Threads {
		for r := range th.Regs {
			f.Show = append(f.Show, model.Observable{Thread: ti, Reg: model.Reg(r), Loc: model.NoLoc})
		}
	}
	for l := range p.Locs {
		f.Show = append(f.Show, model.Observable{Thread: -1, Reg: model.NoReg, Loc: model.Loc(l)})
	}
	p.Final = f
	return p
}

// ThreeLocs programs use up to three locations: the shapes where
// psc orders seq_cst accesses to different locations through a
// happens-before path between other accesses (po|≠loc; hb; po|≠loc).
var ThreeLocs = Spec{Threads: 3, Instrs: 3, Locs: 3}

// Chain draws a chain of message passing, as in MP, WRC and ISA2: each
// thread but the first reads the previous one's flag, perhaps fences, and
// reads its data; each but the last writes data of its own, perhaps
// fences, and writes its flag — or passes the flag on with a
// read-modify-write, perhaps also another thread's read-modify-write of
// the first flag (release sequences). Orderings are random.
func Chain(t *rapid.T) *model.Program {
	n := rapid.IntRange(2, 3).Draw(t, "threads")
	p := &model.Program{Name: "chain"}
	for i := 0; i < n; i++ {
		p.Locs = append(p.Locs, model.Location{Name: fmt.Sprintf("data%d", i)}, model.Location{Name: fmt.Sprintf("flag%d", i)})
	}
	data := func(i int) *model.Expr { return model.Const(model.AddrOf(model.Loc(2 * i))) }
	flag := func(i int) *model.Expr { return model.Const(model.AddrOf(model.Loc(2*i + 1))) }
	ord := func(name string, ok func(model.Ordering) bool) model.Ordering { return drawOrd(t, name, ok) }
	fence := func(th *model.Thread) {
		if rapid.Bool().Draw(t, "fence") {
			th.Code = append(th.Code, model.Instr{Op: model.OpFence, Dst: model.NoReg, Dst2: model.NoReg, Ord: ord("fence ord", model.Ordering.ValidForFence)})
		}
	}
	for i := 0; i < n; i++ {
		th := model.Thread{Name: fmt.Sprintf("P%d", i)}
		reg := func() model.Reg { return addReg(&th) }
		if i > 0 {
			th.Code = append(th.Code, model.Instr{Op: model.OpLoad, Dst: reg(), Dst2: model.NoReg, Addr: flag(i - 1), Ord: ord("flag load", model.Ordering.ValidForLoad)})
			fence(&th)
			th.Code = append(th.Code, model.Instr{Op: model.OpLoad, Dst: reg(), Dst2: model.NoReg, Addr: data(i - 1), Ord: ord("data load", model.Ordering.ValidForLoad)})
		}
		if i < n-1 {
			th.Code = append(th.Code, model.Instr{Op: model.OpStore, Dst: model.NoReg, Dst2: model.NoReg, Addr: data(i), Val: model.Const(1), Ord: ord("data store", model.Ordering.ValidForStore)})
			fence(&th)
			if rapid.Bool().Draw(t, "relay") {
				th.Code = append(th.Code, model.Instr{Op: model.OpRMW, RMW: model.FetchAdd, Dst: reg(), Dst2: model.NoReg, Addr: flag(i), Val: model.Const(1), Ord: ord("flag rmw", model.Ordering.Atomic)})
			} else {
				th.Code = append(th.Code, model.Instr{Op: model.OpStore, Dst: model.NoReg, Dst2: model.NoReg, Addr: flag(i), Val: model.Const(1), Ord: ord("flag store", func(o model.Ordering) bool { return o.Atomic() && o.ValidForStore() })})
			}
			if rapid.Bool().Draw(t, "second store") {
				th.Code = append(th.Code, model.Instr{Op: model.OpStore, Dst: model.NoReg, Dst2: model.NoReg, Addr: flag(i), Val: model.Const(2), Ord: ord("second", func(o model.Ordering) bool { return o.Atomic() && o.ValidForStore() })})
			}
		}
		p.Threads = append(p.Threads, th)
	}
	if rapid.Bool().Draw(t, "relay thread") {
		// A third party's read-modify-write of the first flag: a reader of
		// its write synchronises with the first writer's release.
		p.Threads = append(p.Threads, model.Thread{Name: "relay", Regs: []string{"r0"}, Init: []int64{0}, Code: []model.Instr{
			{Op: model.OpRMW, RMW: model.FetchAdd, Dst: 0, Dst2: model.NoReg, Addr: flag(0), Val: model.Const(2), Ord: ord("relay ord", model.Ordering.Atomic)}}})
	}
	p.Final = &model.Final{Quant: model.Forall, Cond: &model.Cond{Kind: model.CTrue}}
	return p
}

// Guarded draws a program of two or three threads, each of which
// stores to its own flag, perhaps fences, loads the next thread's flag and,
// when it read a chosen value, makes a plain access to a shared data
// location: store buffering, message passing and Dekker's handshake with
// random Orderings, where which plain accesses run (and race) depends on
// outcomes a strong model may forbid.
func Guarded(t *rapid.T) *model.Program {
	nt := rapid.IntRange(2, 3).Draw(t, "threads")
	p := &model.Program{Name: "guarded"}
	for i := 0; i < nt; i++ {
		p.Locs = append(p.Locs, model.Location{Name: fmt.Sprintf("flag%d", i)})
	}
	data := model.Loc(len(p.Locs))
	p.Locs = append(p.Locs, model.Location{Name: "data"})
	noCon := func(o model.Ordering) bool { return o != model.Con }
	for i := 0; i < nt; i++ {
		th := model.Thread{Name: fmt.Sprintf("P%d", i), Regs: []string{"f", "d"}, Init: []int64{0, 0}}
		add := func(in model.Instr) {
			if in.Dst == 0 && in.Op != model.OpLoad {
				in.Dst = model.NoReg
			}
			in.Dst2 = model.NoReg
			th.Code = append(th.Code, in)
		}
		add(model.Instr{Op: model.OpStore, Addr: model.Const(model.AddrOf(model.Loc(i))), Val: model.Const(1),
			Ord: drawOrd(t, "store", func(o model.Ordering) bool { return o.ValidForStore() && o.Atomic() })})
		if rapid.Bool().Draw(t, "fence") {
			add(model.Instr{Op: model.OpFence, Ord: drawOrd(t, "fence ord", func(o model.Ordering) bool { return o.ValidForFence() && noCon(o) })})
		}
		add(model.Instr{Op: model.OpLoad, Dst: 0, Addr: model.Const(model.AddrOf(model.Loc((i + 1) % nt))),
			Ord: drawOrd(t, "load", func(o model.Ordering) bool { return o.ValidForLoad() && o.Atomic() && noCon(o) })})
		// if f != want, skip the plain access
		want := int64(rapid.IntRange(0, 1).Draw(t, "want"))
		add(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Ne, model.RegExpr(0), model.Const(want)), Target: len(th.Code) + 2})
		if rapid.Bool().Draw(t, "write") {
			add(model.Instr{Op: model.OpStore, Addr: model.Const(model.AddrOf(data)), Val: model.Const(int64(i + 1)), Ord: model.NA})
		} else {
			add(model.Instr{Op: model.OpLoad, Dst: 1, Addr: model.Const(model.AddrOf(data)), Ord: model.NA})
		}
		p.Threads = append(p.Threads, th)
	}
	p.Final = &model.Final{Quant: model.Forall, Cond: &model.Cond{Kind: model.CTrue}}
	return p
}

// CriticalSections draws a program of two or three threads over two to
// four locations and one or two mutexes: each thread runs one to three
// blocks, a block being an access or a critical section (a lock, one to
// three accesses, and an unlock, sometimes left for the thread's end),
// and prefers a location of its own, so that some locations only the
// holders of a mutex touch and others are shared without one — the
// shapes the state explorer's reduction tells apart. Accesses are loads,
// stores, read-modify-writes, compare-exchanges (weak ones too), fences
// and awaits; every register and location is shown.
func CriticalSections(t *rapid.T) *model.Program {
	p := &model.Program{Name: "sections", Locs: Locs(rapid.IntRange(2, 4).Draw(t, "locs"))}
	nl := len(p.Locs)
	var mutexes []model.Loc
	for i := range rapid.IntRange(1, 2).Draw(t, "mutexes") {
		mutexes = append(mutexes, model.Loc(len(p.Locs)))
		p.Locs = append(p.Locs, model.Location{Name: fmt.Sprintf("m%d", i), Mutex: true})
	}
	for i := range rapid.IntRange(2, 3).Draw(t, "threads") {
		th := model.Thread{Name: fmt.Sprintf("P%d", i)}
		own := rapid.IntRange(0, nl-1).Draw(t, "own")
		emit := func(in model.Instr) {
			if in.Op != model.OpLoad && in.Op != model.OpRMW && in.Op != model.OpCAS {
				in.Dst = model.NoReg
			}
			if in.Op != model.OpCAS {
				in.Dst2 = model.NoReg
			}
			th.Code = append(th.Code, in)
		}
		access := func() {
			l := own
			if rapid.IntRange(0, 2).Draw(t, "elsewhere") == 0 {
				l = rapid.IntRange(0, nl-1).Draw(t, "loc")
			}
			addr := model.Const(model.AddrOf(model.Loc(l)))
			v := model.Const(int64(rapid.IntRange(1, 2).Draw(t, "val")))
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1, 2:
				emit(model.Instr{Op: model.OpLoad, Dst: addReg(&th), Addr: addr, Ord: drawOrd(t, "load", model.Ordering.ValidForLoad)})
			case 3, 4, 5:
				emit(model.Instr{Op: model.OpStore, Addr: addr, Val: v, Ord: drawOrd(t, "store", model.Ordering.ValidForStore)})
			case 6:
				emit(model.Instr{Op: model.OpRMW, Dst: addReg(&th), Addr: addr, Val: v, RMW: model.FetchAdd, Ord: drawOrd(t, "rmw", model.Ordering.Atomic)})
			case 7:
				emit(model.Instr{Op: model.OpCAS, Dst: addReg(&th), Dst2: addReg(&th), Addr: addr, Expected: model.Const(0), Val: v,
					Ord: drawOrd(t, "cas", model.Ordering.Atomic), FailOrd: model.Rlx, Weak: rapid.Bool().Draw(t, "weak")})
			case 8:
				emit(model.Instr{Op: model.OpFence, Ord: drawOrd(t, "fence", func(o model.Ordering) bool { return o.ValidForFence() && o != model.NA })})
			default: // await l == v
				r := addReg(&th)
				emit(model.Instr{Op: model.OpLoad, Dst: r, Addr: addr, Ord: drawOrd(t, "await", model.Ordering.ValidForLoad)})
				emit(model.Instr{Op: model.OpAssume, Await: true, Target: len(th.Code) - 1, Cond: model.Bin(model.Eq, model.RegExpr(r), v)})
			}
		}
		var left []model.Loc // mutexes to unlock at the end
		for range rapid.IntRange(1, 3).Draw(t, "blocks") {
			m := mutexes[rapid.IntRange(0, len(mutexes)-1).Draw(t, "mutex")]
			if slices.Contains(left, m) || !rapid.Bool().Draw(t, "section") {
				access()
				continue
			}
			emit(model.Instr{Op: model.OpLock, Addr: model.Const(model.AddrOf(m))})
			for range rapid.IntRange(1, 3).Draw(t, "section length") {
				access()
			}
			if rapid.IntRange(0, 3).Draw(t, "left locked") == 0 {
				left = append(left, m)
				continue
			}
			emit(model.Instr{Op: model.OpUnlock, Addr: model.Const(model.AddrOf(m))})
		}
		for _, m := range slices.Backward(left) {
			emit(model.Instr{Op: model.OpUnlock, Addr: model.Const(model.AddrOf(m))})
		}
		p.Threads = append(p.Threads, th)
	}
	p.Final = &model.Final{Quant: model.Forall, Cond: &model.Cond{Kind: model.CTrue}}
	for t, th := range p.Threads {
		for r := range th.Regs {
			p.Final.Show = append(p.Final.Show, model.Observable{Thread: t, Reg: model.Reg(r), Loc: model.NoLoc})
		}
	}
	for l := range p.Locs {
		p.Final.Show = append(p.Final.Show, model.Observable{Thread: -1, Reg: model.NoReg, Loc: model.Loc(l)})
	}
	return p
}

// Spawning draws a random program whose last thread is spawned by the
// first, at a random point of the first's code (never inside a branch's
// target range: the spawn is placed before an instruction no jump skips).
func Spawning(t *rapid.T) *model.Program {
	p := Program(t, rapid.SampledFrom([]Spec{LitmusSized, ProtocolSized}).Draw(t, "size"))
	if len(p.Threads) < 2 {
		t.Skip("one thread")
	}
	child := len(p.Threads) - 1
	code := p.Threads[0].Code
	at := rapid.IntRange(0, len(code)).Draw(t, "spawn at")
	for _, in := range code {
		if (in.Op == model.OpJump || in.Op == model.OpBranch || in.Op == model.OpAssume) && in.Target >= at {
			at = len(code) // keep jump targets where they are
		}
	}
	spawn := model.Instr{Op: model.OpSpawn, N: child, Dst: model.NoReg, Dst2: model.NoReg}
	p.Threads[0].Code = slices.Insert(slices.Clone(code), at, spawn)
	p.Threads[child].Spawned = true
	return p
}

// WithTwins may copy one of p's threads, so that the state explorer's
// symmetry reduction has interchangeable threads to merge.
func WithTwins(t *rapid.T, p *model.Program) *model.Program {
	for k := rapid.IntRange(0, 2).Draw(t, "twins"); k > 0; k-- {
		th := p.Threads[0]
		th.Name = fmt.Sprintf("P0'%d", k)
		p.Threads = append(p.Threads, th)
	}
	if rapid.Bool().Draw(t, "memory only") {
		// Registers not shown are dead at the end: states that differ
		// only in them merge.
		var show []model.Observable
		for _, o := range p.Final.Show {
			if o.IsMem() {
				show = append(show, o)
			}
		}
		p.Final.Show = show
	}
	return p
}

// Explorable makes p one m's machine runs: where it does not run seq_cst
// (rc11's), seq_cst orderings become the strongest others.
func Explorable(p *model.Program, m *model.Model) {
	if m.Machine.Unsupported(p) != "" {
		withoutSC(p)
	}
}

// withoutSC replaces seq_cst orderings by the strongest others.
func withoutSC(p *model.Program) {
	for ti := range p.Threads {
		code := slices.Clone(p.Threads[ti].Code)
		for i := range code {
			in := &code[i]
			if in.Ord == model.SeqCst {
				switch in.Op {
				case model.OpLoad:
					in.Ord = model.Acq
				case model.OpStore:
					in.Ord = model.Rel
				default:
					in.Ord = model.AcqRel
				}
			}
			if in.FailOrd == model.SeqCst {
				in.FailOrd = model.Acq
			}
		}
		p.Threads[ti].Code = code
	}
}

// Locs are n locations x0, x1, ...
func Locs(n int) []model.Location {
	out := make([]model.Location, n)
	for i := range out {
		out[i].Name = fmt.Sprintf("x%d", i)
	}
	return out
}

// Load is a load of location l into register dst.
func Load(dst model.Reg, l int, o model.Ordering) model.Instr {
	return model.Instr{Op: model.OpLoad, Dst: dst, Dst2: model.NoReg, Addr: model.Const(model.AddrOf(model.Loc(l))), Ord: o}
}

// Store is a store of v to location l.
func Store(l int, v int64, o model.Ordering) model.Instr {
	return model.Instr{Op: model.OpStore, Dst: model.NoReg, Dst2: model.NoReg, Addr: model.Const(model.AddrOf(model.Loc(l))), Val: model.Const(v), Ord: o}
}
