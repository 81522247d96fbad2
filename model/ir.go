package model

import (
	"fmt"
	"strings"
)

// Loc names a shared memory location of a program (an index into Program.Locs).
type Loc int32

// NoLoc marks the absence of a location.
const NoLoc Loc = -1

// AddrBase is the value of the address of location 0. The address of location
// l is AddrBase+l, so that pointers never collide with small integers and a
// null pointer is 0.
const AddrBase int64 = 1 << 32

// AddrOf returns the value of a pointer to l.
func AddrOf(l Loc) int64 { return AddrBase + int64(l) }

// LocOf returns the location a pointer value designates, if it is one.
func (p *Program) LocOf(v int64) (Loc, bool) {
	if v < AddrBase || v-AddrBase >= int64(len(p.Locs)) {
		return NoLoc, false
	}
	return Loc(v - AddrBase), true
}

// Location is a shared memory location with its initial value.
type Location struct {
	Name string
	Init int64
	// Mutex marks a location that holds a lock: 0 when free, 1 when held (by
	// the thread whose lock wrote it last).
	Mutex bool
}

// Reg names a thread-local register (an index into Thread.Regs).
type Reg int32

// NoReg marks an instruction result that is not kept.
const NoReg Reg = -1

// Pos is a source position, for messages and counterexamples.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// BinOp is a binary operator of expressions, with C semantics on int64.
type BinOp uint8

// Binary operators.
const (
	Add BinOp = iota
	Sub
	Mul
	Div
	Mod
	And
	Or
	Xor
	Shl
	Shr
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	LAnd
	LOr
)

var binOpNames = [...]string{"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=", "&&", "||"}

func (o BinOp) String() string { return binOpNames[o] }

// ExprKind tells what an expression node is.
type ExprKind uint8

// Expression node kinds.
const (
	EConst ExprKind = iota
	EReg
	EBin
	ENot // logical negation
	ENeg // arithmetic negation
)

// Expr is a side-effect-free expression over registers and constants.
type Expr struct {
	Kind ExprKind
	Val  int64 // EConst
	Reg  Reg   // EReg
	Op   BinOp // EBin
	X, Y *Expr
}

// Const returns a constant expression.
func Const(v int64) *Expr { return &Expr{Kind: EConst, Val: v} }

// RegExpr returns an expression reading register r.
func RegExpr(r Reg) *Expr { return &Expr{Kind: EReg, Reg: r} }

// Bin returns the expression x op y.
func Bin(op BinOp, x, y *Expr) *Expr { return &Expr{Kind: EBin, Op: op, X: x, Y: y} }

// Not returns the logical negation of x.
func Not(x *Expr) *Expr { return &Expr{Kind: ENot, X: x} }

// Neg returns the arithmetic negation of x.
func Neg(x *Expr) *Expr { return &Expr{Kind: ENeg, X: x} }

// Format renders e in C syntax, naming registers with names and, when p is
// not nil, pointers by their locations.
func (e *Expr) Format(p *Program, names []string) string {
	if e == nil {
		return "<nil>"
	}
	switch e.Kind {
	case EConst:
		if p != nil {
			return p.FormatValue(e.Val)
		}
		return fmt.Sprint(e.Val)
	case EReg:
		if int(e.Reg) < len(names) {
			return names[e.Reg]
		}
		return fmt.Sprintf("r%d", e.Reg)
	case EBin:
		return "(" + e.X.Format(p, names) + " " + e.Op.String() + " " + e.Y.Format(p, names) + ")"
	case ENot:
		return "!" + e.X.Format(p, names)
	case ENeg:
		return "-" + e.X.Format(p, names)
	}
	return "?"
}

// RMWOp is the operation of a fetch-and-modify.
type RMWOp uint8

// Read-modify-write operations.
const (
	Xchg RMWOp = iota
	FetchAdd
	FetchSub
	FetchOr
	FetchAnd
	FetchXor
)

var rmwNames = [...]string{"xchg", "fetch_add", "fetch_sub", "fetch_or", "fetch_and", "fetch_xor"}

func (o RMWOp) String() string { return rmwNames[o] }

// Apply returns the value stored by the operation given the old value and operand.
func (o RMWOp) Apply(old, v int64) int64 {
	switch o {
	case FetchAdd:
		return old + v
	case FetchSub:
		return old - v
	case FetchOr:
		return old | v
	case FetchAnd:
		return old & v
	case FetchXor:
		return old ^ v
	}
	return v
}

// Op is the operation of an instruction.
type Op uint8

