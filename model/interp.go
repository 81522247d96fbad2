package model

import "fmt"

// MaxLocalSteps bounds the instructions a thread may run between two events,
// so that a local infinite loop is an error rather than a hang.
const MaxLocalSteps = 1 << 22

// Status is where a thread stands.
type Status uint8

// Thread statuses.
const (
	Running Status = iota // it has a next action
	Done                  // it ran to its end
	Failed                // an assertion failed
	Blocked               // an assume is false, or a lock it waits for is held
	Cut                   // it hit a loop bound: its future was not explored
	Unborn                // a spawned thread not started yet
)

// ActionKind is the kind of a thread's next visible action.
type ActionKind uint8

// Visible actions: each makes one event (ActRMW, ActCAS and ActLock make a
// read and, when they write, the write that follows it).
const (
	ActNone   ActionKind = iota
	ActRead              // load
	ActWrite             // store
	ActRMW               // fetch-and-op or exchange
	ActCAS               // compare-exchange
	ActLock              // lock a mutex
	ActUnlock            // unlock a mutex
	ActFence             // fence
	ActChoose            // nondeterministic choice
	ActFail              // assertion failure
	ActSpawn             // start another thread
	ActCall              // an operation begins
	ActRet               // an operation returns Vals (Val: the first)
)

// Action is the next thing a thread does that the explorer must see.
type Action struct {
	Kind     ActionKind
	Loc      Loc
	Ord      Ordering
	FailOrd  Ordering
	Val      int64 // stored value, RMW operand, CAS desired value
	Expected int64 // CAS
	RMW      RMWOp
	Weak     bool
	N        int // ActChoose
	Msg      string
	// Vals are an operation marker's values: a call's arguments, a
	// return's results.
	Vals  []int64
	Instr int
	Addr  DepSet
	Data  DepSet
	Ctrl  DepSet
	// Pending marks an RMW-like action whose read is already the thread's
	// last event and whose write half comes next.
	Pending bool
	// deps holds Addr, Data and Ctrl for the action's events to share.
	deps *deps
}

// IsReadAction reports whether a begins with a read.
func (a *Action) IsReadAction() bool {
	return a.Kind == ActRead || a.Kind == ActRMW || a.Kind == ActCAS || a.Kind == ActLock
}

// Outcome tells what a read action does after reading v: whether it writes
// and what, and whether the thread blocks. spurious asks for the spurious
// failure of a weak compare-exchange.
func (a *Action) Outcome(v int64, spurious bool) (writes bool, w int64, blocked bool) {
	switch a.Kind {
	case ActRMW:
		return true, a.RMW.Apply(v, a.Val), false
	case ActCAS:
		return v == a.Expected && !spurious, a.Val, false
	case ActLock:
		if v != 0 {
			return false, 0, true
		}
		return true, 1, false
	}
	return false, 0, false
}

// ReadOrd is the ordering of the read an action starts with, given whether it writes.
func (a *Action) ReadOrd(writes bool) Ordering {
	switch a.Kind {
	case ActRMW:
		return a.Ord.ReadPart()
	case ActCAS:
		if writes {
			return a.Ord.ReadPart()
		}
		return a.FailOrd
	case ActLock:
		return Acq
	}
	return a.Ord
}

// WriteOrd is the ordering of the write half of an RMW-like action.
func (a *Action) WriteOrd() Ordering {
	if a.Kind == ActLock {
		return Rlx
	}
	return a.Ord.WritePart()
}

// ThreadState is a thread's local state: where it is and its registers.
type ThreadState struct {
	PC   int
	Regs []int64
	// Deps holds, per register, the reads its value depends on; empty,
	// dependencies are not tracked (and Ctrl and actions have none): an
	// engine that makes no events need not pay for them.
	Deps   []DepSet
	Ctrl   DepSet // the reads that decided the path taken so far
	Status Status
	Msg    string // the failed assertion's message
	// WaitLoc is the mutex a Blocked thread waits for (NoLoc for an assume).
	WaitLoc Loc
	// Reached lists the assertions (by instruction) the thread evaluated.
	Reached []int
}

