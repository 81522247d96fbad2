package lang

import (
	"fmt"
	"slices"

	"github.com/ordercheck/ordercheck/model"
)

// threadComp compiles one thread instance.
type threadComp struct {
	c      *compiler
	th     *model.Thread
	self   int64
	number int64    // the thread's number in the program (ThreadIndex)
	scope  []string // procedure frames: register name prefixes
	rets   []*retFrame
	loops  []*loop // the loops around the statement compiled, innermost last
	ntemp  int
	// regs lists the registers assignments created, in order; regAt finds them.
	regs  []*regAssign
	regAt map[model.Reg]*regAssign
	// regIndex finds a register by name (the first of that name).
	regIndex map[string]model.Reg
	// heldRegs say whether the thread holds each mutex; locks are the
	// checks of its locks and unlocks.
	heldRegs map[string]model.Reg
	locks    []lockSite
	// hazards are the thread's hazard pointers (HazardStmt), by handle - 1.
	hazards []model.Reg
	// spins are the registers of the spin-assumed loops around the code
	// compiled (WhileStmt.Spin), set when their round writes what other
	// threads can see; fresh maps the registers that point into a block
	// the thread allocated and has not let escape to the block's
	// allocation (stores through them are local).
	stops     []int // branches to the thread's end (WhileStmt.Stop)
	spins     []model.Reg
	fresh     map[model.Reg]int
	freshRead map[int]bool // blocks read since their allocation
	nfresh    int
}

type retFrame struct {
	name  string // the operation or procedure
	op    bool   // an operation: its results are dsts
	dst   model.Reg
	dsts  []model.Reg
	jumps []int
}

// loop is a loop being compiled: the jumps of its break and continue
// statements, to patch, and what they may not leave.
type loop struct {
	breaks, conts []int
	rets          int       // operations and procedures open when it began
	counter       model.Reg // a for loop's variable; NoReg for a while loop
	rounds        int64     // at most; 0 when not constant
	at            model.Pos
}

// regAssign is a register created by an assignment: where, and whether an
// assignment to it performs an operation (a memory access, a choice).
type regAssign struct {
	reg  model.Reg
	name string
	at   model.Pos
	acts bool
}

func (t *threadComp) emit(in model.Instr) int {
	if in.Dst == 0 && in.Op != model.OpLoad && in.Op != model.OpRMW && in.Op != model.OpCAS && in.Op != model.OpAssign && in.Op != model.OpChoose {
		in.Dst = model.NoReg
	}
	if in.Op != model.OpCAS {
		in.Dst2 = model.NoReg
	}
	t.escape(&in)
	t.th.Code = append(t.th.Code, in)
	at := len(t.th.Code) - 1
	if len(t.spins) > 0 {
		t.spinEffect(&t.th.Code[at])
	}
	return at
}

func (t *threadComp) pc() int { return len(t.th.Code) }

// patch points the jumps at target.
func (t *threadComp) patch(jumps []int, target int) {
	for _, j := range jumps {
		t.th.Code[j].Target = target
	}
}

func (t *threadComp) prefix() string {
	if len(t.scope) == 0 {
		return ""
	}
	return t.scope[len(t.scope)-1]
}

func (t *threadComp) newReg(name string) model.Reg {
	t.th.Regs = append(t.th.Regs, name)
	t.th.Init = append(t.th.Init, 0)
	r := model.Reg(len(t.th.Regs) - 1)
	if t.regIndex == nil {
		t.regIndex = map[string]model.Reg{}
	}
	if _, dup := t.regIndex[name]; !dup {
		t.regIndex[name] = r
	}
	return r
}

func (t *threadComp) temp() model.Reg {
	t.ntemp++
	return t.newReg(fmt.Sprintf("%%t%d", t.ntemp))
}

// assignReg finds the register an assignment at at writes, visible in the
// current frame, or makes it.
func (t *threadComp) assignReg(name string, at model.Pos) model.Reg {
	r := t.reg(name)
	if r == model.NoReg {
		r = t.newReg(t.prefix() + name)
		ra := &regAssign{reg: r, name: name, at: at}
		t.regs, t.regAt[r] = append(t.regs, ra), ra
	}
	return r
}

