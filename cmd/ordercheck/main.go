// Command ordercheck is a model checker for memory-ordering protocols: it
// explores every execution of a program under a memory model and reports
// what each model allows. Each command is a thin layer over package
// checker, which does the work, and package render, which prints it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/syntax"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK        = 0 // no violation
	exitViolation = 1 // a violation was found
	exitUsage     = 2 // bad input or usage
	exitNoVerdict = 3 // a bound cut the search short: no verdict
	exitInternal  = 4 // a bug of ordercheck
)

// exitError carries an exit status out of a command, with nothing to
// say: any other error is said and exits 2 (bad input or usage), but an
// internal error (4) and a memory bound's (3) (see exitStatus).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "ordercheck",
		Short: "Check memory-ordering protocols under " + strings.Join(model.Names(), ", "),
		Long: `ordercheck explores every execution of a concurrent protocol under a memory
model (` + strings.Join(model.Names(), ", ") + `) and says which fixes hold under which
model, with a counterexample for the rest: data races, failed assertions,
deadlocks. C litmus tests get herd7-compatible output.

Exit status of the checking commands: 0 no violation, 1 violation found,
2 bad input or usage, 3 no verdict (a bound cut the search short), 4 an
internal error of ordercheck (please report it).`,
		Example: `  ordercheck explore dlsym
  ordercheck explore dlsym --variant fixed --model rc11
  ordercheck compare dlsym --format markdown
  ordercheck litmus --model tso mp.litmus`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version has no shorthand: -v is --variant wherever there is one.
	root.Flags().Bool("version", false, "print ordercheck's version")
	root.AddCommand(newLitmusCmd(), newListCmd(), newShowCmd(), newExploreCmd(), newCompareCmd(), newReplayCmd(), newSimulateCmd(), newLinearizeCmd(), newTestCmd(), newFmtCmd(), newVetCmd(), newTuneCmd(), newWorkerCmd())
	// One vocabulary: every command takes --model and --models, --variant
	// and --variants, --param and --params alike, and an unknown flag
	// gets the nearest known one.
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if singular, ok := plurals[name]; ok {
			name = singular
		}
		return pflag.NormalizedName(name)
	})
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
		if !ok {
			return err
		}
		var known []string
		c.Flags().VisitAll(func(f *pflag.Flag) { known = append(known, f.Name) })
		return fmt.Errorf("unknown flag --%s%s", name, strings.Replace(model.DidYouMean(name, known), "mean ", "mean --", 1))
	})
	return root
}

// plurals maps the plural flags to the singular ones they mean.
var plurals = map[string]string{"models": "model", "variants": "variant", "params": "param"}

func main() {
	// The explorers allocate fast but keep little alive: with Go's default
	// the collector runs every few megabytes and takes a share of the
	// time. A larger step costs memory: 200 balances the two
	// (docs/performance.md, item 23).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = internal(stderr, args, fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
		}
	}()
	// Ctrl-C stops an exploration cleanly: it reports what it explored,
	// with no verdict (exit 3). What does not stop within a second (a
	// protocol still compiling, a Go implementation still running) is
	// stopped then, with the same status.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	go func() {
		select {
		case <-interrupts:
			cancel()
			time.Sleep(time.Second)
			fmt.Fprintln(stderr, "ordercheck: interrupted")
			os.Exit(exitNoVerdict)
		case <-ctx.Done():
		}
	}()
	root := newRoot()
	root.SetContext(ctx)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return exitStatus(stderr, args, root.Execute())
}

// exitStatus reports err, what the command args returned, on stderr and
// returns the exit status it means.
func exitStatus(stderr io.Writer, args []string, err error) int {
	if err == nil {
		return exitOK
	}
	var ie *explore.InternalError
	if errors.As(err, &ie) {
		return internal(stderr, args, err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintln(stderr, "ordercheck:", syntax.Shorten(dist.Redact(err.Error())))
	if errors.Is(err, model.ErrMemoryBound) {
		return exitNoVerdict // a bound cut the work short, wherever it was
	}
	// Flag and argument errors from cobra, and the library's errors, are
	// usage errors.
	return exitUsage
}

// internal reports a bug of ordercheck and returns its exit status.
func internal(stderr io.Writer, args []string, err error) int {
	fmt.Fprintf(stderr, "ordercheck: %v\nThis is a bug of ordercheck, not of your input: please report it with the command line\n  ordercheck %s\nand the files it reads.\n", err, strings.Join(args, " "))
	return exitInternal
}
