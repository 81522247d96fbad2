package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/c"
)

// bounds holds the flags that limit an exploration.
type bounds struct {
	explore.Bounds
	quiet bool
	cmd   *cobra.Command // the command the flags are on
	// prog is the progress line options made.
	prog *render.Progress
}

func (b *bounds) add(cmd *cobra.Command) {
	b.Bounds = explore.NewBounds() // the flags' defaults
	cmd.Flags().Int64Var(&b.MaxExecutions, "max-executions", b.MaxExecutions, "stop after this many executions (by execution graphs, which --engine auto then uses): the verdict is then bounded (0: no bound)")
	cmd.Flags().Int64Var(&b.MaxStates, "max-states", b.MaxStates, "stop after visiting this many states, or partial graphs by execution graphs: the verdict is then bounded (0: no bound)")
	cmd.Flags().DurationVar(&b.Timeout, "timeout", b.Timeout, "stop after this long: the verdict is then timeout (0: no bound)")
	cmd.Flags().StringVar(&b.MaxMemory, "max-memory", b.MaxMemory, "stop when the explorer's heap exceeds this (e.g. 512MB, 4GB): the verdict is then bounded (default: "+memoryText()+")")
	cmd.Flags().IntVar(&b.PreemptionBound, "preemption-bound", b.PreemptionBound, "explore only schedules with at most K preemptions: the verdict is then bounded(K) (-1: no bound)")
	cmd.Flags().IntVar(&b.MaxDepth, "max-depth", b.MaxDepth, "explore at most this many events per thread: a thread cut by it makes the verdict bounded")
	b.cmd = cmd
	workersFlag(cmd, &b.Workers, "explore on this many cores (the result does not depend on it)")
	cmd.Flags().StringVar(&b.Engine, "engine", b.Engine, "how to explore: states (merge equal states; models with an operational form), dpor (one visit per execution graph), auto (states where it applies, for programs of at most 256 locations)")
	cmd.Flags().BoolVarP(&b.quiet, "quiet", "q", false, "no progress line on the terminal (there is none when standard error is not one, nor with JSON output)")
}

// memoryText describes the default of --max-memory for --help.
func memoryText() string {
	if m := explore.DefaultMaxMemory(); m > 0 {
		return fmt.Sprintf("half the machine's memory, %.1f GB here", float64(m)/1e9)
	}
	return "half the machine's memory"
}

// workersFlag adds --workers to cmd, into v: by default every core, where
// the graph explorer leaves one to Go's collector (explore.AllCores).
func workersFlag(cmd *cobra.Command, v *int, usage string) {
	cmd.Flags().IntVar(v, "workers", explore.AllCores, strings.TrimSuffix(usage, ")")+"; by execution graphs the default leaves one core to Go's collector)")
	cmd.Flags().Lookup("workers").DefValue = "every core"
}

// options returns the exploration options the flags give
// (explore.Bounds.Options), or an error naming a flag out of its range
// (--workers given as explore.AllCores too); the memory bound holds from
// here on, and Ctrl-C (the context) stops an exploration cleanly, with
// what was explored so far. With noLine (JSON output, or a command whose
// work the line does not count) there is no progress line.
func (b *bounds) options(noLine bool) (explore.Options, error) {
	opt, err := b.Options()
	if err == nil && b.Workers < 1 && b.cmd.Flags().Changed("workers") {
		err = fmt.Errorf("--workers %d: must be at least 1", b.Workers)
	}
	if err != nil {
		return explore.Options{}, err
	}
	explore.LimitMemory(opt.MaxMemory)
	opt.Context = b.cmd.Context()
	b.prog = render.NewProgress(os.Stderr, b.quiet || noLine)
	if b.prog.On() {
		opt.Progress = b.prog.Stats
	}
	return opt, nil
}

// target holds the flags that pick what to check: variant, model,
// parameters and a C program's options.
type target struct{ protocols.Target }

func (tg *target) add(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&tg.Variant, "variant", "v", "", "variant (default: the protocol's default, the code as shipped)")
	modelFlag(cmd, &tg.Model)
	cmd.Flags().StringArrayVarP(&tg.Params, "param", "p", nil, "set a parameter, NAME=VALUE (repeatable)")
	tg.addC(cmd)
}

// addC adds the flags that only a C program takes.
func (tg *target) addC(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&tg.C.Defines, "define", "D", nil, "for a .c file: define a macro, NAME or NAME=VALUE, before its variants' own (repeatable)")
	cmd.Flags().StringArrayVarP(&tg.C.Includes, "include", "I", nil, "for a .c file: a directory to search for #include files, before ordercheck's own headers (repeatable)")
	cmd.Flags().IntVar(&tg.C.Unroll, "unroll", 0, fmt.Sprintf("for a .c file: the rounds a loop that is neither counted nor a spin runs before the execution is cut, with no verdict (default %d)", c.DefaultUnroll))
}

// outputs holds the flags that save a counterexample.
type outputs struct{ render.Output }

func (o *outputs) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Trace, "trace", "", "write the counterexample as a JSON trace, for ordercheck replay")
	cmd.Flags().StringVar(&o.DOT, "dot", "", "write the counterexample's execution graph in Graphviz DOT")
	cmd.Flags().StringVar(&o.SVG, "svg", "", "render the execution graph to SVG (needs Graphviz's dot)")
	cmd.Flags().StringVar(&o.Property, "property", "", "which violated property to save (default: the first)")
}

// output returns where cmd's result goes: its standard output, and o's
// files, announced on its standard error.
func (o outputs) output(cmd *cobra.Command) render.Output {
	o.Out, o.Log = cmd.OutOrStdout(), cmd.ErrOrStderr()
	return o.Output
}

// modelFlag adds --model (-m) to cmd, into v: one model, the checker's
// default unless given.
func modelFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVarP(v, "model", "m", checker.DefaultModel.Name, "memory model: "+strings.Join(model.Names(), ", "))
}

// verdictExit returns the exit status of a verdict.
func verdictExit(v checker.Verdict) error {
	switch v {
	case checker.VerdictViolated:
		return &exitError{code: exitViolation}
	case checker.VerdictVerified:
		return nil
	}
	return &exitError{code: exitNoVerdict}
}
