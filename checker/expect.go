package checker

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// Expectations resolves the protocol's expect clauses over every
// registered model: one configuration per set of parameter overrides, each
// with the expected verdicts of its cells (variant × model).
func (p *Protocol) Expectations() ([]lang.Config, error) {
	return p.Protocol.Expectations(model.Names())
}

// Deviation is one way a report differs from a cell's expectation.
type Deviation struct {
	Prop string
	// Undecided: a bound cut the search before the property was decided.
	Undecided bool
	Text      string
}

func (d Deviation) String() string { return d.Text }

// Differences compares a report with a cell's expected verdicts: every
// property the cell lists is violated (by every execution, or final state
// of the state explorer, where it says so) and every other one holds. It
// returns how the report differs, nil when it does not; a property the
// search could not decide differs from any expectation.
func (r *Report) Differences(cell *lang.Cell) []Deviation {
	var out []Deviation
	add := func(prop string, undecided bool, format string, args ...any) {
		out = append(out, Deviation{prop, undecided, fmt.Sprintf(format, args...)})
	}
	for _, p := range r.Props {
		st := r.Stats
		if p.Stats != nil {
			st = *p.Stats
		}
		i := slices.IndexFunc(cell.Violated, func(v lang.Violation) bool { return v.Prop == p.Name })
		switch {
		case p.Status == Unknown:
			add(p.Name, true, "%s: no verdict (%s)", p.Name, p.Message)
		case i < 0 && p.Status == Violated:
			add(p.Name, false, "%s is violated, expected to hold: %s", p.Name, p.Message)
		case i >= 0 && p.Status == Holds:
			add(p.Name, false, "%s holds, expected to be violated", p.Name)
		case i >= 0 && cell.Violated[i].Every && p.Violations != st.Executions:
			add(p.Name, false, "%s is violated in %d of %d executions, expected in every one", p.Name, p.Violations, st.Executions)
		}
	}
	for _, v := range cell.Violated {
		if !slices.ContainsFunc(r.Props, func(p PropResult) bool { return p.Name == v.Prop }) {
			add(v.Prop, false, "%s was not checked", v.Prop)
		}
	}
	return out
}

// Case is one cell of a protocol's expectations: a variant under a model,
// with the parameters of one configuration, and the verdicts the expect
// clauses state for it (Clause nil: no clause selects it).
type Case struct {
	Protocol *Protocol
	Params   []lang.Bind // the configuration's overrides; none: the defaults
	lang.Cell
}

// Name names the case as its variant and model, then its configuration's
// parameters: "fixed/rc11", "pr2685/sc/SPAWN=embedder". A protocol
// without variants names the model alone.
func (c *Case) Name() string {
	parts := []string{c.Model}
	if c.Variant != "" {
		parts = []string{c.Variant, c.Model}
	}
	if len(c.Params) > 0 {
		parts = append(parts, strings.Join(lang.BindTexts(c.Params), ","))
	}
	return strings.Join(parts, "/")
}

// Overrides returns the case's parameters as Instance takes them.
func (c *Case) Overrides() map[string]string {
	cfg := lang.Config{Params: c.Params}
	return cfg.Overrides()
}

// Cases lists the cells of the protocol's expect clauses over every
// registered model, configuration by configuration, each variant under
// the models in the registry's order.
func (p *Protocol) Cases() ([]Case, error) {
	configs, err := p.Expectations()
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, cfg := range configs {
		for _, cell := range cfg.Cells {
			out = append(out, Case{Protocol: p, Params: cfg.Params, Cell: cell})
		}
	}
	return out, nil
}

// CaseStatus is how a checked case compares with its expectation.
type CaseStatus uint8

// The outcomes of a case.
const (
	CasePass          CaseStatus = iota // every verdict as expected
	CaseFail                            // a decided verdict differs from the expected one
	CaseNoVerdict                       // a bound cut the search before a verdict the case expects
	CaseNoExpectation                   // no expect clause selects the cell: checked, nothing compared
	CaseError                           // the case could not be checked (Err)
)

