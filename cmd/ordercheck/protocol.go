package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// loadProtocol reads a catalogue protocol by name, or a protocol file.
func loadProtocol(arg string) (*lang.Protocol, error) {
	if _, err := os.Stat(arg); err == nil && (strings.Contains(arg, "/") || strings.HasSuffix(arg, ".oc")) {
		return lang.ParseFile(arg)
	}
	return protocols.Load(arg)
}

// specFor returns the sequential specification of a catalogue protocol
// (none for a protocol file).
func specFor(arg string) *porcupine.Model {
	if _, err := protocols.Source(arg); err != nil {
		return nil
	}
	return protocols.Spec(arg)
}

func parseParams(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--param %q: expected NAME=VALUE", kv)
		}
		out[k] = v
	}
	return out, nil
}

func propNames(pr *lang.Protocol) []string {
	var out []string
	for _, p := range pr.Props {
		out = append(out, p.Name)
	}
	return out
}

// bounds holds the flags that limit an exploration.
type bounds struct {
	maxExec  int64
	timeout  time.Duration
	memory   string
	preempt  int
	maxDepth int
	workers  int
	engine   string
}

func (b *bounds) add(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&b.maxExec, "max-executions", 0, "stop after this many executions: the verdict is then bounded (0: no bound)")
	cmd.Flags().DurationVar(&b.timeout, "timeout", 0, "stop after this long: the verdict is then timeout (0: no bound)")
	cmd.Flags().StringVar(&b.memory, "max-memory", "", "stop when the explorer's heap exceeds this (e.g. 512MB, 4GB): the verdict is then bounded")
	cmd.Flags().IntVar(&b.preempt, "preemption-bound", -1, "explore only schedules with at most K preemptions: the verdict is then bounded(K) (-1: no bound)")
	cmd.Flags().IntVar(&b.maxDepth, "max-depth", 0, "explore at most this many events per thread: the verdict is then bounded (0: no bound)")
	cmd.Flags().IntVar(&b.workers, "workers", runtime.NumCPU(), "explore on this many cores (the result does not depend on it)")
	cmd.Flags().StringVar(&b.engine, "engine", checker.EngineAuto, "how to explore: states (merge equal states; sc, tso, and rc11 without seq_cst), dpor (one visit per execution graph), auto (states where it applies)")
}

// options returns the exploration bounds; Ctrl-C (the context) stops an
// exploration cleanly, with what was explored so far.
func (b *bounds) options(ctx context.Context) (checker.Options, error) {
	mem, err := parseBytes(b.memory)
	if err != nil {
		return checker.Options{}, usageError(fmt.Errorf("--max-memory: %v", err))
	}
	opt := checker.Options{MaxExecutions: b.maxExec, Timeout: b.timeout, MaxMemory: mem, Context: ctx, MaxEvents: b.maxDepth, Workers: b.workers, Engine: b.engine}
	if b.preempt >= 0 {
		opt.Preemptions, opt.PreemptionBound = true, b.preempt
	}
	if isTerminal(os.Stderr) {
		opt.Progress = func(s checker.Stats) {
			fmt.Fprintf(os.Stderr, "\r\033[K%d executions, %.0f graphs/s, %s", s.Executions, float64(s.Graphs)/s.Elapsed.Seconds(), s.Elapsed.Round(time.Second))
		}
	}
	return opt, nil
}

