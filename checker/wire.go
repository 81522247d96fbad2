package checker

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// MarshalReport encodes r for another process (a worker's answer to the
// process that renders it): verdicts, counts and witnesses, each model by
// its name and each graph without its program, which the reader compiles
// from the same protocol.
func MarshalReport(r *Report) ([]byte, error) {
	w := wireReport{Model: r.Model.Name, Engine: r.Engine, Stats: r.Stats}
	if r.Via != nil {
		w.Via = r.Via.Name
	}
	for _, p := range r.Props {
		wp := wireProp{Name: p.Name, Stats: p.Stats, Engine: p.Engine, Status: p.Status, Message: p.Message, Vacuous: p.Vacuous, Violations: p.Violations, Reached: p.Reached}
		if p.Model != nil {
			wp.Model = p.Model.Name
		}
		if x := p.Witness; x != nil {
			wp.Witness = &wireWitness{
				Threads: x.Graph.Threads, Co: x.Graph.Co, Model: x.Model.Name,
				Final: x.Final, States: x.States, Races: x.Races, Blocked: x.Blocked,
				Violation: x.Violation,
			}
		}
		w.Props = append(w.Props, wp)
	}
	return json.Marshal(w)
}

// UnmarshalReport decodes a report MarshalReport encoded for in: its
// witnesses' graphs are of in's program. What another process sent is
// checked before it is believed: a report of in's properties, each field
// in its range, every witness's events, sources and indices within the
// program — an error, never a panic, for anything else.
func UnmarshalReport(data []byte, in *Instance) (*Report, error) {
	return unmarshalReport(data, in.Prog, in.Protocol.PropNames())
}

// unmarshalReport decodes a report of prog on the properties props.
func unmarshalReport(data []byte, prog *model.Program, props []string) (*Report, error) {
	var w wireReport
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("a report: %w", err)
	}
	if err := w.check(prog, props); err != nil {
		return nil, fmt.Errorf("a report: %w", err)
	}
	m, err := model.Lookup(w.Model)
	if err != nil {
		return nil, err
	}
	r := &Report{Model: m, Engine: w.Engine, Stats: w.Stats}
	if w.Via != "" {
		if r.Via, err = model.Lookup(w.Via); err != nil {
			return nil, err
		}
	}
	for _, wp := range w.Props {
		p := PropResult{Name: wp.Name, Stats: wp.Stats, Engine: wp.Engine, Status: wp.Status, Message: wp.Message, Vacuous: wp.Vacuous, Violations: wp.Violations, Reached: wp.Reached}
		if wp.Model != "" {
			if p.Model, err = model.Lookup(wp.Model); err != nil {
				return nil, err
			}
		}
		if x := wp.Witness; x != nil {
			if len(x.Threads) != len(prog.Threads) || len(x.Co) != len(prog.Locs) {
				return nil, fmt.Errorf("a report: %s's witness does not fit the program", wp.Name)
			}
			wm, err := model.Lookup(x.Model)
			if err != nil {
				return nil, err
			}
			g := &model.Graph{Prog: prog, Threads: x.Threads, Co: x.Co}
			p.Witness = &explore.Witness{
				Execution: &explore.Execution{Graph: g, Model: wm, Final: x.Final, States: x.States, Races: x.Races, Blocked: x.Blocked},
				Violation: x.Violation,
			}
		}
		r.Props = append(r.Props, p)
	}
	return r, nil
}

// check validates what a report says of itself against the program and
// the properties it must report.
func (w *wireReport) check(prog *model.Program, props []string) error {
	if len(w.Props) != len(props) {
		return fmt.Errorf("%d properties, not the %d asked", len(w.Props), len(props))
	}
	if err := checkStats(&w.Stats); err != nil {
		return err
	}
	if w.Engine > explore.EngineStates {
		return fmt.Errorf("engine %d", w.Engine)
	}
	for i, p := range w.Props {
		switch {
		case p.Name != props[i]:
			return fmt.Errorf("property %d is %.40q, not %s", i, p.Name, props[i])
		case p.Status > Unknown || p.Engine > explore.EngineStates:
			return fmt.Errorf("%s: status %d, engine %d", p.Name, p.Status, p.Engine)
		case p.Violations < 0 || p.Reached < 0:
			return fmt.Errorf("%s: negative counts", p.Name)
		}
		if p.Stats != nil {
			if err := checkStats(p.Stats); err != nil {
				return err
			}
		}
		if p.Witness != nil {
			if err := p.Witness.check(prog); err != nil {
				return fmt.Errorf("%s's witness: %w", p.Name, err)
			}
		}
	}
	return nil
}

// checkStats checks a report's statistics are in range.
func checkStats(s *explore.Stats) error {
	if s.Limit > explore.MaxValues || s.Executions < 0 || s.Blocked < 0 || s.Graphs < 0 || s.States < 0 {
		return fmt.Errorf("statistics out of range (limit %d)", s.Limit)
	}
	return nil
}