// Replay runs thread t of p over its events evs, which must be the events
// that thread produced so far, and returns its state and its next action
// (Kind ActNone when it is not Running). An RMW-like action whose read is
// the last event and still needs its write is returned as the next action;
// the caller then adds only the write half.
func (p *Program) Replay(t int, evs []Event) (ThreadState, Action, error) {
	th := &p.Threads[t]
	st := ThreadState{Regs: make([]int64, len(th.Regs)), Deps: make([]DepSet, len(th.Regs)), WaitLoc: NoLoc}
	copy(st.Regs, th.Init)
	a, err := p.step(t, &st)
	if err != nil {
		return st, Action{}, err
	}
	return p.Resume(t, st, a, 0, evs)
}

// Resume goes on replaying thread t: st and a are its state and next
// action after its first k events (as Replay returned them for those), and
// evs extends those events. It returns the state and next action after
// all of evs. st is the caller's to give: its registers are changed (see
// ThreadState.Clone).
func (p *Program) Resume(t int, st ThreadState, a Action, k int, evs []Event) (ThreadState, Action, error) {
	th := &p.Threads[t]
	a.Pending = false
	for {
		if a.Kind == ActNone {
			if k != len(evs) {
				return st, Action{}, fmt.Errorf("thread %s ended with %d events unconsumed", th.Name, len(evs)-k)
			}
			return st, a, nil
		}
		if k == len(evs) {
			return st, a, nil
		}
		e := &evs[k]
		switch a.Kind {
		case ActRead, ActChoose:
			p.settle(t, &st, &a, e.Val, false, k)
			k++
		case ActWrite, ActUnlock, ActFence, ActSpawn, ActCall, ActRet:
			k++
		case ActFail:
			st.Status, st.Msg = Failed, a.Msg
			return st, Action{}, nil
		case ActRMW, ActCAS, ActLock:
			writes, _, blocked := a.Outcome(e.Val, e.Spurious)
			if writes {
				if k+1 == len(evs) {
					a.Pending = true // the write half is next
					return st, a, nil
				}
				k++
			}
			k++
			if blocked {
				st.Status, st.WaitLoc = Blocked, a.Loc
				if k != len(evs) {
					return st, Action{}, fmt.Errorf("thread %s has events after blocking", th.Name)
				}
				return st, Action{}, nil
			}
			read := k - 1
			if writes {
				read = k - 2
			}
			p.settle(t, &st, &a, e.Val, writes, read)
		}
		st.PC++
		var err error
		if a, err = p.step(t, &st); err != nil {
			return st, Action{}, err
		}
	}
}

// Clone returns a copy of st whose registers can change without changing
// st's.
func (st ThreadState) Clone() ThreadState {
	st.Regs = append([]int64(nil), st.Regs...)
	st.Deps = append([]DepSet(nil), st.Deps...)
	st.Reached = st.Reached[:len(st.Reached):len(st.Reached)]
	return st
}

// settle sets the registers that thread action a assigns: v is the value
// its read returned (or the value chosen), k the index of that read among
// the thread's events, writes whether a read-modify-write wrote.
func (p *Program) settle(t int, st *ThreadState, a *Action, v int64, writes bool, k int) {
	in := &p.Threads[t].Code[a.Instr]
	switch a.Kind {
	case ActChoose:
		p.setReg(st, in.Dst, v, nil)
	case ActRead, ActRMW, ActCAS:
		var dep DepSet
		if len(st.Deps) > 0 {
			dep = dep.With(k)
		}
		p.setReg(st, in.Dst, v, dep)
		if a.Kind == ActCAS {
			p.setReg(st, in.Dst2, b2i(writes), dep)
		}
	}
}

// Advance completes thread t's next action a in st and runs the thread on
// to its following action, as Replay would after the action's events: v is
// the value its read returned (or the value chosen), writes whether a
// read-modify-write wrote, k the index of its read among the thread's
// events. st must not share its registers with another state, and a lock
// may be advanced only when it was free (it then takes it).
func (p *Program) Advance(t int, st *ThreadState, a *Action, v int64, writes bool, k int) (Action, error) {
	if a.Kind == ActFail {
		st.Status, st.Msg = Failed, a.Msg
		return Action{}, nil
	}
	p.settle(t, st, a, v, writes, k)
	st.PC++
	return p.step(t, st)
}