// Instruction operations.
const (
	OpLoad   Op = iota // Dst = *Addr with Ord
	OpStore            // *Addr = Val with Ord
	OpRMW              // Dst = RMW(*Addr, Val) with Ord
	OpCAS              // Dst = old *Addr; Dst2 = success; if *Addr == Expected: *Addr = Val
	OpFence            // fence with Ord
	OpLock             // lock the mutex at Addr (blocks while held)
	OpUnlock           // unlock the mutex at Addr
	OpAssign           // Dst = Val
	OpBranch           // if Cond != 0 goto Target
	OpJump             // goto Target
	OpAssert           // fail with Msg unless Cond != 0
	OpAssume           // block forever unless Cond != 0 (Await: a wait for it)
	OpChoose           // Dst = a nondeterministic value in [0, N)
	OpSpawn            // start thread N, which happens after everything before
	OpBound            // the thread hit a loop bound: the execution is cut
	OpCall             // an operation named Msg begins, with arguments Args (a history marker)
	OpRet              // the operation ends, returning Args
)

var opNames = [...]string{"load", "store", "rmw", "cas", "fence", "lock", "unlock", "assign", "branch", "jump", "assert", "assume", "choose", "spawn", "bound", "call", "ret"}

func (o Op) String() string { return opNames[o] }

// Instr is one instruction of a thread.
type Instr struct {
	Op       Op
	Dst      Reg // loaded / old value, assigned value, chosen value
	Dst2     Reg // OpCAS: 1 on success, 0 on failure
	Addr     *Expr
	Val      *Expr // stored value, RMW operand, CAS desired value, assigned value
	Expected *Expr // OpCAS
	Cond     *Expr // OpBranch, OpAssert, OpAssume
	Ord      Ordering
	// OrdPos is where the source writes Ord (the ordering argument), when
	// it does: tune rewrites it there.
	OrdPos Pos
	// Fixed marks an ordering the program does not choose (a front end's
	// own mechanism, such as a C thread's join flag): tune leaves it.
	Fixed   bool
	FailOrd Ordering // OpCAS on failure
	RMW     RMWOp
	Weak    bool // OpCAS may fail spuriously
	// Await makes an OpAssume a wait for its condition rather than a
	// pruning of the executions where it is false: a thread that waits
	// while its condition stays false forever is deadlocked. Its
	// condition's evaluation starts at Target.
	Await bool
	// NoCtrl marks an OpBranch that is part of one C operation (a litmus
	// compare_exchange's store of the value it saw): it makes no control
	// dependency, since the compiled code decides that store without a
	// branch on ARM (CSET), and the RISC-V model adds the dependency of
	// its own LR/SC branch itself.
	NoCtrl bool
	// Args are an OpCall's arguments and an OpRet's results.
	Args   []*Expr
	N      int // OpChoose: number of choices
	Target int // OpBranch, OpJump
	Msg    string
	// Prop names the property an OpAssert checks.
	Prop string
	// Abort makes a failure of an OpAssert end the whole program, as C's
	// assert and its memory errors do: a thread left waiting for the one
	// that failed waits for nothing the program runs, and is no deadlock.
	// Otherwise a failed assertion stops its own thread only.
	Abort bool
	Pos   Pos
	Text  string // the source text, for traces
}

// Thread is one thread of a program: a state machine over its registers.
type Thread struct {
	Name string
	// Spawned threads start only when another thread spawns them.
	Spawned bool
	Regs    []string
	// Init gives the registers' initial values (zero when absent).
	Init []int64
	Code []Instr
}

// RegIndex returns the register named name, or NoReg.
func (t *Thread) RegIndex(name string) Reg {
	for i, r := range t.Regs {
		if r == name {
			return Reg(i)
		}
	}
	return NoReg
}

// Program is a set of threads over shared locations, with an optional
// condition on final states.
type Program struct {
	Name    string
	Locs    []Location
	Threads []Thread
	Final   *Final
	// Checks are named conditions every complete execution in which no
	// thread blocks must satisfy.
	Checks []Check
	// Proven names the properties the front end proved of every execution
	// and so compiled no check of (the protocol language's locking where
	// every use of a mutex is right by the code's shape): they hold
	// without an execution reaching a check.
	Proven []string
}

// Aborted reports whether an execution whose threads end in states was
// ended by a failed assertion that aborts the program (Instr.Abort): its
// other threads then stopped where they were, and none is blocked.
func (p *Program) Aborted(states []ThreadState) bool {
	for t, st := range states {
		if code := p.Threads[t].Code; st.Status == Failed && st.PC < len(code) && code[st.PC].Abort {
			return true
		}
	}
	return false
}

// Check is a named condition on final states.
type Check struct {
	Prop string
	Msg  string
	Cond *Cond
	Pos  Pos
}

// LocIndex returns the location named name, or NoLoc.
func (p *Program) LocIndex(name string) Loc {
	for i, l := range p.Locs {
		if l.Name == name {
			return Loc(i)
		}
	}
	return NoLoc
}

// Quantifier says how a final condition is read.
type Quantifier uint8

