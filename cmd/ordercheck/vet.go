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
			refs, err := findProtocols(args, cmd.ErrOrStderr(), false)
			if err != nil {
				return err
			}
			found := false
			for _, ref := range refs {
				pr, err := protocols.Load(ref)
				if err != nil {
					return err
				}
				for _, f := range pr.File.Vet() {
					found = true
					fmt.Fprintln(cmd.OutOrStdout(), f)
				}
			}
			if found {
				return &exitError{code: exitViolation}
			}
			return nil
		},
	}
	return cmd
}
