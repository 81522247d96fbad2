// Package explore holds the vocabulary of an exploration, shared by
// ordercheck's library, its engines and its users: the options that
// bound and steer a search, what it counts, the executions it visits, the
// outcomes its properties judge, and the witnesses of a violation.
package explore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ordercheck/ordercheck/model"
)

// Options bound and steer an exploration: limits (executions, states,
// events per thread, memory, time, a context), progress reports, workers,
// the engine, and a cluster to spread it on. The zero value explores
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
	// Cluster, when set, splits a state search into partitions on worker
	// processes. Verdicts, counts and witnesses do not depend on it. A
	// search bounded by a count (MaxExecutions, MaxGraphs), whose cut
	// depends on the order of the search, stays in this process.
	Cluster Cluster `json:"-"`
}

// Engine is a way of exploring a program.
type Engine uint8

// The engines.
const (
	// EngineAuto explores by states when the model and program allow it
	// and the program has at most 256 locations, else by graphs.
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

// The bounds that may cut an exploration short; NoLimit when it was
// exhaustive.
const (
	NoLimit         Limit = iota
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
	// Limit is NoLimit when the exploration was exhaustive; otherwise it
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
func (s Stats) Exhaustive() bool { return s.Limit == NoLimit }

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

// Add adds the counts of o, a part of the same exploration, to s, and the
// bound that cut it: the first one, but the event bound over any other.
func (s *Stats) Add(o Stats) {
	s.Executions += o.Executions
	s.Blocked += o.Blocked
	s.Graphs += o.Graphs
	s.States += o.States
	if o.Limit == MaxEvents || o.Limit != NoLimit && s.Limit == NoLimit {
		s.Limit, s.PreemptionBound = o.Limit, o.PreemptionBound
	}
	for _, p := range o.Loops {
		if !slices.Contains(s.Loops, p) {
			s.Loops = append(s.Loops, p)
		}
	}
	slices.SortFunc(s.Loops, func(a, b model.Pos) int { return strings.Compare(a.String(), b.String()) })
}

// String summarises the statistics.
func (s Stats) String() string {
	lim := "exhaustive"
	switch s.Limit {
	case NoLimit:
	case Interrupted:
		lim = "interrupted"
	default:
		lim = "bounded by " + s.LimitText()
	}
	if s.States > 0 {
		return fmt.Sprintf("%d states, %d final (%d blocked), %v, %s", s.States, s.Executions, s.Blocked, s.Elapsed.Round(time.Millisecond), lim)
	}
	return fmt.Sprintf("%d executions (%d blocked), %d graphs, %v, %s", s.Executions, s.Blocked, s.Graphs, s.Elapsed.Round(time.Millisecond), lim)
}

// AllCores, as Options.Workers, explores on every core; the graph
// explorer leaves one to Go's collector (docs/performance.md).
const AllCores = -1

// Execution is one complete, consistent execution: its graph, final state,
// each thread's final local state, its data races (when asked for) and
// the threads that never finish.
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

// Outcome is what an exploration engine observed, for the properties to
// judge: the end of an execution (a complete execution, or a final state
// of the state explorer), or a step of the state explorer that evaluated
// an assertion, raced, or returned from an operation. Every engine hands
// the judge the same outcomes.
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

// Violation is one property violated by one outcome: its name, why, and
// the events that show it.
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

// InternalError is a bug of ordercheck, not of its input: please report it.
type InternalError struct{ Msg string }

func (e *InternalError) Error() string { return "internal error: " + e.Msg }