// isTerminal reports whether f is a terminal, where progress is shown.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// clearProgress erases the progress line.
func clearProgress() {
	if isTerminal(os.Stderr) {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}

// parseBytes reads a size such as 512MB, 4GB or 1048576.
func parseBytes(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		scale  uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	scale := uint64(1)
	num := s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, scale = strings.TrimSuffix(s, u.suffix), u.scale
			break
		}
	}
	n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q is not a size like 512MB or 4GB", s)
	}
	return n * scale, nil
}

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the catalogue's protocols, their variants and properties",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			for _, name := range protocols.Names() {
				pr, err := protocols.Load(name)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s  %s\n", pr.Name, pr.Title)
				var vs []string
				for _, v := range pr.Variants {
					n := v.Name
					if v.Default {
						n += " (default)"
					}
					vs = append(vs, n)
				}
				fmt.Fprintf(w, "  variants:   %s\n", strings.Join(vs, ", "))
				fmt.Fprintf(w, "  properties: %s\n", strings.Join(propNames(pr), ", "))
			}
			return nil
		},
	}
}

func newShowCmd() *cobra.Command {
	var source bool
	cmd := &cobra.Command{
		Use:     "show PROTOCOL|FILE",
		Short:   "Describe a protocol: parameters, variants, properties and threads",
		Example: "  ordercheck show dlsym\n  ordercheck show --source dlsym",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, err := loadProtocol(args[0])
			if err != nil {
				return usageError(err)
			}
			w := cmd.OutOrStdout()
			if source {
				if src, err := protocolSource(args[0]); err == nil {
					fmt.Fprint(w, src)
					return nil
				}
			}
			fmt.Fprintf(w, "protocol %s: %s\n\nparameters:\n", pr.Name, pr.Title)
			for _, p := range pr.Params {
				fmt.Fprintf(w, "  %-8s = %-8s %s\n", p.Name, p.Default.Text, p.Doc)
			}
			fmt.Fprintln(w, "\nvariants:")
			for _, v := range pr.Variants {
				var binds []string
				for _, b := range v.Binds {
					binds = append(binds, b.Param+"="+b.Value.Text)
				}
				var blocks []string
				for name := range v.Replace {
					blocks = append(blocks, "replaces "+name)
				}
				sort.Strings(blocks)
				binds = append(binds, blocks...)
				def := ""
				if v.Default {
					def = " (default)"
				}
				fmt.Fprintf(w, "  %s%s: %s\n    %s\n", v.Name, def, v.Doc, strings.Join(binds, ", "))
			}
			fmt.Fprintln(w, "\nproperties:")
			for _, p := range pr.Props {
				fmt.Fprintf(w, "  %-10s %s\n", p.Name, p.Doc)
			}
			fmt.Fprintln(w, "\nthreads:")
			for _, t := range pr.Threads {
				n := t.Name
				if t.Count != nil {
					n += "[...]"
				}
				if t.Spawned {
					n += " (spawned)"
				}
				fmt.Fprintf(w, "  %s\n", n)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&source, "source", false, "print the protocol file")
	return cmd
}

func protocolSource(arg string) (string, error) {
	if b, err := os.ReadFile(arg); err == nil {
		return string(b), nil
	}
	return protocols.Source(arg)
}

// target holds the flags that pick what to check: variant, model, parameters.
type target struct {
	variant, model string
	params         []string
}

func (tg *target) add(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&tg.variant, "variant", "v", "", "variant (default: the protocol's default, the code as shipped)")
	cmd.Flags().StringVarP(&tg.model, "model", "m", "rc11", "memory model: "+strings.Join(model.ModelNames(), ", "))
	cmd.Flags().StringArrayVarP(&tg.params, "param", "p", nil, "set a parameter, NAME=VALUE (repeatable)")
}

// load reads the protocol named by arg and compiles the chosen variant;
// errors are usage errors.
func (tg *target) load(arg string) (*lang.Protocol, *lang.Instance, model.Model, error) {
	pr, err := loadProtocol(arg)
	if err != nil {
		return nil, nil, nil, usageError(err)
	}
	m, err := model.Lookup(tg.model)
	if err != nil {
		return nil, nil, nil, usageError(err)
	}
	over, err := parseParams(tg.params)
	if err != nil {
		return nil, nil, nil, usageError(err)
	}
	inst, err := pr.Compile(tg.variant, over)
	if err != nil {
		return nil, nil, nil, usageError(err)
	}
	return pr, inst, m, nil
}

