package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/c"
)

// parseParams reads NAME=VALUE flags; errors are usage errors.
func parseParams(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, usageError(fmt.Errorf("--param %q: expected NAME=VALUE", kv))
		}
		out[k] = v
	}
	return out, nil
}

// bounds holds the flags that limit an exploration.
type bounds struct {
	maxExec   int64
	maxStates int64
	timeout   time.Duration
	memory    string
	preempt   int
	maxDepth  int
	workers   int
	engine    string
	quiet     bool
	// json says the command prints JSON: no progress line then.
	json bool
	cmd  *cobra.Command // the command the flags are on
	// prog is the progress line options made.
	prog *render.Progress
}

func (b *bounds) add(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&b.maxExec, "max-executions", 0, "stop after this many executions (by execution graphs, which --engine auto then uses): the verdict is then bounded (0: no bound)")
	cmd.Flags().Int64Var(&b.maxStates, "max-states", 0, "stop after visiting this many states, or partial graphs by execution graphs: the verdict is then bounded (0: no bound)")
	cmd.Flags().DurationVar(&b.timeout, "timeout", 0, "stop after this long: the verdict is then timeout (0: no bound)")
	cmd.Flags().StringVar(&b.memory, "max-memory", "", "stop when the explorer's heap exceeds this (e.g. 512MB, 4GB): the verdict is then bounded (default: "+memoryText()+")")
	cmd.Flags().IntVar(&b.preempt, "preemption-bound", -1, "explore only schedules with at most K preemptions: the verdict is then bounded(K) (-1: no bound)")
	cmd.Flags().IntVar(&b.maxDepth, "max-depth", explore.DefaultMaxEvents, "explore at most this many events per thread: a thread cut by it makes the verdict bounded")
	b.cmd = cmd
	workersFlag(cmd, &b.workers, "explore on this many cores (the result does not depend on it)")
	cmd.Flags().StringVar(&b.engine, "engine", explore.EngineAuto.String(), "how to explore: states (merge equal states; models with an operational form), dpor (one visit per execution graph), auto (states where it applies, for programs of at most 256 locations)")
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

// options returns the exploration bounds, or a usage error when a flag is
// out of its range; Ctrl-C (the context) stops an exploration cleanly,
// with what was explored so far.
func (b *bounds) options(ctx context.Context) (explore.Options, error) {
	var fail error
	check := func(ok bool, format string, args ...any) {
		if !ok && fail == nil {
			fail = usageError(fmt.Errorf(format, args...))
		}
	}
	check(b.maxExec >= 0, "--max-executions %d: must not be negative (0: no bound)", b.maxExec)
	check(b.maxStates >= 0, "--max-states %d: must not be negative (0: no bound)", b.maxStates)
	check(b.timeout >= 0, "--timeout %v: must not be negative (0: no bound)", b.timeout)
	check(b.preempt >= -1, "--preemption-bound %d: must be -1 (no bound) or more", b.preempt)
	check(b.maxDepth >= 1, "--max-depth %d: must be at least 1", b.maxDepth)
	check(b.workers >= 1 || !b.cmd.Flags().Changed("workers"), "--workers %d: must be at least 1", b.workers)
	mem, err := explore.ParseSize(b.memory)
	check(err == nil, "--max-memory: %v", err)
	eng, err := explore.ParseEngine(b.engine)
	check(err == nil, "%v", err)
	if fail != nil {
		return explore.Options{}, fail
	}
	if mem == 0 {
		mem = explore.DefaultMaxMemory()
	}
	explore.LimitMemory(mem)
	if b.maxExec > 0 {
		// Only execution graphs are counted as executions.
		if eng == explore.EngineStates {
			return explore.Options{}, usageError(fmt.Errorf("--max-executions counts executions, which the states engine does not explore one by one: bound it with --max-states, or use --engine dpor"))
		}
		eng = explore.EngineDPOR
	}
	opt := explore.Options{MaxExecutions: b.maxExec, MaxGraphs: b.maxStates, Timeout: b.timeout, MaxMemory: mem, Context: ctx, MaxEvents: b.maxDepth, Workers: b.workers, Engine: eng}
	if b.preempt >= 0 {
		opt.Preemptions, opt.PreemptionBound = true, b.preempt
	}
	b.prog = render.NewProgress(os.Stderr, b.quiet || b.json)
	if b.prog.On() {
		opt.Progress = b.prog.Stats
	}
	return opt, nil
}

// target holds the flags that pick what to check: variant, model, parameters.
type target struct {
	variant, model string
	params         []string
	cflags
}

