package checker

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ordercheck/ordercheck/model"
)

// Steps orders the events of an execution for presentation, initial writes
// omitted: an order of po ∪ rf ∪ co ∪ fr when there is one (each read then
// reads the last write before it, as on an SC machine), else of po ∪ rf ∪
// co, else of po ∪ rf; a thread keeps running while it can.
func Steps(g *model.Graph) []model.EventRef {
	for _, level := range []int{2, 1, 0} {
		if out := topo(g, level); out != nil {
			return out
		}
	}
	return nil
}

// topo sorts the events by po ∪ rf (level 0), ∪ co (1), ∪ fr (2); nil if cyclic.
func topo(g *model.Graph, level int) []model.EventRef {
	next := make([]int, len(g.Threads))
	done := func(r model.EventRef) bool { return r.IsInit() || int(r.I) < next[r.T] }
	coBefore := func(l model.Loc, w model.EventRef) []model.EventRef {
		var out []model.EventRef
		for _, x := range g.Co[l] {
			if x == w {
				break
			}
			out = append(out, x)
		}
		return out
	}
	ready := func(t int) bool {
		if next[t] >= len(g.Threads[t]) {
			return false
		}
		if g.Prog.Threads[t].Spawned && next[t] == 0 {
			if s, ok := g.Spawner(t); ok && !done(s) {
				return false
			}
		}
		e := &g.Threads[t][next[t]]
		switch e.Kind {
		case model.KRead:
			if !done(e.Rf) {
				return false
			}
		case model.KWrite:
			self := model.EventRef{T: int32(t), I: int32(next[t])}
			if level >= 1 {
				for _, w := range coBefore(e.Loc, self) {
					if !done(w) {
						return false
					}
				}
			}
			if level >= 2 { // fr: the reads of earlier writes come first
				pos := g.CoPos(e.Loc, self)
				for u, evs := range g.Threads {
					for i := range evs {
						r := &evs[i]
						if r.Kind == model.KRead && r.Loc == e.Loc && g.CoPos(e.Loc, r.Rf) < pos && !done(model.EventRef{T: int32(u), I: int32(i)}) {
							return false
						}
					}
				}
			}
		}
		return true
	}
	var out []model.EventRef
	cur := 0
	for len(out) < g.Size() {
		if !ready(cur) {
			cur = -1
			for t := range g.Threads {
				if ready(t) {
					cur = t
					break
				}
			}
			if cur < 0 {
				return nil
			}
		}
		out = append(out, model.EventRef{T: int32(cur), I: int32(next[cur])})
		next[cur]++
	}
	return out
}

// FormatWitness renders a witness as numbered steps in words: thread, what
// each event did, which write each read read from and, for a read an SC
// machine would not allow, why the model does. Events outside the
// violation's causal cone are left out and counted.
func FormatWitness(w *Witness, m model.Model) string {
	g := w.Graph
	p := g.Prog
	keep := w.Cone()
	var steps []model.EventRef
	for _, r := range Steps(g) {
		if keep[r] {
			steps = append(steps, r)
		}
	}
	num := map[model.EventRef]int{}
	for i, r := range steps {
		num[r] = i + 1
	}
	width := 0
	for _, th := range p.Threads {
		width = max(width, len(th.Name))
	}
	x := model.NewExec(g)
	hb := model.RaceHB(m, x)
	hbBefore := func(a, b model.EventRef) bool { return hb.Has(x.Index(a), x.Index(b)) }
	var b strings.Builder
	for i, r := range steps {
		ev := g.Ev(r)
		in := &p.Threads[r.T].Code[ev.Instr]
		what := describeEvent(g, ev, in, num)
		fmt.Fprintf(&b, "  %3d. %-*s  %-46s  %s\n", i+1, width, p.Threads[r.T].Name, what, in.Pos)
		if ev.Kind == model.KRead {
			if why := whyStale(g, m, r, num, hbBefore); why != "" {
				fmt.Fprintf(&b, "       %*s  %s\n", width, "", why)
			}
		}
	}
	if w.Violation.Prop == PropDataRace && len(w.Violation.Anchors) == 2 {
		a, c := w.Violation.Anchors[0], w.Violation.Anchors[1]
		if num[c] < num[a] {
			a, c = c, a
		}
		fmt.Fprintf(&b, "       steps %d and %d race: step %d is not happens-before step %d — %s\n", num[a], num[c], num[a], num[c], missedSync(g, m, a, c, num))
	}
	for _, t := range w.Blocked {
		st := w.States[t]
		if st.WaitLoc != model.NoLoc {
			fmt.Fprintf(&b, "       %s waits for %s, held by %s, forever\n", p.Threads[t].Name, p.Locs[st.WaitLoc].Name, holder(g, st.WaitLoc))
		} else {
			fmt.Fprintf(&b, "       %s waits forever on a false await\n", p.Threads[t].Name)
		}
	}
	if elided := g.Size() - len(steps); elided > 0 {
		fmt.Fprintf(&b, "       (%d events outside the violation's causal cone left out)\n", elided)
	}
	return b.String()
}

