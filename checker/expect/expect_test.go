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
	"github.com/ordercheck/ordercheck/protocols/lang"
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
	// The clauses of mp.oc: fixed holds everywhere; relaxed violates
	// delivered under the models they list, wrongly under tso, and no
	// clause selects it under the others.
	violates := map[string]bool{"arm": true, "riscv": true, "rc11": true, "rc11-consume": true, "tso": true}
	want := []string{}
	tally := expect.Tally{}
	for _, v := range []string{"relaxed", "fixed"} {
		for _, m := range model.Names() {
			st := expect.Pass
			switch {
			case v == "relaxed" && m == "tso":
				st = expect.Fail
			case v == "relaxed" && !violates[m]:
				st = expect.NoExpectation
			}
			tally[st]++
			want = append(want, mp+" "+v+"/"+m+" "+st.String())
		}
	}
	want = append(want, mp+" fail", "testdata/none.oc error")
	if !slices.Equal(events, want) {
		t.Errorf("reported:\n  %s\nwant:\n  %s", strings.Join(events, "\n  "), strings.Join(want, "\n  "))
	}
	if got, want := expect.Count(suites).String(), tally.String(); got != want {
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

// TestConfigurations: the cases of a configuration name its parameters
// and check the instance they make, one compiled instance per
// configuration shared by its models.
func TestConfigurations(t *testing.T) {
	suites, err := expect.Run([]string{"testdata/params.oc"}, checker.Load, expect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	instances := map[string]*checker.Instance{} // by configuration
	for _, r := range suites[0].Cases {
		if r.Clause == nil {
			continue
		}
		got = append(got, r.Name()+" "+r.Status().String())
		cfg := fmt.Sprint(r.Overrides())
		if in, ok := instances[cfg]; ok && in != r.Instance {
			t.Errorf("%s: compiled again for configuration %s", r.Name(), cfg)
		}
		instances[cfg] = r.Instance
	}
	want := []string{"sc pass", "rc11 pass", "sc/PUB=rlx pass", "rc11/PUB=rlx pass"}
	if !slices.Equal(got, want) {
		t.Errorf("cases %q, want %q", got, want)
	}
	if len(instances) != 2 || instances["map[]"] == instances["map[PUB:rlx]"] {
		t.Errorf("instances by configuration %v: want two, one each", instances)
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

// TestCaseCheck: a case checked alone, and one whose bound cuts it
// short before the verdict it expects (fixed/arm holds, which takes
// every execution: the graph explorer's, as arm has no state machine).
func TestCaseCheck(t *testing.T) {
	pr, err := checker.Load(mp)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := expect.Cases(pr)
	if err != nil {
		t.Fatal(err)
	}
	find := func(name string) *expect.Case {
		i := slices.IndexFunc(cases, func(c expect.Case) bool { return c.Name() == name })
		if i < 0 {
			t.Fatalf("no %s case", name)
		}
		return &cases[i]
	}
	if r := find("relaxed/rc11").Check(explore.Options{}); r.Status() != expect.Pass {
		t.Errorf("relaxed/rc11: %s (%s)", r.Status(), expect.Join(r.Diffs, "; "))
	}
	r := find("fixed/arm").Check(explore.Options{MaxExecutions: 1})
	if r.Status() != expect.NoVerdict || len(r.Diffs) == 0 || !r.Diffs[0].Undecided {
		t.Errorf("fixed/arm within one execution: %s %v, want no verdict", r.Status(), r.Diffs)
	}
}

// TestDifferences: each way a report can differ from a cell's
// expectation.
func TestDifferences(t *testing.T) {
	every := &lang.Cell{Violated: []lang.Violation{{Prop: "p", Every: true}}}
	some := &lang.Cell{Violated: []lang.Violation{{Prop: "p"}}}
	holds := &lang.Cell{}
	prop := func(st checker.Status, violations int64) checker.PropResult {
		return checker.PropResult{Name: "p", Status: st, Violations: violations, Message: "why"}
	}
	report := func(executions int64, props ...checker.PropResult) *checker.Report {
		return &checker.Report{Props: props, Stats: explore.Stats{Executions: executions}}
	}
	for _, tc := range []struct {
		name      string
		rep       *checker.Report
		cell      *lang.Cell
		want      string
		undecided bool
	}{
		{"as expected", report(4, prop(checker.Violated, 2)), some, "", false},
		{"every execution", report(4, prop(checker.Violated, 4)), every, "", false},
		{"holds as expected", report(4, prop(checker.Holds, 0)), holds, "", false},
		{"violated, expected to hold", report(4, prop(checker.Violated, 1)), holds, "p is violated, expected to hold: why", false},
		{"holds, expected violated", report(4, prop(checker.Holds, 0)), some, "p holds, expected to be violated", false},
		{"not in every execution", report(4, prop(checker.Violated, 3)), every, "p is violated in 3 of 4 executions, expected in every one", false},
		{"no verdict", report(4, prop(checker.Unknown, 0)), holds, "p: no verdict (why)", true},
		{"not checked", report(4), some, "p was not checked", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := expect.Differences(tc.rep, tc.cell)
			if got := expect.Join(ds, "; "); got != tc.want {
				t.Errorf("differences %q, want %q", got, tc.want)
			}
			if len(ds) > 0 && ds[0].Undecided != tc.undecided {
				t.Errorf("undecided %v, want %v", ds[0].Undecided, tc.undecided)
			}
		})
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
	fmt.Println(expect.Worst(suites))
	// Output:
	// relaxed/tso: delivered holds, expected to be violated
	// fail
}
