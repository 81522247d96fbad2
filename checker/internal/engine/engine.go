// Package engine holds what ordercheck's exploration engines share: the
// bounds of an exploration and its statistics, the runner that enforces
// the bounds on one or several workers, complete executions, and the
// outcomes the engines hand to the judge.
package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordercheck/ordercheck/model"
)

// Options bound and steer an exploration. The zero value explores
// exhaustively, sequentially, with the engine that applies.
type Options struct {
	// MaxExecutions stops after this many complete executions (final
	// states, for the state explorer).
	MaxExecutions int64
	// MaxEvents bounds the events of one thread (a guard for unbounded
	// loops); 0 means DefaultMaxEvents.
	MaxEvents int
	// MaxGraphs stops after visiting this many partial graphs (states).
	MaxGraphs int64
	// MaxMemory stops before the memory the process holds reaches this
	// many bytes (at nine tenths of it: set it as the runtime's memory
	// limit too, and the collector keeps the rest free).
	MaxMemory uint64
	// Preemptions, when set, explores only the schedules that switch away
	// from a runnable thread at most PreemptionBound times (CHESS's
	// context bounding); the verdict is then bounded unless no schedule
	// was cut.
	Preemptions     bool
	PreemptionBound int
	// Timeout stops the exploration after this long.
	Timeout time.Duration
	// Context, when set, cancels the exploration: it stops with what it
	// explored, and no verdict. It stays with the process: Options in
	// JSON (a distributed job's) carry the bounds alone.
	Context context.Context `json:"-"`
	// Progress, when set, is called about once a second with the
	// statistics so far.
	Progress func(Stats) `json:"-"`
	// Workers explores on this many goroutines; 0 or 1 explores
	// sequentially, AllCores on every core. Verdicts, counts and
	// witnesses do not depend on it.
	Workers int
	// Engine chooses how a check explores.
	Engine Engine
	// Races asks for the data races of every execution (a check finds
	// them when a property asks for them).
	Races bool
	// Histories asks for the history of operations of every execution (a
	// check records them when it judges linearizability).
	Histories bool
	// WholeHistories keeps the state explorer from judging operations
	// one at a time, which gives the same verdicts (tests compare the two).
	WholeHistories bool
	// Cluster, when set, splits a state search into partitions on worker
	// processes. Verdicts, counts and witnesses do not depend on it. A
	// search bounded by a count (MaxExecutions, MaxGraphs), whose cut
	// depends on the order of the search, stays in this process.
	Cluster Cluster `json:"-"`
	// Subtree, when set, has the graph explorer explore one part of its
	// search tree (a distributed search's job); the exploration is then
	// sequential.
	Subtree *Subtree `json:"-"`
}

// Engine is a way of exploring a program.
type Engine uint8

// The engines.
const (
	// EngineAuto explores by states when the model and program allow it,
	// else by graphs.
	EngineAuto Engine = iota
	// EngineDPOR visits each consistent execution graph once.
	EngineDPOR
	// EngineStates visits each reachable state of the model's machine
	// once.
	EngineStates
)

var engineNames = [...]string{"auto", "dpor", "states"}

func (e Engine) String() string { return engineNames[e] }

// ParseEngine reads an engine's name: auto, dpor or states.
func ParseEngine(s string) (Engine, error) {
	for i, n := range engineNames {
		if n == s {
			return Engine(i), nil
		}
	}
	return 0, fmt.Errorf("unknown engine %q (known: auto, dpor, states)", s)
}

// DefaultMaxEvents is the per-thread event bound used when Options.MaxEvents is 0.
const DefaultMaxEvents = 4096

// Limit names the bound that cut an exploration short.
type Limit uint8

// The bounds; None when the exploration was exhaustive.
const (
	None            Limit = iota
	MaxExecutions         // Options.MaxExecutions
	MaxGraphs             // Options.MaxGraphs
	MaxEvents             // Options.MaxEvents (a thread was cut)
	MaxMemory             // Options.MaxMemory
	Timeout               // Options.Timeout
	Interrupted           // Options.Context was cancelled
	LoopBound             // a loop of the program reached its bound
	PreemptionBound       // Options.PreemptionBound
	MaxValues             // speculation met more values for a location than it guesses
)