func describeEvent(g *model.Graph, ev *model.Event, in *model.Instr, num map[model.EventRef]int) string {
	p := g.Prog
	ord := "plain"
	if ev.Ord.Atomic() {
		ord = ev.Ord.String()
	}
	switch ev.Kind {
	case model.KRead:
		from := "init"
		if !ev.Rf.IsInit() {
			from = fmt.Sprintf("step %d", num[ev.Rf])
		}
		kind := "read"
		if p.Locs[ev.Loc].Mutex {
			kind = "lock"
			if ev.Val != 0 {
				kind = "lock (held: blocks)"
			}
		}
		return fmt.Sprintf("%s %s = %s  (%s, from %s)", kind, p.Locs[ev.Loc].Name, p.FormatValue(ev.Val), ord, from)
	case model.KWrite:
		kind := "write"
		if p.Locs[ev.Loc].Mutex {
			kind = map[bool]string{true: "lock", false: "unlock"}[ev.Val != 0]
		}
		return fmt.Sprintf("%s %s = %s  (%s)", kind, p.Locs[ev.Loc].Name, p.FormatValue(ev.Val), ord)
	case model.KFence:
		return fmt.Sprintf("fence (%s)", ord)
	case model.KChoice:
		return fmt.Sprintf("choose %d", ev.Val)
	case model.KSpawn:
		return "spawn " + p.Threads[ev.Val].Name
	case model.KCall:
		return "call " + in.Msg
	case model.KRet:
		return fmt.Sprintf("%s returns %s", in.Msg, p.FormatValue(ev.Val))
	}
	return "assertion fails: " + in.Msg
}

// whyStale explains a read that does not read the last write shown before
// it, or "" when it does.
func whyStale(g *model.Graph, m model.Model, r model.EventRef, num map[model.EventRef]int, hbBefore func(a, b model.EventRef) bool) string {
	p := g.Prog
	ev := g.Ev(r)
	var newer model.EventRef
	found := false
	for _, w := range g.Co[ev.Loc] {
		if n, shown := num[w]; shown && n < num[r] && g.CoPos(ev.Loc, w) > g.CoPos(ev.Loc, ev.Rf) {
			newer, found = w, true
		}
	}
	if !found || p.Locs[ev.Loc].Mutex {
		return ""
	}
	nw := g.Ev(newer)
	src := "init"
	if !ev.Rf.IsInit() {
		src = fmt.Sprintf("step %d", num[ev.Rf])
	}
	head := fmt.Sprintf("reads %s=%s from %s although step %d wrote %s:", p.Locs[ev.Loc].Name, p.FormatValue(ev.Val), src, num[newer], p.FormatValue(nw.Val))
	if m.Name() != "tso" && m.Name() != "sc" && hbBefore(newer, r) {
		return head + fmt.Sprintf(" step %d happens before this read, so reading an older write breaks coherence", num[newer])
	}
	switch m.Name() {
	case "tso":
		return head + " under x86-TSO a store waits in its thread's store buffer, and later loads may run before it drains"
	case "sc":
		return head + " (sc)"
	}
	why := missedSync(g, m, newer, r, num)
	return fmt.Sprintf("%s step %d is not happens-before this read — %s", head, num[newer], why)
}

