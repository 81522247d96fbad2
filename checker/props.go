package checker

import (
	"fmt"
	"strings"
	"sync"

	"github.com/anishathalye/porcupine"

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
	// Witness is a shortest violating execution: fewest events in the
	// violation's causal cone, then fewest threads.
	Witness *Witness
}

// Violation is one property violated by one execution.
type Violation struct {
	Prop string
	Msg  string
	// Anchors are the events that show the violation (the failed
	// assertion, the racing pair, the blocked lock requests); nil when the
	// whole final state is the evidence.
	Anchors []model.EventRef
}

// Witness is an execution that violates a property.
type Witness struct {
	*Execution
	Violation Violation
}

// Cone returns the events the violation depends on: everything before its
// anchors in po, rf, co and spawn order (every event when it has none).
func (w *Witness) Cone() map[model.EventRef]bool { return cone(w.Graph, w.Violation.Anchors) }

// shorter orders witnesses: fewer events in the cone, then fewer threads,
// then the graphs' fingerprints, so that the choice does not depend on the
// order in which executions are found.
func (w *Witness) shorter(o *Witness) bool {
	a, b := w.Cone(), o.Cone()
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	if ta, tb := threadsIn(a), threadsIn(b); ta != tb {
		return ta < tb
	}
	return w.Graph.Key() < o.Graph.Key()
}

func threadsIn(c map[model.EventRef]bool) int {
	ts := map[int32]bool{}
	for r := range c {
		ts[r.T] = true
	}
	return len(ts)
}

// reached lists the properties the execution checked: its assertions
// evaluated and, when every thread finished, the final checks.
func (e *Execution) reached() []string {
	var out []string
	p := e.Graph.Prog
	finished := true
	for t, st := range e.States {
		for _, pc := range st.Reached {
			out = append(out, p.Threads[t].Code[pc].Prop)
		}
		finished = finished && (st.Status == model.Done || st.Status == model.Unborn)
	}
	if finished {
		for _, c := range p.Checks {
			out = append(out, c.Prop)
		}
	}
	return out
}

// Judge returns the violations of one execution, at most one per property:
// data races (when the exploration looked for them), failed assertions,
// deadlocks, final checks that fail once every thread has finished, and,
// when spec is given, a history that does not linearize to it.
func Judge(e *Execution, spec *porcupine.Model) []Violation {
	var out []Violation
	seen := map[string]bool{}
	for _, v := range judge(e, spec) {
		if !seen[v.Prop] {
			seen[v.Prop] = true
			out = append(out, v)
		}
	}
	return out
}

func judge(e *Execution, spec *porcupine.Model) []Violation {
	var out []Violation
	g := e.Graph
	p := g.Prog
	if len(e.Races) > 0 {
		r := e.Races[0]
		out = append(out, Violation{PropDataRace, describeRace(e, r), []model.EventRef{r[0], r[1]}})
	}
	finished := true
	var blocked []model.EventRef
	var deadlock string
	for t, st := range e.States {
		switch st.Status {
		case model.Failed:
			last := model.EventRef{T: int32(t), I: int32(len(g.Threads[t]) - 1)}
			in := &p.Threads[t].Code[g.Ev(last).Instr]
			out = append(out, Violation{in.Prop, fmt.Sprintf("%s: %s (%s)", p.Threads[t].Name, in.Msg, in.Pos), []model.EventRef{last}})
			finished = false
		case model.Blocked:
			finished = false
			if st.WaitLoc != model.NoLoc {
				blocked = append(blocked, model.EventRef{T: int32(t), I: int32(len(g.Threads[t]) - 1)})
				if deadlock == "" {
					deadlock = describeDeadlock(e, t, st.WaitLoc)
				}
			}
		case model.Cut:
			finished = false
		}
	}
	if len(blocked) > 0 {
		out = append(out, Violation{PropDeadlock, deadlock, blocked})
	}
	if finished {
		for _, c := range p.Checks {
			if !c.Cond.Eval(&e.Final) {
				out = append(out, Violation{c.Prop, fmt.Sprintf("%s (%s)", c.Msg, c.Pos), nil})
			}
		}
	}
	if spec != nil {
		if lin, msg := linearizable(e, *spec); !lin {
			out = append(out, Violation{Prop: PropLinearizability, Msg: msg})
		}
	}
	return out
}