func (p *Program) setReg(st *ThreadState, r Reg, v int64, d DepSet) {
	if r != NoReg {
		st.Regs[r] = v
		if len(st.Deps) > 0 {
			st.Deps[r] = d
		}
	}
}

// eval evaluates e in st, returning its value and the reads it depends on.
func eval(e *Expr, st *ThreadState) (int64, DepSet, error) {
	switch e.Kind {
	case EConst:
		return e.Val, nil, nil
	case EReg:
		if len(st.Deps) == 0 {
			return st.Regs[e.Reg], nil, nil
		}
		return st.Regs[e.Reg], st.Deps[e.Reg], nil
	case ENot, ENeg:
		v, d, err := eval(e.X, st)
		if e.Kind == ENeg {
			return -v, d, err
		}
		return b2i(v == 0), d, err
	}
	x, dx, err := eval(e.X, st)
	if err != nil {
		return 0, nil, err
	}
	// As in C11, the left operand of && and || carries no dependency to
	// the result: it only decides whether the right one is evaluated.
	if e.Op == LAnd && x == 0 || e.Op == LOr && x != 0 {
		return b2i(e.Op == LOr), nil, nil
	}
	y, dy, err := eval(e.Y, st)
	if err != nil {
		return 0, nil, err
	}
	if e.Op == LAnd || e.Op == LOr {
		return b2i(y != 0), dy, nil
	}
	v, err := e.Op.Apply(x, y)
	if err != nil {
		return 0, nil, err
	}
	return v, dx.Union(dy), nil
}

