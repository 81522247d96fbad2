package checker

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ordercheck/ordercheck/model"
)

// Steps orders the events of an execution for presentation: a
// linearisation of po ∪ rf that keeps each thread's events together as
// long as it can, initial writes omitted.
func Steps(g *model.Graph) []model.EventRef {
	next := make([]int, len(g.Threads))
	var out []model.EventRef
	done := func(r model.EventRef) bool { return r.IsInit() || int(r.I) < next[r.T] }
	ready := func(t int) bool {
		if next[t] >= len(g.Threads[t]) {
			return false
		}
		e := &g.Threads[t][next[t]]
		if e.Kind == model.KRead && !done(e.Rf) {
			return false
		}
		if g.Prog.Threads[t].Spawned && next[t] == 0 {
			s, ok := g.Spawner(t)
			return !ok || done(s)
		}
		return true
	}
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
				break // not a po ∪ rf order: cannot happen in a consistent graph
			}
		}
		out = append(out, model.EventRef{T: int32(cur), I: int32(next[cur])})
		next[cur]++
	}
	return out
}

// FormatExecution renders an execution as numbered steps: thread, source
// position, what each event did, and which write each read read from.
func FormatExecution(e *Execution) string {
	g := e.Graph
	p := g.Prog
	steps := Steps(g)
	num := map[model.EventRef]int{}
	for i, r := range steps {
		num[r] = i + 1
	}
	width := 0
	for _, th := range p.Threads {
		width = max(width, len(th.Name))
	}
	var b strings.Builder
	for i, r := range steps {
		ev := g.Ev(r)
		in := &p.Threads[r.T].Code[ev.Instr]
		ord := "plain"
		if ev.Ord.Atomic() {
			ord = ev.Ord.String()
		}
		var what string
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
			what = fmt.Sprintf("%s %s = %s  (%s, from %s)", kind, p.Locs[ev.Loc].Name, p.FormatValue(ev.Val), ord, from)
		case model.KWrite:
			kind := "write"
			if p.Locs[ev.Loc].Mutex {
				kind = map[bool]string{true: "lock", false: "unlock"}[ev.Val != 0]
			}
			what = fmt.Sprintf("%s %s = %s  (%s)", kind, p.Locs[ev.Loc].Name, p.FormatValue(ev.Val), ord)
		case model.KFence:
			what = fmt.Sprintf("fence (%s)", ord)
		case model.KChoice:
			what = fmt.Sprintf("choose %d", ev.Val)
		case model.KSpawn:
			what = "spawn " + p.Threads[ev.Val].Name
		case model.KError:
			what = "assertion fails: " + in.Msg
		}
		fmt.Fprintf(&b, "  %3d. %-*s  %-46s  %s\n", i+1, width, p.Threads[r.T].Name, what, in.Pos)
	}
	for _, t := range e.Blocked {
		st := e.States[t]
		if st.WaitLoc != model.NoLoc {
			fmt.Fprintf(&b, "       %s blocks on %s\n", p.Threads[t].Name, p.Locs[st.WaitLoc].Name)
		} else {
			fmt.Fprintf(&b, "       %s blocks on a false await\n", p.Threads[t].Name)
		}
	}
	return b.String()
}

// WriteText writes a report for people: one line per property, the
// statistics, and the counterexample of each violated property.
func (r *Report) WriteText(w io.Writer) {
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
			line += fmt.Sprintf("  [%d of %d executions]", p.Violations, r.Stats.Executions)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "\n%s: %s\n", r.Verdict(), r.Stats)
	for _, p := range r.Props {
		if p.Witness != nil {
			fmt.Fprintf(w, "\ncounterexample for %s (%d events):\n%s", p.Name, p.Witness.Graph.Size(), FormatExecution(p.Witness))
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
		Stats: JSONStats{Executions: r.Stats.Executions, Blocked: r.Stats.Blocked, Graphs: r.Stats.Graphs,
			Seconds: r.Stats.Elapsed.Round(time.Millisecond).Seconds(), Limit: r.Stats.Limit}}
	for _, p := range r.Props {
		out.Properties = append(out.Properties, JSONProp{Name: p.Name, Status: p.Status, Message: p.Message, Violations: p.Violations})
	}
	return out
}
