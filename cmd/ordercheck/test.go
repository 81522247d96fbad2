package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/protocols"
)

func newTestCmd() *cobra.Command {
	var run, junit string
	var asJSON, all bool
	var jobs int
	var b bounds
	var cl cluster
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
path or the protocol's name); one that selects no cell is an error. Cells run in parallel on --jobs cores (or on worker
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
					return usageError(fmt.Errorf("--run: %v", err))
				}
			}
			if jobs < 1 {
				return usageError(fmt.Errorf("--jobs %d: must be at least 1", jobs))
			}
			b.json = asJSON
			opt, err := b.options(cmd.Context())
			if err != nil {
				return err
			}
			if err := probeOutputs(map[string]string{"junit": junit}); err != nil {
				return err
			}
			if !cmd.Flags().Changed("workers") {
				opt.Workers = 1 // the cells share the cores
			}
			opt.Progress = nil
			if len(args) == 0 {
				args = []string{"."}
			}
			refs, err := findProtocols(args, cmd.ErrOrStderr(), true)
			if err != nil {
				return usageError(err)
			}
			r, finish, err := cl.runner("ordercheck test", "", jobs, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			suites, err := runTests(cmd, refs, sel, all, !asJSON, b.prog, func(cases []checker.Case, done func(*checker.CaseResult)) error {
				return checker.RunCases(cases, opt, r, done)
			})
			finish()
			if err != nil {
				return err
			}
			if asJSON {
				if err := render.JSON(cmd.OutOrStdout(), render.TestJSON(suites)); err != nil {
					return err
				}
			}
			if junit != "" {
				if err := writeFile(cmd, junit, func(w io.Writer) error { return render.JUnit(w, suites) }); err != nil {
					return err
				}
			}
			return testExit(suites)
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "check only the cells whose PROTOCOL/VARIANT/MODEL[/PARAMS] matches this regular expression")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as one JSON document: a record per protocol and per cell")
	cmd.Flags().BoolVar(&all, "all", false, "also explore the cells no expect clause selects (they are reported as skipped, and by default not explored)")
	cmd.Flags().StringVar(&junit, "junit", "", "also write the results as JUnit XML to this file, for CI systems")
	cmd.Flags().IntVar(&jobs, "jobs", runtime.NumCPU(), "check this many cells at once")
	b.add(cmd)
	cl.add(cmd)
	cmd.Flags().Lookup("workers").Usage = "explore each cell on this many cores (default 1: the cells run in parallel instead)"
	return cmd
}

