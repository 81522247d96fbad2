// Package render prints the checker's results, for people and for
// programs: reports and counterexamples as text, JSON and DOT, comparisons
// as tables, Markdown and JSON, litmus results in herd7's format, and
// simulation statistics. It only presents: everything it prints was
// decided in package checker.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// Header writes which protocol, variant, model and parameters a result is
// about.
func Header(w io.Writer, in *checker.Instance, m *model.Model) {
	variant := ""
	if in.Variant != "" {
		variant = ", variant " + in.Variant
	}
	if doc := in.Doc(); doc != "" {
		variant += " — " + doc
	}
	params := ""
	if ps := in.ParamString(); ps != "" {
		params = ", " + ps
	}
	fmt.Fprintf(w, "protocol %s%s\nmodel %s%s\n\n", in.Protocol.File.Name, variant, m.Name, params)
}

// Report writes a report for people: one line per property, the
// statistics, and the counterexample of each violated property.
func Report(w io.Writer, r *checker.Report) {
	width := 0
	for _, p := range r.Props {
		width = max(width, len(p.Name))
	}
	for _, p := range r.Props {
		line := fmt.Sprintf("  %-*s  %-8s", width, p.Name, p.Status)
		line = strings.TrimRight(line, " ")
		msg := p.Message
		if p.Model != nil && p.Model != r.Model {
			by := p.Model.Name
			if p.Stats != nil {
				n, unit := p.Stats.Count()
				by += fmt.Sprintf(", %d %s", n, unit)
			}
			msg = strings.TrimSuffix("judged under C11 ("+by+"): "+msg, ": ")
		}
		if msg != "" {
			line += "  " + msg
		}
		if p.Status == checker.Violated {
			st := r.Stats
			if p.Stats != nil {
				st = *p.Stats
			}
			if st.States > 0 {
				line += fmt.Sprintf("  [seen %s in %d states]", plural(p.Violations, "time"), st.States)
			} else {
				line += fmt.Sprintf("  [in %d of %d executions]", p.Violations, st.Executions)
			}
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "\n%s: %s\n", r.VerdictText(), r.Stats)
	if r.Via != nil {
		fmt.Fprintf(w, "explored under %s: every atomic is seq_cst and no %s execution races, so %s allows exactly these (DRF-SC)\n", r.Via.Name, r.Via.Name, r.Model.Name)
	}
	for _, p := range r.Props {
		if p.Witness != nil {
			fmt.Fprintf(w, "\ncounterexample for %s:\n%s", p.Name, Witness(p.Witness))
		}
	}
}

// Witness renders a witness as numbered steps in words: thread, what each
// event did, which write each read read from and, for a read an SC machine
// would not allow, why the witness's model does. Events outside the
// violation's causal cone are left out and counted.
func Witness(w *explore.Witness) string {
	steps, notes := witnessSteps(w)
	width := 0
	for _, th := range w.Graph.Prog.Threads {
		width = max(width, len(th.Name))
	}
	var b strings.Builder
	for i := 0; i < len(steps); i++ {
		st := steps[i]
		if n, what := blockRun(w.Graph, steps[i:]); n > 1 {
			// An allocation or a free writes the block's status and each
			// cell: one line for them all.
			what += fmt.Sprintf(" (steps %d-%d)", st.Num, steps[i+n-1].Num)
			fmt.Fprintf(&b, "  %3d. %-*s  %-46s  %s\n", st.Num, width, st.Thread, what, st.Pos)
			i += n - 1
			continue
		}
		fmt.Fprintf(&b, "  %3d. %-*s  %-46s  %s\n", st.Num, width, st.Thread, st.What, st.Pos)
		if st.Why != "" {
			fmt.Fprintf(&b, "       %*s  %s\n", width, "", st.Why)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "       %s\n", n)
	}
	return b.String()
}

// blockRun finds an allocation's or a free's writes at the head of steps:
// the write of a block's status (allocated, freed), then the writes of
// its cells (uninitialised, freed), which follow the status in memory, by
// the same thread at the same place. It returns how many steps they are
// and what they did (a run of one is no block).
func blockRun(g *model.Graph, steps []witnessStep) (int, string) {
	head := g.Ev(steps[0].Ref)
	var cells int64
	var verb, state string
	switch {
	case head.Kind != model.KWrite:
		return 0, ""
	case head.Val == model.Allocated:
		cells, verb, state = model.Uninitialised, "allocate", "uninitialised"
	case head.Val == model.Freed:
		cells, verb, state = model.Freed, "free", "freed"
	default:
		return 0, ""
	}
	n := 1
	for n < len(steps) {
		st, ev := steps[n], g.Ev(steps[n].Ref)
		if st.Thread != steps[0].Thread || st.Pos != steps[0].Pos || ev.Kind != model.KWrite || ev.Val != cells || ev.Loc != head.Loc+model.Loc(n) {
			break
		}
		n++
	}
	return n, fmt.Sprintf("%s %s, its %s %s", verb, g.Prog.Locs[head.Loc].Name, plural(int64(n-1), "cell"), state)
}

// witnessStep is one event a witness shows: its number, thread, what it
// did, where in the source, and, for a read, why it could read a value
// older than one shown before it ("" when it did not).
type witnessStep struct {
	Num          int
	Ref          model.EventRef
	Thread, What string
	Why          string
	Pos          model.Pos
}

// witnessSteps returns the steps a witness shows and the notes that close
// it: the racing pair and why it races, the threads blocked forever, the
// events left out.
func witnessSteps(w *explore.Witness) ([]witnessStep, []string) {
	m := w.Model
	g := w.Graph
	p := g.Prog
	x, refs := presentation(w)
	num := map[model.EventRef]int{}
	for i, r := range refs {
		num[r] = i + 1
	}
	step := func(i int) string { return fmt.Sprintf("step %d", num[x.Refs[i]]) }
	var steps []witnessStep
	for i, r := range refs {
		ev := g.Ev(r)
		in := &p.Threads[r.T].Code[ev.Instr]
		st := witnessStep{Num: i + 1, Ref: r, Thread: p.Threads[r.T].Name, What: describeEvent(g, ev, in, num), Pos: in.Pos}
		if ev.Kind == model.KRead {
			st.Why = whyStale(x, m, r, num, step)
		}
		steps = append(steps, st)
	}
	var notes []string
	if w.Violation.Prop == checker.PropDataRace && len(w.Violation.Anchors) == 2 {
		a, c := w.Violation.Anchors[0], w.Violation.Anchors[1]
		if num[c] < num[a] {
			a, c = c, a
		}
		notes = append(notes, fmt.Sprintf("steps %d and %d race: step %d is not happens-before step %d — %s", num[a], num[c], num[a], num[c], m.Unordered(x, x.Index(a), x.Index(c), step)))
	}
	for _, t := range w.Blocked {
		st := w.States[t]
		if st.WaitLoc != model.NoLoc {
			notes = append(notes, fmt.Sprintf("%s waits for %s, held by %s, forever", p.Threads[t].Name, p.Locs[st.WaitLoc].Name, g.HolderName(st.WaitLoc)))
		} else {
			notes = append(notes, fmt.Sprintf("%s waits forever on a false await", p.Threads[t].Name))
		}
	}
	if v := w.Violation; v.Lin != nil && v.History != nil {
		at := func(r model.EventRef, what string) string {
			if n, ok := num[r]; ok {
				return fmt.Sprintf("step %d (%s)", n, what)
			}
			return what
		}
		ops := v.History.Ops
		call := func(k int) string { return p.Threads[ops[k].Thread].Name + " calls " + ops[k].Name }
		ret := func(k int) string { return ops[k].Name + " returns to " + p.Threads[ops[k].Thread].Name }
		for _, e := range v.History.Order() {
			notes = append(notes, fmt.Sprintf("%s happens before %s: the order puts %s first", at(ops[e.From].Ret, ret(e.From)), at(ops[e.To].Call, call(e.To)), ops[e.From].Name))
		}
		for _, e := range v.Lin.Missing {
			notes = append(notes, fmt.Sprintf("%s does not happen before %s: the synchronisation the specification promises is missing", at(ops[e.From].Call, call(e.From)), at(ops[e.To].Ret, ret(e.To))))
		}
	}
	if elided := g.Size() - len(refs); elided > 0 {
		notes = append(notes, fmt.Sprintf("(%s outside the violation's causal cone left out)", plural(int64(elided), "event")))
	}
	return steps, notes
}

// presentation returns the events of a witness's causal cone in the
// order they are shown: one that respects its model's order of seq_cst
// events, where there is one (see model.Graph.StepsBy).
func presentation(w *explore.Witness) (*model.Exec, []model.EventRef) {
	x := model.NewExec(w.Graph)
	var order model.Relation
	if w.Model != nil && w.Model.Order != nil {
		order = x.Of(w.Model.Order)
	}
	keep := w.Cone()
	var steps []model.EventRef
	for _, r := range w.Graph.StepsBy(x, order) {
		if keep[r] {
			steps = append(steps, r)
		}
	}
	return x, steps
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
		if len(ev.Vals()) > 0 {
			return fmt.Sprintf("call %s(%s)", in.Msg, formatValues(p, ev.Vals()))
		}
		return "call " + in.Msg
	case model.KRet:
		if len(ev.Vals()) > 1 {
			return fmt.Sprintf("%s returns (%s)", in.Msg, formatValues(p, ev.Vals()))
		}
		return fmt.Sprintf("%s returns %s", in.Msg, p.FormatValue(ev.Val))
	}
	return "assertion fails: " + in.Msg
}

