// Package expect checks protocols against their expect clauses: each
// cell the clauses decide (a variant under a model, with one
// configuration's parameters) is a Case, checked alone (Case.Check) or
// with others on a checker.Runner (RunCases), and compared with its
// expected verdicts (Differences). Run is what ordercheck test does: the
// cells of several protocols on one runner, reported in order as they
// finish, one Suite per protocol, summed up by Count and Worst.
//
//	suites, err := expect.Run([]string{"dlsym", "locks/ticket.oc"}, protocols.Load, expect.Options{})
//	if expect.Worst(suites) != expect.Pass { ... }
package expect

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

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
func Differences(r *checker.Report, cell *lang.Cell) []Deviation {
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
		case p.Status == checker.Unknown:
			add(p.Name, true, "%s: no verdict (%s)", p.Name, p.Message)
		case i < 0 && p.Status == checker.Violated:
			add(p.Name, false, "%s is violated, expected to hold: %s", p.Name, p.Message)
		case i >= 0 && p.Status == checker.Holds:
			add(p.Name, false, "%s holds, expected to be violated", p.Name)
		case i >= 0 && cell.Violated[i].Every && p.Violations != st.Executions:
			add(p.Name, false, "%s is violated in %d of %d executions, expected in every one", p.Name, p.Violations, st.Executions)
		}
	}
	for _, v := range cell.Violated {
		if !slices.ContainsFunc(r.Props, func(p checker.PropResult) bool { return p.Name == v.Prop }) {
			add(v.Prop, false, "%s was not checked", v.Prop)
		}
	}
	return out
}

// Case is one cell of a protocol's expectations: a variant under a model,
// with the parameters of one configuration, and the verdicts the expect
// clauses state for it (Clause nil: no clause selects it).
type Case struct {
	Protocol *checker.Protocol
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

// Overrides returns the case's parameters as checker.Protocol.Instance
// takes them.
func (c *Case) Overrides() map[string]string {
	cfg := lang.Config{Params: c.Params}
	return cfg.Overrides()
}

// Cases lists the cells of a protocol's expect clauses over every
// registered model, configuration by configuration, each variant under
// the models in the registry's order.
func Cases(p *checker.Protocol) ([]Case, error) {
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

// Status is how a checked case compares with its expectation.
type Status uint8

// The outcomes of a case.
const (
	Pass          Status = iota // every verdict as expected
	Fail                        // a decided verdict differs from the expected one
	NoVerdict                   // a bound cut the search before a verdict the case expects
	NoExpectation               // no expect clause selects the cell: checked, nothing compared
	Error                       // the case could not be checked (Err)
)

var statusNames = [...]string{"pass", "fail", "no verdict", "no expectation", "error"}

func (s Status) String() string { return statusNames[s] }

// ErrUnchecked is Error's Verdict: the case was not checked (its
// protocol did not load, or the check failed), so it has none.
var ErrUnchecked = errors.New("a case could not be checked")

// Verdict is the verdict a status stands for: violated for a failed
// case, verified for a passed one or one without expectation, bounded
// (no verdict) when a bound cut the case short; ErrUnchecked for an
// error, which is bad input rather than a verdict.
func (s Status) Verdict() (checker.Verdict, error) {
	switch s {
	case Fail:
		return checker.VerdictViolated, nil
	case Pass, NoExpectation:
		return checker.VerdictVerified, nil
	case Error:
		return checker.VerdictBounded, ErrUnchecked
	}
	return checker.VerdictBounded, nil
}

// MarshalText writes the status as its name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Result is a checked case.
type Result struct {
	*Case
	Instance *checker.Instance
	Report   *checker.Report
	// Diffs says how the report differs from the expectation
	// (Differences).
	Diffs   []Deviation
	Err     error
	Elapsed time.Duration
}

// Status compares the result with the case's expectation.
func (r *Result) Status() Status {
	switch {
	case r.Err != nil:
		return Error
	case r.Clause == nil:
		return NoExpectation
	case len(r.Diffs) == 0:
		return Pass
	}
	for _, d := range r.Diffs {
		if !d.Undecided {
			return Fail
		}
	}
	return NoVerdict
}

// RunCases checks cases on r (nil: checker.Local{}) and calls done with each
// result in the order of cases, as soon as it and every case before it
// are done. The cases of one variant and configuration check one compiled
// instance (in one process, sharing their data-race verdict, as a
// comparison's cells do). A case whose variant does not compile, or whose
// check fails, has the error in its result; RunCases returns an error
// when the runner fails.
func RunCases(cases []Case, opt explore.Options, r checker.Runner, done func(*Result)) error {
	if r == nil {
		r = checker.Local{}
	}
	results := make([]*Result, len(cases))
	ready := make([]bool, len(cases))
	var cells []checker.Cell
	var of []int // of[k] is the case of cells[k]
	var inst *checker.Instance
	var err error
	for i := range cases {
		c := &cases[i]
		res := &Result{Case: c}
		if i == 0 || !sameInstance(&cases[i-1], c) {
			start := time.Now()
			inst, err = c.Protocol.Instance(c.Variant, c.Overrides())
			res.Elapsed = time.Since(start)
		}
		res.Instance, res.Err = inst, err
		results[i] = res
		var m *model.Model
		if res.Err == nil {
			m, res.Err = model.Lookup(c.Model)
		}
		if ready[i] = res.Err != nil; !ready[i] {
			cells = append(cells, checker.Cell{Instance: inst, Model: m})
			of = append(of, i)
		}
	}
	next := 0
	flush := func() {
		for ; next < len(cases) && ready[next]; next++ {
			done(results[next])
		}
	}
	flush()
	err = r.Run(cells, opt, func(k int, rep *checker.Report, err error) error {
		res := results[of[k]]
		res.Report, res.Err = rep, err
		if err == nil {
			res.Elapsed += rep.Stats.Elapsed
			if res.Clause != nil {
				res.Diffs = Differences(rep, &res.Cell)
			}
		}
		ready[of[k]] = true
		flush()
		return nil
	})
	flush()
	return err
}

// Check checks the case alone.
func (c *Case) Check(opt explore.Options) *Result {
	var out *Result
	RunCases([]Case{*c}, opt, nil, func(r *Result) { out = r })
	return out
}

// sameInstance reports whether two cases check the same compiled program.
func sameInstance(a, b *Case) bool {
	return a.Protocol == b.Protocol && a.Variant == b.Variant && slices.Equal(lang.BindTexts(a.Params), lang.BindTexts(b.Params))
}

// Join joins the texts of ds with sep.
func Join(ds []Deviation, sep string) string {
	var texts []string
	for _, d := range ds {
		texts = append(texts, d.Text)
	}
	return strings.Join(texts, sep)
}