// findProtocols returns the protocols the arguments name: the *.oc files
// under each folder (sorted) — with withC also the C files that carry an
// "// ordercheck: expect" comment —, each file named, each catalogue
// protocol named. A folder's special files (a FIFO, a device) are
// skipped, each said on warn; a special file named is bad input when it
// is read.
func findProtocols(args []string, warn io.Writer, withC bool) ([]string, error) {
	var out, skipped []string
	seen := map[string]bool{}
	add := func(ref string) {
		if !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			if _, lerr := protocols.Lookup(arg); lerr == nil && !strings.ContainsAny(arg, `/\`) {
				add(arg)
				continue
			}
			return nil, err
		}
		if !st.IsDir() {
			add(fileRef(arg))
			continue
		}
		var files []string
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() && path != arg && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if !d.IsDir() && (strings.HasSuffix(name, ".oc") || withC && strings.HasSuffix(name, ".c") && expectsIn(path)) {
				if !d.Type().IsRegular() {
					skipped = append(skipped, path)
					return nil
				}
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no protocol files (*.oc%s)", arg, map[bool]string{true: ", or *.c with an // ordercheck: expect comment"}[withC])
		}
		sort.Strings(files)
		for _, f := range skipped {
			fmt.Fprintf(warn, "ordercheck: skipped %s: not a regular file\n", f)
		}
		skipped = nil
		for _, f := range files {
			add(fileRef(f))
		}
	}
	return out, nil
}

// expectsIn reports whether the C file at path says what it expects (an
// "// ordercheck: expect" comment): a C file among others opts in so.
func expectsIn(path string) bool {
	src, err := os.ReadFile(path)
	return err == nil && bytes.Contains(src, []byte("// ordercheck: expect"))
}

// fileRef names a file so that checker.Load reads it as a file: ending
// in .oc or with a slash in it.
func fileRef(path string) string {
	if !strings.HasSuffix(path, ".oc") && !strings.ContainsRune(path, filepath.Separator) {
		return "." + string(filepath.Separator) + path
	}
	return path
}

// runTests loads each protocol, checks the selected cells of all of them
// with run and, when verbose, prints each cell's line as soon as
// it and the cells before it are done, each protocol's summary after its
// last cell, and the counts at the end.
func runTests(cmd *cobra.Command, refs []string, sel *regexp.Regexp, all, verbose bool, prog *progress, run func([]checker.Case, func(*checker.CaseResult)) error) ([]*render.Suite, error) {
	w := cmd.OutOrStdout()
	var suites []*render.Suite
	var cases []checker.Case
	var owner []int // owner[i] is the suite of cases[i]
	for _, ref := range refs {
		s := &render.Suite{Ref: ref}
		suites = append(suites, s)
		pr, err := protocols.Load(ref)
		if err == nil {
			var cs []checker.Case
			cs, err = pr.Cases()
			s.Expects = len(pr.Expects)
			if err == nil && s.Expects > 0 {
				for _, c := range cs {
					if sel == nil || sel.MatchString(ref+"/"+c.Name()) || sel.MatchString(pr.Name+"/"+c.Name()) {
						cases = append(cases, c)
						owner = append(owner, len(suites)-1)
					}
				}
			}
		}
		var ie *checker.InternalError
		if errors.As(err, &ie) {
			return nil, err
		}
		s.Err = err
	}
	if sel != nil && len(cases) == 0 {
		return nil, usageError(fmt.Errorf("--run %q selects no cell (it matches FILE/VARIANT/MODEL or PROTOCOL/VARIANT/MODEL, such as %s)", sel, runExample(suites)))
	}
	left := make([]int, len(suites)) // cases not yet done, by suite
	for _, o := range owner {
		left[o]++
	}
	printed := 0 // suites summed up so far
	sumUp := func(upTo int) {
		for ; printed < upTo; printed++ {
			s := suites[printed]
			if !verbose {
				continue
			}
			switch {
			case s.Err != nil:
				fmt.Fprintf(w, "FAIL\t%s [bad input]\n    %s\n", s.Ref, strings.ReplaceAll(s.Err.Error(), "\n", "\n    "))
			case s.NoExpectations():
				fmt.Fprintf(w, "?\t%s\t[no expect clauses]\n", s.Ref)
			case len(s.Cases) == 0:
				fmt.Fprintf(w, "?\t%s\t[no cells match --run]\n", s.Ref)
			default:
				word := "ok"
				if st := render.SuiteStatus(s); st != "ok" {
					word = strings.ToUpper(st)
				}
				fmt.Fprintf(w, "%s\t%s\t%.2fs\n", word, s.Ref, s.Elapsed.Seconds())
			}
		}
	}
	// A cell no clause selects is reported skipped, unexplored unless all
	// asks; the others are checked, and every cell is reported in order.
	results := make([]*checker.CaseResult, len(cases))
	var checked []checker.Case
	var at []int // at[k] is the index in cases of checked[k]
	for i, c := range cases {
		if c.Clause == nil && !all {
			results[i] = &checker.CaseResult{Case: &cases[i]}
			continue
		}
		checked = append(checked, c)
		at = append(at, i)
	}
	// The progress line counts the cells done, every second.
	var done atomic.Int64
	if prog != nil && prog.on {
		start, stop := time.Now(), make(chan struct{})
		defer close(stop)
		go func() {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					prog.clear()
					return
				case <-tick.C:
					prog.count(int(done.Load()), len(cases), time.Since(start))
				}
			}
		}()
	}
	next := 0 // the first case not reported yet
	report := func() {
		for ; next < len(cases) && results[next] != nil; next++ {
			done.Add(1)
			if prog != nil {
				prog.clear()
			}
			r, o := results[next], owner[next]
			sumUp(o) // the suites before o are complete
			s := suites[o]
			s.Cases = append(s.Cases, r)
			s.Elapsed += r.Elapsed
			left[o]--
			if verbose {
				render.Case(w, s.Ref, r)
			}
			if left[o] == 0 {
				sumUp(o + 1)
			}
		}
	}
	report()
	k := 0
	err := run(checked, func(r *checker.CaseResult) {
		results[at[k]] = r
		k++
		report()
	})
	if err != nil {
		return nil, err
	}
	sumUp(len(suites))
	for _, c := range suites {
		for _, r := range c.Cases {
			var ie *checker.InternalError
			if errors.As(r.Err, &ie) {
				return nil, r.Err
			}
		}
	}
	if verbose {
		t := render.Tally{}
		for _, s := range suites {
			t.Add(s)
		}
		fmt.Fprintln(w, t)
	}
	return suites, nil
}

// runExample names a cell of the suites as --run matches it, or a
// made-up one when they have none.
func runExample(suites []*render.Suite) string {
	for _, s := range suites {
		if s.Err == nil {
			return s.Ref + "/VARIANT/rc11"
		}
	}
	return "dlsym/fixed/rc11"
}

// testExit returns the exit status of a test run: bad input first, then a
// verdict that differs, then a cell without verdict.
func testExit(suites []*render.Suite) error {
	t := render.Tally{}
	bad := false
	for _, s := range suites {
		t.Add(s)
		bad = bad || s.Err != nil
	}
	switch {
	case bad || t[checker.CaseError] > 0:
		return &exitError{code: exitUsage}
	case t[checker.CaseFail] > 0:
		return &exitError{code: exitViolation}
	case t[checker.CaseNoVerdict] > 0:
		return &exitError{code: exitNoVerdict}
	}
	return nil
}