// reg finds a register visible in the current frame.
func (t *threadComp) reg(name string) model.Reg {
	if r, ok := t.regIndex[t.prefix()+name]; ok {
		return r
	}
	return model.NoReg
}

// MaxInstructions and MaxRegisters bound what one thread compiles to,
// procedures expanded: a protocol whose calls expand exponentially, or a
// generated thread of millions of statements, is refused where it
// crosses the bound rather than exhausting time and memory.
const (
	MaxInstructions = 1 << 18
	MaxRegisters    = 1 << 16
)

func (t *threadComp) block(b *Block) error {
	for _, s := range b.Stmts {
		if err := t.stmt(s); err != nil {
			return err
		}
		if err := t.bounded(s.pos()); err != nil {
			return err
		}
	}
	return nil
}

// bounded fails at pos once the thread's code or registers pass their
// bounds.
func (t *threadComp) bounded(pos model.Pos) error {
	switch {
	case len(t.th.Code) > MaxInstructions:
		return errAt(pos, "thread %s compiles to more than %d instructions here (procedure calls expand at each call): a protocol this large is not checkable", t.th.Name, MaxInstructions)
	case len(t.th.Regs) > MaxRegisters:
		return errAt(pos, "thread %s has more than %d registers here (procedure calls expand at each call)", t.th.Name, MaxRegisters)
	}
	return nil
}

