package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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
				fmt.Fprintf(w, "%s  %s\n", pr.Name, pr.Title)
				var vs []string
				for _, v := range pr.Variants {
					n := v.Name
					if v.Default {
						n += " (default)"
					}
					vs = append(vs, n)
				}
				fmt.Fprintf(w, "  variants:   %s\n", strings.Join(vs, ", "))
				fmt.Fprintf(w, "  properties: %s\n", strings.Join(pr.PropNames(), ", "))
			}
			return nil
		},
	}
}
