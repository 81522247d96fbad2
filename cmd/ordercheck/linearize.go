package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/harness"
)

func newLinearizeCmd() *cobra.Command {
	var variant, history, html string
	var params []string
	var clients, ops int
	var seed uint64
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "linearize PROTOCOL",
		Short: "Run a protocol's Go implementation and check its history for linearizability",
		Long: `linearize runs the Go implementation of a catalogue protocol's variant with
concurrent clients, records the history of their operations, and checks it
with porcupine against the protocol's sequential specification; with
--history it checks a recorded history instead.

A round of the implementation that does not finish within a second is
reported as a deadlock (exit 1); the operations that returned before it
are still checked.

Exit status: 0 linearizable, 1 not linearizable (or a deadlock), 2 bad
input, 3 unknown (porcupine's timeout: no verdict).`,
		Example: `  ordercheck linearize dlsym --variant fixed
  ordercheck linearize execenv --variant pr2685 --param SPAWN=embedder
  ordercheck linearize cluster --variant atomic-acqrel --html h.html
  ordercheck linearize execenv --history traces/histories/execenv-original-go.bad.json --html h.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			spec := protocols.Spec(name)
			if spec == nil {
				return usageError(fmt.Errorf("protocol %q has no sequential specification", name))
			}
			var h []porcupine.Operation
			var deadlock error
			source := ""
			if history != "" {
				f, err := os.Open(history)
				if err != nil {
					return usageError(err)
				}
				defer f.Close()
				hf, err := protocols.ReadHistory(f)
				if err != nil {
					return usageError(fmt.Errorf("%s: %w", history, err))
				}
				if hf.Protocol != name {
					return usageError(fmt.Errorf("%s records protocol %s, not %s", history, hf.Protocol, name))
				}
				h, source = hf.History(), history
			} else {
				stress, variants := protocols.Implementation(name)
				if stress == nil {
					return usageError(fmt.Errorf("protocol %q has no Go implementation", name))
				}
				if variant == "" {
					variant = "original"
				}
				found := false
				for _, v := range variants {
					found = found || v == variant
				}
				if !found {
					return usageError(fmt.Errorf("the Go implementation of %s has no variant %q (it has %v)", name, variant, variants))
				}
				over, err := parseParams(params)
				if err != nil {
					return usageError(err)
				}
				h, deadlock = stress(harness.Config{Variant: variant, Params: over, Clients: clients, Rounds: ops, Seed: seed})
				if deadlock != nil && !errors.Is(deadlock, harness.ErrDeadlock) {
					return usageError(deadlock)
				}
				source = fmt.Sprintf("variant %s%s, %d clients × %d rounds, seed %d", variant, paramSuffix(over), clients, ops, seed)
			}
			res, info := porcupine.CheckOperationsVerbose(*spec, h, timeout)
			if html != "" {
				if err := porcupine.VisualizePath(*spec, info, html); err != nil {
					return usageError(err)
				}
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "protocol %s: %s: %d operations\n", name, source, len(h))
			if deadlock != nil {
				fmt.Fprintf(w, "%v; the operations that returned before it:\n", deadlock)
			}
			switch res {
			case porcupine.Ok:
				fmt.Fprintln(w, "linearizable")
				if deadlock != nil {
					return &exitError{code: 1}
				}
				return nil
			case porcupine.Illegal:
				fmt.Fprintln(w, "not linearizable: no sequential order of the operations satisfies the specification")
				return &exitError{code: 1}
			}
			fmt.Fprintf(w, "unknown: porcupine gave no verdict within %v\n", timeout)
			return &exitError{code: 3}
		},
	}
	cmd.Flags().StringVarP(&variant, "variant", "v", "", "variant of the Go implementation (default: original)")
	cmd.Flags().StringArrayVarP(&params, "param", "p", nil, "set a parameter of the Go implementation, NAME=VALUE (repeatable)")
	cmd.Flags().IntVar(&clients, "clients", 4, "concurrent clients")
	cmd.Flags().IntVar(&ops, "ops", 100, "rounds of operations (one per client each)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the schedule perturbation")
	cmd.Flags().StringVar(&history, "history", "", "check this recorded history (docs/history-format.md) instead of running the implementation")
	cmd.Flags().StringVar(&html, "html", "", "write porcupine's visualisation of the history")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "porcupine's time limit; past it the verdict is unknown")
	return cmd
}

// paramSuffix writes parameters as " K=V ..." in sorted order.
func paramSuffix(params map[string]string) string {
	var parts []string
	for k, v := range params {
		parts = append(parts, " "+k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, "")
}
