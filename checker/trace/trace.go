// Package trace saves a counterexample as data (a Trace: what was
// checked and every choice needed to rebuild the execution), reads it
// back and replays it on the protocol as it is now. docs/trace-format.md
// describes the format.
package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/c"
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
	Threads  []Thread          `json:"threads"`
	// Steps is the order the events were added in: [thread, index] pairs.
	Steps []Pair `json:"steps"`
	// Co gives, per location written, its writes in modification order.
	Co map[string][]Pair `json:"co"`
	// Defines, Includes and Unroll are a C program's -D and -I arguments
	// and loop bound, which the program's text needs to be the program
	// checked.
	Defines  []string `json:"defines,omitempty"`
	Includes []string `json:"includes,omitempty"`
	Unroll   int      `json:"unroll,omitempty"`
	// ProtocolText is the protocol file's text, for a trace of a file, so
	// that it replays where the file is not (another directory, another
	// machine).
	ProtocolText string `json:"protocol_text,omitempty"`
}

// Pair names an event of a trace: [thread, index].
type Pair [2]int32

// UnmarshalJSON reads exactly two integers: a longer or shorter array is
// not an event's name (encoding/json would drop or zero the difference).
func (p *Pair) UnmarshalJSON(b []byte) error {
	var xs []int32
	if err := json.Unmarshal(b, &xs); err != nil {
		return err
	}
	if len(xs) != 2 {
		return fmt.Errorf("an event is [thread, index], not %s", b)
	}
	*p = Pair{xs[0], xs[1]}
	return nil
}

// Format names the trace format version.
const Format = "ordercheck-trace/1"

// Thread is one thread's events.
type Thread struct {
	Name   string  `json:"name"`
	Events []Event `json:"events"`
}

// Event is one event: its kind, location, value, and for a read the
// write it read from ("init" or [thread, index]).
type Event struct {
	Kind     string `json:"kind"` // R, W, F, C, E, S
	Loc      string `json:"loc,omitempty"`
	Value    int64  `json:"value"`
	Rf       *Pair  `json:"rf,omitempty"` // absent: the initial value
	Spurious bool   `json:"spurious,omitempty"`
	// Vals are an operation marker's values: a call's arguments, a
	// return's results, when it has more than Value says.
	Vals []int64 `json:"vals,omitempty"`
	Pos  string  `json:"pos"`
}

// Of records w, a witness of the instance in.
func Of(in *checker.Instance, w *explore.Witness) *Trace {
	t := New(w)
	t.Variant, t.Params, t.Source = in.Variant, in.ParamMap(), in.Protocol.Path
	if in.Protocol.Path != "" {
		t.ProtocolText = in.Protocol.Source
	}
	if opt := in.Protocol.C; opt != nil {
		t.Defines, t.Includes, t.Unroll = opt.Defines, opt.Includes, opt.Unroll
	}
	return t
}

