package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/herd"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
)

func newLitmusCmd() *cobra.Command {
	var modelName string
	b := bounds{Bounds: explore.NewBounds()}
	var why string
	cmd := &cobra.Command{
		Use:   "litmus [--model MODEL] FILE...",
		Short: "Run C litmus tests and print herd7-style results",
		Long: `litmus runs C litmus tests in herd7's format and prints one block per test
in herd7's output format (States, Ok/No/Undef, Witnesses, Condition,
Observation), so results can be compared with herd7's. Under a model that
makes data races undefined behaviour (rc11) a racy test is Undef.

Exit status: 0 when every test ran, 2 on bad input, 3 when a bound cut an
exploration short, 4 an internal error.`,
		Example: `  ordercheck litmus MP+rel+acq.litmus
  ordercheck litmus --model sc ../shared/litmus/herdtools/*.litmus
  ordercheck litmus --why "1:r0=1 /\ 1:r1=0" MP+rel+acq.litmus`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b.cmd = cmd
			opt, err := b.options(true)
			if err != nil {
				return err
			}
			m, err := model.Lookup(modelName)
			if err != nil {
				return err
			}
			if why != "" {
				if len(args) != 1 {
					return fmt.Errorf("--why explains an outcome of one test")
				}
				x, err := herd.ExplainFile(args[0], why, m, opt)
				if err != nil {
					return err
				}
				render.Explanation(cmd.OutOrStdout(), x)
				return nil
			}
			bounded := false
			for _, path := range args {
				res, err := herd.RunFile(path, m, opt)
				if err != nil {
					return err
				}
				render.Herd(cmd.OutOrStdout(), res)
				bounded = bounded || !res.Stats.Exhaustive()
			}
			if bounded {
				return &exitError{code: exitNoVerdict}
			}
			return nil
		},
	}
	modelFlag(cmd, &modelName)
	cmd.Flags().Int64Var(&b.MaxExecutions, "max-executions", 0, "stop after this many executions (0: no bound)")
	workersFlag(cmd, &b.Workers, "explore on this many cores (the results do not depend on it)")
	cmd.Flags().DurationVar(&b.Timeout, "timeout", 0, "stop after this long (0: no bound)")
	cmd.Flags().StringVar(&why, "why", "", "explain why an outcome (\"1:r0=1 /\\ 1:r1=0\") is allowed or forbidden")
	return cmd
}
