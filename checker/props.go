package checker

import (
	"fmt"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

// The built-in properties; every other property name is checked by the
// program's assertions and final checks that carry it.
const (
	PropDataRace = "data-race"
	PropDeadlock = "deadlock"
)

// Status is a property's verdict.
type Status string

// Property verdicts.
const (
	Holds    Status = "holds"
	Violated Status = "violated"
	Unknown  Status = "unknown" // a bound cut the search before a violation was found
)

// PropResult is the verdict on one property.
type PropResult struct {
	Name   string
	Status Status
	// Message explains a violation, or qualifies a verdict (vacuous holds).
	Message string
	// Violations counts the executions that violate the property; Reached
	// those in which it was checked at all.
	Violations, Reached int64
	// Witness is a smallest violating execution.
	Witness *Execution
}

// Report is the result of checking a program's properties under a model.
type Report struct {
	Model string
	Props []PropResult
	Stats Stats
}

// Verdict summarises the report: "violated" when a property is violated,
// "verified" when the search was exhaustive, else the bound that cut it
// ("bounded" or "timeout").
func (r *Report) Verdict() string {
	for _, p := range r.Props {
		if p.Status == Violated {
			return "violated"
		}
	}
	switch r.Stats.Limit {
	case "":
		return "verified"
	case "timeout", "interrupted":
		return "timeout"
	}
	return "bounded"
}

// Check explores p under m and judges the named properties.
func Check(p *model.Program, m model.Model, props []string, opt Options) (*Report, error) {
	rep := &Report{Model: m.Name()}
	index := map[string]int{}
	for _, name := range props {
		index[name] = len(rep.Props)
		rep.Props = append(rep.Props, PropResult{Name: name})
	}
	opt.Races = true
	if _, ok := index[PropDataRace]; !ok {
		opt.Races = false
	}
	var allBlocked = true
	var hit map[int]bool // the properties the current execution violates
	violate := func(name string, e *Execution, msg string) {
		k, ok := index[name]
		if !ok || hit[k] {
			return
		}
		hit[k] = true
		r := &rep.Props[k]
		r.Violations++
		if r.Witness == nil || e.Graph.Size() < r.Witness.Graph.Size() {
			r.Witness, r.Message = e, msg
		}
	}
	reach := func(name string) {
		if k, ok := index[name]; ok {
			rep.Props[k].Reached++
		}
	}
	stats, err := Explore(p, m, opt, func(e *Execution) {
		hit = map[int]bool{}
		reach(PropDataRace)
		reach(PropDeadlock)
		if len(e.Races) > 0 {
			violate(PropDataRace, e, describeRace(e, e.Races[0]))
		}
		finished := true
		for t, st := range e.States {
			for _, pc := range st.Reached {
				reach(p.Threads[t].Code[pc].Prop)
			}
			switch st.Status {
			case model.Failed:
				in := &p.Threads[t].Code[lastInstr(e.Graph, t)]
				violate(in.Prop, e, fmt.Sprintf("%s: %s (%s)", p.Threads[t].Name, in.Msg, in.Pos))
				finished = false
			case model.Blocked:
				finished = false
				if st.WaitLoc != model.NoLoc {
					violate(PropDeadlock, e, describeDeadlock(e, t, st.WaitLoc))
				}
			case model.Cut:
				finished = false
			}
		}
		if len(e.Blocked) == 0 {
			allBlocked = false
		}
		if finished {
			for _, c := range p.Checks {
				reach(c.Prop)
				if !c.Cond.Eval(&e.Final) {
					violate(c.Prop, e, fmt.Sprintf("%s (%s)", c.Msg, c.Pos))
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	rep.Stats = stats
	for i := range rep.Props {
		r := &rep.Props[i]
		switch {
		case r.Violations > 0:
			r.Status = Violated
		case !stats.Exhaustive():
			r.Status = Unknown
			r.Message = "no violation found before the " + stats.Limit + " bound"
		default:
			r.Status = Holds
			switch {
			case stats.Executions > 0 && allBlocked && r.Name != PropDeadlock:
				r.Message = "holds only vacuously: every execution blocks"
			case r.Reached == 0:
				r.Message = "holds only vacuously: no execution reaches a check of it"
			}
		}
	}
	return rep, nil
}

// lastInstr returns the instruction of thread t's last event.
func lastInstr(g *model.Graph, t int) int32 {
	evs := g.Threads[t]
	return evs[len(evs)-1].Instr
}

func describeRace(e *Execution, r [2]model.EventRef) string {
	g := e.Graph
	a, b := g.Ev(r[0]), g.Ev(r[1])
	p := g.Prog
	access := func(ref model.EventRef, ev *model.Event) string {
		kind := "reads"
		if ev.Kind == model.KWrite {
			kind = "writes"
		}
		ord := "plain"
		if ev.Ord.Atomic() {
			ord = ev.Ord.String()
		}
		return fmt.Sprintf("%s %s %s (%s, %s)", p.Threads[ref.T].Name, kind, p.Locs[ev.Loc].Name, ord, p.Threads[ref.T].Code[ev.Instr].Pos)
	}
	return fmt.Sprintf("%s and %s, unordered by happens-before", access(r[0], a), access(r[1], b))
}

func describeDeadlock(e *Execution, t int, m model.Loc) string {
	p := e.Graph.Prog
	owner := e.Final.Mem[m] - 1
	if owner == int64(t) {
		return fmt.Sprintf("%s locks %s, which it already holds (self-deadlock on a non-recursive mutex)", p.Threads[t].Name, p.Locs[m].Name)
	}
	var waits []string
	for _, u := range e.Blocked {
		if st := e.States[u]; st.WaitLoc != model.NoLoc {
			waits = append(waits, fmt.Sprintf("%s waits for %s held by %s", p.Threads[u].Name, p.Locs[st.WaitLoc].Name, holder(p, e.Final.Mem[st.WaitLoc])))
		}
	}
	return strings.Join(waits, "; ")
}

func holder(p *model.Program, v int64) string {
	if v >= 1 && int(v) <= len(p.Threads) {
		return p.Threads[v-1].Name
	}
	return "nobody"
}