// missedSync explains why an event a of one thread is not happens-before
// an event b of another: the usual story is that b's thread saw a's write
// (or a later one of a's thread) through a pair that does not synchronise.
func missedSync(g *model.Graph, m model.Model, a, b model.EventRef, num map[model.EventRef]int) string {
	for i := int(b.I); i >= 0; i-- {
		e := &g.Threads[b.T][i]
		if e.Kind != model.KRead || e.Rf.IsInit() || e.Rf.T != a.T || e.Rf.I < a.I {
			continue
		}
		src := g.Ev(e.Rf)
		why := fmt.Sprintf("step %d reads step %d through %s and %s, which do not synchronise", num[model.EventRef{T: b.T, I: int32(i)}], num[e.Rf], ordPhrase(src.Ord, "store"), ordPhrase(e.Ord, "load"))
		if e.Ord == model.Con && m.Name() == "rc11" {
			why += " (a consume load never synchronises in rc11)"
		} else if e.Ord == model.Con {
			why += " for what does not depend on the consume load"
		}
		return why
	}
	return "no release/acquire chain orders them"
}

// ordPhrase names an ordering with its article: "a relaxed store".
func ordPhrase(o model.Ordering, what string) string {
	if !o.Atomic() {
		return "a plain " + what
	}
	name := map[model.Ordering]string{model.Rlx: "relaxed", model.Con: "consume", model.Acq: "acquire", model.Rel: "release", model.AcqRel: "acq_rel", model.SC: "seq_cst"}[o]
	if strings.ContainsAny(name[:1], "aeiou") {
		return "an " + name + " " + what
	}
	return "a " + name + " " + what
}

// WriteText writes a report for people: one line per property, the
// statistics, and the counterexample of each violated property.
func (r *Report) WriteText(w io.Writer) {
	m, _ := model.Lookup(r.Model)
	width := 0
	for _, p := range r.Props {
		width = max(width, len(p.Name))
	}
	for _, p := range r.Props {
		line := fmt.Sprintf("  %-*s  %-8s", width, p.Name, p.Status)
		line = strings.TrimRight(line, " ")
		if p.Message != "" {
			line += "  " + p.Message
		}
		if p.Status == Violated {
			if r.Stats.States > 0 {
				line += fmt.Sprintf("  [%d violating steps or final states, of %d states]", p.Violations, r.Stats.States)
			} else {
				line += fmt.Sprintf("  [%d of %d executions]", p.Violations, r.Stats.Executions)
			}
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "\n%s: %s\n", r.Verdict(), r.Stats)
	for _, p := range r.Props {
		if p.Witness != nil {
			fmt.Fprintf(w, "\ncounterexample for %s:\n%s", p.Name, FormatWitness(p.Witness, m))
		}
	}
}

// JSONProp is a property's verdict in JSON output.
type JSONProp struct {
	Name       string `json:"name"`
	Status     Status `json:"status"`
	Message    string `json:"message"`
	Violations int64  `json:"violations"`
}

// JSONStats are the statistics in JSON output.
type JSONStats struct {
	Executions int64   `json:"executions"`
	Blocked    int64   `json:"blocked"`
	Graphs     int64   `json:"graphs"`
	States     int64   `json:"states,omitempty"`
	Seconds    float64 `json:"seconds"`
	Limit      string  `json:"limit,omitempty"`
}

// JSONResult is one checked (variant, model) pair in JSON output.
type JSONResult struct {
	Protocol   string     `json:"protocol,omitempty"`
	Variant    string     `json:"variant"`
	Model      string     `json:"model"`
	Params     string     `json:"params"`
	Verdict    string     `json:"verdict"`
	Properties []JSONProp `json:"properties"`
	Stats      JSONStats  `json:"stats"`
}

// JSON returns the report as data.
func (r *Report) JSON(protocol, variant, params string) JSONResult {
	out := JSONResult{Protocol: protocol, Variant: variant, Model: r.Model, Params: params, Verdict: r.Verdict(),
		Stats: JSONStats{Executions: r.Stats.Executions, Blocked: r.Stats.Blocked, Graphs: r.Stats.Graphs, States: r.Stats.States,
			Seconds: r.Stats.Elapsed.Round(time.Millisecond).Seconds(), Limit: r.Stats.Limit}}
	for _, p := range r.Props {
		out.Properties = append(out.Properties, JSONProp{Name: p.Name, Status: p.Status, Message: p.Message, Violations: p.Violations})
	}
	return out
}
