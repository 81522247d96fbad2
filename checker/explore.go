// Package checker explores the executions of a program under a memory model
// and checks properties of them: final-state conditions, assertion
// failures, data races and deadlocks.
package checker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ordercheck/ordercheck/model"
)

// Options bound an exploration. Zero values mean no bound.
type Options struct {
	// MaxExecutions stops after this many complete executions.
	MaxExecutions int64
	// MaxEvents bounds the events of one thread (a guard for unbounded loops).
	MaxEvents int
	// Timeout stops the exploration after this long.
	Timeout time.Duration
	// Races asks for data-race detection in every execution.
	Races bool
	// Context, when set, cancels the exploration.
	Context context.Context
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
	Graphs     int64 // partial graphs visited
	Elapsed    time.Duration
	// Limit is empty when the exploration was exhaustive; otherwise it names
	// the bound that cut it short ("max-executions", "max-events",
	// "timeout", "interrupted"), and nothing was verified.
	Limit string
}

// Exhaustive reports whether every execution was explored.
func (s Stats) Exhaustive() bool { return s.Limit == "" }

var errStop = errors.New("stop")

// Explore visits every consistent complete execution of p under m once,
// calling visit for each.
func Explore(p *model.Program, m model.Model, opt Options, visit func(*Execution)) (Stats, error) {
	x := &explorer{p: p, m: m, opt: opt, visit: visit, seen: map[string]struct{}{}, start: time.Now()}
	if x.opt.MaxEvents == 0 {
		x.opt.MaxEvents = DefaultMaxEvents
	}
	if opt.Timeout > 0 {
		x.deadline = x.start.Add(opt.Timeout)
	}
	err := x.dfs(model.NewGraph(p))
	x.stats.Elapsed = time.Since(x.start)
	if errors.Is(err, errStop) {
		err = nil
	}
	return x.stats, err
}

type explorer struct {
	p        *model.Program
	m        model.Model
	opt      Options
	visit    func(*Execution)
	seen     map[string]struct{}
	stats    Stats
	start    time.Time
	deadline time.Time
}

func (x *explorer) stop(limit string) error {
	if x.stats.Limit == "" {
		x.stats.Limit = limit
	}
	return errStop
}

func (x *explorer) checkLimits() error {
	if x.opt.MaxExecutions > 0 && x.stats.Executions >= x.opt.MaxExecutions {
		return x.stop("max-executions")
	}
	if x.stats.Graphs%256 == 0 {
		if !x.deadline.IsZero() && time.Now().After(x.deadline) {
			return x.stop("timeout")
		}
		if x.opt.Context != nil && x.opt.Context.Err() != nil {
			return x.stop("interrupted")
		}
	}
	return nil
}

// dfs explores every extension of g, visiting each distinct partial graph
// once (by its fingerprint).
func (x *explorer) dfs(g *model.Graph) error {
	key := g.Key()
	if _, ok := x.seen[key]; ok {
		return nil
	}
	x.seen[key] = struct{}{}
	x.stats.Graphs++
	if err := x.checkLimits(); err != nil {
		return err
	}
	running := false
	for t := range g.Threads {
		_, a, err := x.p.Replay(t, g.Threads[t])
		if err != nil {
			return err
		}
		if a.Kind == model.ActNone {
			continue
		}
		running = true
		if len(g.Threads[t]) >= x.opt.MaxEvents {
			x.stats.Limit = "max-events"
			continue
		}
		for _, h := range Successors(g, t, &a) {
			if x.m.Check(model.NewExec(h)) != "" {
				continue
			}
			if err := x.dfs(h); err != nil {
				return err
			}
		}
	}
	if !running {
		return x.complete(g)
	}
	return nil
}

