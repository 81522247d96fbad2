package main

import (
	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/protocols"
)

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
				render.ProtocolSummary(w, pr)
			}
			return nil
		},
	}
}
