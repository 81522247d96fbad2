package main

import (
	"fmt"

	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/spf13/cobra"
)

func newShowCmd() *cobra.Command {
	var source bool
	var variant string
	var cf cflags
	cmd := &cobra.Command{
		Use:     "show PROTOCOL|FILE",
		Short:   "Describe a protocol: parameters, variants, properties and threads",
		Example: "  ordercheck show dlsym\n  ordercheck show --source dlsym\n  ordercheck show --variant dcl dlsym",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, err := cf.load(args[0])
			if err != nil {
				return usageError(err)
			}
			w := cmd.OutOrStdout()
			if cmd.Flags().Changed("variant") {
				text, err := pr.File.FormatVariant(variant)
				if err != nil {
					return usageError(err)
				}
				fmt.Fprint(w, text)
				return nil
			}
			if source {
				fmt.Fprint(w, pr.Source)
				return nil
			}
			render.Protocol(w, pr)
			return nil
		},
	}
	cmd.Flags().BoolVar(&source, "source", false, "print the protocol file")
	cmd.Flags().StringVarP(&variant, "variant", "v", "", "print the protocol as this variant makes it: its parameter values, its blocks in place")
	cf.add(cmd)
	return cmd
}