// Quantifiers of final conditions, as in herd7.
const (
	Exists    Quantifier = iota // some execution satisfies the condition
	NotExists                   // no execution satisfies it
	Forall                      // every execution satisfies it
)

func (q Quantifier) String() string {
	return [...]string{"exists", "~exists", "forall"}[q]
}

// Observable is a value visible in a final state: a thread's register or a
// memory location.
type Observable struct {
	Thread int // -1 for a memory location
	Reg    Reg
	Loc    Loc
}

// IsMem reports whether o is a memory location.
func (o Observable) IsMem() bool { return o.Thread < 0 }

// Name renders o as herd7 does: "1:r0" for registers, "x" for locations.
func (o Observable) Name(p *Program) string {
	if o.IsMem() {
		return p.Locs[o.Loc].Name
	}
	return fmt.Sprintf("%d:%s", o.Thread, p.Threads[o.Thread].Regs[o.Reg])
}

// CondKind tells what a final-condition node is.
type CondKind uint8

// Final-condition node kinds.
const (
	CTrue CondKind = iota
	CFalse
	CEq  // Obs == Val
	CNe  // Obs != Val
	CAnd // X && Y
	COr  // X || Y
	CNot // !X
)

// Cond is a proposition over a final state.
type Cond struct {
	Kind CondKind
	Obs  Observable
	Val  int64
	X, Y *Cond
}

// Final is a program's condition on its final states.
type Final struct {
	Quant Quantifier
	Cond  *Cond
	// Show lists what a final state displays: the observables of the
	// condition and of a litmus test's locations clause.
	Show []Observable
}

// FinalState is the state at the end of a complete execution.
type FinalState struct {
	Regs [][]int64 // per thread
	Mem  []int64   // per location: the value of the last write in mo
}

// Value returns the value of o in s.
func (s *FinalState) Value(o Observable) int64 {
	if o.IsMem() {
		return s.Mem[o.Loc]
	}
	return s.Regs[o.Thread][o.Reg]
}

// FormatState renders the observables of a final state as herd7 does:
// registers as "T:r=v;", locations as "[x]=v;", separated by spaces, a
// pointer as the name of its location.
func (p *Program) FormatState(show []Observable, s *FinalState) string {
	parts := make([]string, len(show))
	for i, o := range show {
		name := o.Name(p)
		if o.IsMem() {
			name = "[" + name + "]"
		}
		parts[i] = fmt.Sprintf("%s=%s;", name, p.HerdValue(s.Value(o)))
	}
	return strings.Join(parts, " ")
}

// Eval evaluates c in s.
func (c *Cond) Eval(s *FinalState) bool {
	switch c.Kind {
	case CTrue:
		return true
	case CFalse:
		return false
	case CEq:
		return s.Value(c.Obs) == c.Val
	case CNe:
		return s.Value(c.Obs) != c.Val
	case CAnd:
		return c.X.Eval(s) && c.Y.Eval(s)
	case COr:
		return c.X.Eval(s) || c.Y.Eval(s)
	case CNot:
		return !c.X.Eval(s)
	}
	return false
}

// Format renders c in herd7's syntax.
func (c *Cond) Format(p *Program) string {
	switch c.Kind {
	case CTrue:
		return "true"
	case CFalse:
		return "false"
	case CEq:
		return c.Obs.Name(p) + "=" + p.HerdValue(c.Val)
	case CNe:
		return c.Obs.Name(p) + "!=" + p.HerdValue(c.Val)
	case CAnd:
		return c.X.formatIn(p, CAnd) + " /\\ " + c.Y.formatIn(p, CAnd)
	case COr:
		return c.X.formatIn(p, COr) + " \\/ " + c.Y.formatIn(p, COr)
	case CNot:
		return "~" + c.X.formatIn(p, CNot)
	}
	return "?"
}

func (c *Cond) formatIn(p *Program, parent CondKind) string {
	s := c.Format(p)
	if (c.Kind == CAnd || c.Kind == COr) && c.Kind != parent {
		return "(" + s + ")"
	}
	return s
}

// Mentions reports whether c refers to o.
func (c *Cond) Mentions(o Observable) bool {
	for _, x := range c.Observables(nil) {
		if x == o {
			return true
		}
	}
	return false
}

// Observables appends to dst every observable c mentions, without duplicates.
func (c *Cond) Observables(dst []Observable) []Observable {
	if c == nil {
		return dst
	}
	switch c.Kind {
	case CEq, CNe:
		for _, o := range dst {
			if o == c.Obs {
				return dst
			}
		}
		return append(dst, c.Obs)
	case CAnd, COr:
		return c.Y.Observables(c.X.Observables(dst))
	case CNot:
		return c.X.Observables(dst)
	}
	return dst
}

