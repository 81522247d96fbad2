// Package checker explores the executions of a program under a memory model
// and checks properties of them: final-state conditions, assertion
// failures, data races and deadlocks.
package checker

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
)

// Options bound an exploration. Zero values mean no bound.
type Options struct {
	// MaxExecutions stops after this many complete executions.
	MaxExecutions int64
	// MaxEvents bounds the events of one thread (a guard for unbounded loops).
	MaxEvents int
	// MaxGraphs stops after visiting this many partial graphs.
	MaxGraphs int64
	// MaxMemory stops when the heap grows beyond this many bytes.
	MaxMemory uint64
	// PreemptionBound, when positive or zero with Preemptions set, explores
	// only the schedules that switch away from a runnable thread at most
	// this many times (CHESS's context bounding); the result is then
	// "bounded(K)" unless no schedule was cut.
	PreemptionBound int
	Preemptions     bool
	// Timeout stops the exploration after this long.
	Timeout time.Duration
	// Races asks for data-race detection in every execution.
	Races bool
	// Context, when set, cancels the exploration.
	Context context.Context
	// Progress, when set, is called about once a second with the
	// statistics so far.
	Progress func(Stats)
	// Workers explores on this many goroutines; 0 or 1 explores
	// sequentially. Parallel exploration visits the same executions (or
	// states) in another order and calls visit from several goroutines at
	// once; Check's verdicts, counts and witnesses do not depend on it.
	Workers int
	// Engine chooses how Check explores: EngineDPOR visits each
	// consistent execution graph once, EngineStates each reachable state
	// (for models with an operational form), EngineAuto (or "") the latter
	// when it applies.
	Engine string
	// Spec is the sequential specification the linearizability property
	// checks operation histories against.
	Spec *porcupine.Model

	// wholeHistories keeps the state explorer from judging operations
	// one at a time (tests compare the two).
	wholeHistories bool
}

// DefaultMaxEvents is the per-thread event bound used when Options.MaxEvents is 0.
const DefaultMaxEvents = 4096

// Execution is one complete, consistent execution.
type Execution struct {
	Graph *model.Graph
	Final model.FinalState
	// States holds each thread's final local state.
	States []model.ThreadState
	// Races lists the racing pairs, when Options.Races is set.
	Races [][2]model.EventRef
	// Blocked lists the threads that never finish: blocked on a held lock
	// (a deadlock) or on a false assume.
	Blocked []int
}

// Failed lists the threads whose assertion failed.
func (e *Execution) Failed() []int {
	var out []int
	for t, s := range e.States {
		if s.Status == model.Failed {
			out = append(out, t)
		}
	}
	return out
}

// Stats counts what an exploration did.
type Stats struct {
	Executions int64 // complete, consistent executions
	Blocked    int64 // of which some thread never finishes
	Graphs     int64 // partial graphs (or states) visited
	// States counts the distinct states of a state-merging exploration
	// (Engine states); Executions then counts its final states.
	States  int64
	Elapsed time.Duration
	// Limit is empty when the exploration was exhaustive; otherwise it names
	// the bound that cut it short ("max-executions", "max-events",
	// "timeout", "interrupted"), and nothing was verified.
	Limit string
}

// Count returns the size of the explored space and its unit: states for
// a state-merging exploration, else executions.
func (s Stats) Count() (int64, string) {
	if s.States > 0 {
		return s.States, "states"
	}
	return s.Executions, "executions"
}

// Exhaustive reports whether every execution was explored.
func (s Stats) Exhaustive() bool { return s.Limit == "" }

var errStop = errors.New("stop")

// Explore visits every consistent complete execution of p under m exactly
// once, calling visit for each. It uses optimal dynamic partial-order
// reduction (see dpor.go): its cost grows with the number of executions,
// not with the number of interleavings.
func Explore(p *model.Program, m model.Model, opt Options, visit func(*Execution)) (Stats, error) {
	if opt.Preemptions {
		// Preemptions are a property of schedules: bound them over
		// interleavings.
		return ExploreReference(p, m, opt, visit)
	}
	r := newRunner(p, m, opt, visit)
	d := &dpor{runner: r}
	return r.finish(r.run(func() error { return d.visit(d.initial(), true) }))
}

// ExploreReference visits the same executions as Explore by the simplest
// method: it adds events in every order, branching on every choice, and
// remembers every partial graph it has seen. It serves as the reference
// that the optimised explorer is tested against.
func ExploreReference(p *model.Program, m model.Model, opt Options, visit func(*Execution)) (Stats, error) {
	r := newRunner(p, m, opt, visit)
	return r.finish(newReference(r).search(model.NewGraph(p), -1, 0))
}

// action returns thread t's next action in g; a thread not yet spawned has none.
func (x *runner) action(g *model.Graph, t int) (model.Action, error) {
	if x.p.Threads[t].Spawned {
		if _, ok := g.Spawner(t); !ok {
			return model.Action{}, nil
		}
	}
	_, a, err := x.p.Replay(t, g.Threads[t])
	return a, err
}

