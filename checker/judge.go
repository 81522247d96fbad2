package checker

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/checker/internal/states"
	"github.com/ordercheck/ordercheck/model"
)

// Property is something every execution of a program must satisfy. The
// judge asks each property about each outcome of an exploration.
type Property interface {
	// Name is the property's name, as protocols and reports call it.
	Name() string
	// Judge says whether outcome o checks the property at all and, when
	// o violates it, how.
	Judge(o *explore.Outcome) (checked bool, v *explore.Violation)
}

// Needs is what a property asks of an exploration beyond each execution's
// events and final state. The engines record what some property needs
// and nothing else: a property that reads Outcome.Races or
// Outcome.History declares it (Needer), or sees none.
type Needs struct {
	// Races asks for each execution's data races (Outcome.Races).
	Races bool
	// Spec asks for each execution's history of operations
	// (Outcome.History), judged against this sequential specification.
	Spec model.Spec
	// Blocked says the property is about blocked executions (as a
	// deadlock is), so that one holding when every execution blocks
	// holds for real, not vacuously.
	Blocked bool
	// Unchecked, when set, says why the property cannot be checked at
	// all: its verdict is unknown, with this reason.
	Unchecked string
}

// Needer is a Property that needs more than events and final states.
type Needer interface {
	Needs() Needs
}

// needsOf is what property p declares it needs.
func needsOf(p Property) Needs {
	if n, ok := p.(Needer); ok {
		return n.Needs()
	}
	return Needs{}
}

// The built-in properties' names; every other property is checked by the
// program's assertions and final checks that carry its name.
const (
	PropDataRace        = "data-race"
	PropDeadlock        = "deadlock"
	PropLinearizability = engine.Linearizability
)

// DataRace is the property that no execution has a data race: two
// accesses to one location from different threads, at least one a write
// and one plain, unordered by happens-before (C11's, or the model's own).
var DataRace Property = dataRace{}

// Deadlock is the property that no execution ends with a thread waiting
// forever: for a mutex (held by another blocked thread, or by itself), or
// at an await whose condition the final memory leaves false. A thread
// stopped by an assume is not waiting: an assume prunes the executions
// where its condition is false, as GenMC's spin-loop assumptions do.
var Deadlock Property = deadlock{}

// Assertion returns the property checked by the program's assertions and
// final checks named name: none fails.
func Assertion(name string) Property { return assertion(name) }

// Linearizability returns the property that every execution's history of
// operations linearizes to the sequential specification spec
// (model.Linearize): some order of the operations that extends
// happens-before gives each its results and promises no synchronisation
// the execution lacks. With a nil spec it checks nothing, and its verdict
// is unknown.
func Linearizability(spec model.Spec) Property {
	return &linearizability{spec: spec, memo: map[string]*explore.Violation{}}
}

// Properties returns the properties called names: the built-in data-race,
// deadlock and linearizability (against spec, which may be nil), and, for
// every other name, the assertions and final checks that carry it.
func Properties(spec model.Spec, names ...string) []Property {
	out := make([]Property, len(names))
	for i, n := range names {
		switch n {
		case PropDataRace:
			out[i] = DataRace
		case PropDeadlock:
			out[i] = Deadlock
		case PropLinearizability:
			out[i] = Linearizability(spec)
		default:
			out[i] = Assertion(n)
		}
	}
	return out
}

type dataRace struct{}

func (dataRace) Name() string { return PropDataRace }

func (dataRace) Needs() Needs { return Needs{Races: true} }

func (dataRace) Judge(o *explore.Outcome) (bool, *explore.Violation) {
	if len(o.Races) == 0 {
		return o.End, nil
	}
	r := o.Races[0]
	v := &explore.Violation{Prop: PropDataRace}
	if o.Graph != nil {
		v.Msg, v.Anchors = describeRace(o.Graph, r), []model.EventRef{r[0], r[1]}
	}
	return true, v
}