// formatValues writes values as the program shows them, separated by
// commas.
func formatValues(p *model.Program, vs []int64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = p.FormatValue(v)
	}
	return strings.Join(parts, ", ")
}

// whyStale explains a read that does not read the last write shown before
// it, or returns "" when it does.
func whyStale(x *model.Exec, m *model.Model, r model.EventRef, num map[model.EventRef]int, step func(int) string) string {
	g := x.G
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
	src := "init"
	if !ev.Rf.IsInit() {
		src = fmt.Sprintf("step %d", num[ev.Rf])
	}
	return fmt.Sprintf("reads %s=%s from %s although step %d wrote %s: %s", p.Locs[ev.Loc].Name, p.FormatValue(ev.Val), src, num[newer],
		p.FormatValue(g.Ev(newer).Val), m.Stale(x, x.Index(r), x.Index(newer), step))
}

// JSONProp is a property's verdict in JSON output.
type JSONProp struct {
	Name string `json:"name"`
	// Model is the model the property was judged under, when it is not
	// the result's (data races: C11).
	Model      string         `json:"model,omitempty"`
	Status     checker.Status `json:"status"`
	Message    string         `json:"message"`
	Violations int64          `json:"violations"`
	// Stats are those of the exploration under Model, when it is set.
	Stats *JSONStats `json:"stats,omitempty"`
	// History is the witness's history, when it does not linearize.
	History *JSONHistory `json:"history,omitempty"`
}