// FormatValue renders a value, naming a pointer by the location it
// designates: &x.
func (p *Program) FormatValue(v int64) string {
	if name, ok := p.pointee(v); ok {
		return "&" + name
	}
	if name, ok := heapValue(v); ok {
		return name
	}
	return fmt.Sprint(v)
}

// HerdValue renders a value as herd7 prints one in final states and
// conditions: a pointer as the bare name of the location it designates.
func (p *Program) HerdValue(v int64) string {
	if name, ok := p.pointee(v); ok {
		return name
	}
	return fmt.Sprint(v)
}

// pointee names the location v points to, if v is a pointer.
func (p *Program) pointee(v int64) (string, bool) {
	l, ok := p.LocOf(v)
	if !ok {
		return "", false
	}
	// A pointer to a struct's first field is a pointer to the struct.
	name := p.Locs[l].Name
	if s, _, isField := strings.Cut(name, "."); isField && (l == 0 || !strings.HasPrefix(p.Locs[l-1].Name, s+".")) {
		return s, true
	}
	return name, true
}

// String renders the program in a readable assembly-like form.
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "program %s\n", p.Name)
	for _, l := range p.Locs {
		fmt.Fprintf(&b, "  %s = %d\n", l.Name, l.Init)
	}
	for ti := range p.Threads {
		t := &p.Threads[ti]
		fmt.Fprintf(&b, "thread %s\n", t.Name)
		for pc, in := range t.Code {
			fmt.Fprintf(&b, "  %3d: %s\n", pc, in.Format(p, t))
		}
	}
	return b.String()
}

// Format renders one instruction.
func (in *Instr) Format(p *Program, t *Thread) string {
	reg := func(r Reg) string {
		if r == NoReg {
			return "_"
		}
		return t.Regs[r]
	}
	e := func(x *Expr) string { return x.Format(p, t.Regs) }
	switch in.Op {
	case OpLoad:
		return fmt.Sprintf("%s = load(%s, %s)", reg(in.Dst), e(in.Addr), in.Ord)
	case OpStore:
		return fmt.Sprintf("store(%s, %s, %s)", e(in.Addr), e(in.Val), in.Ord)
	case OpRMW:
		return fmt.Sprintf("%s = %s(%s, %s, %s)", reg(in.Dst), in.RMW, e(in.Addr), e(in.Val), in.Ord)
	case OpCAS:
		kind := "cas"
		if in.Weak {
			kind = "cas_weak"
		}
		return fmt.Sprintf("%s, %s = %s(%s, %s, %s, %s, %s)", reg(in.Dst), reg(in.Dst2), kind, e(in.Addr), e(in.Expected), e(in.Val), in.Ord, in.FailOrd)
	case OpFence:
		return fmt.Sprintf("fence(%s)", in.Ord)
	case OpLock:
		return fmt.Sprintf("lock(%s)", e(in.Addr))
	case OpUnlock:
		return fmt.Sprintf("unlock(%s)", e(in.Addr))
	case OpAssign:
		return fmt.Sprintf("%s = %s", reg(in.Dst), e(in.Val))
	case OpBranch:
		return fmt.Sprintf("if %s goto %d", e(in.Cond), in.Target)
	case OpJump:
		return fmt.Sprintf("goto %d", in.Target)
	case OpAssert:
		return fmt.Sprintf("assert %s %q", e(in.Cond), in.Msg)
	case OpAssume:
		if in.Await {
			return fmt.Sprintf("await %s (from %d)", e(in.Cond), in.Target)
		}
		return fmt.Sprintf("assume %s", e(in.Cond))
	case OpChoose:
		return fmt.Sprintf("%s = choose(%d)", reg(in.Dst), in.N)
	case OpSpawn:
		return fmt.Sprintf("spawn %s", p.Threads[in.N].Name)
	case OpBound:
		return "loop bound reached"
	case OpCall:
		return fmt.Sprintf("call %s(%s)", in.Msg, exprs(in.Args, e))
	case OpRet:
		return fmt.Sprintf("return %s from %s", exprs(in.Args, e), in.Msg)
	}
	return in.Op.String()
}

// Spawns reports whether some thread of p starts only when another spawns
// it.
func (p *Program) Spawns() bool {
	for i := range p.Threads {
		if p.Threads[i].Spawned {
			return true
		}
	}
	return false
}

// exprs formats a list of expressions with f, separated by commas.
func exprs(xs []*Expr, f func(*Expr) string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = f(x)
	}
	return strings.Join(parts, ", ")
}

// Reads appends to dst the expressions in reads: its address, values,
// condition and a marker's values.
func (in *Instr) Reads(dst []*Expr) []*Expr {
	for _, e := range [...]*Expr{in.Addr, in.Val, in.Expected, in.Cond} {
		if e != nil {
			dst = append(dst, e)
		}
	}
	return append(dst, in.Args...)
}
