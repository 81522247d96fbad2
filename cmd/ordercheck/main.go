// Command ordercheck is a model checker for memory-ordering protocols: it
// explores every execution of a program under SC, x86-TSO and RC11 and
// reports what each model allows.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// usageError marks bad input: exit code 2.
func usageError(err error) error { return &exitError{2, err} }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "ordercheck",
		Short: "Check memory-ordering protocols under SC, TSO and RC11",
		Long: `ordercheck explores every execution of a concurrent protocol under a memory
model (sc, tso, rc11, rc11-consume) and says which fixes hold under which
model, with a counterexample for the rest: data races, failed assertions,
deadlocks. C litmus tests get herd7-compatible output.`,
		Example: `  ordercheck explore dlsym
  ordercheck explore dlsym --variant fixed --model rc11
  ordercheck compare dlsym --format markdown
  ordercheck litmus --model tso tests/*.litmus`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newLitmusCmd(), newListCmd(), newShowCmd(), newExploreCmd(), newCompareCmd(), newReplayCmd(), newSimulateCmd(), newLinearizeCmd())
	return root
}

func main() {
	// The explorer allocates fast but keeps little alive: with Go's default
	// the collector runs every few megabytes and takes a third of the time.
	// A larger step costs tens of megabytes (docs/performance.md).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	// Ctrl-C stops an exploration cleanly: it reports what it explored,
	// with no verdict (exit 3).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := newRoot()
	root.SetContext(ctx)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "ordercheck:", ee.err)
		}
		return ee.code
	}
	// Flag and argument errors from cobra are usage errors.
	fmt.Fprintln(stderr, "ordercheck:", err)
	return 2
}
