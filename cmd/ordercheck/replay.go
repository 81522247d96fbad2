package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/checker/trace"
	"github.com/ordercheck/ordercheck/protocols"
)

func newReplayCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "replay TRACE",
		Short: "Re-execute a saved counterexample and check that it still fails",
		Long: `replay rebuilds the execution a trace records, deterministically, checks it
again under the trace's model and prints the counterexample.

Exit status: 1 the violation reproduces, 0 it no longer does, 2 the trace
does not fit the protocol any more (or is not a trace), 4 an internal error.`,
		Example: "  ordercheck explore dlsym --variant unordered --trace t.json\n  ordercheck replay t.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, r, err := trace.ReplayFile(args[0], protocols.Lookup)
			if err != nil {
				return err
			}
			if t.Source != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "ordercheck: replaying %s\n", r.From)
			}
			render.Replayed(cmd.OutOrStdout(), r, t.Property)
			return verdictExit(r.Verdict())
		},
	}
}