// Apply applies o to x and y, with C's semantics on int64 (shifts by the
// low six bits of y; && and || on values already evaluated); a division
// by zero is an error.
func (o BinOp) Apply(x, y int64) (int64, error) {
	switch o {
	case Add:
		return x + y, nil
	case Sub:
		return x - y, nil
	case Mul:
		return x * y, nil
	case Div, Mod:
		if y == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		if o == Div {
			return x / y, nil
		}
		return x % y, nil
	case And:
		return x & y, nil
	case Or:
		return x | y, nil
	case Xor:
		return x ^ y, nil
	case Shl:
		return x << uint64(y&63), nil
	case Shr:
		return x >> uint64(y&63), nil
	case Eq:
		return b2i(x == y), nil
	case Ne:
		return b2i(x != y), nil
	case Lt:
		return b2i(x < y), nil
	case Le:
		return b2i(x <= y), nil
	case Gt:
		return b2i(x > y), nil
	case Ge:
		return b2i(x >= y), nil
	case LAnd:
		return b2i(x != 0 && y != 0), nil
	case LOr:
		return b2i(x != 0 || y != 0), nil
	}
	return 0, fmt.Errorf("bad operator %v", o)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// step runs local instructions of thread t until its next visible action;
// it returns ActNone when the thread stops (Done or Blocked on an assume).
func (p *Program) step(t int, st *ThreadState) (Action, error) {
	th := &p.Threads[t]
	for n := 0; ; n++ {
		if n > MaxLocalSteps {
			at := ""
			if st.PC < len(th.Code) {
				at = th.Code[st.PC].Pos.String() + ": "
			}
			return Action{}, fmt.Errorf("%sthread %s: no memory access within %d steps (a local loop without bound?)", at, th.Name, MaxLocalSteps)
		}
		if st.PC >= len(th.Code) {
			st.Status = Done
			return Action{}, nil
		}
		in := &th.Code[st.PC]
		errAt := func(err error) (Action, error) {
			return Action{}, fmt.Errorf("%s: thread %s: %v", in.Pos, th.Name, err)
		}
		switch in.Op {
		case OpAssign:
			v, d, err := eval(in.Val, st)
			if err != nil {
				return errAt(err)
			}
			p.setReg(st, in.Dst, v, d)
			st.PC++
			continue
		case OpBranch:
			v, d, err := eval(in.Cond, st)
			if err != nil {
				return errAt(err)
			}
			if !in.NoCtrl {
				st.Ctrl = st.Ctrl.Union(d)
			}
			if v != 0 {
				st.PC = in.Target
			} else {
				st.PC++
			}
			continue
		case OpJump:
			st.PC = in.Target
			continue
		case OpAssume:
			v, d, err := eval(in.Cond, st)
			if err != nil {
				return errAt(err)
			}
			st.Ctrl = st.Ctrl.Union(d)
			if v == 0 {
				st.Status = Blocked
				return Action{}, nil
			}
			st.PC++
			continue
		case OpAssert:
			v, d, err := eval(in.Cond, st)
			if err != nil {
				return errAt(err)
			}
			st.Reached = append(st.Reached, st.PC)
			if v == 0 {
				return Action{Kind: ActFail, Msg: in.Msg, Instr: st.PC, Ctrl: st.Ctrl.Union(d)}, nil
			}
			st.PC++
			continue
		case OpBound:
			st.Status = Cut
			return Action{}, nil
		}
		a := Action{Instr: st.PC, Ord: in.Ord, FailOrd: in.FailOrd, RMW: in.RMW, Weak: in.Weak, N: in.N, Ctrl: st.Ctrl, Loc: NoLoc}
		if in.Addr != nil {
			v, d, err := eval(in.Addr, st)
			if err != nil {
				return errAt(err)
			}
			l, ok := p.LocOf(v)
			if !ok {
				return errAt(fmt.Errorf("access through %s, which is not a pointer to a shared location", p.FormatValue(v)))
			}
			a.Loc, a.Addr = l, d
		}
		if in.Val != nil {
			v, d, err := eval(in.Val, st)
			if err != nil {
				return errAt(err)
			}
			a.Val, a.Data = v, d
		}
		if len(in.Args) > 0 {
			a.Vals = make([]int64, len(in.Args))
			for k, x := range in.Args {
				v, _, err := eval(x, st)
				if err != nil {
					return errAt(err)
				}
				a.Vals[k] = v
			}
		}
		if in.Expected != nil {
			v, d, err := eval(in.Expected, st)
			if err != nil {
				return errAt(err)
			}
			a.Expected, a.Data = v, a.Data.Union(d)
		}
		switch in.Op {
		case OpLoad:
			a.Kind = ActRead
		case OpStore:
			a.Kind = ActWrite
		case OpRMW:
			a.Kind = ActRMW
		case OpCAS:
			a.Kind = ActCAS
		case OpFence:
			a.Kind = ActFence
		case OpLock:
			a.Kind, a.Ord = ActLock, Acq
		case OpUnlock:
			a.Kind, a.Ord, a.Val = ActUnlock, Rel, 0
		case OpChoose:
			a.Kind = ActChoose
		case OpSpawn:
			a.Kind, a.Val = ActSpawn, int64(in.N)
		case OpCall:
			a.Kind, a.Msg = ActCall, in.Msg
		case OpRet:
			a.Kind, a.Msg = ActRet, in.Msg
			if len(a.Vals) > 0 {
				a.Val = a.Vals[0]
			}
		default:
			return errAt(fmt.Errorf("unknown instruction %v", in.Op))
		}
		a.deps = newDeps(a.Addr, a.Data, a.Ctrl)
		return a, nil
	}
}

// EvalExpr evaluates e with the given register values.
func EvalExpr(e *Expr, regs []int64) (int64, error) {
	v, _, err := eval(e, &ThreadState{Regs: regs, Deps: make([]DepSet, len(regs))})
	return v, err
}

// Event returns the event an action starts with, without its value.
func (a *Action) Event() Event {
	d := a.deps
	if d == nil {
		d = newDeps(a.Addr, a.Data, a.Ctrl)
	}
	return Event{Loc: a.Loc, Ord: a.Ord, Instr: int32(a.Instr), deps: d}
}

// ReadEvent returns the read of a read-like action from write w holding v,
// and whether and what the action then writes.
func (a *Action) ReadEvent(w EventRef, v int64, spurious bool) (r Event, writes bool, wv int64) {
	r = a.Event()
	r.Kind, r.Val, r.Rf, r.Spurious = KRead, v, w, spurious
	if a.Kind == ActRead {
		return r, false, 0
	}
	r.RMW = true
	writes, wv, _ = a.Outcome(v, spurious)
	r.Ord = a.ReadOrd(writes)
	return r, writes, wv
}

// WriteHalf returns the write of a read-modify-write-like action storing wv.
func (a *Action) WriteHalf(wv int64) Event {
	e := a.Event()
	e.Kind, e.Val, e.RMW, e.Ord = KWrite, wv, true, a.WriteOrd()
	return e
}

// SimpleEvent returns the event of an action that reads nothing: a fence,
// failed assertion, choice (without its value), spawn, operation marker,
// store or unlock.
func (a *Action) SimpleEvent() Event {
	e := a.Event()
	switch a.Kind {
	case ActFence:
		e.Kind, e.Loc = KFence, NoLoc
	case ActFail:
		e.Kind, e.Loc = KError, NoLoc
	case ActChoose:
		e.Kind, e.Loc = KChoice, NoLoc
	case ActSpawn:
		e.Kind, e.Loc, e.Val = KSpawn, NoLoc, a.Val
	case ActCall:
		e.Kind, e.Loc = KCall, NoLoc
		e.deps = e.deps.withVals(a.Vals)
	case ActRet:
		e.Kind, e.Loc, e.Val = KRet, NoLoc, a.Val
		e.deps = e.deps.withVals(a.Vals)
	default:
		e.Kind, e.Val = KWrite, a.Val
	}
	return e
}

// ChoiceEvent returns the event of a choose action taking value v.
func (a *Action) ChoiceEvent(v int) Event {
	e := a.SimpleEvent()
	e.Val = int64(v)
	return e
}

// SpuriousChoices lists whether a read of v by a may fail spuriously: a
// weak compare-exchange that reads its expected value may succeed or fail.
func (a *Action) SpuriousChoices(v int64) []bool {
	if a.Kind == ActCAS && a.Weak && v == a.Expected {
		return []bool{false, true}
	}
	return []bool{false}
}

// PendingWrite returns the write half that an RMW-like action a of thread
// t still owes after its read (the thread's last event in g), and its
// place in modification order: right after the write the read read from.
func (g *Graph) PendingWrite(t int, a *Action) (Event, int) {
	last := &g.Threads[t][len(g.Threads[t])-1]
	_, wv, _ := a.Outcome(last.Val, last.Spurious)
	return a.WriteHalf(wv), g.CoPos(a.Loc, last.Rf) + 1
}

// Hopeless reports whether thread t, blocked on an await in state st,
// waits forever once memory holds mem for good: its condition, evaluated
// again from where its evaluation starts with every read taking mem's
// value, is still false. A thread blocked on an assume (a pruning, not a
// wait) is never hopeless, nor one whose await's evaluation does more than
// read memory (a compare-exchange that fails on the final value only
// reads it).
func (p *Program) Hopeless(t int, st *ThreadState, mem []int64) bool {
	code := p.Threads[t].Code
	if st.Status != Blocked || st.WaitLoc != NoLoc || st.PC >= len(code) || !code[st.PC].Await {
		return false
	}
	s := st.Clone()
	s.PC, s.Status = code[st.PC].Target, Running
	for {
		a, err := p.step(t, &s)
		switch {
		case err != nil:
			return false
		case a.Kind == ActNone:
			// Blocked at the await, or at a wait inside its condition
			// (a spin loop's inner spin) that the final memory leaves
			// false too.
			return s.Status == Blocked && (s.PC == st.PC || code[s.PC].Await)
		case a.Kind == ActCAS:
			// A compare-exchange that fails on the final value writes
			// nothing: it reads, and fails again each round (a weak one
			// may fail spuriously, never succeed where a strong one fails).
			if writes, _, _ := a.Outcome(mem[a.Loc], false); writes {
				return false // it would succeed: the thread goes on
			}
		case a.Kind != ActRead:
			return false // its condition does more than read memory
		}
		p.settle(t, &s, &a, mem[a.Loc], false, 0)
		s.PC++
	}
}