// New records w, a witness of a program that is no protocol's.
func New(w *explore.Witness) *Trace {
	g := w.Graph
	p := g.Prog
	t := &Trace{Format: Format, Protocol: p.Name, Model: w.Model.Name, Property: w.Violation.Prop, Message: w.Violation.Msg, Co: map[string][]Pair{}}
	for ti, evs := range g.Threads {
		th := Thread{Name: p.Threads[ti].Name}
		for i := range evs {
			e := &evs[i]
			te := Event{Kind: e.Kind.String(), Value: e.Val, Spurious: e.Spurious, Pos: p.Threads[ti].Code[e.Instr].Pos.String()}
			if vs := e.Vals(); e.Kind == model.KCall && len(vs) > 0 || len(vs) > 1 {
				te.Vals = vs
			}
			if e.Kind == model.KRead || e.Kind == model.KWrite {
				te.Loc = p.Locs[e.Loc].Name
			}
			if e.Kind == model.KRead && !e.Rf.IsInit() {
				te.Rf = &Pair{e.Rf.T, e.Rf.I}
			}
			th.Events = append(th.Events, te)
		}
		t.Threads = append(t.Threads, th)
	}
	for _, r := range g.Steps() {
		t.Steps = append(t.Steps, Pair{r.T, r.I})
	}
	for l, co := range g.Co {
		for _, w := range co {
			t.Co[p.Locs[l].Name] = append(t.Co[p.Locs[l].Name], Pair{w.T, w.I})
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

// Read reads a trace; Replay validates it.
func Read(r io.Reader) (*Trace, error) {
	var t Trace
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("not an ordercheck trace: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not an ordercheck trace: data after the trace's object")
	}
	if t.Format != Format {
		return nil, fmt.Errorf("trace format %q, expected %q", t.Format, Format)
	}
	return &t, nil
}

// MismatchError says that a trace does not describe an execution of its
// protocol: At names the field or step that does not fit.
type MismatchError struct{ At, Msg string }

func (e *MismatchError) Error() string {
	return "the trace does not fit the protocol: " + e.At + ": " + e.Msg
}

// eventKinds are the kinds of event a trace records.
const eventKinds = "RWFCESBD"

// Validate checks what a trace says of itself, with no protocol: the
// fields every trace has; each event's kind, and a location on reads and
// writes only; each read's write an event of the trace, a write to the
// same location; the steps every event once, each thread's in order,
// each read after its write; each location's modification order exactly
// its writes.
func (t *Trace) Validate() error {
	bad := func(at, format string, args ...any) error { return &MismatchError{at, fmt.Sprintf(format, args...)} }
	switch {
	case t.Protocol == "":
		return bad("protocol", "missing")
	case t.Model == "":
		return bad("model", "missing")
	case t.Property == "":
		return bad("property", "missing: the trace must say which violation it records")
	}
	if _, err := model.Lookup(t.Model); err != nil {
		return bad("model", "%v", err)
	}
	event := func(r [2]int32) (*Event, bool) {
		if r[0] < 0 || int(r[0]) >= len(t.Threads) || r[1] < 0 || int(r[1]) >= len(t.Threads[r[0]].Events) {
			return nil, false
		}
		return &t.Threads[r[0]].Events[r[1]], true
	}
	writes := map[[2]int32]string{}
	for ti, th := range t.Threads {
		for i, e := range th.Events {
			at := fmt.Sprintf("threads[%d].events[%d]", ti, i)
			switch {
			case len(e.Kind) != 1 || !strings.Contains(eventKinds, e.Kind):
				return bad(at+".kind", "%q is not an event kind (%s)", e.Kind, strings.Join(strings.Split(eventKinds, ""), ", "))
			case (e.Kind == "R" || e.Kind == "W") != (e.Loc != ""):
				return bad(at+".loc", "reads and writes have a location, other events none")
			case e.Rf != nil && e.Kind != "R":
				return bad(at+".rf", "only a read reads from a write")
			case e.Spurious && e.Kind != "R":
				return bad(at+".spurious", "only a compare-exchange's read fails spuriously")
			}
			if e.Kind == "W" {
				writes[[2]int32{int32(ti), int32(i)}] = e.Loc
			}
		}
	}
	for ti, th := range t.Threads {
		for i, e := range th.Events {
			if e.Rf == nil {
				continue
			}
			at := fmt.Sprintf("threads[%d].events[%d].rf", ti, i)
			w, ok := event(*e.Rf)
			switch {
			case !ok:
				return bad(at, "%v names no event of the trace", *e.Rf)
			case w.Kind != "W" || w.Loc != e.Loc:
				return bad(at, "%v is not a write of %s", *e.Rf, e.Loc)
			}
		}
	}
	next := make([]int, len(t.Threads)) // each thread's first event not yet in a step
	for k, st := range t.Steps {
		at := fmt.Sprintf("steps[%d]", k)
		e, ok := event(st)
		switch {
		case !ok:
			return bad(at, "%v names no event of the trace", st)
		case int(st[1]) != next[st[0]]:
			return bad(at, "%v out of program order: %s's event %d is next", st, t.Threads[st[0]].Name, next[st[0]])
		case e.Rf != nil && int(e.Rf[1]) >= next[e.Rf[0]]:
			return bad(at, "%v reads from %v, which comes later", st, *e.Rf)
		}
		next[st[0]]++
	}
	for ti, th := range t.Threads {
		if next[ti] != len(th.Events) {
			return bad("steps", "%s's events %d to %d are in no step", th.Name, next[ti], len(th.Events)-1)
		}
	}
	listed := map[[2]int32]bool{}
	for _, loc := range slices.Sorted(maps.Keys(t.Co)) { // the same message for the same trace
		for k, w := range t.Co[loc] {
			at := fmt.Sprintf("co.%s[%d]", loc, k)
			l, ok := writes[w]
			switch {
			case !ok:
				return bad(at, "%v is not a write of the trace", w)
			case l != loc:
				return bad(at, "%v writes %s", w, l)
			case listed[w]:
				return bad(at, "%v is listed twice", w)
			}
			listed[w] = true
		}
	}
	for ti, th := range t.Threads {
		for i, e := range th.Events {
			if w := [2]int32{int32(ti), int32(i)}; e.Kind == "W" && !listed[w] {
				return bad("co."+e.Loc, "the write %v is missing from the modification order", w)
			}
		}
	}
	return nil
}

// Rebuild re-executes the trace's choices on p, deterministically, and
// returns the graph; a *MismatchError when p does not make these events:
// another number or name of threads, another kind, location or value at
// some step, a read of a write the program cannot read there, a choice
// out of range, a spurious failure where no weak compare-exchange read
// its expected value, a thread that has not stopped at its last event.
func (t *Trace) Rebuild(p *model.Program) (*model.Graph, error) {
	if len(t.Threads) != len(p.Threads) {
		return nil, &MismatchError{"threads", fmt.Sprintf("%d threads recorded, the protocol has %d", len(t.Threads), len(p.Threads))}
	}
	g := model.NewGraph(p)
	for ti, th := range t.Threads {
		if th.Name != p.Threads[ti].Name {
			return nil, &MismatchError{fmt.Sprintf("threads[%d].name", ti), fmt.Sprintf("the protocol's thread %d is %s, %s was recorded", ti, p.Threads[ti].Name, th.Name)}
		}
	}
	for k, st := range t.Steps {
		ti := int(st[0])
		at := fmt.Sprintf("steps[%d] (%s's event %d)", k, t.Threads[min(max(ti, 0), len(t.Threads)-1)].Name, st[1])
		if ti < 0 || ti >= len(p.Threads) || int(st[1]) != len(g.Threads[ti]) || int(st[1]) >= len(t.Threads[ti].Events) {
			return nil, &MismatchError{at, "out of program order"}
		}
		rec := t.Threads[ti].Events[st[1]]
		_, a, err := p.Replay(ti, g.Threads[ti])
		if err != nil {
			return nil, &MismatchError{at, err.Error()}
		}
		e, err := rebuildEvent(g, p, ti, &a, rec)
		if err != nil {
			return nil, &MismatchError{at, err.Error()}
		}
		g.Threads[ti] = append(g.Threads[ti], e)
	}
	for ti, th := range t.Threads {
		if len(g.Threads[ti]) != len(th.Events) {
			return nil, &MismatchError{"steps", fmt.Sprintf("%s: %d events rebuilt of %d recorded", th.Name, len(g.Threads[ti]), len(th.Events))}
		}
		st, a, err := p.Replay(ti, g.Threads[ti])
		if err != nil {
			return nil, &MismatchError{fmt.Sprintf("threads[%d]", ti), err.Error()}
		}
		if a.Kind != model.ActNone && st.Status == model.Running {
			return nil, &MismatchError{fmt.Sprintf("threads[%d].events", ti), fmt.Sprintf("%s goes on after its last recorded event (a %v is next): the trace is cut short", th.Name, a.Kind)}
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
			return nil, &MismatchError{"co." + name, "the protocol has no location " + name}
		}
		for k, w := range co {
			ref := model.EventRef{T: w[0], I: w[1]}
			if !writes[ref] || g.Ev(ref).Loc != l {
				return nil, &MismatchError{fmt.Sprintf("co.%s[%d]", name, k), fmt.Sprintf("%v is not a write of %s", w, name)}
			}
			delete(writes, ref)
			g.Co[l] = append(g.Co[l], ref)
		}
	}
	for w := range writes {
		return nil, &MismatchError{"co", fmt.Sprintf("the write %v is missing from the modification order", w)}
	}
	return g, nil
}

func rebuildEvent(g *model.Graph, p *model.Program, t int, a *model.Action, rec Event) (model.Event, error) {
	if a.Kind == model.ActNone {
		return model.Event{}, fmt.Errorf("the thread has stopped, a %s event was recorded", rec.Kind)
	}
	if a.Loc != model.NoLoc && (rec.Kind == "R" || rec.Kind == "W") && p.Locs[a.Loc].Name != rec.Loc {
		return model.Event{}, fmt.Errorf("it accesses %s, %s was recorded", p.Locs[a.Loc].Name, rec.Loc)
	}
	value := func(e model.Event) (model.Event, error) {
		if (rec.Kind == "R" || rec.Kind == "W" || rec.Kind == "C") && rec.Value != e.Val {
			return model.Event{}, fmt.Errorf("the %s has the value %s, %s was recorded", map[string]string{"R": "read", "W": "write", "C": "choice"}[rec.Kind], p.FormatValue(e.Val), p.FormatValue(rec.Value))
		}
		if rec.Vals != nil && !slices.Equal(rec.Vals, e.Vals()) {
			return model.Event{}, fmt.Errorf("the operation's values are %v, %v was recorded", e.Vals(), rec.Vals)
		}
		return e, nil
	}
	switch {
	case a.Pending:
		if rec.Kind != "W" {
			return model.Event{}, fmt.Errorf("an RMW's write is next, %s was recorded", rec.Kind)
		}
		e, _ := g.PendingWrite(t, a)
		return value(e)
	case a.IsReadAction():
		if rec.Kind != "R" {
			return model.Event{}, fmt.Errorf("a read is next, %s was recorded", rec.Kind)
		}
		w := model.InitRef(a.Loc)
		if rec.Rf != nil {
			w = model.EventRef{T: rec.Rf[0], I: rec.Rf[1]}
			if w.T < 0 || w.I < 0 || int(w.T) >= len(g.Threads) || int(w.I) >= len(g.Threads[w.T]) || g.Ev(w).Kind != model.KWrite || g.Ev(w).Loc != a.Loc {
				return model.Event{}, fmt.Errorf("it reads from %v, which is not an earlier write of %s", *rec.Rf, p.Locs[a.Loc].Name)
			}
		}
		v := g.WriteValue(w)
		if rec.Spurious && !(a.Kind == model.ActCAS && a.Weak && v == a.Expected) {
			return model.Event{}, fmt.Errorf("a spurious failure was recorded where no weak compare-exchange read its expected value")
		}
		e, _, _ := a.ReadEvent(w, v, rec.Spurious)
		return value(e)
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
	return value(e)
}

// Replayed is a trace replayed on its protocol.
type Replayed struct {
	Instance *checker.Instance
	Model    *model.Model
	// From says which protocol text was replayed: the file the trace
	// names, or the text the trace carries.
	From string
	// Witness is the violation the execution still shows; nil when it no
	// longer does, and Reason says why.
	Witness *explore.Witness
	Reason  string
}

// Verdict is violated when the replayed execution still violates the
// trace's property, else verified.
func (r *Replayed) Verdict() checker.Verdict {
	if r.Witness != nil {
		return checker.VerdictViolated
	}
	return checker.VerdictVerified
}

// ReplayFile reads the trace in the file at path (Read) and replays
// it (Replay); its errors name the file.
func ReplayFile(path string, cat checker.Catalogue) (*Trace, *Replayed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	t, err := Read(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	r, err := Replay(t, cat)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, r, nil
}

// Replay rebuilds a trace's execution on its protocol, deterministically,
// and judges it again under the trace's model. The protocol is cat's for
// a trace of a catalogue protocol (cat may be nil for other traces), or
// the file the trace names when it can be read (so that a replay says
// whether the protocol as it is now still fails), else the protocol text
// the trace carries. An error says that the trace does not
// fit the protocol (a *MismatchError) or names what does not exist; only
// a trace of an execution the protocol makes gets a verdict.
func Replay(t *Trace, cat checker.Catalogue) (*Replayed, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	pr, from, err := t.load(cat)
	if err != nil {
		return nil, err
	}
	if pr.File.Name != t.Protocol && t.Source == "" {
		return nil, &MismatchError{"protocol", fmt.Sprintf("the trace names %s, the protocol is %s", t.Protocol, pr.File.Name)}
	}
	if err := pr.HasProp(t.Property); err != nil {
		return nil, &MismatchError{"property", err.Error()}
	}
	if t.Variant == "" && len(pr.File.Variants) > 0 {
		return nil, &MismatchError{"variant", fmt.Sprintf("missing: protocol %s has variants", pr.File.Name)}
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
	w, reason, err := t.Judge(g, m, checker.Properties(pr.SeqSpec(), t.Property))
	if err != nil {
		return nil, err
	}
	return &Replayed{Instance: inst, Model: m, From: from, Witness: w, Reason: reason}, nil
}

// load finds the trace's protocol: cat's; the file it names, when that is
// a readable regular file; else the text it carries.
func (t *Trace) load(cat checker.Catalogue) (*checker.Protocol, string, error) {
	if t.Source == "" {
		if cat == nil {
			return nil, "", fmt.Errorf("the trace is of the catalogue protocol %s, and no catalogue was given to replay it", t.Protocol)
		}
		pr, err := cat(t.Protocol)
		return pr, "the catalogue's " + t.Protocol, err
	}
	isC := strings.HasSuffix(t.Source, ".c")
	opt := c.Options{Defines: t.Defines, Includes: t.Includes, Unroll: t.Unroll}
	if st, err := os.Stat(t.Source); err == nil && st.Mode().IsRegular() {
		var pr *checker.Protocol
		if isC {
			pr, err = checker.LoadC(t.Source, opt)
		} else {
			pr, err = checker.Load(t.Source)
		}
		return pr, "the file " + t.Source, err
	} else if t.ProtocolText == "" {
		return nil, "", fmt.Errorf("the protocol file %s: %v (and the trace carries no protocol text)", t.Source, err)
	}
	from := "the protocol text in the trace (" + t.Source + " is not here)"
	if isC {
		pr, err := checker.ParseC(t.Source, t.ProtocolText, opt)
		return pr, from, err
	}
	pr, err := checker.Parse(t.Source, t.ProtocolText)
	return pr, from, err
}

// Judge judges a rebuilt execution under m on props, which include the
// trace's property. It returns the violation of that property when the
// execution still shows it, and otherwise the reason it does not.
func (t *Trace) Judge(g *model.Graph, m *model.Model, props []checker.Property) (*explore.Witness, string, error) {
	if ax := m.Check(model.NewExec(g)); ax != "" {
		return nil, fmt.Sprintf("%s no longer allows this execution (it violates the axiom %s)", m.Name, ax), nil
	}
	e, err := engine.NewExecution(g, m, t.Property == checker.PropDataRace)
	if err != nil {
		return nil, "", err
	}
	if e == nil {
		return nil, "", &MismatchError{"steps", "a thread waits for a lock that is released later: not an execution"}
	}
	for _, v := range checker.Judge(e, props) {
		if v.Prop == t.Property {
			return &explore.Witness{Execution: e, Violation: v}, "", nil
		}
	}
	return nil, fmt.Sprintf("the execution no longer violates %s", t.Property), nil
}
