package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

func newLitmusCmd() *cobra.Command {
	var modelName string
	var maxExec int64
	var timeout time.Duration
	var why string
	var workers int
	cmd := &cobra.Command{
		Use:   "litmus [--model rc11|sc|tso] FILE...",
		Short: "Run C litmus tests and print herd7-style results",
		Long: `litmus runs C litmus tests in herd7's format and prints one block per test
in herd7's output format (States, Ok/No/Undef, Witnesses, Condition,
Observation), so results can be compared with herd7's. Under rc11 a data race
is undefined behaviour (Undef); under sc and tso it is not.

Exit status: 0 when every test ran, 2 on bad input, 3 when a bound cut an
exploration short.`,
		Example: `  ordercheck litmus MP+rel+acq.litmus
  ordercheck litmus --model sc ../shared/litmus/herdtools/*.litmus
  ordercheck litmus --why "1:r0=1 /\ 1:r1=0" MP+rel+acq.litmus`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := model.Lookup(modelName)
			if err != nil {
				return usageError(err)
			}
			if why != "" {
				if len(args) != 1 {
					return usageError(fmt.Errorf("--why explains an outcome of one test"))
				}
				p, err := litmus.ParseFile(args[0])
				if err != nil {
					return usageError(err)
				}
				c, err := litmus.ParseCondition(p, why)
				if err != nil {
					return usageError(err)
				}
				text, err := checker.Why(p, m, c, checker.Options{MaxExecutions: maxExec, Timeout: timeout})
				if err != nil {
					return usageError(err)
				}
				fmt.Fprint(cmd.OutOrStdout(), text)
				return nil
			}
			bounded := false
			for _, path := range args {
				p, err := litmus.ParseFile(path)
				if err != nil {
					return usageError(err)
				}
				res, err := checker.RunLitmus(p, m, checker.Options{MaxExecutions: maxExec, Timeout: timeout, Workers: workers})
				if err != nil {
					return usageError(fmt.Errorf("%s: %w", path, err))
				}
				fmt.Fprint(cmd.OutOrStdout(), res.Herd())
				bounded = bounded || !res.Stats.Exhaustive()
			}
			if bounded {
				return &exitError{code: 3}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&modelName, "model", "m", "rc11", "memory model: rc11, sc or tso")
	cmd.Flags().Int64Var(&maxExec, "max-executions", 0, "stop after this many executions (0: no bound)")
	cmd.Flags().IntVar(&workers, "workers", runtime.NumCPU(), "explore on this many cores (the results do not depend on it)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "stop after this long (0: no bound)")
	cmd.Flags().StringVar(&why, "why", "", "explain why an outcome (\"1:r0=1 /\\ 1:r1=0\") is allowed or forbidden")
	return cmd
}
