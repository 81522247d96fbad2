package checker

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ordercheck/ordercheck/model"
)

// Trace is a counterexample as data: what was checked and every choice
// needed to rebuild the execution. docs/trace-format.md describes it.
type Trace struct {
	Format   string            `json:"format"` // "ordercheck-trace/1"
	Protocol string            `json:"protocol"`
	Source   string            `json:"source,omitempty"` // the protocol file, when not a catalogue protocol
	Variant  string            `json:"variant"`
	Params   map[string]string `json:"params"`
	Model    string            `json:"model"`
	Property string            `json:"property"`
	Message  string            `json:"message"`
	Threads  []TraceThread     `json:"threads"`
	// Steps is the order the events were added in: [thread, index] pairs.
	Steps [][2]int32 `json:"steps"`
	// Co gives, per location written, its writes in modification order.
	Co map[string][][2]int32 `json:"co"`
}

// TraceFormat names the trace format version.
const TraceFormat = "ordercheck-trace/1"

// TraceThread is one thread's events.
type TraceThread struct {
	Name   string       `json:"name"`
	Events []TraceEvent `json:"events"`
}

// TraceEvent is one event: its kind, location, value, and for a read the
// write it read from ("init" or [thread, index]).
type TraceEvent struct {
	Kind     string    `json:"kind"` // R, W, F, C, E, S
	Loc      string    `json:"loc,omitempty"`
	Value    int64     `json:"value"`
	Rf       *[2]int32 `json:"rf,omitempty"` // absent: the initial value
	Spurious bool      `json:"spurious,omitempty"`
	Pos      string    `json:"pos"`
}

// Trace records w, a witness of the instance.
func (in *Instance) Trace(w *Witness) *Trace {
	t := NewTrace(w)
	t.Variant, t.Params, t.Source = in.Variant, in.ParamMap(), in.Protocol.Path
	return t
}

// NewTrace records w, a witness of a program that is no protocol's.
func NewTrace(w *Witness) *Trace {
	g := w.Graph
	p := g.Prog
	t := &Trace{Format: TraceFormat, Protocol: p.Name, Model: w.Model.Name, Property: w.Violation.Prop, Message: w.Violation.Msg, Co: map[string][][2]int32{}}
	for ti, evs := range g.Threads {
		th := TraceThread{Name: p.Threads[ti].Name}
		for i := range evs {
			e := &evs[i]
			te := TraceEvent{Kind: e.Kind.String(), Value: e.Val, Spurious: e.Spurious, Pos: p.Threads[ti].Code[e.Instr].Pos.String()}
			if e.Kind == model.KRead || e.Kind == model.KWrite {
				te.Loc = p.Locs[e.Loc].Name
			}
			if e.Kind == model.KRead && !e.Rf.IsInit() {
				te.Rf = &[2]int32{e.Rf.T, e.Rf.I}
			}
			th.Events = append(th.Events, te)
		}
		t.Threads = append(t.Threads, th)
	}
	for _, r := range g.Steps() {
		t.Steps = append(t.Steps, [2]int32{r.T, r.I})
	}
	for l, co := range g.Co {
		for _, w := range co {
			t.Co[p.Locs[l].Name] = append(t.Co[p.Locs[l].Name], [2]int32{w.T, w.I})
		}
	}
	return t
}

// WriteJSON writes the trace.
func (t *Trace) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

// ReadTrace reads a trace.
func ReadTrace(r io.Reader) (*Trace, error) {
	var t Trace
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("not an ordercheck trace: %v", err)
	}
	if t.Format != TraceFormat {
		return nil, fmt.Errorf("trace format %q, expected %q", t.Format, TraceFormat)
	}
	return &t, nil
}

// MismatchError says that a trace does not fit the program any more.
type MismatchError struct{ Msg string }

func (e *MismatchError) Error() string { return "the trace does not fit the protocol: " + e.Msg }

// Rebuild re-executes the trace's choices on p, deterministically, and
// returns the graph; a *MismatchError when p no longer makes these events.
func (t *Trace) Rebuild(p *model.Program) (*model.Graph, error) {
	bad := func(format string, args ...any) error { return &MismatchError{fmt.Sprintf(format, args...)} }
	if len(t.Threads) != len(p.Threads) {
		return nil, bad("%d threads recorded, the protocol has %d", len(t.Threads), len(p.Threads))
	}
	g := model.NewGraph(p)
	for ti, th := range t.Threads {
		if th.Name != p.Threads[ti].Name {
			return nil, bad("thread %d is %s, recorded %s", ti, p.Threads[ti].Name, th.Name)
		}
	}
	for _, st := range t.Steps {
		ti := int(st[0])
		if ti < 0 || ti >= len(p.Threads) || int(st[1]) != len(g.Threads[ti]) || int(st[1]) >= len(t.Threads[ti].Events) {
			return nil, bad("step %v is out of order", st)
		}
		rec := t.Threads[ti].Events[st[1]]
		_, a, err := p.Replay(ti, g.Threads[ti])
		if err != nil {
			return nil, err
		}
		e, err := rebuildEvent(g, p, ti, &a, rec)
		if err != nil {
			return nil, bad("%s, event %d: %v", p.Threads[ti].Name, st[1], err)
		}
		g.Threads[ti] = append(g.Threads[ti], e)
	}
	for ti, th := range t.Threads {
		if len(g.Threads[ti]) != len(th.Events) {
			return nil, bad("%s: %d events rebuilt of %d recorded", th.Name, len(g.Threads[ti]), len(th.Events))
		}
	}
	writes := map[model.EventRef]bool{}
	for ti, evs := range g.Threads {
		for i := range evs {
			if evs[i].Kind == model.KWrite {
				writes[model.EventRef{T: int32(ti), I: int32(i)}] = true
			}
		}
	}
	for name, co := range t.Co {
		l := p.LocIndex(name)
		if l == model.NoLoc {
			return nil, bad("unknown location %s", name)
		}
		for _, w := range co {
			ref := model.EventRef{T: w[0], I: w[1]}
			if !writes[ref] || g.Ev(ref).Loc != l {
				return nil, bad("%v is not a write of %s", w, name)
			}
			delete(writes, ref)
			g.Co[l] = append(g.Co[l], ref)
		}
	}
	if len(writes) > 0 {
		return nil, bad("%d writes missing from the modification order", len(writes))
	}
	return g, nil
}