// cone returns the events before the anchors in po, rf, co and spawn
// order, the anchors included; every event when there are no anchors.
func cone(g *model.Graph, anchors []model.EventRef) map[model.EventRef]bool {
	in := map[model.EventRef]bool{}
	if anchors == nil {
		for t, evs := range g.Threads {
			for i := range evs {
				in[model.EventRef{T: int32(t), I: int32(i)}] = true
			}
		}
		return in
	}
	work := append([]model.EventRef(nil), anchors...)
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
			for _, w := range g.Co[e.Loc] {
				if w == r {
					break
				}
				work = append(work, w)
			}
		}
	}
	return in
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
	switch l := r.Stats.Limit; {
	case l == "":
		return "verified"
	case l == "timeout" || l == "interrupted":
		return "timeout"
	case strings.HasPrefix(l, "preemption-bound"):
		return "bounded" + strings.TrimPrefix(l, "preemption-bound")
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
	spec := opt.Spec // histories are checked only when asked for
	if _, ok := index[PropLinearizability]; !ok {
		spec = nil
	}
	states, err := useStates(p, m, opt)
	if err != nil {
		return nil, err
	}
	allBlocked := true
	if states {
		if allBlocked, err = checkStates(p, m, rep, index, spec, opt); err != nil {
			return nil, err
		}
		rep.settle(allBlocked, opt.Spec != nil)
		return rep, nil
	}
	var mu sync.Mutex // the explorer's workers report executions concurrently
	reach := func(name string) {
		if k, ok := index[name]; ok {
			rep.Props[k].Reached++
		}
	}
	stats, err := Explore(p, m, opt, func(e *Execution) {
		violations := Judge(e, spec)
		mu.Lock()
		defer mu.Unlock()
		reach(PropDataRace)
		reach(PropDeadlock)
		for _, name := range e.reached() {
			reach(name)
		}
		if len(e.Blocked) == 0 {
			allBlocked = false
		}
		if spec != nil {
			reach(PropLinearizability)
		}
		for _, v := range violations {
			k, ok := index[v.Prop]
			if !ok {
				continue
			}
			r := &rep.Props[k]
			r.Violations++
			w := &Witness{Execution: e, Violation: v}
			if r.Witness == nil || w.shorter(r.Witness) {
				r.Witness, r.Message = w, v.Msg
			}
		}
	})
	if err != nil {
		return nil, err
	}
	rep.Stats = stats
	rep.settle(allBlocked, opt.Spec != nil)
	return rep, nil
}

// settle gives each property its verdict from what the exploration found.
func (rep *Report) settle(allBlocked, hasSpec bool) {
	stats := rep.Stats
	for i := range rep.Props {
		r := &rep.Props[i]
		switch {
		case r.Violations > 0:
			r.Status = Violated
		case r.Name == PropLinearizability && !hasSpec:
			r.Status = Unknown
			r.Message = "the protocol has no sequential specification to check histories against"
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
	if owner, ok := lockHolder(e.Graph, m); ok && owner == t {
		return fmt.Sprintf("%s locks %s, which it already holds (self-deadlock on a non-recursive mutex)", p.Threads[t].Name, p.Locs[m].Name)
	}
	var waits []string
	for _, u := range e.Blocked {
		if st := e.States[u]; st.WaitLoc != model.NoLoc {
			waits = append(waits, fmt.Sprintf("%s waits for %s held by %s", p.Threads[u].Name, p.Locs[st.WaitLoc].Name, holder(e.Graph, st.WaitLoc)))
		}
	}
	return strings.Join(waits, "; ")
}

// lockHolder returns the thread holding mutex m at the end of g: the
// writer of its last write, when that write is a lock's (a lock writes 1,
// whoever takes it, so that identical threads stay interchangeable).
func lockHolder(g *model.Graph, m model.Loc) (int, bool) {
	w := g.CoMax(m)
	if w.IsInit() || g.Ev(w).Val == 0 {
		return 0, false
	}
	return int(w.T), true
}

// holder names the thread holding mutex m at the end of g.
func holder(g *model.Graph, m model.Loc) string {
	if t, ok := lockHolder(g, m); ok {
		return g.Prog.Threads[t].Name
	}
	return "nobody"
}
