package checker

// The state-merging explorer. Under a model with an operational form (SC:
// one memory, reads see its current value; TSO: the same behind store
// buffers; RC11 without seq_cst: the promising semantics' messages and
// views, in memory.go) a partial execution's future
// depends only on its state: the threads' local states, memory, and what
// the properties still need to know (happens-before knowledge for data
// races, the operations' real-time order for linearizability). Two paths
// reaching one state are explored once, and threads of one template are
// interchangeable: a state is stored under a canonical form that sorts
// them. This collapses the N! orders of N identical callers that an
// execution-graph explorer must enumerate one by one.
//
// Data races are found with vector clocks that follow RC11's
// happens-before exactly (po, and synchronises-with through release
// sequences, fences and read-modify-write chains); in a state the clock
// values are replaced by their rank per thread, which keeps every
// comparison and join the future can make.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"sync/atomic"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
)

// Exploration engines (Options.Engine).
const (
	EngineAuto   = "auto"   // states when the model allows it, else dpor
	EngineDPOR   = "dpor"   // one visit per consistent execution graph
	EngineStates = "states" // one visit per reachable state
)

// statesUnsupported says why p cannot be explored by states under m, or
// returns "" when it can.
func statesUnsupported(p *model.Program, m model.Model) string {
	switch m.Name() {
	case "sc", "tso":
		return ""
	case "rc11":
		for _, th := range p.Threads {
			for _, in := range th.Code {
				if in.Ord == model.SC || in.FailOrd == model.SC {
					return fmt.Sprintf("%s: seq_cst accesses and fences have no operational form here under rc11", in.Pos)
				}
			}
		}
		return ""
	}
	return fmt.Sprintf("the state-merging engine implements sc, tso and rc11 (without seq_cst), not %s", m.Name())
}

// useStates decides the engine of a check.
func useStates(p *model.Program, m model.Model, opt Options) (bool, error) {
	switch opt.Engine {
	case "", EngineAuto:
		return !opt.Preemptions && statesUnsupported(p, m) == "", nil
	case EngineDPOR:
		return false, nil
	case EngineStates:
		if opt.Preemptions {
			return false, fmt.Errorf("the states engine does not bound preemptions; use --engine dpor")
		}
		if why := statesUnsupported(p, m); why != "" {
			return false, fmt.Errorf("%s", why)
		}
		return true, nil
	}
	return false, fmt.Errorf("unknown engine %q (known: %s, %s, %s)", opt.Engine, EngineAuto, EngineDPOR, EngineStates)
}

// sthread is one thread in a state.
type sthread struct {
	st model.ThreadState
	a  model.Action // next action, when Running
	n  int          // events so far
	// call is the call of the thread's current operation while it has
	// made no visible step (histories only).
	call *mark
}

// sstate is a state of the program.
type sstate struct {
	th    []*sthread
	msgs  [][]*msg    // per location: the messages that can still be read
	views []*tview    // per thread, under weak memory
	clk   []uint32    // vector clocks (see clocks), when races are tracked
	locks []uint64    // per access record (as clk's acc): the regular mutexes held at the access
	hist  []mark      // operation calls and returns, when histories are checked
	base  []int       // per location: messages dropped (for witnesses)
	bufs  [][]pending // per thread, under tso: its store buffer, oldest first (never changed in place)
	gen   uint64      // this state's generation: the views it made, it may change (see view)
}

// last returns the value of location l's last write.
func (s *sstate) last(l model.Loc) int64 { return s.msgs[l][len(s.msgs[l])-1].val }

// finalState returns the registers and memory of s.
func (s *sstate) finalState() model.FinalState {
	fs := model.FinalState{Mem: make([]int64, len(s.msgs)), Regs: make([][]int64, len(s.th))}
	for l := range s.msgs {
		fs.Mem[l] = s.last(model.Loc(l))
	}
	for t, th := range s.th {
		fs.Regs[t] = th.st.Regs
	}
	return fs
}

// mark is a call or return of an operation.
type mark struct {
	ret   bool
	t     int32
	instr int32
	val   int64
}

// move is a step of a path: thread t's next action, performed the way o.
type move struct {
	t int32
	o option
}

// finding is what the search knows of one violated property.
type finding struct {
	count int64
	path  []move // a shortest path to a violation
	msg   string // linearizability: the history's verdict
}

// states explores p by states.
type states struct {
	*runner
	races   bool
	weak    bool // the memory of release/acquire and relaxed accesses, not SC's
	tso     bool // SC's memory behind per-thread store buffers
	spec    *porcupine.Model
	perOp   bool           // operations judged one at a time (see judgeOp)
	gens    *atomic.Uint64 // the last state generation (see sstate.view)
	opMemo  map[opKey]bool // judgeOp's verdicts
	lay     clocks
	groups  [][]int // interchangeable threads
	seen    map[string]struct{}
	links   []link // per state found, in order: how the search first reached it
	found   map[string]*finding
	reached map[string]bool
	free    bool // some final state has no blocked thread
	linMemo map[string]string
	buf     []byte
	scratch []uint32
	keys    [][]byte
	futs    [][]future         // per thread and instruction; nil: unknown
	live    [][]model.DepSet   // per thread and instruction: registers still read
	mutexes []bool             // per location: a regular mutex (see regularMutexes)
	held    [][]uint64         // per thread and instruction: the regular mutexes held on every path to it
	guarded map[int][][]future // per regular mutex: the futures without what runs holding it
	fut     []future
	recs    [][]uint32    // normalize: per thread, the clock values of its records still kept
	kept    []record      // normalize: one thread's records kept
	onFinal func(*sstate) // tests: sees every final state (also those of a search explore abandons for whole histories)
}