// Successors returns the graphs that extend g by thread t performing a: one
// per write a read may read from, per modification-order position a write
// may take, and per value a choice may pick. They are not checked for
// consistency.
func Successors(g *model.Graph, t int, a *model.Action) []*model.Graph {
	base := model.Event{Loc: a.Loc, Ord: a.Ord, Instr: int32(a.Instr), Addr: a.Addr, Data: a.Data, Ctrl: a.Ctrl}
	var out []*model.Graph
	add := func(evs ...model.Event) *model.Graph {
		h := g.Clone()
		h.Threads[t] = append(h.Threads[t], evs...)
		out = append(out, h)
		return h
	}
	switch a.Kind {
	case model.ActFence:
		e := base
		e.Kind, e.Loc = model.KFence, model.NoLoc
		add(e)
	case model.ActFail:
		e := base
		e.Kind, e.Loc = model.KError, model.NoLoc
		add(e)
	case model.ActChoose:
		for v := 0; v < a.N; v++ {
			e := base
			e.Kind, e.Loc, e.Val = model.KChoice, model.NoLoc, int64(v)
			add(e)
		}
	case model.ActWrite, model.ActUnlock:
		e := base
		e.Kind, e.Val = model.KWrite, a.Val
		ref := model.EventRef{T: int32(t), I: int32(len(g.Threads[t]))}
		for pos := 1; pos <= len(g.Co[a.Loc])+1; pos++ {
			h := add(e)
			h.InsertCo(a.Loc, ref, pos)
		}
	case model.ActRead, model.ActRMW, model.ActCAS, model.ActLock:
		writes := append([]model.EventRef{model.InitRef(a.Loc)}, g.Co[a.Loc]...)
		for _, w := range writes {
			v := g.WriteValue(w)
			for _, spurious := range []bool{false, true} {
				if spurious && !(a.Kind == model.ActCAS && a.Weak && v == a.Expected) {
					continue
				}
				r := base
				r.Kind, r.Val, r.Rf, r.Spurious = model.KRead, v, w, spurious
				if a.Kind == model.ActRead {
					add(r)
					continue
				}
				r.RMW = true
				ok, wv, _ := a.Outcome(v, spurious, t)
				r.Ord = a.ReadOrd(ok)
				if !ok {
					add(r)
					continue
				}
				wr := base
				wr.Kind, wr.Val, wr.RMW, wr.Ord = model.KWrite, wv, true, a.WriteOrd()
				h := add(r, wr)
				ref := model.EventRef{T: int32(t), I: int32(len(g.Threads[t]) + 1)}
				h.InsertCo(a.Loc, ref, g.CoPos(a.Loc, w)+1)
			}
		}
	}
	return out
}

// complete reports g, whose threads have all stopped, as an execution.
func (x *explorer) complete(g *model.Graph) error {
	e := &Execution{Graph: g, States: make([]model.ThreadState, len(g.Threads))}
	e.Final.Regs = make([][]int64, len(g.Threads))
	for t := range g.Threads {
		st, _, err := x.p.Replay(t, g.Threads[t])
		if err != nil {
			return err
		}
		e.States[t] = st
		e.Final.Regs[t] = st.Regs
		if st.Status == model.Blocked {
			if st.WaitLoc != model.NoLoc {
				// A thread waiting for a lock that is released later in
				// modification order would retry and take it: that is
				// another execution, not a deadlock.
				last := &g.Threads[t][len(g.Threads[t])-1]
				if last.Rf != g.CoMax(st.WaitLoc) {
					return nil
				}
			}
			e.Blocked = append(e.Blocked, t)
		}
	}
	e.Final.Mem = g.FinalMem()
	if x.opt.Races {
		ex := model.NewExec(g)
		for _, r := range model.DataRaces(ex, model.HappensBefore(ex)) {
			e.Races = append(e.Races, [2]model.EventRef{ex.Refs[r[0]], ex.Refs[r[1]]})
		}
	}
	x.stats.Executions++
	if len(e.Blocked) > 0 {
		x.stats.Blocked++
	}
	if x.visit != nil {
		x.visit(e)
	}
	return nil
}

// String summarises the statistics.
func (s Stats) String() string {
	lim := "exhaustive"
	if s.Limit != "" {
		lim = "bounded by " + s.Limit
	}
	return fmt.Sprintf("%d executions (%d blocked), %d graphs, %v, %s", s.Executions, s.Blocked, s.Graphs, s.Elapsed.Round(time.Millisecond), lim)
}