// check validates a witness's graph and what refers into it against the
// program: every event of a kind, a location and an instruction the
// program has; every source, write and anchor an event of the graph.
func (x *wireWitness) check(prog *model.Program) error {
	nl := len(prog.Locs)
	if len(x.Threads) != len(prog.Threads) || len(x.Co) != nl || len(x.States) != len(prog.Threads) ||
		len(x.Final.Mem) != nl || len(x.Final.Regs) != len(prog.Threads) {
		return errors.New("it does not fit the program")
	}
	ref := func(r model.EventRef, init bool) bool {
		if r.IsInit() {
			return init && r.I >= 0 && int(r.I) < nl
		}
		return r.T >= 0 && int(r.T) < len(x.Threads) && r.I >= 0 && int(r.I) < len(x.Threads[r.T])
	}
	for t, evs := range x.Threads {
		code := prog.Threads[t].Code
		for _, e := range evs {
			if e.Kind > model.KRet || e.Instr < 0 || int(e.Instr) >= len(code) || e.Loc != model.NoLoc && (e.Loc < 0 || int(e.Loc) >= nl) {
				return fmt.Errorf("an event of thread %d out of the program", t)
			}
			if (e.Kind == model.KRead || e.Kind == model.KWrite) && e.Loc == model.NoLoc {
				return fmt.Errorf("an access of thread %d without a location", t)
			}
			if e.Kind == model.KRead && e.Rf != model.NoSource && !ref(e.Rf, true) {
				return fmt.Errorf("a read of thread %d reads no event", t)
			}
		}
		if len(x.Final.Regs[t]) != len(prog.Threads[t].Regs) || len(x.States[t].Regs) != len(prog.Threads[t].Regs) || x.States[t].PC < 0 || x.States[t].PC > len(code) {
			return fmt.Errorf("thread %d's state does not fit the program", t)
		}
	}
	for _, co := range x.Co {
		for _, w := range co {
			if !ref(w, false) {
				return errors.New("a modification order names no event")
			}
		}
	}
	for _, r := range x.Races {
		if !ref(r[0], false) || !ref(r[1], false) {
			return errors.New("a race names no event")
		}
	}
	for _, t := range x.Blocked {
		if t < 0 || t >= len(x.Threads) {
			return errors.New("a blocked thread out of range")
		}
	}
	if _, err := model.Lookup(x.Model); err != nil {
		return err
	}
	v := &x.Violation
	for _, a := range v.Anchors {
		if !ref(a, false) {
			return errors.New("an anchor names no event")
		}
	}
	if v.Lin != nil || v.History != nil {
		if v.Lin == nil || v.History == nil {
			return errors.New("a linearizability verdict without its history")
		}
		return checkHistory(v.History, v.Lin, len(x.Threads), func(r model.EventRef) bool { return r == model.NoSource || ref(r, false) })
	}
	return nil
}

// checkHistory checks a history and its judgement refer only to their
// operations, threads and events.
func checkHistory(h *model.History, lin *model.Linearization, threads int, event func(model.EventRef) bool) error {
	n := len(h.Ops)
	in := func(i int) bool { return i >= 0 && i < n }
	if len(h.Before) != n || len(h.Sync) != n {
		return errors.New("a history's order does not fit its operations")
	}
	for _, op := range h.Ops {
		if op.Thread < 0 || op.Thread >= threads || !event(op.Call) || !event(op.Ret) {
			return errors.New("an operation out of the program")
		}
	}
	for i := range n {
		for _, d := range [2]model.DepSet{h.Before[i], h.Sync[i]} {
			for _, a := range d.Members() {
				if !in(a) {
					return errors.New("a history's order names no operation")
				}
			}
		}
	}
	ok := slices.IndexFunc(lin.Order, func(i int) bool { return !in(i) }) < 0
	for _, m := range lin.Missing {
		ok = ok && in(m.From) && in(m.To)
	}
	for _, d := range lin.DeadEnds {
		ok = ok && slices.IndexFunc(d.Prefix, func(i int) bool { return !in(i) }) < 0 && slices.IndexFunc(d.Refused, func(i int) bool { return !in(i) }) < 0
	}
	if !ok {
		return errors.New("a linearizability verdict names no operation")
	}
	return nil
}

type wireReport struct {
	Model  string
	Via    string `json:",omitempty"`
	Engine explore.Engine
	Props  []wireProp
	Stats  explore.Stats
}

type wireProp struct {
	Name                string
	Model               string `json:",omitempty"`
	Stats               *explore.Stats
	Engine              explore.Engine
	Status              Status
	Message             string
	Vacuous             bool `json:",omitempty"`
	Violations, Reached int64
	Witness             *wireWitness `json:",omitempty"`
}

type wireWitness struct {
	Threads   [][]model.Event
	Co        [][]model.EventRef
	Model     string
	Final     model.FinalState
	States    []model.ThreadState
	Races     [][2]model.EventRef
	Blocked   []int
	Violation explore.Violation
}
