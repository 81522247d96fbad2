package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/checker/simulate"
)

func newSimulateCmd() *cobra.Command {
	var scheduler, against string
	var minimize bool
	var tg target
	var runs, depth int
	var seed uint64
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
			inst, m, err := tg.Instance(args[0])
			if err != nil {
				return err
			}
			o := out.output(cmd)
			if err := o.Check(inst.Protocol); err != nil {
				return err
			}
			sched, err := simulate.ParseScheduler(scheduler)
			if err != nil {
				return err
			}
			if runs <= 0 {
				return fmt.Errorf("--runs %d: the number of runs must be positive", runs)
			}
			if depth < 1 {
				return fmt.Errorf("--depth %d: must be at least 1", depth)
			}
			sim := simulate.Options{Runs: runs, Seed: seed, Scheduler: sched, Depth: depth, Minimize: minimize, Minimized: o.Minimized(), Context: cmd.Context()}
			prog := render.NewProgress(os.Stderr, false)
			if prog.On() {
				sim.Progress = prog.Runs(runs)
			}
			// The other side of --against: another variant, or another model.
			var vs *render.Against
			other, om := inst, m
			if against != "" {
				vs = &render.Against{}
				if other, om, vs.Label, err = tg.Against(against, inst, m); err != nil {
					return err
				}
			}
			res, err := simulate.Instance(inst, m, sim)
			prog.Clear()
			if err != nil {
				return err
			}
			if vs != nil {
				if _, vs.Difference, err = res.Against(other.Prog, om, other.Protocol.Properties(), sim); err != nil {
					return err
				}
			}
			if err := o.Simulation(inst, m, res, vs); err != nil {
				return err
			}
			return verdictExit(res.Verdict())
		},
	}
	tg.add(cmd)
	cmd.Flags().IntVar(&runs, "runs", 1000, "number of random executions")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().StringVar(&scheduler, "scheduler", "uniform", "thread scheduler: uniform or pct")
	cmd.Flags().IntVar(&depth, "depth", 3, "PCT depth: priority change points plus one")
	cmd.Flags().StringVar(&against, "against", "", "also simulate another variant (or model=NAME) and test whether the final-state distributions differ (chi-square)")
	cmd.Flags().BoolVar(&out.JSON, "json", false, "print the statistics as JSON")
	cmd.Flags().BoolVar(&minimize, "minimize", false, "shrink each counterexample found by a bounded exhaustive search for a shorter one")
	out.add(cmd)
	return cmd
}
