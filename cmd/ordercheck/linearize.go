package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/history"
	"github.com/ordercheck/ordercheck/protocols"
)

func newLinearizeCmd() *cobra.Command {
	var variant, recorded string
	var out outputs
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
input, 3 unknown (porcupine's timeout: no verdict), 4 an internal error.`,
		Example: `  ordercheck linearize dlsym --variant fixed
  ordercheck linearize execenv --variant pr2685 --param SPAWN=embedder
  ordercheck linearize cluster --variant atomic-acqrel --html h.html
  ordercheck linearize execenv --history traces/histories/execenv-original-go.bad.json --html h.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case clients < 1:
				return fmt.Errorf("--clients %d: must be at least 1", clients)
			case ops < 1:
				return fmt.Errorf("--ops %d: must be at least 1", ops)
			case timeout < 0:
				return fmt.Errorf("--timeout %v: must not be negative (0: no limit)", timeout)
			}
			o := out.output(cmd)
			if err := o.Check(nil); err != nil {
				return err
			}
			pr, err := protocols.Load(args[0])
			if err != nil {
				return err
			}
			var l *history.Linearization
			if recorded != "" {
				if l, err = history.CheckFile(pr, recorded, timeout); err != nil {
					return err
				}
			} else {
				over, err := protocols.ParseParams(params)
				if err != nil {
					return err
				}
				l, err = history.Linearize(pr, history.Options{Variant: variant, Params: over, Clients: clients, Rounds: ops, Seed: seed, Timeout: timeout})
				if err != nil {
					return err
				}
			}
			if err := o.Linearization(pr.File.Name, pr.File.Spec.Model(), l, timeout.String()); err != nil {
				return err
			}
			return verdictExit(l.Verdict())
		},
	}
	cmd.Flags().StringVarP(&variant, "variant", "v", "", "variant of the Go implementation (default: original)")
	cmd.Flags().StringArrayVarP(&params, "param", "p", nil, "set a parameter of the Go implementation, NAME=VALUE (repeatable)")
	cmd.Flags().IntVar(&clients, "clients", 4, "concurrent clients")
	cmd.Flags().IntVar(&ops, "ops", 100, "rounds of operations (one per client each)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the schedule perturbation")
	cmd.Flags().StringVar(&recorded, "history", "", "check this recorded history (docs/history-format.md) instead of running the implementation")
	cmd.Flags().StringVar(&out.HTML, "html", "", "write porcupine's visualisation of the history")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "porcupine's time limit; past it the verdict is unknown")
	return cmd
}
