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

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// Config is what an engine is given: the user's options and what the
// checker asks of the search beyond them.
type Config struct {
	explore.Options
	// Races asks for the data races of every execution (a check finds
	// them when a property asks for them).
	Races bool
	// Histories asks for the history of operations of every execution (a
	// check records them when it judges linearizability).
	Histories bool
	// WholeHistories keeps the state explorer from judging operations
	// one at a time, which gives the same verdicts (tests compare the two).
	WholeHistories bool
	// Subtree, when set, has the graph explorer explore one part of its
	// search tree (a distributed search's job); the exploration is then
	// sequential.
	Subtree *Subtree
	// Verify has the graph explorer decide again from scratch every
	// consistency verdict and race its clocks give; a difference is an
	// internal error (tests hold the clocks to the axioms with it).
	Verify bool
}

// ErrStop stops an exploration at a bound; Finish turns it into a result.
var ErrStop = errors.New("stop")

// Runner holds what every engine needs: the program and model, options,
// statistics, the reporting of complete executions and the workers of a
// parallel exploration.
type Runner struct {
	Prog   *model.Program
	Model  *model.Model
	Config Config
	// States says the runner counts states (the state explorer's), not
	// graphs: Options.Progress then reports them as States.
	States bool
	visit  func(*explore.Execution)

	start    time.Time
	deadline time.Time

	mu           sync.Mutex // guards stats, lastProgress and err
	stats        explore.Stats
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
func NewRunner(p *model.Program, m *model.Model, cfg Config, visit func(*explore.Execution)) *Runner {
	r := &Runner{Prog: p, Model: m, Config: cfg, visit: visit, start: time.Now()}
	if cfg.MaxMemory > 0 && model.ProcessMemory() > cfg.MaxMemory/2 {
		model.ReleaseMemory() // what an earlier exploration dropped is not this one's
	}
	if r.Config.MaxEvents == 0 {
		r.Config.MaxEvents = explore.DefaultMaxEvents
	}
	if cfg.Timeout > 0 {
		r.deadline = r.start.Add(cfg.Timeout)
	}
	return r
}

// Finish returns the statistics, and the error unless it is ErrStop.
func (x *Runner) Finish(err error) (explore.Stats, error) {
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

// Workers returns how many workers explore: Options.Workers, or one when
// a count bounds the exploration — where the count runs out depends on the
// order of the search, which one worker keeps the same from run to run.
func (x *Runner) Workers() int {
	if x.Config.MaxExecutions > 0 || x.Config.MaxGraphs > 0 || x.Config.Subtree != nil {
		return 1
	}
	if x.Config.Workers == explore.AllCores {
		return runtime.NumCPU()
	}
	return max(x.Config.Workers, 1)
}

// Idle reports whether a worker waits for work: a subtree handed to Fork
// now would likely run there. An explorer that asks first spares the
// closure of every subtree it would explore itself anyway.
func (x *Runner) Idle() bool { return x.tasks != nil && x.idle.Load() > 0 }

// Restart forgets the counts and the stop of an exploration, to run
// another in the same time.
func (x *Runner) Restart() {
	x.stats = explore.Stats{}
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
	ctx := x.Config.Context
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
func (x *Runner) Limit(ctx context.Context) explore.Limit {
	switch {
	case x.Config.Context != nil && x.Config.Context.Err() != nil:
		return explore.Interrupted
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return explore.Timeout
	}
	return explore.NoLimit
}

// SetLimit records that a bound cut the exploration short.
func (x *Runner) SetLimit(l explore.Limit) {
	x.mu.Lock()
	x.stats.Limit = l
	if l == explore.PreemptionBound {
		x.stats.PreemptionBound = x.Config.PreemptionBound
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
	if x.stats.Limit == explore.NoLimit {
		x.stats.Limit = explore.LoopBound
	}
	pos := x.Prog.Threads[t].Code[pc].Pos
	if !slices.Contains(x.stats.Loops, pos) {
		x.stats.Loops = append(x.stats.Loops, pos)
		slices.SortFunc(x.stats.Loops, func(a, b model.Pos) int { return strings.Compare(a.String(), b.String()) })
	}
}

// stop ends the exploration at a bound; x.mu is held.
func (x *Runner) stop(l explore.Limit) error {
	if x.stats.Limit == explore.NoLimit {
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
	if x.Config.MaxExecutions == 0 && x.Config.MaxGraphs == 0 && n%256 != 1 {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.halt.Load() { // another worker stopped while this one waited
		return ErrStop
	}
	graphs := x.stats.Graphs + n
	if x.Config.MaxExecutions > 0 && x.stats.Executions >= x.Config.MaxExecutions {
		return x.stop(explore.MaxExecutions)
	}
	if x.Config.MaxGraphs > 0 && graphs > x.Config.MaxGraphs {
		return x.stop(explore.MaxGraphs)
	}
	if n%256 == 1 {
		if !x.deadline.IsZero() && time.Now().After(x.deadline) {
			return x.stop(explore.Timeout)
		}
		if x.Config.Context != nil && x.Config.Context.Err() != nil {
			return x.stop(explore.Interrupted)
		}
		if x.Config.Progress != nil && time.Since(x.lastProgress) > time.Second {
			x.lastProgress = time.Now()
			st := x.stats
			st.Graphs = graphs
			if x.States {
				st.States = graphs
			}
			st.Elapsed = time.Since(x.start)
			x.Config.Progress(st)
		}
	}
	if x.Config.MaxMemory > 0 && n%1024 == 1 && model.OverMemory(x.Config.MaxMemory) {
		return x.stop(explore.MaxMemory)
	}
	return nil
}

// Stats returns the statistics so far.
func (x *Runner) Stats() explore.Stats {
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
func (x *Runner) Absorb(st explore.Stats) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.stats.Add(st)
}

// CountFinal counts a final state (blocked: with a thread that never
// finishes); at the execution bound it stops the exploration instead.
func (x *Runner) CountFinal(blocked bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.Config.MaxExecutions > 0 && x.stats.Executions >= x.Config.MaxExecutions {
		return x.stop(explore.MaxExecutions)
	}
	x.stats.Executions++
	if blocked {
		x.stats.Blocked++
	}
	return nil
}

// Limited reports the bound that has cut the exploration so far.
func (x *Runner) Limited() explore.Limit {
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
func (x *Runner) Complete(g *model.Graph, states []model.ThreadState, hb model.Clocks, into *explore.Execution) error {
	e, err := newExecution(g, x.Model, x.Config.Races, states, hb, into)
	if err != nil || e == nil {
		return err
	}
	if x.Config.Histories {
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

// NewExecution makes an execution of g, a graph whose threads have all
// stopped, finding its data races (judged by m's happens-before) when
// races is set. It returns nil when g is not an execution: a thread waits
// for a lock that is released later in modification order (it would retry
// and take it).
func NewExecution(g *model.Graph, m *model.Model, races bool) (*explore.Execution, error) {
	return newExecution(g, m, races, nil, nil, nil)
}

// newExecution is NewExecution with the threads' final states, when the
// caller has them.
func newExecution(g *model.Graph, m *model.Model, races bool, states []model.ThreadState, hb model.Clocks, into *explore.Execution) (*explore.Execution, error) {
	p := g.Prog
	e := into
	if e == nil {
		e = &explore.Execution{}
	}
	*e = explore.Execution{Graph: g, Model: m, States: states, Final: model.FinalState{Regs: e.Final.Regs[:0], Mem: e.Final.Mem[:0]}, Blocked: e.Blocked[:0]}
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

// Judge judges an outcome: it calls checked with each property the
// outcome checks at all, and returns the violations it shows, at most
// one per property.
type Judge func(o *explore.Outcome, checked func(prop string)) []explore.Violation

// Linearizability is the name of the property that histories of
// operations linearize to the sequential specification: the one property
// the engines know, as they record histories for it.
const Linearizability = "linearizability"

// Internalf returns an InternalError.
func Internalf(format string, args ...any) error {
	return &explore.InternalError{Msg: fmt.Sprintf(format, args...)}
}