func (t *threadComp) stmt(s Stmt) error {
	switch s := s.(type) {
	case *AssignStmt:
		return t.assign(s)
	case *IfStmt:
		cond, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		br := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Not(cond), Pos: s.At, Text: "if"})
		if err := t.block(s.Then); err != nil {
			return err
		}
		if s.Else == nil {
			t.th.Code[br].Target = t.pc()
			return nil
		}
		j := t.emit(model.Instr{Op: model.OpJump, Pos: s.At})
		t.th.Code[br].Target = t.pc()
		if err := t.block(s.Else); err != nil {
			return err
		}
		t.th.Code[j].Target = t.pc()
		return nil
	case *WhileStmt:
		// cnt = 0; top: if !cond goto end; if cnt < max goto body; bound;
		// body: ...; cont: cnt = cnt + 1; goto top; end:
		max, err := t.c.constant(s.Max)
		if err != nil {
			return err
		}
		if t.spinLoop(s) {
			return t.spin(s)
		}
		cnt := t.temp()
		t.emit(model.Instr{Op: model.OpAssign, Dst: cnt, Val: model.Const(0), Pos: s.At})
		spin := s.Spin && casFlags(carried(s.Body, s.Cond), s.Body)
		fx := model.NoReg // a spin-assumed loop's round wrote what others see
		if spin {
			fx = t.temp()
		}
		top := t.pc()
		if s.Stop {
			t.stops = append(t.stops, t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Ge, model.RegExpr(cnt), model.Const(max)), Pos: s.At, Text: "stop at the bound"}))
		}
		if spin {
			t.emit(model.Instr{Op: model.OpAssign, Dst: fx, Val: model.Const(0), Pos: s.At, Text: "spin round"})
			t.spins = append(t.spins, fx)
		}
		cond, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		exit := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Not(cond), Pos: s.At, Text: "while"})
		t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Lt, model.RegExpr(cnt), model.Const(max)), Target: t.pc() + 2, Pos: s.At})
		t.emit(model.Instr{Op: model.OpBound, Pos: s.At, Text: fmt.Sprintf("while loop ran %d times", max)})
		l, err := t.loopBody(s.Body, model.NoReg, max, s.At)
		if err != nil {
			return err
		}
		if spin {
			// A round that comes back having written nothing others see
			// starts the next as it started: pruned, a wait whose
			// evaluation is the round.
			t.spins = t.spins[:len(t.spins)-1]
			wrote := t.emit(model.Instr{Op: model.OpBranch, Cond: model.RegExpr(fx), Pos: s.At})
			t.emit(model.Instr{Op: model.OpAssume, Await: true, Cond: model.Const(0), Target: top, Pos: s.At, Text: "spin round"})
			t.th.Code[wrote].Target = t.pc()
		}
		t.emit(model.Instr{Op: model.OpAssign, Dst: cnt, Val: model.Bin(model.Add, model.RegExpr(cnt), model.Const(1)), Pos: s.At})
		t.emit(model.Instr{Op: model.OpJump, Target: top, Pos: s.At})
		t.patch(append(l.breaks, exit), t.pc())
		return nil
	case *ForStmt:
		// i = from; top: if i >= to goto end; body; cont: i = i + 1; goto top; end:
		from, err := t.expr(s.From)
		if err != nil {
			return err
		}
		to, err := t.expr(s.To)
		if err != nil {
			return err
		}
		if hasReg(to) {
			// The count is fixed when the loop starts.
			n := t.temp()
			t.emit(model.Instr{Op: model.OpAssign, Dst: n, Val: to, Pos: s.At})
			to = model.RegExpr(n)
		}
		if t.isShared(s.Var) {
			return errAt(s.At, "loop variable %s is a shared variable; a loop counts in a register", s.Var)
		}
		i := t.reg(s.Var)
		if i == model.NoReg {
			i = t.newReg(t.prefix() + s.Var)
		}
		t.emit(model.Instr{Op: model.OpAssign, Dst: i, Val: from, Pos: s.At, Text: s.Var + " = ..."})
		top := t.pc()
		exit := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Ge, model.RegExpr(i), to), Pos: s.At, Text: "for"})
		var rounds int64
		f, fok := constValue(from)
		n, nok := constValue(to)
		if fok && nok && (n <= f || n-f > 0) { // n-f not overflowed
			rounds = max(n-f, 1)
		}
		l, err := t.loopBody(s.Body, i, rounds, s.At)
		if err != nil {
			return err
		}
		t.emit(model.Instr{Op: model.OpAssign, Dst: i, Val: model.Bin(model.Add, model.RegExpr(i), model.Const(1)), Pos: s.At})
		t.emit(model.Instr{Op: model.OpJump, Target: top, Pos: s.At})
		t.patch(append(l.breaks, exit), t.pc())
		return nil
	case *BranchStmt:
		if len(t.loops) == 0 {
			return errAt(s.At, "%s outside a loop", s.Tok)
		}
		l := t.loops[len(t.loops)-1]
		if len(t.rets) > l.rets {
			return errAt(s.At, "%s would leave operation %s without its return", s.Tok, t.rets[len(t.rets)-1].name)
		}
		j := t.emit(model.Instr{Op: model.OpJump, Pos: s.At, Text: s.Tok})
		if s.Tok == "break" {
			l.breaks = append(l.breaks, j)
		} else {
			l.conts = append(l.conts, j)
		}
		return nil
	case *NamedBlock:
		if v := t.c.variant; v != nil {
			if r, ok := v.Replace[s.Name]; ok {
				t.c.used[s.Name] = true
				return t.block(r)
			}
		}
		return t.block(s.Body)
	case *OpStmt:
		if proc, ok := t.c.pr.Procs[s.Name]; ok && proc.Op {
			return errAt(s.At, "op %s names an operation declared with \"op %s(...)\" at %s: call it, or give this block another name", s.Name, s.Name, t.c.pr.Procs[s.Name].Pos)
		}
		_, err := t.operation(s.Name, nil, s.Body, s.At)
		return err
	case *EitherStmt:
		choice := t.temp()
		t.emit(model.Instr{Op: model.OpChoose, Dst: choice, N: len(s.Arms), Pos: s.At, Text: "either"})
		var ends []int
		for k, arm := range s.Arms {
			br := -1
			if k < len(s.Arms)-1 {
				br = t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Ne, model.RegExpr(choice), model.Const(int64(k))), Pos: arm.Pos})
			}
			if err := t.block(arm); err != nil {
				return err
			}
			if br >= 0 {
				ends = append(ends, t.emit(model.Instr{Op: model.OpJump, Pos: arm.Pos}))
				t.th.Code[br].Target = t.pc()
			}
		}
		t.patch(ends, t.pc())
		return nil
	case *AssertStmt:
		if slices.Contains(builtinProps, s.Prop) {
			return errAt(s.At, "%s is a built-in property, which ordercheck checks itself: an assert cannot check it; name a property of your own (property NAME)", s.Prop)
		}
		if !t.c.hasProp(s.Prop) {
			return errAt(s.At, "unknown property %s (declare it with \"property %s\")", s.Prop, s.Prop)
		}
		cond, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		msg := s.Msg
		if msg == "" {
			msg = s.Prop
		}
		t.emit(model.Instr{Op: model.OpAssert, Cond: cond, Prop: s.Prop, Msg: msg, Pos: s.At, Text: "assert " + s.Prop})
		return nil
	case *AssumeStmt:
		start := t.pc() // an await's condition is evaluated again from here
		if s.Pre != nil {
			if err := t.block(s.Pre); err != nil {
				return err
			}
		}
		cond, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		in := model.Instr{Op: model.OpAssume, Cond: cond, Pos: s.At, Text: "assume"}
		if s.Await {
			for _, c := range t.th.Code[start:] {
				if c.Op == model.OpRMW {
					return errAt(c.Pos, "an await's condition may not make a read-modify-write (%s): each round of the wait would write again; wait with a load or a cas, or write a loop with max", c.Text)
				}
				if c.Op == model.OpStore { // only alloc stores in an expression
					return errAt(c.Pos, "an await's condition may not write or allocate: each round of the wait would do it again; do it before the await")
				}
			}
			in.Await, in.Target, in.Text = true, start, "await"
		}
		t.emit(in)
		return nil
	case *MemStmt:
		return t.mem(s)
	case *HazardStmt:
		return t.hazard(s)
	case *SpawnStmt:
		for i := range t.c.prog.Threads {
			if th := &t.c.prog.Threads[i]; th.Name == s.Thread {
				if !th.Spawned {
					return errAt(s.At, "thread %s is not declared \"spawned\"", s.Thread)
				}
				t.emit(model.Instr{Op: model.OpSpawn, N: i, Pos: s.At, Text: "spawn " + s.Thread})
				return nil
			}
		}
		return errAt(s.At, "unknown thread %s", s.Thread)
	case *ReturnStmt:
		if len(t.rets) == 0 {
			return errAt(s.At, "return outside a procedure or operation")
		}
		f := t.rets[len(t.rets)-1]
		if !f.op && len(s.Vals) > 1 {
			return errAt(s.Vals[1].pos(), "procedure %s returns one value; an operation may return several", f.name)
		}
		dsts := f.dsts
		if !f.op {
			dsts = []model.Reg{f.dst}
		}
		// Every value first, then the assignments: "return b, a" swaps.
		var vals []*model.Expr
		for _, x := range s.Vals {
			v, err := t.expr(x)
			if err != nil {
				return err
			}
			if len(s.Vals) > 1 && hasReg(v) {
				r := t.temp()
				t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: v, Pos: s.At})
				v = model.RegExpr(r)
			}
			vals = append(vals, v)
		}
		for k, v := range vals {
			t.emit(model.Instr{Op: model.OpAssign, Dst: dsts[k], Val: v, Pos: s.At, Text: "return"})
		}
		f.jumps = append(f.jumps, t.emit(model.Instr{Op: model.OpJump, Pos: s.At}))
		return nil
	case *ExprStmt:
		_, err := t.expr(s.X)
		return err
	case *RequireStmt:
		return errAt(s.At, "require belongs in a spec's operation; a thread checks with assert or prunes with assume")
	}
	return errAt(s.pos(), "unsupported statement")
}

// loopBody compiles the body of a loop whose variable is counter (NoReg
// for none). Its continue statements jump to the code emitted next (the
// end of the round); the caller patches its breaks to the loop's exit.
func (t *threadComp) loopBody(b *Block, counter model.Reg, rounds int64, at model.Pos) (*loop, error) {
	l := &loop{rets: len(t.rets), counter: counter, rounds: rounds, at: at}
	t.loops = append(t.loops, l)
	err := t.block(b)
	t.loops = t.loops[:len(t.loops)-1]
	t.patch(l.conts, t.pc())
	return l, err
}

// blockNames lists the names of the protocol's blocks a variant may
// replace, sorted.
func (pr *Protocol) blockNames() []string {
	var out []string
	for _, b := range pr.codeBlocks() {
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			if nb, ok := s.(*NamedBlock); ok && !slices.Contains(out, nb.Name) {
				out = append(out, nb.Name)
			}
		})
	}
	slices.Sort(out)
	return out
}

func (c *compiler) hasProp(name string) bool {
	for _, p := range c.pr.Props {
		if p.Name == name {
			return true
		}
	}
	return false
}
