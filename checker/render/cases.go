package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/expect"
)

// statusWords are the case statuses as go test -v prints them.
var statusWords = map[expect.Status]string{
	expect.Pass:          "PASS",
	expect.Fail:          "FAIL",
	expect.NoVerdict:     "NOVERDICT",
	expect.NoExpectation: "SKIP",
	expect.Error:         "ERROR",
}

// Case writes a case's result as go test -v does: a line
// "--- PASS: REF NAME (0.05s)", then, unless it passed, what was expected
// and what differs, each unexpected violation's counterexample in words,
// and the command that explores the case alone.
func Case(w io.Writer, ref string, r *expect.Result) {
	fmt.Fprintf(w, "--- %s: %s %s (%.2fs)\n", statusWords[r.Status()], ref, r.Name(), r.Elapsed.Seconds())
	if d := CaseDetail(ref, r); d != "" {
		for _, line := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
}

// SuiteLine writes a suite's summary line as go test does: "ok REF 1.20s"
// (FAIL, NO VERDICT, ERROR), "? REF [no expect clauses]", "? REF [no
// cells match --run]", or "FAIL REF [bad input]" and the error.
func SuiteLine(w io.Writer, s *expect.Suite) {
	switch {
	case s.Err != nil:
		fmt.Fprintf(w, "FAIL\t%s [bad input]\n    %s\n", s.Ref, strings.ReplaceAll(s.Err.Error(), "\n", "\n    "))
	case s.NoExpectations():
		fmt.Fprintf(w, "?\t%s\t[no expect clauses]\n", s.Ref)
	case len(s.Cases) == 0:
		fmt.Fprintf(w, "?\t%s\t[no cells match --run]\n", s.Ref)
	default:
		word := "ok"
		if st := s.Status(); st != "ok" {
			word = strings.ToUpper(st)
		}
		fmt.Fprintf(w, "%s\t%s\t%.2fs\n", word, s.Ref, s.Elapsed.Seconds())
	}
}

// CaseDetail explains a case that did not pass: the expect clause and
// where it is written, each difference, the counterexample of each
// property violated against expectation, and the command that explores
// the case alone. It is "" for a case that passed.
func CaseDetail(ref string, r *expect.Result) string {
	var b strings.Builder
	switch r.Status() {
	case expect.Pass:
		return ""
	case expect.Error:
		fmt.Fprintf(&b, "%v\n", r.Err)
		return b.String()
	case expect.NoExpectation:
		if r.Report == nil {
			b.WriteString("no expect clause selects this cell; not explored (--all explores it)\n")
		} else {
			fmt.Fprintf(&b, "no expect clause selects this cell; it was checked: %s\n", r.Report.VerdictText())
		}
		return b.String()
	}
	fmt.Fprintf(&b, "expected by %s (%s)\n", r.Clause, r.Clause.Pos)
	for _, d := range r.Diffs {
		fmt.Fprintf(&b, "%s\n", d.Text)
	}
	if st := r.Report.Stats; r.Status() == expect.NoVerdict && !st.Exhaustive() {
		fmt.Fprintf(&b, "the search was cut short: %s\n", st.LimitText())
	}
	for _, d := range r.Diffs {
		for _, p := range r.Report.Props {
			if p.Name == d.Prop && p.Witness != nil && p.Status == checker.Violated && !d.Undecided {
				fmt.Fprintf(&b, "counterexample for %s:\n%s", p.Name, Witness(p.Witness))
			}
		}
	}
	fmt.Fprintf(&b, "explore it alone: %s\n", ReplayCommand(ref, r.Case))
	return b.String()
}

// ReplayCommand returns the command line that explores a case alone,
// printing its counterexamples.
func ReplayCommand(ref string, c *expect.Case) string {
	args := []string{"ordercheck", "explore", shellQuote(ref)}
	if c.Variant != "" {
		args = append(args, "--variant", shellQuote(c.Variant))
	}
	args = append(args, "--model", c.Model)
	for _, p := range c.Params {
		args = append(args, "--param", shellQuote(p.String()))
	}
	if c.Protocol != nil && c.Protocol.C != nil { // a C program's command-line choices
		for _, d := range c.Protocol.C.Defines {
			args = append(args, "-D", shellQuote(d))
		}
		for _, dir := range c.Protocol.C.Includes {
			args = append(args, "-I", shellQuote(dir))
		}
		if u := c.Protocol.C.Unroll; u != 0 {
			args = append(args, "--unroll", fmt.Sprint(u))
		}
	}
	return strings.Join(args, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./=,:@%+-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// JSONCase is one checked case in JSON output.
type JSONCase struct {
	Name       string            `json:"name"`
	Variant    string            `json:"variant,omitempty"`
	Model      string            `json:"model"`
	Params     map[string]string `json:"params,omitempty"`
	Status     expect.Status     `json:"status"`
	Expected   string            `json:"expected,omitempty"`    // the expect clause
	ExpectedAt string            `json:"expected_at,omitempty"` // where it is written
	Deviations []string          `json:"deviations,omitempty"`
	Error      string            `json:"error,omitempty"`
	Result     *JSONResult       `json:"result,omitempty"`
	Replay     string            `json:"replay,omitempty"`
}

// JSONSuite is one protocol's checked expectations in JSON output.
type JSONSuite struct {
	Protocol string     `json:"protocol"`
	Status   string     `json:"status"` // ok, fail, no verdict, no expectations, error
	Error    string     `json:"error,omitempty"`
	Seconds  float64    `json:"seconds"`
	Cases    []JSONCase `json:"cases"`
}

// JSONTest is the output of a test run in JSON: a record per protocol and
// per case, and the counts.
type JSONTest struct {
	Protocols []JSONSuite    `json:"protocols"`
	Summary   map[string]int `json:"summary"`
}

// TestJSON returns the results of a test run as data.
func TestJSON(suites []*expect.Suite) JSONTest {
	out := JSONTest{Protocols: []JSONSuite{}, Summary: map[string]int{}}
	t := expect.Tally{}
	for _, s := range suites {
		js := JSONSuite{Protocol: s.Ref, Status: s.Status(), Seconds: s.Elapsed.Round(time.Millisecond).Seconds(), Cases: []JSONCase{}}
		if s.Err != nil {
			js.Error = s.Err.Error()
		}
		for _, r := range s.Cases {
			jc := JSONCase{Name: r.Name(), Variant: r.Variant, Model: r.Model, Params: r.Overrides(), Status: r.Status()}
			if r.Clause != nil {
				jc.Expected, jc.ExpectedAt = r.Clause.String(), r.Clause.Pos.String()
			}
			for _, d := range r.Diffs {
				jc.Deviations = append(jc.Deviations, d.Text)
			}
			if r.Err != nil {
				jc.Error = r.Err.Error()
			}
			if r.Report != nil {
				res := ReportJSON(r.Report, r.Instance, false)
				jc.Result = &res
			}
			if st := r.Status(); st == expect.Fail || st == expect.NoVerdict {
				jc.Replay = ReplayCommand(s.Ref, r.Case)
			}
			js.Cases = append(js.Cases, jc)
		}
		t.Add(s)
		out.Protocols = append(out.Protocols, js)
	}
	for st := expect.Pass; st <= expect.Error; st++ {
		out.Summary[strings.ReplaceAll(st.String(), " ", "_")] = t[st]
	}
	return out
}

// The JUnit XML that CI systems read: testsuites of testcases, each with
// at most one failure, error or skipped element.
type (
	junitSuites struct {
		XMLName xml.Name `xml:"testsuites"`
		junitCounts
		Suites []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		junitCounts
		Cases []junitCase `xml:"testcase"`
	}
	// junitCounts are the attributes testsuites and testsuite share.
	junitCounts struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Time     string `xml:"time,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		Skipped   *junitProblem `xml:"skipped,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// JUnit writes the results of a test run as JUnit XML: a testsuite per
// protocol, a testcase per case. A verdict that differs is a failure; a
// case the search could not decide, or could not check, an error; a cell
// without expectation, and a protocol without expect clauses, skipped.
func JUnit(w io.Writer, suites []*expect.Suite) error {
	secs := func(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
	out := junitSuites{junitCounts: junitCounts{Name: "ordercheck"}}
	var total time.Duration
	for _, s := range suites {
		js := junitSuite{junitCounts: junitCounts{Name: s.Ref, Time: secs(s.Elapsed)}}
		total += s.Elapsed
		switch {
		case s.Err != nil:
			js.Cases = append(js.Cases, junitCase{Name: "load", ClassName: s.Ref, Time: secs(s.Elapsed), Error: &junitProblem{Message: firstLine(s.Err.Error()), Type: "bad input", Text: s.Err.Error()}})
		case s.NoExpectations():
			js.Cases = append(js.Cases, junitCase{Name: "expectations", ClassName: s.Ref, Time: "0.000", Skipped: &junitProblem{Message: "the protocol has no expect clauses"}})
		}
		for _, r := range s.Cases {
			jc := junitCase{Name: r.Name(), ClassName: s.Ref, Time: secs(r.Elapsed)}
			detail := CaseDetail(s.Ref, r)
			switch r.Status() {
			case expect.Fail:
				jc.Failure = &junitProblem{Message: firstLine(expect.Join(r.Diffs, "; ")), Type: "verdict", Text: detail}
			case expect.NoVerdict:
				jc.Error = &junitProblem{Message: firstLine(expect.Join(r.Diffs, "; ")), Type: "no verdict", Text: detail}
			case expect.Error:
				jc.Error = &junitProblem{Message: firstLine(r.Err.Error()), Type: "error", Text: detail}
			case expect.NoExpectation:
				jc.Skipped = &junitProblem{Message: "no expect clause selects this cell"}
			}
			js.Cases = append(js.Cases, jc)
		}
		for _, c := range js.Cases {
			js.Tests++
			switch {
			case c.Failure != nil:
				js.Failures++
			case c.Error != nil:
				js.Errors++
			case c.Skipped != nil:
				js.Skipped++
			}
		}
		out.Tests += js.Tests
		out.Failures += js.Failures
		out.Errors += js.Errors
		out.Skipped += js.Skipped
		out.Suites = append(out.Suites, js)
	}
	out.Time = secs(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