// runner holds what both explorers share: limits, statistics, the
// reporting of complete executions and the workers of a parallel
// exploration.
type runner struct {
	p        *model.Program
	m        model.Model
	opt      Options
	visit    func(*Execution)
	start    time.Time
	deadline time.Time

	mu           sync.Mutex // guards stats, lastProgress and err
	stats        Stats
	lastProgress time.Time
	err          error       // the first error of a parallel exploration
	halt         atomic.Bool // set when the exploration must stop
	tasks        chan func() error
	pending      sync.WaitGroup
}

func newRunner(p *model.Program, m model.Model, opt Options, visit func(*Execution)) *runner {
	r := &runner{p: p, m: m, opt: opt, visit: visit, start: time.Now()}
	if r.opt.MaxEvents == 0 {
		r.opt.MaxEvents = DefaultMaxEvents
	}
	if opt.Timeout > 0 {
		r.deadline = r.start.Add(opt.Timeout)
	}
	return r
}

func (x *runner) finish(err error) (Stats, error) {
	x.stats.Elapsed = time.Since(x.start)
	if errors.Is(err, errStop) {
		err = nil
	}
	return x.stats, err
}

// run runs the exploration root, on Options.Workers goroutines when there
// are several: a subtree handed to fork then runs on an idle worker.
func (x *runner) run(root func() error) error {
	if x.opt.Workers <= 1 {
		return root()
	}
	x.tasks = make(chan func() error)
	for range x.opt.Workers {
		go func() {
			for f := range x.tasks {
				if err := f(); err != nil {
					x.fail(err)
				}
				x.pending.Done()
			}
		}()
	}
	x.pending.Add(1)
	x.tasks <- root
	x.pending.Wait()
	close(x.tasks)
	return x.err
}

// restart forgets the counts and the stop of an exploration, to run
// another in the same time.
func (x *runner) restart() {
	x.stats = Stats{}
	x.err = nil
	x.halt.Store(false)
}

// fork explores a subtree: on an idle worker when there is one (its error
// then stops the whole exploration), otherwise here and now.
func (x *runner) fork(f func() error) error {
	if x.tasks == nil {
		return f()
	}
	x.pending.Add(1)
	select {
	case x.tasks <- f:
		return nil
	default:
		x.pending.Done()
		return f()
	}
}

// fail records the first error of a worker and stops the others.
func (x *runner) fail(err error) {
	x.mu.Lock()
	if x.err == nil && !errors.Is(err, errStop) {
		x.err = err
	}
	x.mu.Unlock()
	x.halt.Store(true)
}

// setLimit records that a bound cut the exploration short.
func (x *runner) setLimit(limit string) {
	x.mu.Lock()
	x.stats.Limit = limit
	x.mu.Unlock()
}

// stop ends the exploration at a bound; x.mu is held.
func (x *runner) stop(limit string) error {
	if x.stats.Limit == "" {
		x.stats.Limit = limit
	}
	x.halt.Store(true)
	return errStop
}

// step counts a visited graph and checks the limits.
func (x *runner) step() error {
	if x.halt.Load() {
		return errStop
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.halt.Load() { // another worker stopped while this one waited: count nothing more
		return errStop
	}
	x.stats.Graphs++
	if x.opt.MaxExecutions > 0 && x.stats.Executions >= x.opt.MaxExecutions {
		return x.stop("max-executions")
	}
	if x.opt.MaxGraphs > 0 && x.stats.Graphs > x.opt.MaxGraphs {
		return x.stop("max-graphs")
	}
	if x.stats.Graphs%256 == 1 {
		if !x.deadline.IsZero() && time.Now().After(x.deadline) {
			return x.stop("timeout")
		}
		if x.opt.Context != nil && x.opt.Context.Err() != nil {
			return x.stop("interrupted")
		}
		if x.opt.Progress != nil && time.Since(x.lastProgress) > time.Second {
			x.lastProgress = time.Now()
			st := x.stats
			st.Elapsed = time.Since(x.start)
			x.opt.Progress(st)
		}
	}
	if x.opt.MaxMemory > 0 && x.stats.Graphs%4096 == 1 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > x.opt.MaxMemory {
			return x.stop("max-memory")
		}
	}
	return nil
}

func (x *runner) consistent(g *model.Graph) bool { return x.m.Check(model.NewExec(g)) == "" }

// newEvent returns the event an action starts with, without its value.
func newEvent(a *model.Action) model.Event {
	return model.Event{Loc: a.Loc, Ord: a.Ord, Instr: int32(a.Instr), Addr: a.Addr, Data: a.Data, Ctrl: a.Ctrl}
}

// readEvent returns the read of action a from write w holding
// v, and whether and what the action then writes.
func readEvent(a *model.Action, w model.EventRef, v int64, spurious bool) (r model.Event, writes bool, wv int64) {
	r = newEvent(a)
	r.Kind, r.Val, r.Rf, r.Spurious = model.KRead, v, w, spurious
	if a.Kind == model.ActRead {
		return r, false, 0
	}
	r.RMW = true
	writes, wv, _ = a.Outcome(v, spurious)
	r.Ord = a.ReadOrd(writes)
	return r, writes, wv
}