var limitNames = [...]string{"", "max-executions", "max-graphs", "max-events", "max-memory", "timeout", "interrupted", "loop-bound", "preemption-bound", "max-values"}

func (l Limit) String() string { return limitNames[l] }

// Stats counts what an exploration did.
type Stats struct {
	Executions int64 // complete, consistent executions (final states, for the state explorer)
	Blocked    int64 // of which some thread never finishes
	Graphs     int64 // partial graphs (or states) visited
	// States counts the distinct states of a state-merging exploration.
	States  int64
	Elapsed time.Duration
	// Limit is None when the exploration was exhaustive; otherwise it
	// names the bound that cut it short, and nothing was verified.
	Limit Limit
	// PreemptionBound is the bound when Limit is PreemptionBound.
	PreemptionBound int
	// Loops are the loops whose bound cut some execution (a while loop
	// that ran its rounds with its condition still true), when Limit is
	// LoopBound.
	Loops []model.Pos
}

// Exhaustive reports whether every execution was explored.
func (s Stats) Exhaustive() bool { return s.Limit == None }

// Count returns the size of the explored space and its unit: states for
// a state-merging exploration, else executions.
func (s Stats) Count() (int64, string) {
	if s.States > 0 {
		return s.States, "states"
	}
	return s.Executions, "executions"
}

// LimitText names the bound, with its value for a preemption bound and
// the loops a loop bound cut.
func (s Stats) LimitText() string {
	switch s.Limit {
	case PreemptionBound:
		return fmt.Sprintf("preemption-bound(%d)", s.PreemptionBound)
	case LoopBound:
		var at []string
		for _, p := range s.Loops {
			at = append(at, p.String())
		}
		if len(at) > 0 {
			return "loop-bound of the loop at " + strings.Join(at, ", ")
		}
	}
	return s.Limit.String()
}

// String summarises the statistics.
func (s Stats) String() string {
	lim := "exhaustive"
	if s.Limit != None {
		lim = "bounded by " + s.LimitText()
	}
	if s.States > 0 {
		return fmt.Sprintf("%d states, %d final (%d blocked), %v, %s", s.States, s.Executions, s.Blocked, s.Elapsed.Round(time.Millisecond), lim)
	}
	return fmt.Sprintf("%d executions (%d blocked), %d graphs, %v, %s", s.Executions, s.Blocked, s.Graphs, s.Elapsed.Round(time.Millisecond), lim)
}

// ErrStop stops an exploration at a bound; Finish turns it into a result.
var ErrStop = errors.New("stop")

// Runner holds what every engine needs: the program and model, options,
// statistics, the reporting of complete executions and the workers of a
// parallel exploration.
type Runner struct {
	Prog    *model.Program
	Model   *model.Model
	Options Options
	// States says the runner counts states (the state explorer's), not
	// graphs: Options.Progress then reports them as States.
	States bool
	visit  func(*Execution)

	start    time.Time
	deadline time.Time

	mu           sync.Mutex // guards stats, lastProgress and err
	stats        Stats
	graphs       atomic.Int64 // graphs counted by Step, beside stats.Graphs
	lastProgress time.Time
	err          error       // the first error of a parallel exploration
	halt         atomic.Bool // set when the exploration must stop
	tasks        chan func() error
	pending      sync.WaitGroup
	idle         atomic.Int32 // workers waiting for a task
}

// NewRunner returns a runner of p under m; visit, when not nil, sees every
// complete execution (from several goroutines when there are workers).
func NewRunner(p *model.Program, m *model.Model, opt Options, visit func(*Execution)) *Runner {
	r := &Runner{Prog: p, Model: m, Options: opt, visit: visit, start: time.Now()}
	if opt.MaxMemory > 0 && model.ProcessMemory() > opt.MaxMemory/2 {
		model.ReleaseMemory() // what an earlier exploration dropped is not this one's
	}
	if r.Options.MaxEvents == 0 {
		r.Options.MaxEvents = DefaultMaxEvents
	}
	if opt.Timeout > 0 {
		r.deadline = r.start.Add(opt.Timeout)
	}
	return r
}

