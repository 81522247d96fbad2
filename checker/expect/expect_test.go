package expect_test

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

const mp = "testdata/mp.oc"

// TestRun: a run over a protocol whose clauses are right but for one cell
// and leave one cell unselected, and a path that does not load. Every
// case is reported in order, each suite after its last case, and the run
// sums up to an error (the path that did not load) before a failure.
func TestRun(t *testing.T) {
	var events []string
	suites, err := expect.Run([]string{mp, "testdata/none.oc"}, checker.Load, expect.Options{
		Options: explore.Options{Workers: 1},
		Runner:  checker.Local{Jobs: 2},
		Case: func(s *expect.Suite, r *expect.Result) {
			events = append(events, s.Ref+" "+r.Name()+" "+r.Status().String())
		},
		Suite: func(s *expect.Suite) { events = append(events, s.Ref+" "+s.Status()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(suites) != 2 || suites[0].Err != nil || !errors.Is(suites[1].Err, os.ErrNotExist) {
		t.Fatalf("suites %v: want mp.oc loaded, none.oc missing", suites)
	}
	want := []string{}
	for _, v := range []string{"relaxed", "fixed"} {
		for _, m := range model.Names() {
			st := expect.Pass
			switch v + "/" + m {
			case "relaxed/sc":
				st = expect.NoExpectation
			case "relaxed/tso":
				st = expect.Fail
			}
			want = append(want, mp+" "+v+"/"+m+" "+st.String())
		}
	}
	want = append(want, mp+" fail", "testdata/none.oc error")
	if !slices.Equal(events, want) {
		t.Errorf("reported:\n  %s\nwant:\n  %s", strings.Join(events, "\n  "), strings.Join(want, "\n  "))
	}
	if got, want := expect.Count(suites).String(), "10 passed, 1 failed, 0 no verdict, 1 without expectation"; got != want {
		t.Errorf("Count: %q, want %q", got, want)
	}
	if w := expect.Worst(suites); w != expect.Error {
		t.Errorf("Worst: %s, want error", w)
	}
	if w := expect.Worst(suites[:1]); w != expect.Fail {
		t.Errorf("Worst of mp.oc: %s, want fail", w)
	}
	for _, r := range suites[0].Cases {
		switch r.Name() {
		case "relaxed/tso":
			if got := expect.Join(r.Diffs, "; "); got != "delivered holds, expected to be violated" {
				t.Errorf("relaxed/tso differs by %q", got)
			}
		case "relaxed/sc":
			if r.Report != nil {
				t.Error("relaxed/sc, which no clause selects, was explored without All")
			}
		}
	}
}

// TestRunSelect: a selection keeps the cells it matches by path or by
// protocol name, All explores an unselected cell, and a selection that
// keeps none is ErrNoCell.
func TestRunSelect(t *testing.T) {
	for _, tc := range []struct {
		sel   string
		all   bool
		cases []string
		err   error
	}{
		{sel: `^testdata/mp\.oc/fixed/(sc|tso)$`, cases: []string{"fixed/sc pass", "fixed/tso pass"}},
		{sel: `^mp/relaxed/(sc|arm)$`, cases: []string{"relaxed/sc no expectation", "relaxed/arm pass"}},
		{sel: `^mp/relaxed/sc$`, all: true, cases: []string{"relaxed/sc no expectation"}},
		{sel: `nothing`, err: expect.ErrNoCell},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			suites, err := expect.Run([]string{mp}, checker.Load, expect.Options{Select: regexp.MustCompile(tc.sel), All: tc.all})
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "testdata/mp.oc/VARIANT/rc11") {
					t.Errorf("%v: want an example of a selection", err)
				}
				return
			}
			var got []string
			for _, r := range suites[0].Cases {
				got = append(got, r.Name()+" "+r.Status().String())
				if explored := r.Report != nil; explored != (r.Clause != nil || tc.all) {
					t.Errorf("%s explored: %v", r.Name(), explored)
				}
			}
			if !slices.Equal(got, tc.cases) {
				t.Errorf("cases %q, want %q", got, tc.cases)
			}
		})
	}
}

// TestStatusVerdict: the verdict each status stands for.
func TestStatusVerdict(t *testing.T) {
	for st, want := range map[expect.Status]checker.Verdict{
		expect.Pass: checker.VerdictVerified, expect.NoExpectation: checker.VerdictVerified,
		expect.Fail: checker.VerdictViolated, expect.NoVerdict: checker.VerdictBounded,
	} {
		if v, err := st.Verdict(); v != want || err != nil {
			t.Errorf("%s: %s (%v), want %s", st, v, err, want)
		}
	}
	if _, err := expect.Error.Verdict(); !errors.Is(err, expect.ErrUnchecked) {
		t.Errorf("an unchecked case's verdict: %v, want ErrUnchecked", err)
	}
}

// TestCaseCheck: a case checked alone, and one whose bound cuts it short.
func TestCaseCheck(t *testing.T) {
	pr, err := checker.Load(mp)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := expect.Cases(pr)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(cases, func(c expect.Case) bool { return c.Name() == "relaxed/rc11" })
	if i < 0 {
		t.Fatal("no relaxed/rc11 case")
	}
	if r := cases[i].Check(explore.Options{}); r.Status() != expect.Pass {
		t.Errorf("relaxed/rc11: %s (%s)", r.Status(), expect.Join(r.Diffs, "; "))
	}
	r := cases[i].Check(explore.Options{MaxExecutions: 1})
	if r.Status() != expect.NoVerdict || len(r.Diffs) == 0 || !r.Diffs[0].Undecided {
		t.Errorf("relaxed/rc11 within one execution: %s %v, want no verdict", r.Status(), r.Diffs)
	}
}

// Run checks a protocol file's expect clauses and sums the run up.
func ExampleRun() {
	suites, err := expect.Run([]string{"testdata/mp.oc"}, checker.Load, expect.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range suites[0].Cases {
		if r.Status() == expect.Fail {
			fmt.Printf("%s: %s\n", r.Name(), expect.Join(r.Diffs, "; "))
		}
	}
	fmt.Println(expect.Count(suites))
	// Output:
	// relaxed/tso: delivered holds, expected to be violated
	// 10 passed, 1 failed, 0 no verdict, 1 without expectation
}