// JSONHistory is a history that does not linearize: its operations, the
// order happens-before puts between them (before: [from, to], from
// returns before to is called), and either the synchronisation missing
// from an order whose results fit (missing: [from, to], from's call does
// not happen before to returns) or the dead ends of the search.
type JSONHistory struct {
	Ops      []JSONOp      `json:"operations"`
	Before   [][2]int      `json:"before"`
	Order    []int         `json:"order,omitempty"`
	Missing  [][2]int      `json:"missing,omitempty"`
	DeadEnds []JSONDeadEnd `json:"dead_ends,omitempty"`
}

// JSONOp is an operation of a history.
type JSONOp struct {
	Thread  string  `json:"thread"`
	Name    string  `json:"name"`
	Args    []int64 `json:"args,omitempty"`
	Results []int64 `json:"results,omitempty"`
	Pending bool    `json:"pending,omitempty"`
}

// JSONDeadEnd is where the search for an order stopped: the operations
// the specification accepted, its state then, and those it refused next.
type JSONDeadEnd struct {
	Prefix  []int  `json:"accepted"`
	State   string `json:"state"`
	Refused []int  `json:"refused"`
}

// historyJSON returns the history of a linearizability witness, or nil.
func historyJSON(w *explore.Witness, spec model.Spec) *JSONHistory {
	v := w.Violation
	if v.Lin == nil || v.History == nil {
		return nil
	}
	h := &JSONHistory{Before: [][2]int{}, Order: v.Lin.Order}
	for _, op := range v.History.Ops {
		h.Ops = append(h.Ops, JSONOp{Thread: w.Graph.Prog.Threads[op.Thread].Name, Name: op.Name, Args: op.Args, Results: op.Results, Pending: op.Pending})
	}
	for _, e := range v.History.Order() {
		h.Before = append(h.Before, [2]int{e.From, e.To})
	}
	for _, e := range v.Lin.Missing {
		h.Missing = append(h.Missing, [2]int{e.From, e.To})
	}
	for _, d := range v.Lin.DeadEnds {
		st := string(d.State)
		if spec != nil {
			st = spec.DescribeState(d.State)
		}
		h.DeadEnds = append(h.DeadEnds, JSONDeadEnd{Prefix: d.Prefix, State: st, Refused: d.Refused})
	}
	return h
}

