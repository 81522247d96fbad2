package main

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/protocols"
)

func newTestCmd() *cobra.Command {
	var run, junit string
	var all bool
	var jobs int
	var b bounds
	var cl cluster
	var tg target
	var out outputs
	cmd := &cobra.Command{
		Use:   "test [PATH|PROTOCOL...]",
		Short: "Check every expect clause of the protocol files under the paths",
		Long: `test finds every protocol file (*.oc, and *.c with an "// ordercheck: expect"
comment) under the paths (default: the current
directory; folders named testdata, or starting with "." or "_", are skipped
unless named), checks every cell its expect clauses decide — a variant under
a model, with a configuration's parameters — and prints a line per cell as
go test -v does: PASS, FAIL with what differs, the counterexample and the
command that explores the cell alone, NOVERDICT when a bound cut the search
short, SKIP for a cell no clause selects (not explored unless --all asks).
A catalogue protocol may be named instead of a path. --run selects cells by
FILE/VARIANT/MODEL[/PARAMS] or PROTOCOL/VARIANT/MODEL[/PARAMS] (the file's
path or the protocol's name); one that selects no cell is an error. -D, -I
and --unroll apply to the C files. Cells run in parallel on --jobs cores (or on worker
processes: --procs, --cluster); the bounds apply to each cell.

Exit status: 0 every cell as expected, 1 a verdict differs, 2 bad input (a
file that does not load), 3 a bound cut a cell short (a bounded cell never
passes), 4 an internal error.`,
		Example: `  ordercheck test
  ordercheck test protocols/ --run 'dlsym.*/rc11'
  ordercheck test locks/ --junit report.xml --timeout 10m`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var sel *regexp.Regexp
			if run != "" {
				var err error
				if sel, err = regexp.Compile(run); err != nil {
					return fmt.Errorf("--run: %v", err)
				}
			}
			if jobs < 1 {
				return fmt.Errorf("--jobs %d: must be at least 1", jobs)
			}
			opt, err := b.options(out.JSON)
			if err != nil {
				return err
			}
			if err := render.Probe(map[string]string{"junit": junit}); err != nil {
				return err
			}
			if !cmd.Flags().Changed("workers") {
				opt.Workers = 1 // the cells share the cores
			}
			opt.Progress = nil
			refs, err := protocols.Find(args, true, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			o := out.output(cmd)
			topt := expect.Options{Select: sel, All: all, Options: opt}
			o.Cases(&topt)
			stop := b.prog.CountCases(&topt)
			suites, err := cl.setup(cmd, "ordercheck test", b.prog).RunTests(refs, tg.Load, jobs, topt)
			stop()
			if errors.Is(err, expect.ErrNoCell) {
				return fmt.Errorf("--run %w", err)
			} else if err != nil {
				return err
			}
			if err := o.Tests(suites, junit); err != nil {
				return err
			}
			v, err := expect.Worst(suites).Verdict()
			if err != nil {
				return &exitError{code: exitUsage} // a protocol did not load, or a case could not be checked
			}
			return verdictExit(v)
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "check only the cells whose PROTOCOL/VARIANT/MODEL[/PARAMS] matches this regular expression")
	cmd.Flags().BoolVar(&out.JSON, "json", false, "print the results as one JSON document: a record per protocol and per cell")
	cmd.Flags().BoolVar(&all, "all", false, "also explore the cells no expect clause selects (they are reported as skipped, and by default not explored)")
	cmd.Flags().StringVar(&junit, "junit", "", "also write the results as JUnit XML to this file, for CI systems")
	cmd.Flags().IntVar(&jobs, "jobs", runtime.NumCPU(), "check this many cells at once")
	b.add(cmd)
	cl.add(cmd)
	tg.addC(cmd)
	cmd.Flags().Lookup("workers").Usage = "explore each cell on this many cores (default 1: the cells run in parallel instead)"
	return cmd
}