func (tg *target) add(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&tg.variant, "variant", "v", "", "variant (default: the protocol's default, the code as shipped)")
	modelFlag(cmd, &tg.model)
	cmd.Flags().StringArrayVarP(&tg.params, "param", "p", nil, "set a parameter, NAME=VALUE (repeatable)")
	tg.cflags.add(cmd)
}

// cflags holds the flags that only a C program takes.
type cflags struct {
	defines, includes []string
	unroll            int
}

func (cf *cflags) add(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&cf.defines, "define", "D", nil, "for a .c file: define a macro, NAME or NAME=VALUE, before its variants' own (repeatable)")
	cmd.Flags().StringArrayVarP(&cf.includes, "include", "I", nil, "for a .c file: a directory to search for #include files, before ordercheck's own headers (repeatable)")
	cmd.Flags().IntVar(&cf.unroll, "unroll", 0, fmt.Sprintf("for a .c file: the rounds a loop that is neither counted nor a spin runs before the execution is cut, with no verdict (default %d)", c.DefaultUnroll))
}

// load reads the protocol named by arg: a .c file with the C flags, else
// as protocols.Load does, which takes none.
func (cf *cflags) load(arg string) (*checker.Protocol, error) {
	if cf.unroll < 0 {
		return nil, fmt.Errorf("--unroll %d: expected a number of rounds, 1 or more", cf.unroll)
	}
	if strings.HasSuffix(arg, ".c") {
		return checker.LoadC(arg, c.Options{Defines: cf.defines, Includes: cf.includes, Unroll: cf.unroll})
	}
	if len(cf.defines) > 0 || len(cf.includes) > 0 || cf.unroll != 0 {
		return nil, fmt.Errorf("-D, -I and --unroll are for C programs (.c files), not %s", arg)
	}
	return protocols.Load(arg)
}

// load reads the protocol named by arg and compiles the chosen variant;
// errors are usage errors.
func (tg *target) load(arg string) (*checker.Instance, *model.Model, error) {
	pr, err := tg.cflags.load(arg)
	if err != nil {
		return nil, nil, usageError(err)
	}
	m, err := model.Lookup(tg.model)
	if err != nil {
		return nil, nil, usageError(err)
	}
	inst, err := instance(pr, tg.variant, tg.params)
	return inst, m, err
}

// instance compiles variant of pr with the NAME=VALUE params; errors are
// usage errors.
func instance(pr *checker.Protocol, variant string, params []string) (*checker.Instance, error) {
	over, err := parseParams(params)
	if err != nil {
		return nil, err
	}
	inst, err := pr.Instance(variant, over)
	if err != nil {
		return nil, usageError(err)
	}
	return inst, nil
}

// outputs holds the flags that save a counterexample.
type outputs struct {
	render.Outputs
	property string
}

func (o *outputs) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Trace, "trace", "", "write the counterexample as a JSON trace, for ordercheck replay")
	cmd.Flags().StringVar(&o.DOT, "dot", "", "write the counterexample's execution graph in Graphviz DOT")
	cmd.Flags().StringVar(&o.SVG, "svg", "", "render the execution graph to SVG (needs Graphviz's dot)")
	cmd.Flags().StringVar(&o.property, "property", "", "which violated property to save (default: the first)")
}

// check makes sure, before any work, that --property names a property of
// the protocol and the files can be written.
func (o *outputs) check(pr *checker.Protocol) error {
	if err := probeOutputs(map[string]string{"trace": o.Trace, "dot": o.DOT, "svg": o.SVG}); err != nil {
		return err
	}
	if o.property == "" {
		return nil
	}
	if err := pr.HasProp(o.property); err != nil {
		return usageError(fmt.Errorf("--property: %w", err))
	}
	return nil
}

// write saves w, the counterexample of the chosen violated property (nil:
// none).
func (o *outputs) write(cmd *cobra.Command, inst *checker.Instance, w *explore.Witness) error {
	if !o.Any() {
		return nil
	}
	if w == nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "ordercheck: no counterexample to save: nothing is violated")
		return nil
	}
	if err := o.Save(inst, w, func(path string) { wrote(cmd, path) }); err != nil {
		return usageError(err)
	}
	return nil
}

// lookupModels returns the models names name; bad names are usage
// errors.
func lookupModels(names []string) ([]*model.Model, error) {
	var out []*model.Model
	for _, n := range names {
		m, err := model.Lookup(n)
		if err != nil {
			return nil, usageError(err)
		}
		out = append(out, m)
	}
	return out, nil
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