// JSONStats are the statistics in JSON output, in the engine's own
// terms: the graph engine counts complete executions (as GenMC's
// "complete executions explored") and the partial graphs it visited, the
// state engine the distinct states and the final states among them;
// Blocked counts those of either in which some thread never finishes.
type JSONStats struct {
	Engine      string  `json:"engine"`
	Executions  *int64  `json:"executions,omitempty"`
	Graphs      *int64  `json:"graphs,omitempty"`
	States      *int64  `json:"states,omitempty"`
	FinalStates *int64  `json:"final_states,omitempty"`
	Blocked     int64   `json:"blocked"`
	Seconds     float64 `json:"seconds"`
	Limit       string  `json:"limit,omitempty"`
	// Via is the model explored instead of the result's, whose executions
	// of the program are the same (DRF-SC: checker.Report.Via).
	Via string `json:"via,omitempty"`
}

// jsonStats returns the statistics of a run by engine e.
func jsonStats(e explore.Engine, s explore.Stats) JSONStats {
	out := JSONStats{Engine: e.String(), Blocked: s.Blocked, Seconds: s.Elapsed.Round(time.Millisecond).Seconds(), Limit: s.LimitText()}
	if e == explore.EngineStates {
		out.States, out.FinalStates = &s.States, &s.Executions
	} else {
		out.Executions, out.Graphs = &s.Executions, &s.Graphs
	}
	return out
}

// JSONResult is one checked (variant, model) cell in JSON output.
type JSONResult struct {
	Protocol   string     `json:"protocol,omitempty"`
	Variant    string     `json:"variant"`
	Model      string     `json:"model"`
	Params     string     `json:"params"`
	Verdict    string     `json:"verdict"`
	Properties []JSONProp `json:"properties"`
	Stats      JSONStats  `json:"stats"`
}

// ReportJSON returns the report on in as data (protocol named when named
// is set).
func ReportJSON(r *checker.Report, in *checker.Instance, named bool) JSONResult {
	out := JSONResult{Variant: in.Variant, Model: r.Model.Name, Params: in.ParamString(), Verdict: r.VerdictText(), Stats: jsonStats(r.Engine, r.Stats)}
	if r.Via != nil {
		out.Stats.Via = r.Via.Name
	}
	if named {
		out.Protocol = in.Protocol.File.Name
	}
	for _, p := range r.Props {
		jp := JSONProp{Name: p.Name, Status: p.Status, Message: p.Message, Violations: p.Violations}
		if p.Witness != nil {
			jp.History = historyJSON(p.Witness, in.Protocol.SeqSpec())
		}
		if p.Model != nil && p.Model != r.Model {
			jp.Model = p.Model.Name
			if p.Stats != nil {
				st := jsonStats(p.Engine, *p.Stats)
				jp.Stats = &st
			}
		}
		out.Properties = append(out.Properties, jp)
	}
	return out
}

// JSON writes v as indented JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// linEdges returns, for a witness of linearizability, the events of the
// order happens-before puts between its operations (History.Order: a
// return, then a call) and of the synchronisation missing (Missing: a
// call, then a return).
func linEdges(w *explore.Witness) (before, missing [][2]model.EventRef) {
	v := w.Violation
	if v.Lin == nil || v.History == nil {
		return nil, nil
	}
	ops := v.History.Ops
	for _, e := range v.History.Order() {
		before = append(before, [2]model.EventRef{ops[e.From].Ret, ops[e.To].Call})
	}
	for _, e := range v.Lin.Missing {
		missing = append(missing, [2]model.EventRef{ops[e.From].Call, ops[e.To].Ret})
	}
	return before, missing
}

// plural writes n and noun, with an s unless n is 1: "1 event", "2 events".
func plural(n int64, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