func newExploreCmd() *cobra.Command {
	var tg target
	var asJSON bool
	var out outputs
	var b bounds
	cmd := &cobra.Command{
		Use:   "explore PROTOCOL|FILE",
		Short: "Explore every execution of a protocol and judge its properties",
		Long: `explore checks every execution of one variant of a protocol under one memory
model and reports each property as holds, violated or unknown, with a
counterexample for each violation.

Exit status: 0 every property holds, 1 a property is violated, 2 bad input
or usage, 3 a bound cut the search short before a violation was found.`,
		Example: `  ordercheck explore dlsym
  ordercheck explore dlsym --variant unordered --model rc11 --trace t.json --dot t.dot
  ordercheck replay t.json
  ordercheck explore dlsym --variant fixed --param N=3 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, inst, m, err := tg.load(args[0])
			if err != nil {
				return err
			}
			opt, err := b.options(cmd.Context())
			if err != nil {
				return err
			}
			opt.Spec = specFor(args[0])
			rep, err := checker.Check(inst.Prog, m, propNames(pr), opt)
			clearProgress()
			if err != nil {
				return usageError(err)
			}
			var ws []named
			for _, p := range rep.Props {
				ws = append(ws, named{p.Name, p.Witness})
			}
			if err := out.write(cmd, inst, args[0], rep.Model, ws); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep.JSON(pr.Name, inst.Variant, inst.ParamString())); err != nil {
					return err
				}
			} else {
				writeHeader(w, pr, inst, m)
				rep.WriteText(w)
			}
			return verdictExit(rep.Verdict())
		},
	}
	tg.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	out.add(cmd)
	b.add(cmd)
	return cmd
}

// outputs holds the flags that save a counterexample.
type outputs struct {
	trace, dot, svg, property string
}

func (o *outputs) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.trace, "trace", "", "write the counterexample as a JSON trace, for ordercheck replay")
	cmd.Flags().StringVar(&o.dot, "dot", "", "write the counterexample's execution graph in Graphviz DOT")
	cmd.Flags().StringVar(&o.svg, "svg", "", "render the execution graph to SVG (needs Graphviz's dot)")
	cmd.Flags().StringVar(&o.property, "property", "", "which violated property to save (default: the first)")
}

// named is a property and its counterexample, if any.
type named struct {
	prop    string
	witness *checker.Witness
}

// write saves the counterexample of the chosen violated property.
func (o *outputs) write(cmd *cobra.Command, inst *lang.Instance, arg, modelName string, ws []named) error {
	if o.trace == "" && o.dot == "" && o.svg == "" {
		return nil
	}
	var w *checker.Witness
	for _, p := range ws {
		if p.witness != nil && (o.property == "" || p.prop == o.property) {
			w = p.witness
			break
		}
	}
	if w == nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "ordercheck: no counterexample to save: nothing is violated")
		return nil
	}
	if o.trace != "" {
		t := checker.NewTrace(w, modelName)
		t.Variant, t.Params = inst.Variant, map[string]string{}
		for _, b := range inst.Params {
			t.Params[b.Param] = b.Value.Text
		}
		if _, err := protocols.Source(arg); err != nil {
			t.Source = arg
		}
		f, err := os.Create(o.trace)
		if err != nil {
			return usageError(err)
		}
		defer f.Close()
		if err := t.WriteJSON(f); err != nil {
			return err
		}
	}
	if o.dot != "" || o.svg != "" {
		src, err := checker.DOT(w)
		if err != nil {
			return err
		}
		if o.dot != "" {
			if err := os.WriteFile(o.dot, src, 0o644); err != nil {
				return usageError(err)
			}
		}
		if o.svg != "" {
			if err := renderSVG(src, o.svg); err != nil {
				return usageError(err)
			}
		}
	}
	return nil
}

// renderSVG runs Graphviz's dot.
func renderSVG(src []byte, path string) error {
	bin, err := exec.LookPath("dot")
	if err != nil {
		return fmt.Errorf("--svg needs Graphviz's dot, which is not installed (apt-get install graphviz); --dot writes the graph without it")
	}
	c := exec.Command(bin, "-Tsvg", "-o", path)
	c.Stdin = bytes.NewReader(src)
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("dot: %v: %s", err, out)
	}
	return nil
}

func newReplayCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "replay TRACE",
		Short: "Re-execute a saved counterexample and check that it still fails",
		Long: `replay rebuilds the execution a trace records, deterministically, checks it
again under the trace's model and prints the counterexample.

Exit status: 1 the violation reproduces, 0 it no longer does, 2 the trace
does not fit the protocol any more (or is not a trace).`,
		Example: "  ordercheck explore dlsym --variant unordered --trace t.json\n  ordercheck replay t.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return usageError(err)
			}
			defer f.Close()
			t, err := checker.ReadTrace(f)
			if err != nil {
				return usageError(fmt.Errorf("%s: %w", args[0], err))
			}
			r, err := replayTrace(t)
			if err != nil {
				return usageError(fmt.Errorf("%s: %w", args[0], err))
			}
			pr, inst, m, w, reason := r.protocol, r.inst, r.model, r.witness, r.reason
			out := cmd.OutOrStdout()
			writeHeader(out, pr, inst, m)
			if w == nil {
				fmt.Fprintf(out, "the violation of %s no longer reproduces: %s\n", t.Property, reason)
				return nil
			}
			fmt.Fprintf(out, "  %s  violated  %s\n\ncounterexample for %s:\n%s", t.Property, w.Violation.Msg, t.Property, checker.FormatWitness(w, m))
			return &exitError{code: 1}
		},
	}
}

// replayed is the outcome of replaying a trace.
type replayed struct {
	protocol *lang.Protocol
	inst     *lang.Instance
	model    model.Model
	witness  *checker.Witness // nil when the violation no longer reproduces
	reason   string           // why it does not
}

// replayTrace rebuilds a trace's execution on its protocol and checks it.
// An error means the trace does not fit (or names what does not exist).
func replayTrace(t *checker.Trace) (*replayed, error) {
	src := t.Source
	if src == "" {
		src = t.Protocol
	}
	pr, err := loadProtocol(src)
	if err != nil {
		return nil, err
	}
	m, err := model.Lookup(t.Model)
	if err != nil {
		return nil, err
	}
	inst, err := pr.Compile(t.Variant, t.Params)
	if err != nil {
		return nil, err
	}
	g, err := t.Rebuild(inst.Prog)
	if err != nil {
		return nil, err
	}
	w, reason, err := t.Replay(g, m, specFor(src))
	if err != nil {
		return nil, err
	}
	return &replayed{pr, inst, m, w, reason}, nil
}

func writeHeader(w io.Writer, pr *lang.Protocol, inst *lang.Instance, m model.Model) {
	variant := ""
	if inst.Variant != "" {
		variant = ", variant " + inst.Variant
	}
	if v := pr.Variant(inst.Variant); v != nil && v.Doc != "" {
		variant += " — " + v.Doc
	}
	fmt.Fprintf(w, "protocol %s%s\nmodel %s, %s\n\n", pr.Name, variant, m.Name(), inst.ParamString())
}

func verdictExit(v string) error {
	switch v {
	case "violated":
		return &exitError{code: 1}
	case "verified":
		return nil
	}
	return &exitError{code: 3} // bounded, bounded(K), timeout: no verdict
}

func newCompareCmd() *cobra.Command {
	var models, variants, params []string
	var format string
	var b bounds
	cmd := &cobra.Command{
		Use:   "compare PROTOCOL|FILE",
		Short: "Check every variant under every model, in one table",
		Long: `compare checks every variant of a protocol (or those given) under every model
(or those given) and prints one table of property verdicts: for a design
review of competing fixes.

Exit status: 0 every property holds everywhere, 1 some cell is violated, 2
bad input or usage, 3 a bound cut some search short and nothing is violated.`,
		Example: `  ordercheck compare dlsym
  ordercheck compare dlsym --models rc11,rc11-consume --format markdown
  ordercheck compare dlsym --variants original,fixed --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, err := loadProtocol(args[0])
			if err != nil {
				return usageError(err)
			}
			over, err := parseParams(params)
			if err != nil {
				return usageError(err)
			}
			if len(models) == 0 {
				models = []string{"sc", "tso", "rc11", "rc11-consume"}
			}
			var ms []model.Model
			for _, n := range models {
				m, err := model.Lookup(n)
				if err != nil {
					return usageError(err)
				}
				ms = append(ms, m)
			}
			if len(variants) == 0 {
				for _, v := range pr.Variants {
					variants = append(variants, v.Name)
				}
			}
			var cases []checker.Case
			for _, v := range variants {
				inst, err := pr.Compile(v, over)
				if err != nil {
					return usageError(err)
				}
				cases = append(cases, checker.Case{Variant: inst.Variant, Params: inst.ParamString(), Prog: inst.Prog})
			}
			opt, err := b.options(cmd.Context())
			if err != nil {
				return err
			}
			opt.Spec = specFor(args[0])
			cmp, err := checker.Compare(pr.Name, cases, ms, propNames(pr), opt)
			clearProgress()
			if err != nil {
				return usageError(err)
			}
			w := cmd.OutOrStdout()
			switch format {
			case "table":
				cmp.WriteTable(w)
			case "markdown":
				cmp.WriteMarkdown(w)
			case "json":
				if err := cmp.WriteJSON(w); err != nil {
					return err
				}
			default:
				return usageError(fmt.Errorf("unknown format %q (table, markdown, json)", format))
			}
			violated, complete := cmp.Violated()
			switch {
			case violated:
				return &exitError{code: 1}
			case !complete:
				return &exitError{code: 3}
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&models, "models", nil, "models to compare (default: sc,tso,rc11,rc11-consume)")
	cmd.Flags().StringSliceVar(&variants, "variants", nil, "variants to compare (default: all)")
	cmd.Flags().StringArrayVarP(&params, "param", "p", nil, "set a parameter for every variant, NAME=VALUE (repeatable)")
	cmd.Flags().StringVar(&format, "format", "table", "output: table, markdown or json")
	b.add(cmd)
	return cmd
}

func newSimulateCmd() *cobra.Command {
	var scheduler, against string
	var minimize bool
	var tg target
	var runs, depth int
	var seed uint64
	var asJSON bool
	var out outputs
	cmd := &cobra.Command{
		Use:   "simulate PROTOCOL|FILE",
		Short: "Run random executions and estimate how often each property fails",
		Long: `simulate walks random executions of a protocol: a scheduler picks the thread
(uniformly, or by PCT priorities), and each read or write takes one of its
consistent choices at random. It reports, per property, the violations, their
estimated probability with a 95% Wilson interval, and the final states with
their frequencies. The same seed gives the same result.

A simulation proves nothing: with no violation found it exits 3 (no
verdict); with one it exits 1 and prints the counterexample.`,
		Example: `  ordercheck simulate dlsym --variant unordered --runs 20000 --seed 7
  ordercheck simulate execenv --scheduler pct --depth 3 --json
  ordercheck simulate dlsym --variant unordered --against fixed
  ordercheck simulate dlsym --variant unordered --against model=sc`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, inst, m, err := tg.load(args[0])
			if err != nil {
				return err
			}
			sim := checker.SimOptions{Runs: runs, Seed: seed, Scheduler: scheduler, Depth: depth, Spec: specFor(args[0])}
			if isTerminal(os.Stderr) {
				sim.Progress = func(done int, el time.Duration) {
					rate := float64(done) / el.Seconds()
					fmt.Fprintf(os.Stderr, "\r\033[K%d/%d runs, %.0f runs/s, %s elapsed, ETA %s", done, runs, rate, el.Round(time.Second),
						(time.Duration(float64(runs-done)/rate) * time.Second).Round(time.Second))
				}
			}
			res, err := checker.Simulate(inst.Prog, m, propNames(pr), sim)
			clearProgress()
			if err != nil {
				return usageError(err)
			}
			if minimize {
				minimizeWitnesses(cmd, inst, m, res)
			}
			var versus string
			if against != "" {
				other, om, label := inst, m, against
				if name, ok := strings.CutPrefix(against, "model="); ok {
					if om, err = model.Lookup(name); err != nil {
						return usageError(err)
					}
					label = "model " + name
				} else {
					alt := tg
					alt.variant = against
					if _, other, _, err = alt.load(args[0]); err != nil {
						return err
					}
					label = "variant " + against
				}
				// Independent samples: the other side draws from another seed.
				sim2 := sim
				sim2.Seed++
				res2, err := checker.Simulate(other.Prog, om, propNames(pr), sim2)
				if err != nil {
					return usageError(err)
				}
				chi2, df, pv := checker.Homogeneity(res, res2)
				verdict := "do not differ"
				if pv < 0.05 {
					verdict = "differ"
				}
				versus = fmt.Sprintf("against %s: the final-state distributions %s at the 5%% level (chi-square %.2f, df %d, p = %.4g)", label, verdict, chi2, df, pv)
			}
			var ws []named
			violated := false
			for _, p := range res.Properties {
				ws = append(ws, named{p.Name, p.Witness})
				violated = violated || p.Violations > 0
			}
			if err := out.write(cmd, inst, args[0], m.Name(), ws); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				writeHeader(w, pr, inst, m)
				res.WriteText(w, m)
			}
			if versus != "" {
				fmt.Fprintln(w, "\n"+versus)
			}
			if violated {
				return &exitError{code: 1}
			}
			return &exitError{code: 3}
		},
	}
	tg.add(cmd)
	cmd.Flags().IntVar(&runs, "runs", 1000, "number of random executions")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().StringVar(&scheduler, "scheduler", "uniform", "thread scheduler: uniform or pct")
	cmd.Flags().IntVar(&depth, "depth", 3, "PCT depth: priority change points plus one")
	cmd.Flags().StringVar(&against, "against", "", "also simulate another variant (or model=NAME) and test whether the final-state distributions differ (chi-square)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the statistics as JSON")
	cmd.Flags().BoolVar(&minimize, "minimize", false, "shrink each counterexample found by a bounded exhaustive search for a shorter one")
	out.add(cmd)
	return cmd
}

// minimizeWitnesses replaces each simulated counterexample by the shortest
// one a bounded exhaustive search finds, when it is shorter.
func minimizeWitnesses(cmd *cobra.Command, inst *lang.Instance, m model.Model, res *checker.SimResult) {
	for i := range res.Properties {
		sp := &res.Properties[i]
		if sp.Witness == nil {
			continue
		}
		rep, err := checker.Check(inst.Prog, m, []string{sp.Name}, checker.Options{MaxExecutions: 100000, Timeout: 30 * time.Second, Context: cmd.Context()})
		if err != nil || rep.Props[0].Witness == nil {
			continue
		}
		if w := rep.Props[0].Witness; len(w.Cone()) < len(sp.Witness.Cone()) {
			fmt.Fprintf(cmd.ErrOrStderr(), "ordercheck: %s: counterexample shrunk from %d to %d events by exhaustive search\n", sp.Name, len(sp.Witness.Cone()), len(w.Cone()))
			sp.Witness = w
		}
	}
}