// Finish returns the statistics, and the error unless it is ErrStop.
func (x *Runner) Finish(err error) (Stats, error) {
	x.stats.Graphs += x.graphs.Swap(0)
	x.stats.Elapsed = time.Since(x.start)
	if errors.Is(err, ErrStop) {
		err = nil
	}
	return x.stats, err
}

// Run runs the exploration root, on Options.Workers goroutines when there
// are several: a subtree handed to Fork then runs on an idle worker.
func (x *Runner) Run(root func() error) error {
	if x.Workers() == 1 {
		return root()
	}
	x.tasks = make(chan func() error)
	for range x.Workers() {
		go func() {
			for {
				x.idle.Add(1)
				f, ok := <-x.tasks
				x.idle.Add(-1)
				if !ok {
					return
				}
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

// AllCores, as Options.Workers, explores on every core; the graph
// explorer leaves one to Go's collector (docs/performance.md).
const AllCores = -1

// Workers returns how many workers explore: Options.Workers, or one when
// a count bounds the exploration — where the count runs out depends on the
// order of the search, which one worker keeps the same from run to run.
func (x *Runner) Workers() int {
	if x.Options.MaxExecutions > 0 || x.Options.MaxGraphs > 0 || x.Options.Subtree != nil {
		return 1
	}
	if x.Options.Workers == AllCores {
		return runtime.NumCPU()
	}
	return max(x.Options.Workers, 1)
}

// Idle reports whether a worker waits for work: a subtree handed to Fork
// now would likely run there. An explorer that asks first spares the
// closure of every subtree it would explore itself anyway.
func (x *Runner) Idle() bool { return x.tasks != nil && x.idle.Load() > 0 }

// Restart forgets the counts and the stop of an exploration, to run
// another in the same time.
func (x *Runner) Restart() {
	x.stats = Stats{}
	x.graphs.Store(0)
	x.err = nil
	x.halt.Store(false)
}

// Fork explores a subtree: on an idle worker when there is one (its error
// then stops the whole exploration), otherwise here and now.
func (x *Runner) Fork(f func() error) error {
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
func (x *Runner) fail(err error) {
	x.mu.Lock()
	if x.err == nil && !errors.Is(err, ErrStop) {
		x.err = err
	}
	x.mu.Unlock()
	x.halt.Store(true)
}

// Bounds is a context that the runner's timeout and Options.Context end,
// for waits outside the runner (a cluster's partitions): Limit says which
// of the two ended it.
func (x *Runner) Bounds() (context.Context, context.CancelFunc) {
	ctx := x.Options.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if x.deadline.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, x.deadline)
}

// Limit is the bound that ended ctx, one Bounds returned: Interrupted,
// Timeout, or None while it runs.
func (x *Runner) Limit(ctx context.Context) Limit {
	switch {
	case x.Options.Context != nil && x.Options.Context.Err() != nil:
		return Interrupted
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return Timeout
	}
	return None
}

// SetLimit records that a bound cut the exploration short.
func (x *Runner) SetLimit(l Limit) {
	x.mu.Lock()
	x.stats.Limit = l
	if l == PreemptionBound {
		x.stats.PreemptionBound = x.Options.PreemptionBound
	}
	x.mu.Unlock()
}

// CutLoop records that the loop (bound instruction) at pc of thread t cut
// an execution: the exploration is bounded by it.
func (x *Runner) CutLoop(t, pc int) {
	x.mu.Lock()
	x.cutLoop(t, pc)
	x.mu.Unlock()
}

// cutLoop is CutLoop with x.mu held.
func (x *Runner) cutLoop(t, pc int) {
	if x.stats.Limit == None {
		x.stats.Limit = LoopBound
	}
	pos := x.Prog.Threads[t].Code[pc].Pos
	if !slices.Contains(x.stats.Loops, pos) {
		x.stats.Loops = append(x.stats.Loops, pos)
		slices.SortFunc(x.stats.Loops, func(a, b model.Pos) int { return strings.Compare(a.String(), b.String()) })
	}
}

// stop ends the exploration at a bound; x.mu is held.
func (x *Runner) stop(l Limit) error {
	if x.stats.Limit == None {
		x.stats.Limit = l
	}
	x.halt.Store(true)
	return ErrStop
}

// Step counts a visited graph (or state) and checks the limits.
func (x *Runner) Step() error {
	if x.halt.Load() {
		return ErrStop
	}
	// Workers count without the lock; bounds by a count have one worker.
	n := x.graphs.Add(1)
	if x.Options.MaxExecutions == 0 && x.Options.MaxGraphs == 0 && n%256 != 1 {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.halt.Load() { // another worker stopped while this one waited
		return ErrStop
	}
	graphs := x.stats.Graphs + n
	if x.Options.MaxExecutions > 0 && x.stats.Executions >= x.Options.MaxExecutions {
		return x.stop(MaxExecutions)
	}
	if x.Options.MaxGraphs > 0 && graphs > x.Options.MaxGraphs {
		return x.stop(MaxGraphs)
	}
	if n%256 == 1 {
		if !x.deadline.IsZero() && time.Now().After(x.deadline) {
			return x.stop(Timeout)
		}
		if x.Options.Context != nil && x.Options.Context.Err() != nil {
			return x.stop(Interrupted)
		}
		if x.Options.Progress != nil && time.Since(x.lastProgress) > time.Second {
			x.lastProgress = time.Now()
			st := x.stats
			st.Graphs = graphs
			if x.States {
				st.States = graphs
			}
			st.Elapsed = time.Since(x.start)
			x.Options.Progress(st)
		}
	}
	if x.Options.MaxMemory > 0 && n%1024 == 1 && model.OverMemory(x.Options.MaxMemory) {
		return x.stop(MaxMemory)
	}
	return nil
}

// Stats returns the statistics so far.
func (x *Runner) Stats() Stats {
	x.mu.Lock()
	defer x.mu.Unlock()
	st := x.stats
	st.Graphs += x.graphs.Load()
	st.Loops = slices.Clone(st.Loops)
	st.Elapsed = time.Since(x.start)
	return st
}

// Absorb adds the counts of a part of the exploration that ran elsewhere
// (a partition's level) and the bound that cut it, as SetLimit and the
// bounds of Step would have.
func (x *Runner) Absorb(st Stats) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.stats.Add(st)
}

// Add adds the counts of o, a part of the same exploration, to s, and the
// bound that cut it, as SetLimit and the bounds of Step would have.
func (s *Stats) Add(o Stats) {
	s.Executions += o.Executions
	s.Blocked += o.Blocked
	s.Graphs += o.Graphs
	s.States += o.States
	if o.Limit == MaxEvents || o.Limit != None && s.Limit == None {
		s.Limit, s.PreemptionBound = o.Limit, o.PreemptionBound
	}
	for _, p := range o.Loops {
		if !slices.Contains(s.Loops, p) {
			s.Loops = append(s.Loops, p)
		}
	}
	slices.SortFunc(s.Loops, func(a, b model.Pos) int { return strings.Compare(a.String(), b.String()) })
}

// CountFinal counts a final state (blocked: with a thread that never
// finishes); at the execution bound it stops the exploration instead.
func (x *Runner) CountFinal(blocked bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.Options.MaxExecutions > 0 && x.stats.Executions >= x.Options.MaxExecutions {
		return x.stop(MaxExecutions)
	}
	x.stats.Executions++
	if blocked {
		x.stats.Blocked++
	}
	return nil
}

// Limited reports the bound that has cut the exploration so far.
func (x *Runner) Limited() Limit {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.stats.Limit
}

// Consistent reports whether g is consistent under the model.
func (x *Runner) Consistent(g *model.Graph) bool { return x.Model.Consistent(g) }

// Next returns thread t's next action in g; a thread not yet spawned has none.
func Next(g *model.Graph, t int) (model.Action, error) {
	if g.Prog.Threads[t].Spawned {
		if _, ok := g.Spawner(t); !ok {
			return model.Action{}, nil
		}
	}
	_, a, err := g.Prog.Replay(t, g.Threads[t])
	return a, err
}

// Complete reports g, whose threads have all stopped, as an execution;
// states, when not nil, are its threads' final states, as Replay gives
// them (the thread of one not spawned marked Unborn), in a slice the
// execution keeps until the visit returns (as g); hb, when not nil,
// holds the clocks of g's events (model.NewClock), which then find its
// data races where they are the model's happens-before; into, when not
// nil, is the execution to fill (its slices reused) instead of a new one.
func (x *Runner) Complete(g *model.Graph, states []model.ThreadState, hb model.Clocks, into *Execution) error {
	e, err := newExecution(g, x.Model, x.Options.Races, states, hb, into)
	if err != nil || e == nil {
		return err
	}
	if x.Options.Histories {
		e.History = x.Model.HistoryOf(g, hb)
	}
	x.mu.Lock()
	for t, st := range e.States {
		if st.Status == model.Cut {
			x.cutLoop(t, st.PC)
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

// Execution is one complete, consistent execution.
type Execution struct {
	Graph *model.Graph
	// Model is the model it is consistent under, whose happens-before
	// judges its races and whose explanations present it.
	Model *model.Model
	Final model.FinalState
	// States holds each thread's final local state.
	States []model.ThreadState
	// Races lists the racing pairs, when races were asked for.
	Races [][2]model.EventRef
	// Blocked lists the threads that never finish: blocked on a held lock
	// (a deadlock) or on a false assume; none when a failed assertion
	// aborted the program (model.Program.Aborted).
	Blocked []int
	// History is its history of operations, when histories were asked for.
	History *model.History
}

// Clone returns a copy of e that keeps its graph and slices: the graph
// explorer reports its executions in a graph and an execution it goes on
// changing once the visit returns.
func (e *Execution) Clone() *Execution {
	c := *e
	c.Graph, c.States, c.Races, c.Blocked = e.Graph.Clone(), slices.Clone(e.States), slices.Clone(e.Races), slices.Clone(e.Blocked)
	// A history is made for its execution and never changed.
	c.Final.Regs, c.Final.Mem = slices.Clone(e.Final.Regs), slices.Clone(e.Final.Mem)
	return &c
}

// NewExecution makes an execution of g, a graph whose threads have all
// stopped, finding its data races (judged by m's happens-before) when
// races is set. It returns nil when g is not an execution: a thread waits
// for a lock that is released later in modification order (it would retry
// and take it).
func NewExecution(g *model.Graph, m *model.Model, races bool) (*Execution, error) {
	return newExecution(g, m, races, nil, nil, nil)
}

// newExecution is NewExecution with the threads' final states, when the
// caller has them.
func newExecution(g *model.Graph, m *model.Model, races bool, states []model.ThreadState, hb model.Clocks, into *Execution) (*Execution, error) {
	p := g.Prog
	e := into
	if e == nil {
		e = &Execution{}
	}
	*e = Execution{Graph: g, Model: m, States: states, Final: model.FinalState{Regs: e.Final.Regs[:0], Mem: e.Final.Mem[:0]}, Blocked: e.Blocked[:0]}
	if states == nil {
		e.States = make([]model.ThreadState, len(g.Threads))
	}
	e.Final.Regs = slices.Grow(e.Final.Regs, len(g.Threads))[:len(g.Threads)]
	for t := range g.Threads {
		var st model.ThreadState
		if states != nil {
			st = states[t]
		} else {
			var err error
			if st, _, err = p.Replay(t, g.Threads[t]); err != nil {
				return nil, err
			}
			if p.Threads[t].Spawned {
				if _, ok := g.Spawner(t); !ok {
					st.Status = model.Unborn
				}
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
	if p.Aborted(e.States) {
		e.Blocked = e.Blocked[:0] // the program aborted: its threads stopped where they were
	}
	e.Final.Mem = g.FinalMem(e.Final.Mem)
	if races && hb != nil {
		var ok bool
		if e.Races, ok = m.ClockRaces(g, hb); ok {
			return e, nil
		}
	}
	if races {
		ex := model.NewExec(g)
		for _, r := range model.DataRaces(ex, m.HappensBefore(ex)) {
			e.Races = append(e.Races, [2]model.EventRef{ex.Refs[r[0]], ex.Refs[r[1]]})
		}
	}
	return e, nil
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

// Outcome is what an engine observed, for the judge: the end of an
// execution (a complete execution, or a final state of the state search),
// or a step of the state search that evaluated an assertion, raced, or
// returned from an operation.
type Outcome struct {
	Prog *model.Program
	// Graph is the execution, when the engine has one.
	Graph *model.Graph
	// End marks the end of an execution: Threads and Final are set.
	End     bool
	Threads []model.ThreadState
	Final   model.FinalState
	// Asserted lists the assertions evaluated; Failed those that failed.
	Asserted, Failed []Site
	// Races lists racing pairs of accesses; the state search, which only
	// knows that an access raced, gives zero pairs.
	Races [][2]model.EventRef
	// History holds the operations, when histories are judged: the
	// execution's at its end, or the one operation that just returned.
	History *model.History
}

// Site is an instruction of a thread.
type Site struct{ Thread, Instr int }

// Outcome returns e's outcome.
func (e *Execution) Outcome() *Outcome {
	o := &Outcome{Prog: e.Graph.Prog, Graph: e.Graph, End: true, Threads: e.States, Final: e.Final, Races: e.Races, History: e.History}
	for t, st := range e.States {
		for _, pc := range st.Reached {
			o.Asserted = append(o.Asserted, Site{t, pc})
		}
		if st.Status == model.Failed {
			last := e.Graph.Threads[t][len(e.Graph.Threads[t])-1]
			o.Failed = append(o.Failed, Site{t, int(last.Instr)})
		}
	}
	return o
}

// Violation is one property violated by one outcome.
type Violation struct {
	Prop string
	Msg  string
	// Anchors are the events that show the violation (the failed
	// assertion, the racing pair, the blocked lock requests); nil when the
	// whole final state is the evidence or the engine has no graph.
	Anchors []model.EventRef
	// History and Lin, for a history that does not linearize: the history
	// judged and the judgement (model.Linearize).
	History *model.History       `json:",omitempty"`
	Lin     *model.Linearization `json:",omitempty"`
}

// Judge judges an outcome: it calls checked with each property the
// outcome checks at all, and returns the violations it shows, at most
// one per property.
type Judge func(o *Outcome, checked func(prop string)) []Violation

// Linearizability is the name of the property that histories of
// operations linearize to the sequential specification: the one property
// the engines know, as they record histories for it.
const Linearizability = "linearizability"

// Witness is an execution that violates a property.
type Witness struct {
	*Execution
	Violation Violation
}

// Cone returns the events the violation depends on: everything before its
// anchors in po, rf, co and spawn order, the anchors included (every event
// when it has none).
func (w *Witness) Cone() map[model.EventRef]bool {
	g := w.Graph
	in := map[model.EventRef]bool{}
	if w.Violation.Anchors == nil {
		for t, evs := range g.Threads {
			for i := range evs {
				in[model.EventRef{T: int32(t), I: int32(i)}] = true
			}
		}
		return in
	}
	work := append([]model.EventRef(nil), w.Violation.Anchors...)
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		if r.IsInit() || in[r] {
			continue
		}
		in[r] = true
		if r.I > 0 {
			work = append(work, model.EventRef{T: r.T, I: r.I - 1})
		} else if g.Prog.Threads[r.T].Spawned {
			if s, ok := g.Spawner(int(r.T)); ok {
				work = append(work, s)
			}
		}
		e := g.Ev(r)
		if e.Kind == model.KRead {
			work = append(work, e.Rf)
		}
		if e.Kind == model.KWrite {
			for _, x := range g.Co[e.Loc] {
				if x == r {
					break
				}
				work = append(work, x)
			}
		}
	}
	return in
}

// InternalError is a bug of ordercheck, not of its input.
type InternalError struct{ Msg string }

func (e *InternalError) Error() string { return "internal error: " + e.Msg }

// Internalf returns an InternalError.
func Internalf(format string, args ...any) error {
	return &InternalError{Msg: fmt.Sprintf(format, args...)}
}
