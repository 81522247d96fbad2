package checker_test

import (
	"fmt"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/model"
)

// genSpec bounds the random programs of the property tests.
type genSpec struct {
	threads, instrs, locs int
	locks, choices        bool
	// deps lets stores write a register's value (a data dependency) and
	// take a register into their address (r*0: an address dependency).
	deps bool
}

var litmusSized = genSpec{threads: 3, instrs: 3, locs: 2}

var protocolSized = genSpec{threads: 3, instrs: 4, locs: 2, locks: true, choices: true}

var largeSpec = genSpec{threads: 4, instrs: 4, locs: 2, locks: true, choices: true}

// dependent programs read and then write through dependencies, the
// shapes of load buffering.
var dependent = genSpec{threads: 3, instrs: 4, locs: 2, deps: true}

var orderings = []model.Ordering{model.NA, model.Rlx, model.Con, model.Acq, model.Rel, model.AcqRel, model.SeqCst}

func drawOrd(t *rapid.T, name string, ok func(model.Ordering) bool) model.Ordering {
	var valid []model.Ordering
	for _, o := range orderings {
		if ok(o) {
			valid = append(valid, o)
		}
	}
	return rapid.SampledFrom(valid).Draw(t, name)
}

// genProgram draws a random program: loads, stores, RMWs, compare-exchanges
// (strong and weak), fences, branches over loaded values and, for
// protocol-sized programs, locks, nondeterministic choices and awaits.
func genProgram(t *rapid.T, spec genSpec) *model.Program {
	p := &model.Program{Name: "random"}
	nl := rapid.IntRange(1, spec.locs).Draw(t, "locs")
	for l := 0; l < nl; l++ {
		p.Locs = append(p.Locs, model.Location{Name: fmt.Sprintf("x%d", l)})
	}
	mutex := model.NoLoc
	if spec.locks && rapid.Bool().Draw(t, "mutex") {
		p.Locs = append(p.Locs, model.Location{Name: "m", Mutex: true})
		mutex = model.Loc(len(p.Locs) - 1)
	}
	nt := rapid.IntRange(1, spec.threads).Draw(t, "threads")
	for ti := 0; ti < nt; ti++ {
		th := model.Thread{Name: fmt.Sprintf("P%d", ti)}
		newReg := func() model.Reg {
			th.Regs = append(th.Regs, fmt.Sprintf("r%d", len(th.Regs)))
			th.Init = append(th.Init, 0)
			return model.Reg(len(th.Regs) - 1)
		}
		loc := func() *model.Expr {
			return model.Const(model.AddrOf(model.Loc(rapid.IntRange(0, nl-1).Draw(t, "loc"))))
		}
		val := func() *model.Expr { return model.Const(int64(rapid.IntRange(1, 2).Draw(t, "val"))) }
		ni := rapid.IntRange(1, spec.instrs).Draw(t, "instrs")
		locked := false
		for k := 0; k < ni; k++ {
			in := model.Instr{Dst: model.NoReg, Dst2: model.NoReg}
			if spec.choices && rapid.IntRange(0, 9).Draw(t, "await") == 0 {
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
				if spec.deps && len(th.Regs) > 0 {
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
				case spec.choices && rapid.Bool().Draw(t, "choose"):
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