func describeRace(g *model.Graph, r [2]model.EventRef) string {
	p := g.Prog
	access := func(ref model.EventRef) string {
		ev := g.Ev(ref)
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
	return fmt.Sprintf("%s and %s, unordered by happens-before", access(r[0]), access(r[1]))
}

type deadlock struct{}

func (deadlock) Name() string { return PropDeadlock }

func (deadlock) Needs() Needs { return Needs{Blocked: true} }

func (deadlock) Judge(o *explore.Outcome) (bool, *explore.Violation) {
	if !o.End {
		return false, nil
	}
	if o.Prog.Aborted(o.Threads) {
		return true, nil // the program aborted: nothing waits forever
	}
	for t := range o.Threads {
		if spinsOn(o, t) || assumedAway(o, t) {
			return false, nil
		}
	}
	var v *explore.Violation
	for t := range o.Threads {
		if !waitsForever(o, t) {
			continue
		}
		if v == nil {
			v = &explore.Violation{Prop: PropDeadlock}
			if o.Graph != nil {
				v.Msg = describeDeadlock(o, t)
			}
		}
		if o.Graph != nil && len(o.Graph.Threads[t]) > 0 {
			v.Anchors = append(v.Anchors, model.EventRef{T: int32(t), I: int32(len(o.Graph.Threads[t]) - 1)})
		}
	}
	return true, v
}

// waitsForever reports whether thread t ends o waiting forever: for a
// mutex, or at an await the final memory does not satisfy.
func waitsForever(o *explore.Outcome, t int) bool {
	st := &o.Threads[t]
	return st.Status == model.Blocked && (st.WaitLoc != model.NoLoc || o.Prog.Hopeless(t, st, o.Final.Mem))
}

// assumedAway reports whether thread t ends o stopped by an assume whose
// condition is false: the execution is pruned, and a thread that waits for
// t (to join it, for a value it would write) waits for nothing the program
// runs — no deadlock, as GenMC blocks such an execution.
func assumedAway(o *explore.Outcome, t int) bool {
	st := &o.Threads[t]
	code := o.Prog.Threads[t].Code
	return st.Status == model.Blocked && st.WaitLoc == model.NoLoc && st.PC < len(code) &&
		code[st.PC].Op == model.OpAssume && !code[st.PC].Await
}

// spinsOn reports whether thread t ends o blocked at an await the final
// memory would let it pass: its last round read values older than the
// final ones, so o is an unfinished spin, not an end; the execution in
// which that round reads the newer values goes on. Another thread that
// waits forever in o (say, for t to finish) is judged there.
func spinsOn(o *explore.Outcome, t int) bool {
	st := &o.Threads[t]
	if st.Status != model.Blocked || st.WaitLoc != model.NoLoc || st.PC >= len(o.Prog.Threads[t].Code) {
		return false
	}
	return o.Prog.Threads[t].Code[st.PC].Await && !o.Prog.Hopeless(t, st, o.Final.Mem)
}

func describeDeadlock(o *explore.Outcome, t int) string {
	g := o.Graph
	p := g.Prog
	if m := o.Threads[t].WaitLoc; m != model.NoLoc {
		if owner, ok := g.LockHolder(m); ok && owner == t {
			return fmt.Sprintf("%s locks %s, which it already holds (self-deadlock on a non-recursive mutex)", p.Threads[t].Name, p.Locs[m].Name)
		}
	}
	var waits []string
	for u := range o.Threads {
		if !waitsForever(o, u) {
			continue
		}
		if m := o.Threads[u].WaitLoc; m != model.NoLoc {
			waits = append(waits, fmt.Sprintf("%s waits for %s held by %s", p.Threads[u].Name, p.Locs[m].Name, g.HolderName(m)))
		} else {
			in := &p.Threads[u].Code[o.Threads[u].PC]
			waits = append(waits, fmt.Sprintf("%s waits at the await of %s, which the final memory leaves false", p.Threads[u].Name, in.Pos))
		}
	}
	return strings.Join(waits, "; ")
}

type assertion string

func (a assertion) Name() string { return string(a) }

func (a assertion) Judge(o *explore.Outcome) (bool, *explore.Violation) {
	p := o.Prog
	prop := string(a)
	checked := false
	for _, s := range o.Asserted {
		checked = checked || p.Threads[s.Thread].Code[s.Instr].Prop == prop
	}
	for _, s := range o.Failed {
		in := &p.Threads[s.Thread].Code[s.Instr]
		if in.Prop != prop {
			continue
		}
		v := &explore.Violation{Prop: prop, Msg: fmt.Sprintf("%s: %s (%s)", p.Threads[s.Thread].Name, in.Msg, in.Pos)}
		if o.Graph != nil {
			v.Anchors = []model.EventRef{{T: int32(s.Thread), I: int32(len(o.Graph.Threads[s.Thread]) - 1)}}
		}
		return true, v
	}
	if !o.End || !finished(o.Threads) {
		return checked, nil
	}
	for _, c := range p.Checks {
		if c.Prop != prop {
			continue
		}
		checked = true
		if !c.Cond.Eval(&o.Final) {
			msg := c.Msg
			if c.Pos != (model.Pos{}) { // a check the front end made has none
				msg = fmt.Sprintf("%s (%s)", c.Msg, c.Pos)
			}
			return true, &explore.Violation{Prop: prop, Msg: msg}
		}
	}
	return checked, nil
}

// finished reports whether every thread ran to its end (or never started).
func finished(threads []model.ThreadState) bool {
	for _, st := range threads {
		if st.Status != model.Done && st.Status != model.Unborn {
			return false
		}
	}
	return true
}

type linearizability struct {
	spec model.Spec
	mu   sync.Mutex
	memo map[string]*explore.Violation // histories judged (History.Key): how they violate, or nil
}

func (l *linearizability) Name() string { return PropLinearizability }

func (l *linearizability) Needs() Needs {
	if l.spec == nil {
		return Needs{Unchecked: "the protocol has no sequential specification to check histories against"}
	}
	return Needs{Spec: l.spec}
}

func (l *linearizability) Judge(o *explore.Outcome) (bool, *explore.Violation) {
	switch {
	case l.spec == nil || !o.End && o.History == nil:
		return false, nil
	case o.History == nil:
		return true, nil // operations judged one at a time, each when it returned
	}
	key := o.History.Key()
	l.mu.Lock()
	v, ok := l.memo[key]
	l.mu.Unlock()
	if !ok {
		v = linViolation(o.Prog, l.spec, o.History)
		l.mu.Lock()
		l.memo[key] = v
		l.mu.Unlock()
	}
	if v == nil {
		return true, nil
	}
	c := *v
	c.History, c.Anchors = o.History, linAnchors(o.History, c.Lin)
	return true, &c
}

// judgeWith returns the judge of props.
func judgeWith(props []Property) engine.Judge {
	return func(o *explore.Outcome, checked func(string)) []explore.Violation {
		var out []explore.Violation
		for _, p := range props {
			c, v := p.Judge(o)
			if c {
				checked(p.Name())
			}
			if v != nil {
				out = append(out, *v)
			}
		}
		return out
	}
}

// Judge returns the violations of props that one execution shows, at most
// one per property.
func Judge(e *explore.Execution, props []Property) []explore.Violation {
	_, spec := needs(props)
	if spec != nil && e.History == nil {
		e.History = e.Model.HistoryOf(e.Graph, nil)
	}
	return judgeWith(props)(e.Outcome(), func(string) {})
}

// needs says what the engines must record for props: data races, and the
// histories of operations for a specification.
func needs(props []Property) (races bool, spec model.Spec) {
	for _, p := range props {
		n := needsOf(p)
		races = races || n.Races
		if spec == nil {
			spec = n.Spec
		}
	}
	return races, spec
}

// Status is a property's verdict.
type Status uint8

// Property verdicts.
const (
	Holds    Status = iota
	Violated        // some execution violates it
	Unknown         // a bound cut the search before a violation was found
)

var statusNames = [...]string{"holds", "violated", "unknown"}

func (s Status) String() string { return statusNames[s] }

// MarshalText writes the status as its name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status from its name.
func (s *Status) UnmarshalText(b []byte) error {
	i := slices.Index(statusNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("unknown status %q", b)
	}
	*s = Status(i)
	return nil
}

// PropResult is the verdict on one property.
type PropResult struct {
	Name string
	// Model is the model the property was judged under, when it is not
	// the report's: data races are judged under C11 whatever the model
	// (see model.Model.RaceModel). Stats and Engine are then that
	// exploration's.
	Model  *model.Model
	Stats  *explore.Stats
	Engine explore.Engine
	Status Status
	// Message explains a violation, or qualifies a verdict (vacuous holds).
	Message string
	// Vacuous marks a property that holds only because no execution could
	// violate it: every execution blocks first, or none reaches a check.
	Vacuous bool
	// Violations counts the executions (or, by states, the steps and final
	// states) that violate the property; Reached those that checked it.
	Violations, Reached int64
	// Witness is a shortest violating execution: by graphs, fewest events
	// in the violation's causal cone, then fewest threads; by states, a
	// shortest path.
	Witness *explore.Witness
}

// Verdict summarises a check.
type Verdict uint8

// The verdicts: a property is violated; the search was exhaustive and
// nothing is violated; or a bound (or the clock) cut it short: no
// verdict.
const (
	VerdictVerified Verdict = iota
	VerdictViolated
	VerdictBounded
	VerdictTimeout
)

var verdictNames = [...]string{"verified", "violated", "bounded", "timeout"}

func (v Verdict) String() string { return verdictNames[v] }

// Report is the result of checking a program's properties under a model.
type Report struct {
	Model *model.Model
	// Engine is the engine that explored.
	Engine explore.Engine
	// Via, when set, is the model the program was explored under instead
	// of Model, whose executions of it are exactly Via's: under C11 a
	// program whose atomics are all seq_cst and whose SC executions have
	// no data race has only SC executions (DRF-SC), which the state
	// explorer explores where RC11's seq_cst has no operational form.
	Via   *model.Model
	Props []PropResult
	Stats explore.Stats
}

// Verdict summarises the report.
func (r *Report) Verdict() Verdict {
	for _, p := range r.Props {
		if p.Status == Violated {
			return VerdictViolated
		}
	}
	switch r.Stats.Limit {
	case explore.NoLimit:
		return VerdictVerified
	case explore.Timeout, explore.Interrupted:
		return VerdictTimeout
	}
	return VerdictBounded
}

// VerdictText is the verdict in words, with the preemption bound of a
// bounded one ("bounded(2)"), and "interrupted" for a run stopped by its
// context (Ctrl-C), which Verdict counts as a timeout.
func (r *Report) VerdictText() string {
	v := r.Verdict()
	switch {
	case v == VerdictBounded && r.Stats.Limit == explore.PreemptionBound:
		return fmt.Sprintf("bounded(%d)", r.Stats.PreemptionBound)
	case v == VerdictTimeout && r.Stats.Limit == explore.Interrupted:
		return "interrupted"
	}
	return v.String()
}

// Witness returns the counterexample of property prop, or of the first
// violated property when prop is ""; nil when there is none.
func (r *Report) Witness(prop string) *explore.Witness {
	for _, p := range r.Props {
		if p.Witness != nil && (prop == "" || p.Name == prop) {
			return p.Witness
		}
	}
	return nil
}

// Check explores p under m and judges props. Data races are judged under
// C11 whatever m is (model.Model.RaceModel): under a model that is not
// C11's, DataRace is judged in an exploration of its own under C11, and
// its result says so (PropResult.Model).
func Check(p *model.Program, m *model.Model, props []Property, opt explore.Options) (*Report, error) {
	return checkRaces(p, m, props, engine.Config{Options: opt}, nil)
}

// RaceVerdicts carries the data-race verdicts of one program between its
// checks under several models: every model that is not C11's asks C11
// the same question (Model.RaceModel), answered once. The zero value is
// ready; Check is Check sharing them. Each check reports what checking it
// alone does, whatever else was checked: only what such a check computes
// alone (an exploration under C11 judging races and nothing else) is
// kept.
type RaceVerdicts struct {
	m map[*model.Model]PropResult
}

// Check checks p under m as the package's Check does, taking the race
// verdict of a model that is not C11's from rv when it is there and
// leaving it there. rv is for one program.
func (rv *RaceVerdicts) Check(p *model.Program, m *model.Model, props []Property, opt explore.Options) (*Report, error) {
	if rv.m == nil {
		rv.m = map[*model.Model]PropResult{}
	}
	return checkRaces(p, m, props, engine.Config{Options: opt}, rv.m)
}

// checkRaces is Check, taking the race verdict of a model that is not
// C11's from memo when it is there and leaving it there (memo may be
// nil: RaceVerdicts).
func checkRaces(p *model.Program, m *model.Model, props []Property, opt engine.Config, memo map[*model.Model]PropResult) (*Report, error) {
	i := slices.IndexFunc(props, func(pr Property) bool { _, ok := pr.(dataRace); return ok })
	rm := m.RaceModel(p)
	if i < 0 || rm == m {
		return check(p, m, props, opt)
	}
	// The timeout bounds the whole check, races included.
	var deadline time.Time
	if opt.Timeout > 0 {
		deadline = time.Now().Add(opt.Timeout)
	}
	rest := slices.Delete(slices.Clone(props), i, i+1)
	rep, err := check(p, m, rest, opt)
	if err != nil {
		return nil, err
	}
	pr, known := memo[rm]
	if !known {
		// The engine asked for is the one for m; under C11 races go by the
		// engine that applies there.
		ropt := opt
		if !deadline.IsZero() {
			ropt.Timeout = max(time.Until(deadline), time.Nanosecond)
		}
		if _, err := engineFor(p, rm, ropt.Options); err != nil {
			ropt.Engine = explore.EngineAuto
		}
		races, err := check(p, rm, props[i:i+1], ropt)
		if err != nil {
			return nil, fmt.Errorf("data races, judged under %s: %w", rm.Name, err)
		}
		pr = races.Props[0]
		pr.Stats, pr.Engine = &races.Stats, races.Engine
		rep.Stats.Elapsed += races.Stats.Elapsed
		if memo != nil && pr.Stats.Limit != explore.Timeout && pr.Stats.Limit != explore.Interrupted {
			// A verdict the shared deadline or a cancellation cut is
			// this cell's alone.
			memo[rm] = pr
		}
	}
	pr.Model = rm
	rep.Props = slices.Insert(rep.Props, i, pr)
	if rep.Stats.Limit == explore.NoLimit {
		rep.Stats.Limit, rep.Stats.PreemptionBound = pr.Stats.Limit, pr.Stats.PreemptionBound
	}
	return rep, nil
}

// check explores p under m and judges props, all under m: by DRF-SC when
// that applies, else by the engine for m, within what is left of the
// time an sc run DRF-SC set aside took (which the report counts).
func check(p *model.Program, m *model.Model, props []Property, opt engine.Config) (*Report, error) {
	if opt.Context != nil && opt.Context.Err() != nil {
		// Interrupted before it began: no analysis for a search that
		// would stop at its first step (a test run's remaining cells).
		eng, err := engineFor(p, m, opt.Options)
		if err != nil {
			return nil, err
		}
		rep := newReport(m, eng, props)
		rep.Stats.Limit = explore.Interrupted
		rep.settle(p, false, props)
		return rep, nil
	}
	start := time.Now()
	if rep, err := checkDRF(p, m, props, opt); rep != nil || err != nil {
		return rep, err
	}
	spent := time.Since(start)
	if opt.Timeout > 0 {
		opt.Timeout = max(opt.Timeout-spent, time.Nanosecond)
	}
	rep, err := byEngine(p, m, props, opt)
	if rep != nil {
		rep.Stats.Elapsed += spent
	}
	return rep, err
}

// byEngine explores p under m by the engine for m and judges props.
func byEngine(p *model.Program, m *model.Model, props []Property, opt engine.Config) (*Report, error) {
	eng, err := engineFor(p, m, opt.Options)
	if err != nil {
		return nil, err
	}
	rep := newReport(m, eng, props)
	var spec model.Spec
	opt.Races, spec = needs(props)
	if eng == explore.EngineStates {
		cfg, err := statesConfig(m, props, opt, spec)
		if err != nil {
			return nil, err
		}
		res, err := states.Check(p, m, cfg)
		if err != nil {
			return nil, err
		}
		rep.Stats = res.Stats
		for k := range rep.Props {
			pr := &rep.Props[k]
			if res.Checked[pr.Name] {
				pr.Reached = 1
			}
			if f := res.Found[pr.Name]; f != nil {
				pr.Violations, pr.Witness, pr.Message = f.Count, f.Witness, f.Witness.Violation.Msg
			}
		}
		rep.settle(p, res.AllBlocked, props)
		return rep, nil
	}
	if opt.Cluster != nil && graphs.Splittable(m, opt.Options) {
		var names []string
		if names, err = distributable(props); err == nil {
			err = splitGraphs(p, m, props, names, opt, rep)
		}
	} else {
		err = judgeGraphs(p, m, props, opt, rep)
	}
	if err != nil {
		return nil, err
	}
	rep.settle(p, rep.Stats.Blocked == rep.Stats.Executions, props)
	return rep, nil
}

// checkDRF explores p by states under sc for m, a C11 model under which
// seq_cst has no operational form, when DRF-SC makes that exact: the
// engine is left to choose (auto), every atomic of p is seq_cst (locks
// aside), and p has no data race in its SC executions. It returns nil
// (and no error) when it does not apply, or when the sc exploration finds
// a race or a bound other than time or memory cuts it: the graph explorer
// then explores under m. When time or memory runs out, the sc run's
// report stands, bounded: what it found is found under m too.
func checkDRF(p *model.Program, m *model.Model, props []Property, opt engine.Config) (*Report, error) {
	sc := model.SC
	if opt.Engine != explore.EngineAuto || opt.Preemptions || !m.RacesUndefined ||
		!model.OnlySCAtomics(p) || autoStates(p, m) || !autoStates(p, sc) {
		return nil, nil
	}
	i := slices.IndexFunc(props, func(pr Property) bool { _, ok := pr.(dataRace); return ok })
	all := props
	if i < 0 {
		all = append(slices.Clone(props), dataRace{})
		i = len(all) - 1
	}
	rep, err := check(p, sc, all, opt)
	switch {
	case err != nil:
		return nil, err
	case rep.Stats.Limit == explore.Timeout || rep.Stats.Limit == explore.Interrupted || rep.Stats.Limit == explore.MaxMemory:
		// The budget is spent: report what the sc run found, which holds
		// under m too (its SC executions are m's), and no verdict beyond.
	case rep.Props[i].Status != Holds || rep.Stats.Limit != explore.NoLimit:
		return nil, nil
	}
	if len(all) > len(props) {
		rep.Props = rep.Props[:len(props)]
	}
	rep.Model, rep.Via = m, sc
	for _, pr := range rep.Props {
		if pr.Witness != nil {
			// An SC execution is one of m's: present it as one.
			pr.Witness.Model = m
		}
	}
	return rep, nil
}

// newReport returns a report of props under m by eng, nothing found yet.
func newReport(m *model.Model, eng explore.Engine, props []Property) *Report {
	rep := &Report{Model: m, Engine: eng}
	for _, pr := range props {
		rep.Props = append(rep.Props, PropResult{Name: pr.Name()})
	}
	return rep
}

// judgeGraphs explores p under m by graphs (the part opt.Subtree names,
// when set) and judges props: rep, whose Props name them in order, gets
// the counts, the witnesses and the statistics, no verdict yet (settle).
func judgeGraphs(p *model.Program, m *model.Model, props []Property, opt engine.Config, rep *Report) error {
	index := map[string]int{}
	for i, pr := range rep.Props {
		index[pr.Name] = i
	}
	var spec model.Spec
	opt.Races, spec = needs(props)
	opt.Histories = spec != nil
	judge := judgeWith(props)
	var mu sync.Mutex // the explorer's workers report executions concurrently
	visit := func(e *explore.Execution) {
		var checked []string
		violations := judge(e.Outcome(), func(name string) { checked = append(checked, name) })
		mu.Lock()
		defer mu.Unlock()
		for _, name := range checked {
			rep.Props[index[name]].Reached++
		}
		for _, v := range violations {
			r := &rep.Props[index[v.Prop]]
			r.Violations++
			w := &explore.Witness{Execution: e, Violation: v}
			if r.Witness == nil || shorter(w, r.Witness) {
				w.Execution = e.Clone() // e's graph is the explorer's
				r.Witness, r.Message = w, v.Msg
			}
		}
	}
	stats, err := graphs.Explore(engine.NewRunner(p, m, opt, visit))
	rep.Stats = stats
	return err
}

// shorter orders witnesses: fewer events in the cone, then fewer threads,
// then the graphs' fingerprints, so that the choice does not depend on the
// order in which executions are found.
func shorter(w, o *explore.Witness) bool {
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
	var ts []int32
	for r := range c {
		if !slices.Contains(ts, r.T) {
			ts = append(ts, r.T)
		}
	}
	return len(ts)
}

// settle gives each property its verdict from what the exploration of p
// found, as props (rep.Props's, by name) declare their needs.
func (rep *Report) settle(p *model.Program, allBlocked bool, props []Property) {
	stats := rep.Stats
	declared := map[string]Needs{}
	for _, pr := range props {
		declared[pr.Name()] = needsOf(pr)
	}
	for i := range rep.Props {
		r := &rep.Props[i]
		n := declared[r.Name]
		switch {
		case r.Violations > 0:
			r.Status = Violated
		case n.Unchecked != "":
			r.Status = Unknown
			r.Message = n.Unchecked
		case stats.Limit == explore.LoopBound:
			r.Status = Unknown
			r.Message = "no violation found, but a loop ran out of rounds with its condition still true (" + stats.LimitText() + "): its max cut what follows"
		case !stats.Exhaustive():
			r.Status = Unknown
			r.Message = "no violation found before the " + stats.LimitText() + " bound"
		default:
			r.Status = Holds
			switch {
			case stats.Executions > 0 && allBlocked && !n.Blocked:
				r.Message, r.Vacuous = "holds only vacuously: every execution blocks", true
			case r.Reached == 0 && !slices.Contains(p.Proven, r.Name):
				r.Message, r.Vacuous = "holds only vacuously: no execution reaches a check of it", true
			}
		}
	}
}