var caseStatusNames = [...]string{"pass", "fail", "no verdict", "no expectation", "error"}

func (s CaseStatus) String() string { return caseStatusNames[s] }

// MarshalText writes the status as its name.
func (s CaseStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// CaseResult is a checked case.
type CaseResult struct {
	*Case
	Instance *Instance
	Report   *Report
	// Diffs says how the report differs from the expectation
	// (Report.Differences).
	Diffs   []Deviation
	Err     error
	Elapsed time.Duration
}

// Status compares the result with the case's expectation.
func (r *CaseResult) Status() CaseStatus {
	switch {
	case r.Err != nil:
		return CaseError
	case r.Clause == nil:
		return CaseNoExpectation
	case len(r.Diffs) == 0:
		return CasePass
	}
	for _, d := range r.Diffs {
		if !d.Undecided {
			return CaseFail
		}
	}
	return CaseNoVerdict
}

// RunCases checks cases on jobs goroutines (at least one) and calls done
// with each result in the order of cases, as soon as it and every case
// before it are done. The cases of one variant and configuration run in
// turn on one goroutine and share their data-race verdict, as a
// comparison's cells do.
func RunCases(cases []Case, opt Options, jobs int, done func(*CaseResult)) {
	type group struct{ from, to int }
	var groups []group
	for i := range cases {
		if i == 0 || !sameInstance(&cases[i-1], &cases[i]) {
			groups = append(groups, group{i, i})
		}
		groups[len(groups)-1].to = i + 1
	}
	results := make([]*CaseResult, len(cases))
	ready := make([]chan struct{}, len(cases))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	next := make(chan group)
	var wg sync.WaitGroup
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				runGroup(cases[g.from:g.to], results[g.from:g.to], opt)
				for i := g.from; i < g.to; i++ {
					close(ready[i])
				}
			}
		}()
	}
	go func() {
		for _, g := range groups {
			next <- g
		}
		close(next)
	}()
	for i := range cases {
		<-ready[i]
		done(results[i])
	}
	wg.Wait()
}

// Check checks the case alone.
func (c *Case) Check(opt Options) *CaseResult {
	out := make([]*CaseResult, 1)
	runGroup([]Case{*c}, out, opt)
	return out[0]
}

// sameInstance reports whether two cases check the same compiled program.
func sameInstance(a, b *Case) bool {
	return a.Protocol == b.Protocol && a.Variant == b.Variant && slices.Equal(lang.BindTexts(a.Params), lang.BindTexts(b.Params))
}

// runGroup checks the cases of one instance in turn into out.
func runGroup(cases []Case, out []*CaseResult, opt Options) {
	start := time.Now()
	inst, err := cases[0].Protocol.Instance(cases[0].Variant, cases[0].Overrides())
	compiled := time.Since(start)
	races := raceMemo{}
	for i := range cases {
		c := &cases[i]
		r := &CaseResult{Case: c, Instance: inst, Err: err}
		if i == 0 {
			r.Elapsed = compiled
		}
		out[i] = r
		if err != nil {
			continue
		}
		m, err := model.Lookup(c.Model)
		if err != nil {
			r.Err = err
			continue
		}
		t0 := time.Now()
		r.Report, r.Err = checkRaces(inst.Prog, m, inst.Protocol.Properties(), opt, races)
		r.Elapsed += time.Since(t0)
		if r.Err == nil && c.Clause != nil {
			r.Diffs = r.Report.Differences(&c.Cell)
		}
	}
}

// JoinDeviations joins the texts of ds with sep.
func JoinDeviations(ds []Deviation, sep string) string {
	var texts []string
	for _, d := range ds {
		texts = append(texts, d.Text)
	}
	return strings.Join(texts, sep)
}
