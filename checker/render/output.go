package render

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/history"
	"github.com/ordercheck/ordercheck/checker/simulate"
	"github.com/ordercheck/ordercheck/checker/tune"
	"github.com/ordercheck/ordercheck/model"
)

// Output is where a command's result goes: its standard output (Out), as
// text or as JSON, the files it writes besides (each written whole, by
// WriteFile, and announced on Log), and a counterexample's files
// (Outputs). Its file fields are the ordercheck command's flags of the
// same names, and its errors name them.
type Output struct {
	Out, Log io.Writer
	JSON     bool   // --json: JSON rather than text
	HTML     string // --html: also write the result as a web page ("": none)
	Outputs
}

// Probe checks, before any work, that the files flags names (flag name
// to path; "": no file) can be written, so that a bad path is bad usage
// at once rather than after the work. Its error names the flag.
func Probe(flags map[string]string) error {
	names := make([]string, 0, len(flags))
	for flag := range flags {
		names = append(names, flag)
	}
	sort.Strings(names)
	for _, flag := range names {
		if path := flags[flag]; path != "" {
			if err := ProbeOutput(path); err != nil {
				return fmt.Errorf("--%s: %v", flag, err)
			}
		}
	}
	return nil
}

// Check makes sure, before any work, that the files o names can be
// written and, when pr is not nil, that o.Property names a property of
// pr.
func (o Output) Check(pr *checker.Protocol) error {
	if err := Probe(map[string]string{"trace": o.Trace, "dot": o.DOT, "svg": o.SVG}); err != nil {
		return err
	}
	if pr != nil && o.Property != "" {
		if err := pr.HasProp(o.Property); err != nil {
			return fmt.Errorf("--property: %w", err)
		}
	}
	return Probe(map[string]string{"html": o.HTML})
}

// Write writes what write writes to the file at path (File), or, when
// path is "", to Out.
func (o Output) Write(path string, write func(io.Writer) error) error {
	if path == "" {
		return write(o.Out)
	}
	return o.File(path, write)
}

// File writes what write writes to the file at path, whole (WriteFile),
// and says so on Log; with path "", nothing.
func (o Output) File(path string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if err := WriteFile(path, write); err != nil {
		return err
	}
	o.wrote(path)
	return nil
}

// wrote says on Log that a file was written, so that no file appears
// unannounced.
func (o Output) wrote(path string) {
	fmt.Fprintf(o.Log, "ordercheck: wrote %s\n", path)
}

// Print writes a result: page's web page to HTML when both are set, then
// on Out json's value as JSON when JSON is set, else text. A result with
// no web page or no JSON form passes nil for it; JSON output of one
// without is an error.
func (o Output) Print(text func(io.Writer), json func() any, page func(io.Writer) error) error {
	if page != nil {
		if err := o.File(o.HTML, page); err != nil {
			return err
		}
	}
	if o.JSON {
		if json == nil {
			return errors.New("this result has no JSON form")
		}
		return JSON(o.Out, json())
	}
	text(o.Out)
	return nil
}

// Cases prints each case of a test run, and each suite's line, on Out as
// opt reports them (Case, SuiteLine), unless the output is JSON, which a
// test run prints whole at its end (TestJSON).
func (o Output) Cases(opt *expect.Options) {
	if o.JSON {
		return
	}
	opt.Case = func(s *expect.Suite, r *expect.Result) { Case(o.Out, s.Ref, r) }
	opt.Suite = func(s *expect.Suite) { SuiteLine(o.Out, s) }
}

// Minimized returns what tells Log of each counterexample a simulation
// shrank (simulate.Options.Minimized).
func (o Output) Minimized() func(prop string, from, to int) {
	return func(prop string, from, to int) {
		fmt.Fprintf(o.Log, "ordercheck: %s: counterexample shrunk from %d to %d events by exhaustive search\n", prop, from, to)
	}
}

// Counterexample saves w, a counterexample of in (nil: none, which Log
// says), to the files Outputs names.
func (o Output) Counterexample(in *checker.Instance, w *explore.Witness) error {
	if !o.Any() {
		return nil
	}
	if w == nil {
		fmt.Fprintln(o.Log, "ordercheck: no counterexample to save: nothing is violated")
		return nil
	}
	return o.Outputs.Save(in, w, o.wrote)
}

// Report writes a check of in under m: the counterexample of
// o.Property to the files Outputs names (Counterexample), its web page
// (ReportHTML) to HTML, its header and report as text or JSON
// (ReportJSON).
func (o Output) Report(in *checker.Instance, m *model.Model, rep *checker.Report) error {
	if err := o.Counterexample(in, rep.Witness(o.Property)); err != nil {
		return err
	}
	return o.Print(func(w io.Writer) {
		Header(w, in, m)
		Report(w, rep)
	}, func() any { return ReportJSON(rep, in, true) }, func(w io.Writer) error { return ReportHTML(w, in, m, rep) })
}

// Simulation writes a simulation of in under m: the counterexample of
// o.Property to the files Outputs names (Counterexample), the simulation
// and its comparison with another when vs is set as text or JSON
// (SimulationJSON).
func (o Output) Simulation(in *checker.Instance, m *model.Model, res *simulate.Result, vs *Against) error {
	if err := o.Counterexample(in, res.Witness(o.Property)); err != nil {
		return err
	}
	return o.Print(func(w io.Writer) {
		Header(w, in, m)
		Simulation(w, res, m)
		if vs != nil {
			Difference(w, vs)
		}
	}, func() any { return SimulationJSON{Result: res, Against: vs} }, nil)
}

// Tuning prints a tuning as text or JSON (TuningJSON), and its web page
// (TuningHTML) to HTML.
func (o Output) Tuning(t *tune.Tuning) error {
	return o.Print(func(w io.Writer) { Tuning(w, t) }, func() any { return TuningJSON(t) }, func(w io.Writer) error { return TuningHTML(w, t) })
}

// Linearization prints porcupine's verdict on a history of protocol's
// operations, and its visualisation (LinearizationHTML, against spec) to
// HTML.
func (o Output) Linearization(protocol string, spec *porcupine.Model, l *history.Linearization, timeout string) error {
	return o.Print(func(w io.Writer) { Linearization(w, protocol, l, timeout) }, nil, func(w io.Writer) error { return LinearizationHTML(w, spec, l) })
}

// Tests prints a test run's tally as text (the cases came as they were
// checked: Cases) or the whole run as JSON (TestJSON), and writes it as
// JUnit XML to the file at junit ("": none).
func (o Output) Tests(suites []*expect.Suite, junit string) error {
	if err := o.Print(func(w io.Writer) { fmt.Fprintln(w, expect.Count(suites)) }, func() any { return TestJSON(suites) }, nil); err != nil {
		return err
	}
	return o.File(junit, func(w io.Writer) error { return JUnit(w, suites) })
}
