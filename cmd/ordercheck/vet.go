package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/protocols"
)

func newVetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vet PATH|PROTOCOL...",
		Short: "Report what in protocol files is legal but likely a mistake",
		Long: `vet reads protocol files (*.oc; folders are searched as by test), compiles
every variant, and reports, each at its file:line:col: parameters nothing
uses, variants that compile to the same program as another, properties no
assert or final condition checks (and linearizability without operations),
and loops that can only end at their bound.

Exit status: 0 nothing to report, 1 something reported, 2 bad input.`,
		Example: `  ordercheck vet protocols/
  ordercheck vet locks/once.oc`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			refs, err := protocols.Find(args, false, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			found, err := protocols.Vet(refs)
			for _, f := range found {
				fmt.Fprintln(cmd.OutOrStdout(), f)
			}
			if err != nil {
				return err
			}
			if len(found) > 0 {
				return &exitError{code: exitViolation}
			}
			return nil
		},
	}
	return cmd
}
