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
			prs, err := protocols.All()
			if err != nil {
				return err
			}
			for _, pr := range prs {
				render.ProtocolSummary(cmd.OutOrStdout(), pr)
			}
			return nil
		},
	}
}