// writeHalf returns the write of an RMW-like action storing wv.
func writeHalf(a *model.Action, wv int64) model.Event {
	e := newEvent(a)
	e.Kind, e.Val, e.RMW, e.Ord = model.KWrite, wv, true, a.WriteOrd()
	return e
}

// pendingWrite returns the write half an RMW-like action a of thread t
// still owes after its read (the thread's last event), and its place in
// modification order: right after the write that read read from.
func pendingWrite(g *model.Graph, t int, a *model.Action) (model.Event, int) {
	last := &g.Threads[t][len(g.Threads[t])-1]
	_, wv, _ := a.Outcome(last.Val, last.Spurious)
	return writeHalf(a, wv), g.CoPos(a.Loc, last.Rf) + 1
}

// spuriousChoices lists whether a read of v by a may fail spuriously: a weak
// compare-exchange that reads its expected value may succeed or fail.
func spuriousChoices(a *model.Action, v int64) []bool {
	if a.Kind == model.ActCAS && a.Weak && v == a.Expected {
		return []bool{false, true}
	}
	return []bool{false}
}

// simpleEvent returns the event of a fence, failed assertion or plain store.
func simpleEvent(a *model.Action) model.Event {
	e := newEvent(a)
	switch a.Kind {
	case model.ActFence:
		e.Kind, e.Loc = model.KFence, model.NoLoc
	case model.ActFail:
		e.Kind, e.Loc = model.KError, model.NoLoc
	case model.ActChoose:
		e.Kind, e.Loc = model.KChoice, model.NoLoc
	case model.ActSpawn:
		e.Kind, e.Loc, e.Val = model.KSpawn, model.NoLoc, a.Val
	case model.ActCall:
		e.Kind, e.Loc = model.KCall, model.NoLoc
	case model.ActRet:
		e.Kind, e.Loc, e.Val = model.KRet, model.NoLoc, a.Val
	default:
		e.Kind, e.Val = model.KWrite, a.Val
	}
	return e
}

// complete reports g, whose threads have all stopped, as an execution.
func (x *runner) complete(g *model.Graph) error {
	e, err := NewExecution(g, x.m, x.opt.Races)
	if err != nil || e == nil {
		return err
	}
	x.mu.Lock()
	for _, st := range e.States {
		if st.Status == model.Cut && x.stats.Limit == "" {
			x.stats.Limit = "loop-bound"
		}
	}
	x.stats.Executions++
	if len(e.Blocked) > 0 {
		x.stats.Blocked++
	}
	x.mu.Unlock()
	if x.visit != nil {
		x.visit(e)
	}
	return nil
}

// NewExecution makes an execution of g, a graph whose threads have all
// stopped, finding its data races (judged by m) when races is set. It
// returns nil when g is not an execution: a thread waits for a lock that is
// released later in modification order (it would retry and take it).
func NewExecution(g *model.Graph, m model.Model, races bool) (*Execution, error) {
	p := g.Prog
	e := &Execution{Graph: g, States: make([]model.ThreadState, len(g.Threads))}
	e.Final.Regs = make([][]int64, len(g.Threads))
	for t := range g.Threads {
		st, _, err := p.Replay(t, g.Threads[t])
		if err != nil {
			return nil, err
		}
		if p.Threads[t].Spawned {
			if _, ok := g.Spawner(t); !ok {
				st.Status = model.Unborn
			}
		}
		e.States[t] = st
		e.Final.Regs[t] = st.Regs
		if st.Status == model.Blocked {
			if st.WaitLoc != model.NoLoc {
				last := &g.Threads[t][len(g.Threads[t])-1]
				if last.Rf != g.CoMax(st.WaitLoc) {
					return nil, nil
				}
			}
			e.Blocked = append(e.Blocked, t)
		}
	}
	e.Final.Mem = g.FinalMem()
	if races {
		ex := model.NewExec(g)
		for _, r := range model.DataRaces(ex, model.RaceHB(m, ex)) {
			e.Races = append(e.Races, [2]model.EventRef{ex.Refs[r[0]], ex.Refs[r[1]]})
		}
	}
	return e, nil
}

// String summarises the statistics.
func (s Stats) String() string {
	lim := "exhaustive"
	if s.Limit != "" {
		lim = "bounded by " + s.Limit
	}
	if s.States > 0 {
		return fmt.Sprintf("%d states, %d final (%d blocked), %v, %s", s.States, s.Executions, s.Blocked, s.Elapsed.Round(time.Millisecond), lim)
	}
	return fmt.Sprintf("%d executions (%d blocked), %d graphs, %v, %s", s.Executions, s.Blocked, s.Graphs, s.Elapsed.Round(time.Millisecond), lim)
}
