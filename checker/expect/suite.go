package expect

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
)

// Suite is the checked expectations of one protocol: its cases, or why it
// has none (it failed to load, or states no expectation).
type Suite struct {
	// Ref names the protocol as a command line does: a file's path or a
	// catalogue name.
	Ref     string
	Err     error // the protocol could not be loaded
	Expects int   // the protocol's expect clauses
	Cases   []*Result
	Elapsed time.Duration
}

// NoExpectations reports whether the protocol loaded but states no
// expectation.
func (s *Suite) NoExpectations() bool { return s.Err == nil && s.Expects == 0 }

// Status sums up a suite: "ok", "fail", "no verdict", "no expectations"
// or "error".
func (s *Suite) Status() string {
	if s.NoExpectations() {
		return "no expectations"
	}
	switch Worst([]*Suite{s}) {
	case Error:
		return "error"
	case Fail:
		return "fail"
	case NoVerdict:
		return "no verdict"
	}
	return "ok"
}

// Tally counts cases by status.
type Tally map[Status]int

// Add counts the cases of s.
func (t Tally) Add(s *Suite) {
	for _, c := range s.Cases {
		t[c.Status()]++
	}
}

// Count counts the cases of a test run by status.
func Count(suites []*Suite) Tally {
	t := Tally{}
	for _, s := range suites {
		t.Add(s)
	}
	return t
}

// String says "N passed, N failed, N no verdict", then the cells without
// expectation and the errors when there are any.
func (t Tally) String() string {
	s := fmt.Sprintf("%d passed, %d failed, %d no verdict", t[Pass], t[Fail], t[NoVerdict])
	if n := t[NoExpectation]; n > 0 {
		s += fmt.Sprintf(", %d without expectation", n)
	}
	if n := t[Error]; n > 0 {
		s += fmt.Sprintf(", %d errors", n)
	}
	return s
}

// Worst sums up a test run as the status that decides its outcome, in
// this order: Error (a protocol that did not load, or a case that
// could not be checked), Fail, NoVerdict, else Pass.
func Worst(suites []*Suite) Status {
	for _, s := range suites {
		if s.Err != nil {
			return Error
		}
	}
	t := Count(suites)
	for _, st := range []Status{Error, Fail, NoVerdict} {
		if t[st] > 0 {
			return st
		}
	}
	return Pass
}

// Options steer Run.
type Options struct {
	// Select, when set, keeps the cells whose REF/NAME or PROTOCOL/NAME
	// (Case.Name) it matches; one that keeps none is an error
	// (ErrNoCell).
	Select *regexp.Regexp
	// All explores the cells no expect clause selects too (they are
	// reported without expectation; by default they are not explored).
	All bool
	// Options bound each cell's check.
	Options explore.Options
	// Runner checks the cells; nil: checker.Local{}.
	Runner checker.Runner
	// Case, when set, is called with each case's result, in the order of
	// the suites and their cases, as soon as it and every case before it
	// are done.
	Case func(s *Suite, r *Result)
	// Suite, when set, is called with each suite once its last case has
	// been reported (at once, in its turn, when it has none).
	Suite func(s *Suite)
}

// ErrNoCell says that a test run's selection keeps no cell.
var ErrNoCell = errors.New("selects no cell")

// Run checks the expect clauses of the protocols refs name, loaded
// by load: every selected cell of all of them on one runner. It returns a
// suite per ref, in order; a protocol that does not load is a suite with
// its error. An internal error ends the run.
func Run(refs []string, load func(ref string) (*checker.Protocol, error), opt Options) ([]*Suite, error) {
	var suites []*Suite
	var cases []Case
	var owner []int // owner[i] is the suite of cases[i]
	for _, ref := range refs {
		s := &Suite{Ref: ref}
		suites = append(suites, s)
		pr, err := load(ref)
		if err == nil {
			var cs []Case
			cs, err = Cases(pr)
			s.Expects = len(pr.File.Expects)
			for _, c := range cs {
				if err == nil && s.Expects > 0 && (opt.Select == nil || opt.Select.MatchString(ref+"/"+c.Name()) || opt.Select.MatchString(pr.File.Name+"/"+c.Name())) {
					cases = append(cases, c)
					owner = append(owner, len(suites)-1)
				}
			}
		}
		var ie *explore.InternalError
		if errors.As(err, &ie) {
			return nil, err
		}
		s.Err = err
	}
	if opt.Select != nil && len(cases) == 0 {
		return nil, fmt.Errorf("%q %w (it matches FILE/VARIANT/MODEL or PROTOCOL/VARIANT/MODEL, such as %s)", opt.Select, ErrNoCell, selectExample(suites))
	}
	left := make([]int, len(suites)) // cases not yet reported, by suite
	for _, o := range owner {
		left[o]++
	}
	summed := 0 // suites summed up so far
	sumUp := func(upTo int) {
		for ; summed < upTo; summed++ {
			if opt.Suite != nil {
				opt.Suite(suites[summed])
			}
		}
	}
	// A cell no clause selects is reported without expectation,
	// unexplored unless All asks; the others are checked, and every cell
	// is reported in order.
	var checked []Case
	var at []int // at[k] is the index in cases of checked[k]
	results := make([]*Result, len(cases))
	for i, c := range cases {
		if c.Clause == nil && !opt.All {
			results[i] = &Result{Case: &cases[i]}
			continue
		}
		checked = append(checked, c)
		at = append(at, i)
	}
	next := 0 // the first case not reported yet
	report := func() {
		for ; next < len(cases) && results[next] != nil; next++ {
			r, o := results[next], owner[next]
			sumUp(o) // the suites before o are complete
			s := suites[o]
			s.Cases = append(s.Cases, r)
			s.Elapsed += r.Elapsed
			if opt.Case != nil {
				opt.Case(s, r)
			}
			if left[o]--; left[o] == 0 {
				sumUp(o + 1)
			}
		}
	}
	report()
	k := 0
	err := RunCases(checked, opt.Options, opt.Runner, func(r *Result) {
		results[at[k]] = r
		k++
		report()
	})
	if err != nil {
		return nil, err
	}
	sumUp(len(suites))
	for _, s := range suites {
		for _, r := range s.Cases {
			var ie *explore.InternalError
			if errors.As(r.Err, &ie) {
				return nil, r.Err
			}
		}
	}
	return suites, nil
}

// selectExample names a cell of the suites as a selection matches it, or
// a made-up one when they have none.
func selectExample(suites []*Suite) string {
	for _, s := range suites {
		if s.Err == nil {
			return s.Ref + "/VARIANT/" + checker.DefaultModel.Name
		}
	}
	return "dlsym/fixed/" + checker.DefaultModel.Name
}