func rebuildEvent(g *model.Graph, p *model.Program, t int, a *model.Action, rec TraceEvent) (model.Event, error) {
	if a.Kind == model.ActNone {
		return model.Event{}, fmt.Errorf("the thread has stopped, a %s event was recorded", rec.Kind)
	}
	if a.Loc != model.NoLoc && rec.Loc != "" && p.Locs[a.Loc].Name != rec.Loc {
		return model.Event{}, fmt.Errorf("it accesses %s, %s was recorded", p.Locs[a.Loc].Name, rec.Loc)
	}
	switch {
	case a.Pending:
		if rec.Kind != "W" {
			return model.Event{}, fmt.Errorf("an RMW's write is next, %s was recorded", rec.Kind)
		}
		e, _ := g.PendingWrite(t, a)
		return e, nil
	case a.IsReadAction():
		if rec.Kind != "R" {
			return model.Event{}, fmt.Errorf("a read is next, %s was recorded", rec.Kind)
		}
		w := model.InitRef(a.Loc)
		if rec.Rf != nil {
			w = model.EventRef{T: rec.Rf[0], I: rec.Rf[1]}
			if int(w.T) >= len(g.Threads) || int(w.I) >= len(g.Threads[w.T]) || g.Ev(w).Kind != model.KWrite || g.Ev(w).Loc != a.Loc {
				return model.Event{}, fmt.Errorf("it reads from %v, which is not an earlier write of %s", *rec.Rf, p.Locs[a.Loc].Name)
			}
		}
		e, _, _ := a.ReadEvent(w, g.WriteValue(w), rec.Spurious)
		return e, nil
	case a.Kind == model.ActChoose:
		if rec.Kind != "C" || rec.Value < 0 || rec.Value >= int64(a.N) {
			return model.Event{}, fmt.Errorf("a choice among %d is next, %s=%d was recorded", a.N, rec.Kind, rec.Value)
		}
		e := a.SimpleEvent()
		e.Val = rec.Value
		return e, nil
	}
	e := a.SimpleEvent()
	if e.Kind.String() != rec.Kind {
		return model.Event{}, fmt.Errorf("a %s event is next, %s was recorded", e.Kind, rec.Kind)
	}
	return e, nil
}

// Replayed is a trace replayed on its protocol.
type Replayed struct {
	Instance *Instance
	Model    *model.Model
	// Witness is the violation the execution still shows; nil when it no
	// longer does, and Reason says why.
	Witness *Witness
	Reason  string
}

// Replay rebuilds a trace's execution on its protocol (the catalogue's, or
// the file it names), deterministically, and judges it again under the
// trace's model. An error says that the trace does not fit the protocol
// (a *MismatchError) or names what does not exist.
func Replay(t *Trace) (*Replayed, error) {
	src := t.Source
	if src == "" {
		src = t.Protocol
	}
	pr, err := Load(src)
	if err != nil {
		return nil, err
	}
	m, err := model.Lookup(t.Model)
	if err != nil {
		return nil, err
	}
	inst, err := pr.Instance(t.Variant, t.Params)
	if err != nil {
		return nil, err
	}
	g, err := t.Rebuild(inst.Prog)
	if err != nil {
		return nil, err
	}
	w, reason, err := t.Judge(g, m, Properties(pr.Spec, t.Property))
	if err != nil {
		return nil, err
	}
	return &Replayed{Instance: inst, Model: m, Witness: w, Reason: reason}, nil
}

// Judge judges a rebuilt execution under m on props, which include the
// trace's property. It returns the violation of that property when the
// execution still shows it, and otherwise the reason it does not.
func (t *Trace) Judge(g *model.Graph, m *model.Model, props []Property) (*Witness, string, error) {
	if ax := m.Check(model.NewExec(g)); ax != "" {
		return nil, fmt.Sprintf("%s no longer allows this execution (it violates the axiom %s)", m.Name, ax), nil
	}
	e, err := NewExecution(g, m, t.Property == PropDataRace)
	if err != nil {
		return nil, "", err
	}
	if e == nil {
		return nil, "a thread now waits for a lock that is released later: not an execution", nil
	}
	for _, v := range Judge(e, props) {
		if v.Prop == t.Property {
			return &Witness{Execution: e, Violation: v}, "", nil
		}
	}
	return nil, fmt.Sprintf("the execution no longer violates %s", t.Property), nil
}