func newStates(r *runner, spec *porcupine.Model) *states {
	x := &states{runner: r, races: r.opt.Races, weak: r.m.Name() == "rc11", tso: r.m.Name() == "tso", spec: spec,
		perOp:  spec != nil && spec.Partition == nil && spec.PartitionEvent == nil && !r.opt.wholeHistories,
		opMemo: map[opKey]bool{}, linMemo: map[string]string{}, gens: new(atomic.Uint64)}
	x.clear()
	x.lay = clocks{n: len(r.p.Threads), nl: len(r.p.Locs)}
	x.groups = symmetricThreads(r.p)
	x.keys = make([][]byte, len(r.p.Threads))
	x.futs = futures(r.p, nil)
	x.live = liveRegisters(r.p)
	x.mutexes, x.held = regularMutexes(r.p)
	x.guarded = map[int][][]future{}
	for l, ok := range x.mutexes {
		if ok {
			x.guarded[l] = futures(r.p, func(t, pc int) bool { return x.held[t][pc]>>uint(l)&1 != 0 })
		}
	}
	return x
}

// symmetricThreads groups the threads that are interchangeable: the same
// code and initial registers, not spawned and spawning nothing, and not
// named by a final condition or shown in final states.
func symmetricThreads(p *model.Program) [][]int {
	observed := finalRegisters(p)
	var groups [][]int
	placed := make([]bool, len(p.Threads))
	alone := func(t int) bool {
		th := &p.Threads[t]
		if th.Spawned || len(observed[t].Members()) > 0 {
			return true
		}
		for i := range th.Code {
			if th.Code[i].Op == model.OpSpawn {
				return true
			}
		}
		return false
	}
	for t := range p.Threads {
		if placed[t] || alone(t) {
			continue
		}
		g := []int{t}
		for u := t + 1; u < len(p.Threads); u++ {
			if !placed[u] && !alone(u) && reflect.DeepEqual(p.Threads[t].Code, p.Threads[u].Code) &&
				slices.Equal(p.Threads[t].Init, p.Threads[u].Init) {
				g = append(g, u)
				placed[u] = true
			}
		}
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	return groups
}

// initial returns the program's first state and the properties its
// threads violate on the way (they run their invisible actions at once);
// b, when not nil, records the events.
func (x *states) initial(b *builder) (*sstate, []string, error) {
	var viol []string
	s := &sstate{th: make([]*sthread, len(x.p.Threads)), msgs: make([][]*msg, len(x.p.Locs)), base: make([]int, len(x.p.Locs)), gen: x.gens.Add(1)}
	for l, loc := range x.p.Locs {
		s.msgs[l] = []*msg{{val: loc.Init}}
	}
	if x.weak {
		s.views = make([]*tview, len(x.p.Threads))
	}
	if x.tso {
		s.bufs = make([][]pending, len(x.p.Threads))
	}
	if x.races {
		s.clk = make([]uint32, x.lay.size())
		s.locks = make([]uint64, recKinds*x.lay.nl*x.lay.n)
	}
	for t := range x.p.Threads {
		s.th[t] = &sthread{st: model.ThreadState{Status: model.Unborn}}
	}
	for t := range x.p.Threads {
		if !x.p.Threads[t].Spawned {
			if x.weak {
				s.views[t] = newView(len(x.p.Locs), nil, s.gen)
			}
			v, err := x.start(s, t, b)
			if err != nil {
				return nil, nil, err
			}
			viol = append(viol, v...)
		}
	}
	return s, viol, nil
}

// start begins thread t in s.
func (x *states) start(s *sstate, t int, b *builder) ([]string, error) {
	st, a, err := x.p.Replay(t, nil)
	if err != nil {
		return nil, err
	}
	s.th[t] = &sthread{st: st, a: a}
	return x.settle(s, t, b)
}

// invisible reports whether an action can run at once, before any other
// thread's: nothing observes its place among the others.
//
// With histories, a call and a return run at once too but place their
// marks tightly: a call's at the operation's first visible step, a
// return's after its last. An operation's interval then lies within its
// interval in any interleaving of the same steps, and shrinking intervals
// only adds real-time order, so a history that does not linearize is
// still found. An operation with no visible step is one step: its call
// and return together.
func (x *states) invisible(s *sstate, t int) bool {
	th := s.th[t]
	switch th.a.Kind {
	case model.ActCall:
		return true
	case model.ActRet:
		return x.spec == nil || x.perOp || th.call == nil
	case model.ActFence:
		return !x.races && !x.waitsForBuffer(s, t, &th.a)
	}
	return false
}

// clone copies s, as state generation gen, for a move of thread t.
func (s *sstate) clone(t int, gen uint64) *sstate {
	c := &sstate{th: slices.Clone(s.th), msgs: slices.Clone(s.msgs), hist: s.hist[:len(s.hist):len(s.hist)], base: slices.Clone(s.base), gen: gen}
	for l, ms := range c.msgs {
		c.msgs[l] = slices.Clone(ms)
	}
	c.views = slices.Clone(s.views) // shared until changed (see sstate.view)
	if s.clk != nil {
		c.clk = slices.Clone(s.clk)
		c.locks = slices.Clone(s.locks)
	}
	if s.bufs != nil {
		c.bufs = slices.Clone(s.bufs)
	}
	c.own(t)
	return c
}

// own gives thread t of s a copy of its local state to change.
func (s *sstate) own(t int) {
	o := s.th[t]
	th := &sthread{st: o.st, a: o.a, n: o.n, call: o.call}
	th.st.Regs = slices.Clone(o.st.Regs)
	th.st.Deps = slices.Clone(o.st.Deps)
	th.st.Reached = o.st.Reached[:len(o.st.Reached):len(o.st.Reached)]
	s.th[t] = th
}

// apply makes move (t, c) from s; it returns the new state and the
// properties the move violates.
func (x *states) apply(s *sstate, t int, o option, b *builder) (*sstate, []string, error) {
	n := s.clone(t, x.gens.Add(1))
	var viol []string
	var err error
	if o.flush {
		x.flush(n, t, b)
	} else if viol, err = x.act(n, t, o, b); err != nil {
		return nil, nil, err
	}
	more, err := x.settle(n, t, b)
	if err != nil {
		return nil, nil, err
	}
	x.collect(n)
	if x.weak {
		x.trimViews(n)
	}
	if n.clk != nil {
		x.normalize(n)
	}
	return n, append(viol, more...), nil
}

// settle runs thread t's invisible actions.
func (x *states) settle(s *sstate, t int, b *builder) ([]string, error) {
	var viol []string
	for s.th[t].st.Status == model.Running && x.invisible(s, t) {
		v, err := x.act(s, t, option{}, b)
		if err != nil {
			return nil, err
		}
		viol = append(viol, v...)
	}
	return viol, nil
}

// act performs thread t's next action, in the way o, on s, which it owns.
func (x *states) act(s *sstate, t int, o option, b *builder) ([]string, error) {
	th := s.th[t]
	a := th.a
	var viol []string
	race := func(raced bool) {
		if raced {
			viol = append(viol, PropDataRace)
		}
	}
	var v int64
	writes := false
	read := th.n
	k := x.lay
	event := func(e model.Event) {
		b.add(t, e)
		th.n++
	}
	buffered := x.buffered(&a) // a store that enters the thread's store buffer (tso)
	if x.spec != nil && !x.perOp && th.call != nil && !x.invisible(s, t) {
		s.hist = append(s.hist, *th.call)
		th.call = nil
	}
	// write adds thread t's write of val to l at position q with
	// ordering wo; rm is the message a read-modify-write read.
	write := func(q int, val int64, wo model.Ordering, rm *msg) {
		var vc []uint32
		if s.clk != nil {
			k.tick(s.clk, t)
			race(k.access(s.clk, s.locks, t, a.Loc, true, wo, x.held[t][a.Instr]))
			vc = k.release(s.clk, t, a.Loc, wo, rm)
		}
		if buffered {
			x.bufferWrite(s, t, a.Loc, &msg{val: val, vc: vc})
		} else {
			x.writeMsg(s, t, a.Loc, q, val, wo, rm, vc)
		}
		th.n++
	}
	switch a.Kind {
	case model.ActRead:
		var m *msg
		if o.pos == fromBuffer {
			i := s.lastBuffered(t, a.Loc)
			m = s.bufs[t][i].m
			b.readBuffered(t, &a, m.val, i)
		} else {
			m = x.readMsg(s, t, a.Loc, o.pos, a.Ord)
			b.read(t, &a, m.val, false, s.base[a.Loc]+o.pos)
		}
		v = m.val
		if s.clk != nil {
			k.tick(s.clk, t)
			k.acquire(s.clk, t, m.vc, a.Ord)
			race(k.access(s.clk, s.locks, t, a.Loc, false, a.Ord, x.held[t][a.Instr]))
		}
		th.n++
	case model.ActWrite, model.ActUnlock:
		if buffered {
			b.buffer(t, simpleEvent(&a))
		} else {
			b.write(t, simpleEvent(&a), s.base[a.Loc]+o.pos)
		}
		write(o.pos, a.Val, a.Ord, nil)
	case model.ActRMW, model.ActCAS, model.ActLock:
		var wv int64
		writes, wv, _ = a.Outcome(s.msgs[a.Loc][o.pos].val, o.spurious)
		ro := a.ReadOrd(writes)
		m := x.readMsg(s, t, a.Loc, o.pos, ro)
		v = m.val
		b.read(t, &a, v, o.spurious, s.base[a.Loc]+o.pos)
		if s.clk != nil {
			k.tick(s.clk, t)
			k.acquire(s.clk, t, m.vc, ro)
			race(k.access(s.clk, s.locks, t, a.Loc, false, ro, x.held[t][a.Instr]))
		}
		th.n++
		if writes {
			write(o.pos+1, wv, a.WriteOrd(), m)
		}
	case model.ActFence:
		if s.clk != nil {
			k.fence(s.clk, t, a.Ord)
		}
		x.fenceViews(s, t, a.Ord)
		event(simpleEvent(&a))
	case model.ActChoose:
		v = int64(o.pos)
		e := simpleEvent(&a)
		e.Val = v
		event(e)
	case model.ActSpawn:
		event(simpleEvent(&a))
		child := int(a.Val)
		if s.clk != nil {
			k.tick(s.clk, t)
			copy(k.vec(s.clk, k.c(child)), k.vec(s.clk, k.c(t)))
		}
		if x.weak {
			s.views[child] = newView(len(x.p.Locs), s.views[t].cur, s.gen)
		}
		v, err := x.start(s, child, b)
		if err != nil {
			return nil, err
		}
		viol = append(viol, v...)
	case model.ActCall, model.ActRet:
		switch {
		case x.spec == nil:
		case x.perOp:
			// A return ends the thread's last open call, as History pairs
			// them; a return with none (an outer operation) is no operation.
			if a.Kind == model.ActCall {
				th.call = &mark{t: int32(t), instr: int32(a.Instr)}
			} else if th.call != nil {
				th.call = nil
				// The search judges; a witness's replay (b != nil) only
				// records the events, which Judge then judges.
				if b == nil {
					ok, err := x.judgeOp(t, a.Instr, a.Val)
					if err != nil {
						return nil, err
					}
					if !ok {
						viol = append(viol, PropLinearizability)
					}
				}
			}
		default:
			m := mark{ret: a.Kind == model.ActRet, t: int32(t), instr: int32(a.Instr), val: a.Val}
			if m.ret {
				s.hist = append(s.hist, m)
			} else {
				th.call = &m
			}
		}
		event(simpleEvent(&a))
	case model.ActFail:
		viol = append(viol, x.p.Threads[t].Code[a.Instr].Prop)
		event(simpleEvent(&a))
	default:
		return nil, fmt.Errorf("thread %s: unexpected action %v", x.p.Threads[t].Name, a.Kind)
	}
	before := len(th.st.Reached)
	next, err := x.p.Advance(t, &th.st, &a, v, writes, read)
	if err != nil {
		return nil, err
	}
	for _, pc := range th.st.Reached[before:] {
		x.reached[x.p.Threads[t].Code[pc].Prop] = true
	}
	if a.Kind == model.ActFail {
		x.reached[x.p.Threads[t].Code[a.Instr].Prop] = true
	}
	th.a = next
	if th.st.Status != model.Running && s.clk != nil {
		k.retire(s.clk, t)
	}
	return viol, nil
}

// opKey is an operation's name and result.
type opKey struct {
	name string
	val  int64
}

// errStateful stops a search that judges operations one at a time when
// the specification turns out to have state.
var errStateful = errors.New("the specification's operations change its state")

// judgeOp judges, one at a time, thread t's operation returning val at
// instruction instr: the specification's step from its initial state must
// accept it. While every step it accepts leaves the initial state as it
// was, that state is the only one any history can reach, so a history
// linearizes exactly when each of its operations is accepted: the search
// keeps no history and calls and returns need no place among the other
// threads' steps. A step that accepts an operation into another state
// ends the search with errStateful (explore then checks whole histories).
func (x *states) judgeOp(t, instr int, val int64) (bool, error) {
	k := opKey{name: x.p.Threads[t].Code[instr].Msg, val: val}
	ok, seen := x.opMemo[k]
	if !seen {
		var next interface{}
		ok, next = x.spec.Step(x.spec.Init(), k.name, val)
		if ok && !x.sameSpecState(x.spec.Init(), next) { // a fresh initial state: Step may have changed the one it was given
			return false, errStateful
		}
		x.opMemo[k] = ok
	}
	return ok, nil
}

// sameSpecState compares two states of the specification: by its Equal
// when it has one, otherwise deeply.
func (x *states) sameSpecState(a, b interface{}) bool {
	if x.spec.Equal != nil {
		return x.spec.Equal(a, b)
	}
	return reflect.DeepEqual(a, b)
}

// linearize checks a history of marks against the specification; it
// returns why it does not linearize, or "".
func (x *states) linearize(h []mark) string {
	var key []byte
	for _, m := range h {
		key = binary.AppendVarint(key, int64(m.t))
		key = binary.AppendVarint(key, int64(m.instr))
		key = binary.AppendVarint(key, m.val)
		key = binary.AppendVarint(key, int64(b2i(m.ret)))
	}
	if msg, ok := x.linMemo[string(key)]; ok {
		return msg
	}
	var ops []porcupine.Operation
	open := map[int32]int{}
	for i, m := range h {
		if !m.ret {
			open[m.t] = i
			continue
		}
		c, ok := open[m.t]
		if !ok {
			continue
		}
		delete(open, m.t)
		name := x.p.Threads[m.t].Code[m.instr].Msg
		ops = append(ops, porcupine.Operation{ClientId: int(m.t), Input: name, Call: int64(c), Output: m.val, Return: int64(i)})
	}
	msg := ""
	if ok, why := checkHistory(x.p, ops, *x.spec); !ok {
		msg = why
	}
	x.linMemo[string(key)] = msg
	return msg
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// key returns the canonical form of s: interchangeable threads sorted by
// local state, clock values by rank. The slice is reused by the next call.
func (x *states) key(s *sstate) []byte {
	perm := x.order(s)
	b := x.buf[:0]
	for _, t := range perm {
		b = x.appendLocal(b, t, s.th[t])
	}
	for _, ms := range s.msgs {
		b = binary.AppendUvarint(b, uint64(len(ms)))
		for _, m := range ms {
			b = binary.AppendVarint(b, m.val)
			b = append(b, byte(b2i(m.att)))
			b = appendVector(b, m.view, nil)
			if s.clk != nil {
				b = appendVector(b, m.vc, perm)
			}
		}
	}
	for _, t := range perm {
		if v := s.views; v != nil && v[t] != nil {
			b = appendVector(b, v[t].cur, nil)
			b = appendVector(b, v[t].acq, nil)
			b = appendVector(b, v[t].fence, nil)
			for _, r := range v[t].rel {
				b = appendVector(b, r, nil)
			}
		} else {
			b = append(b, 0)
		}
	}
	for _, t := range perm {
		if s.bufs == nil {
			break
		}
		b = appendBuffer(b, s.bufs[t])
		for _, p := range s.bufs[t] {
			if s.clk != nil {
				b = appendVector(b, p.m.vc, perm)
			}
		}
	}
	if s.clk != nil {
		b = x.appendClocks(b, s.clk, s.locks, perm)
	}
	if x.spec != nil {
		b = appendHistory(b, s.hist, perm)
	}
	x.buf = b
	return b
}

// appendVector encodes a vector (nil: none), its entries in the order
// perm when given.
func appendVector(b []byte, v []uint32, perm []int) []byte {
	if v == nil {
		return append(b, 0)
	}
	return appendSparse(append(b, 1), v, perm)
}

// appendSparse encodes a vector, its entries in the order perm (or their
// own): most clock and view entries are zero, so a vector of up to 63
// entries is the set of its non-zero entries, then their values.
func appendSparse(b []byte, v []uint32, perm []int) []byte {
	at := func(i int) uint32 {
		if perm == nil {
			return v[i]
		}
		return v[perm[i]]
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

// appendLocal encodes what thread t's future depends on: where it is,
// whether its operation's call is still to be placed, and its live
// registers.
func (x *states) appendLocal(b []byte, t int, th *sthread) []byte {
	b = append(b, byte(th.st.Status), byte(b2i(th.call != nil)))
	b = binary.AppendUvarint(b, uint64(th.st.PC))
	live := x.live[t][len(x.live[t])-1] // a stopped thread's: those read at the end
	if th.st.Status == model.Running {
		live = x.live[t][th.st.PC]
	}
	for r, v := range th.st.Regs {
		if live.Has(r) {
			b = binary.AppendVarint(b, v)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

// order returns the canonical order of s's threads: position i holds
// thread perm[i]; the members of a group of interchangeable threads are
// sorted by local state, then by what their clocks and their marks in
// the history say (see appendSignature).
func (x *states) order(s *sstate) []int {
	perm := make([]int, len(s.th))
	for i := range perm {
		perm[i] = i
	}
	// A mark's run: its place among the maximal runs of calls and of
	// returns, which do not depend on the order within a run.
	runs := make([]int, len(s.hist))
	for i := 1; i < len(s.hist); i++ {
		runs[i] = runs[i-1] + b2i(s.hist[i].ret != s.hist[i-1].ret)
	}
	for _, g := range x.groups {
		for _, t := range g {
			x.keys[t] = x.appendLocal(x.keys[t][:0], t, s.th[t])
			if s.bufs != nil {
				x.keys[t] = appendBuffer(x.keys[t], s.bufs[t])
			}
			if s.clk != nil {
				x.keys[t] = x.appendSignature(x.keys[t], s.clk, t)
			}
			for i, m := range s.hist {
				if int(m.t) == t {
					x.keys[t] = binary.AppendUvarint(x.keys[t], uint64(runs[i]))
				}
			}
		}
		sorted := slices.Clone(g)
		slices.SortStableFunc(sorted, func(a, b int) int { return bytes.Compare(x.keys[a], x.keys[b]) })
		for i, t := range g {
			perm[t] = sorted[i]
		}
	}
	return perm
}

// appendSignature encodes what thread t's clocks say that does not
// depend on the other threads' names: its own records and release views
// by location, and the sorted values it knows of others and others know
// of it. Sorting interchangeable threads by it as well as by local state
// merges more of the states that differ only by their names.
func (x *states) appendSignature(b []byte, clk []uint32, t int) []byte {
	k := x.lay
	n := k.n
	for l := range k.nl {
		for kind := range recKinds {
			b = binary.AppendUvarint(b, uint64(clk[k.acc(model.Loc(l), kind)*n+t]))
		}
	}
	row := x.scratch[:0]
	for u := range n {
		if u != t {
			row = append(row, clk[k.c(t)*n+u], clk[k.c(u)*n+t]<<16)
		}
	}
	slices.Sort(row)
	for _, v := range row {
		b = binary.AppendUvarint(b, uint64(v))
	}
	x.scratch = row
	return b
}

// appendClocks encodes the clocks of a state (normalized: see
// normalize), threads in the order perm.
func (x *states) appendClocks(b []byte, clk []uint32, locks []uint64, perm []int) []byte {
	k := x.lay
	n := k.n
	vec := func(v int) { b = appendSparse(b, clk[v*n:(v+1)*n], perm) }
	for _, t := range perm {
		vec(k.c(t))
		vec(k.f(t))
		vec(k.a(t))
		for l := range k.nl {
			vec(k.rel(t, model.Loc(l)))
		}
	}
	for l := range k.nl {
		for a := range recKinds {
			vec(k.acc(model.Loc(l), a))
		}
	}
	for l := range k.nl {
		for a := range recKinds {
			for _, u := range perm {
				if clk[k.acc(model.Loc(l), a)*n+u] != 0 {
					b = binary.AppendUvarint(b, locks[k.record(model.Loc(l), a, u)])
				}
			}
		}
	}
	return b
}

// appendHistory encodes a history of marks, threads renamed by perm; the
// order of consecutive calls (or returns) does not matter to
// linearizability, so each such run is sorted.
func appendHistory(b []byte, h []mark, perm []int) []byte {
	pos := make([]int32, len(perm))
	for i, t := range perm {
		pos[t] = int32(i)
	}
	hs := make([]mark, len(h))
	for i, m := range h {
		m.t = pos[m.t]
		hs[i] = m
	}
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j].ret == hs[i].ret {
			j++
		}
		slices.SortFunc(hs[i:j], func(a, b mark) int { return int(a.t - b.t) })
		i = j
	}
	for _, m := range hs {
		b = binary.AppendUvarint(b, uint64(m.t)<<1|uint64(b2i(m.ret)))
		b = binary.AppendUvarint(b, uint64(m.instr))
		b = binary.AppendVarint(b, m.val)
	}
	return b
}

// clocks lays out the vector clocks of a state in one slice of vectors,
// each with an entry per thread: per thread its happens-before view (c),
// its view at its last release fence (f), the views its relaxed reads
// brought for a later acquire fence (a) and, per location, its view at its
// last release write there (rel); per location and thread, the clock
// values of that thread's last write, plain write, read and plain read
// there (acc). What a write releases travels in its message (msg.vc).
type clocks struct{ n, nl int }

func (k clocks) c(t int) int                   { return t }
func (k clocks) f(t int) int                   { return k.n + t }
func (k clocks) a(t int) int                   { return 2*k.n + t }
func (k clocks) rel(t int, l model.Loc) int    { return 3*k.n + t*k.nl + int(l) }
func (k clocks) acc(l model.Loc, kind int) int { return 3*k.n + k.n*k.nl + recKinds*int(l) + kind }

// record indexes the mutexes held at thread t's last access of kind to l.
func (k clocks) record(l model.Loc, kind, t int) int { return (recKinds*int(l)+kind)*k.n + t }

func (k clocks) vectors() int { return 3*k.n + k.n*k.nl + recKinds*k.nl }
func (k clocks) size() int    { return k.vectors() * k.n }

func (k clocks) vec(clk []uint32, v int) []uint32 { return clk[v*k.n : (v+1)*k.n] }

func join(dst, src []uint32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

// tick starts a new event of thread t.
func (k clocks) tick(clk []uint32, t int) { k.vec(clk, k.c(t))[t]++ }

// acquire applies a read by t with ordering o of a message that
// released vc: an atomic read (consume excepted) synchronises with the
// release the write heads, at once when it is an acquire, else at t's next
// acquire fence.
func (k clocks) acquire(clk []uint32, t int, vc []uint32, o model.Ordering) {
	if !o.Atomic() || o == model.Con || vc == nil {
		return
	}
	join(k.vec(clk, k.a(t)), vc)
	if o.IsAcquire() {
		join(k.vec(clk, k.c(t)), vc)
	}
}

// release returns the clocks a write by t to l with ordering o releases:
// t's at its last release fence, at its release writes to l before it
// and, for a release write, now; a read-modify-write also passes on what
// the message it read released (release sequences). A plain write
// releases nothing (nil).
func (k clocks) release(clk []uint32, t int, l model.Loc, o model.Ordering, read *msg) []uint32 {
	if !o.Atomic() {
		return nil
	}
	rel := k.vec(clk, k.rel(t, l))
	if o.IsRelease() {
		copy(rel, k.vec(clk, k.c(t)))
	}
	m := clone32(k.vec(clk, k.f(t)))
	join(m, rel)
	if read != nil && read.vc != nil {
		join(m, read.vc)
	}
	return m
}

// fence applies a fence of t with ordering o.
func (k clocks) fence(clk []uint32, t int, o model.Ordering) {
	c := k.vec(clk, k.c(t))
	if o.IsAcquire() {
		join(c, k.vec(clk, k.a(t)))
	}
	if o.IsRelease() {
		copy(k.vec(clk, k.f(t)), c)
	}
}

// access checks an access by t to l against the other threads' last
// accesses there, reporting a data race (two accesses, one a write and one
// plain, unordered by happens-before), and records it.
func (k clocks) access(clk []uint32, locks []uint64, t int, l model.Loc, write bool, o model.Ordering, held uint64) bool {
	c := k.vec(clk, k.c(t))
	plain := !o.Atomic()
	var against [2]int // the kinds of record the access conflicts with
	switch {
	case plain && write:
		against = [2]int{recWrite, recRead}
	case plain:
		against = [2]int{recWrite, recWrite}
	case write:
		against = [2]int{recPlainWrite, recPlainRead}
	default:
		against = [2]int{recPlainWrite, recPlainWrite}
	}
	raced := false
	for _, kind := range against {
		for u, e := range k.vec(clk, k.acc(l, kind)) {
			if u != t && e > c[u] {
				raced = true
			}
		}
	}
	note := func(kind int) {
		k.vec(clk, k.acc(l, kind))[t] = c[t]
		locks[k.record(l, kind, t)] = held
	}
	if write {
		note(recWrite)
		if plain {
			note(recPlainWrite)
		}
	} else {
		note(recRead)
		if plain {
			note(recPlainRead)
		}
	}
	return raced
}

// future returns what thread t of s may still do.
func (x *states) future(s *sstate, t int) future { return futureIn(x.futs, s, t) }

// futureIn returns thread t's future in s from the table futs.
func futureIn(futs [][]future, s *sstate, t int) future {
	switch st := s.th[t].st; {
	case futs == nil:
		return future{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), true}
	case st.Status == model.Running:
		return futs[t][st.PC]
	case st.Status == model.Unborn:
		return futs[t][0]
	}
	return future{}
}

// mayConflict reports whether thread t (whose future is fut[t]) may still
// make an access that conflicts with a record of kind at location l made
// holding the regular mutexes held. An access made holding one of them
// cannot race with it: the mutex's unlocks and locks order the two by
// happens-before.
func (x *states) mayConflict(s *sstate, fut []future, t, l, kind int, held uint64) bool {
	if !fut[t].conflicts(l, kind) {
		return false
	}
	for held != 0 {
		m := bits.TrailingZeros64(held)
		held &^= 1 << uint(m)
		if f := futureIn(x.guarded[m], s, t); !f.conflicts(l, kind) {
			return false
		}
	}
	return true
}

// record is an access record normalize keeps: its location, kind, clock
// value and the regular mutexes held at the access.
type record struct {
	l, kind int
	e       uint32
	held    uint64
}

// normalize keeps of s's clocks only what the threads' futures can
// observe (an over-approximation: futures). Views no future step reads
// are cleared: a thread's release views when it writes no more (there),
// its pending acquires when it has no acquire fence ahead, a location's
// released view when nobody reads it atomically again. A record of thread
// u's access is dropped when every live thread that may still make a
// conflicting access knows it. Then every value in u's column is lowered
// to the greatest record at or below it, and numbered by that record's
// rank: comparisons with records, joins, and u's later clock values
// (greater than all) give the same answers, and equal states get equal
// clocks.
func (x *states) normalize(s *sstate) {
	k, clk := x.lay, s.clk
	n := k.n
	fut := x.fut[:0]
	var reads uint64
	for t, th := range s.th {
		f := x.future(s, t)
		fut = append(fut, f)
		reads |= f.atomR
		if th.st.Status != model.Running {
			continue
		}
		for l := range k.nl {
			if f.atomW>>uint(l)&1 == 0 {
				clear(k.vec(clk, k.rel(t, model.Loc(l))))
			}
		}
		if f.atomW == 0 {
			clear(k.vec(clk, k.f(t)))
		}
		if !f.acqFence {
			clear(k.vec(clk, k.a(t)))
		}
	}
	x.fut = fut
	if len(x.recs) < n {
		x.recs = make([][]uint32, n)
	}
	for u := range n {
		recs := x.recs[u][:0]
		kept := x.kept[:0]
		for l := range k.nl {
			for kind := range recKinds {
				i := k.acc(model.Loc(l), kind)*n + u
				e := clk[i]
				if e == 0 {
					continue
				}
				keep := false
				held := s.locks[k.record(model.Loc(l), kind, u)]
				for t := range n {
					if t != u && x.mayConflict(s, fut, t, l, kind, held) &&
						(s.th[t].st.Status == model.Unborn || clk[k.c(t)*n+u] < e) {
						keep = true
						break
					}
				}
				if keep {
					recs = append(recs, e)
					kept = append(kept, record{l: l, kind: kind, e: e, held: held})
				} else {
					clk[i] = 0
					s.locks[k.record(model.Loc(l), kind, u)] = 0
				}
			}
		}
		x.kept = kept
		// A thread that passes on no more views needs to know only the
		// records it may itself conflict with.
		for t := range n {
			if t == u || s.th[t].st.Status != model.Running || fut[t].atomW != 0 {
				continue
			}
			for _, v := range [2]int{k.c(t), k.a(t)} {
				i := v*n + u
				best := uint32(0)
				for _, r := range kept {
					if r.e <= clk[i] && r.e > best && x.mayConflict(s, fut, t, r.l, r.kind, r.held) {
						best = r.e
					}
				}
				clk[i] = best
			}
		}
		slices.Sort(recs)
		recs = slices.Compact(recs)
		x.recs[u] = recs
		for v := range k.vectors() {
			clk[v*n+u] = rank(recs, clk[v*n+u])
		}
	}
	// The messages' clocks are in the columns too; a message whose
	// clocks change (or are read by nobody) is a new one.
	for l, ms := range s.msgs {
		for i, m := range ms {
			ms[i] = x.rankMsg(m, reads>>uint(l)&1 != 0)
		}
	}
	for t, buf := range s.bufs {
		owned := false
		for i, p := range buf {
			m := x.rankMsg(p.m, reads>>uint(p.l)&1 != 0)
			if m == p.m {
				continue
			}
			if !owned { // the buffer is shared with the state s came from
				buf, owned = slices.Clone(buf), true
				s.bufs[t] = buf
			}
			buf[i].m = m
		}
	}
}

// rankMsg returns m with its clocks numbered by the ranks of the records
// normalize kept, or without clocks when nobody reads it (read false): a
// new message when they change.
func (x *states) rankMsg(m *msg, read bool) *msg {
	if m.vc == nil {
		return m
	}
	if !read {
		c := *m
		c.vc = nil
		return &c
	}
	for u, e := range m.vc {
		if rank(x.recs[u], e) != e {
			c := *m
			c.vc = clone32(m.vc)
			for u, e := range c.vc {
				c.vc[u] = rank(x.recs[u], e)
			}
			return &c
		}
	}
	return m
}

// rank returns the number of records (sorted) at or below clock value e.
func rank(recs []uint32, e uint32) uint32 {
	r := uint32(0)
	for r < uint32(len(recs)) && recs[r] <= e {
		r++
	}
	return r
}

// retire forgets the views of a thread that will not move again.
func (k clocks) retire(clk []uint32, t int) {
	clear(k.vec(clk, k.c(t)))
	clear(k.vec(clk, k.f(t)))
	clear(k.vec(clk, k.a(t)))
	for l := range k.nl {
		clear(k.vec(clk, k.rel(t, model.Loc(l))))
	}
}

// builder records the events of a path as an execution graph, for
// witnesses; a nil builder records nothing.
type builder struct {
	g    *model.Graph
	co   [][]model.EventRef // per location: its writes in modification order, the initial one first
	pend [][]model.EventRef // per thread, under tso: the writes in its store buffer, oldest first
}

func newBuilder(p *model.Program) *builder {
	b := &builder{g: model.NewGraph(p), co: make([][]model.EventRef, len(p.Locs)), pend: make([][]model.EventRef, len(p.Threads))}
	for l := range b.co {
		b.co[l] = []model.EventRef{model.InitRef(model.Loc(l))}
	}
	return b
}

func (b *builder) add(t int, e model.Event) model.EventRef {
	if b == nil {
		return model.EventRef{}
	}
	b.g.Threads[t] = append(b.g.Threads[t], e)
	return model.EventRef{T: int32(t), I: int32(len(b.g.Threads[t]) - 1)}
}

// write records thread t's write e, at position q in modification order.
func (b *builder) write(t int, e model.Event, q int) {
	if b == nil {
		return
	}
	w := b.add(t, e)
	b.co[e.Loc] = slices.Insert(b.co[e.Loc], q, w)
}

// buffer records thread t's write e, which enters its store buffer.
func (b *builder) buffer(t int, e model.Event) {
	if b == nil {
		return
	}
	b.pend[t] = append(b.pend[t], b.add(t, e))
}

// flush places the oldest write of thread t's store buffer last in the
// modification order of l, its location.
func (b *builder) flush(t int, l model.Loc) {
	if b == nil {
		return
	}
	b.co[l] = append(b.co[l], b.pend[t][0])
	b.pend[t] = b.pend[t][1:]
}

// readBuffered records thread t's read a of v from the write at index i
// of its store buffer.
func (b *builder) readBuffered(t int, a *model.Action, v int64, i int) {
	if b == nil {
		return
	}
	r, _, _ := readEvent(a, b.pend[t][i], v, false)
	b.add(t, r)
}

// read records thread t's read-like action a reading v from the write at
// position p in modification order.
func (b *builder) read(t int, a *model.Action, v int64, spurious bool, p int) {
	if b == nil {
		return
	}
	r, writes, wv := readEvent(a, b.co[a.Loc][p], v, spurious)
	b.add(t, r)
	if writes {
		b.write(t, writeHalf(a, wv), p+1)
	}
}

// graph returns the execution graph recorded.
func (b *builder) graph() *model.Graph {
	for l, co := range b.co {
		b.g.Co[l] = co[1:]
	}
	return b.g
}

// witness replays path from the initial state, completes it to a final
// state (flushing store buffers first, then moving the thread that has
// taken the fewest steps, its first way), and returns the
// execution and its violation of property prop (nil when a bounded
// search's finding does not stand).
func (x *states) witness(prop string, f *finding) (*Witness, error) {
	b := newBuilder(x.p)
	s, _, err := x.initial(b)
	if err != nil {
		return nil, err
	}
	for _, m := range f.path {
		if s, _, err = x.apply(s, int(m.t), m.o, b); err != nil {
			return nil, err
		}
	}
	for {
		t, opts := -1, []option(nil)
		for u := range s.bufs { // stores reach memory first: a thread spinning on one then sees it
			if len(s.bufs[u]) > 0 {
				t, opts = u, []option{{flush: true}}
				break
			}
		}
		if t < 0 { // the thread that has taken the fewest steps: a spinning thread lets the others on
			for u, th := range s.th {
				if th.st.Status == model.Running && th.n < x.opt.MaxEvents && (t < 0 || th.n < s.th[t].n) {
					if o := x.options(s, u, &th.a); len(o) > 0 {
						t, opts = u, o
					}
				}
			}
		}
		if t < 0 {
			break
		}
		if s, _, err = x.apply(s, t, opts[0], b); err != nil {
			return nil, err
		}
	}
	for t, th := range s.th {
		if th.st.Status == model.Running && th.a.Kind == model.ActLock {
			l := th.a.Loc
			b.read(t, &th.a, s.last(l), false, s.base[l]+len(s.msgs[l])-1) // the request that waits
		}
	}
	e, err := NewExecution(b.graph(), x.m, x.races)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("internal error: the witness of %s is not an execution", prop)
	}
	for _, v := range Judge(e, x.spec) {
		if v.Prop == prop {
			return &Witness{Execution: e, Violation: v}, nil
		}
	}
	if prop == PropLinearizability && x.perOp && x.stats.Limit != "" {
		// A bounded search that judged operations one at a time may have
		// stopped before meeting an operation that shows the specification
		// has state; its finding stands only when the whole history
		// confirms it.
		return nil, nil
	}
	if prop == PropLinearizability && f.msg != "" {
		// The execution's presentation order is one of its real-time
		// orders; the state's history had another.
		return &Witness{Execution: e, Violation: Violation{Prop: prop, Msg: f.msg}}, nil
	}
	return nil, fmt.Errorf("internal error: the witness path of %s does not violate it", prop)
}

// explore searches every state from the initial one: with operations
// judged one at a time while the specification allows it, otherwise with
// whole histories.
func (x *states) explore() (Stats, error) {
	err := x.search()
	if errors.Is(err, errStateful) {
		x.perOp = false
		x.clear()
		err = x.search()
	}
	stats, err := x.finish(err)
	stats.States = int64(len(x.seen))
	return stats, err
}

// clear forgets what a search found, for a fresh one.
func (x *states) clear() {
	x.restart()
	x.seen, x.found, x.reached, x.free, x.links = map[string]struct{}{}, map[string]*finding{}, map[string]bool{}, false, nil
}

// checkStates is Check by states.
func checkStates(p *model.Program, m model.Model, rep *Report, index map[string]int, spec *porcupine.Model, opt Options) (bool, error) {
	x := newStates(newRunner(p, m, opt, nil), spec)
	stats, err := x.explore()
	if err != nil {
		return false, err
	}
	rep.Stats = stats
	for name, k := range index {
		pr := &rep.Props[k]
		if x.reached[name] {
			pr.Reached = 1
		}
		f := x.found[name]
		if f == nil {
			continue
		}
		w, err := x.witness(name, f)
		if err != nil {
			return false, err
		}
		if w == nil {
			continue
		}
		pr.Violations = f.count
		pr.Witness, pr.Message = w, w.Violation.Msg
	}
	return !x.free, nil
}
