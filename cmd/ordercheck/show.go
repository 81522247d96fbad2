package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/render"
)

func newShowCmd() *cobra.Command {
	var source bool
	var variant string
	var tg target
	cmd := &cobra.Command{
		Use:     "show PROTOCOL|FILE",
		Short:   "Describe a protocol: parameters, variants, properties and threads",
		Example: "  ordercheck show dlsym\n  ordercheck show --source dlsym\n  ordercheck show --variant dcl dlsym",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, err := tg.Protocol(args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if cmd.Flags().Changed("variant") {
				return render.ProtocolVariant(w, pr, variant)
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
	tg.addC(cmd)
	return cmd
}
