package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/protocols/lang"
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
				text, err := pr.FormatVariant(variant)
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
			fmt.Fprintf(w, "protocol %s: %s\n\nparameters:\n", pr.Name, pr.Title)
			for _, p := range pr.Params {
				fmt.Fprintf(w, "  %-8s = %-8s %s\n", p.Name, p.Default.Text, p.Doc)
			}
			fmt.Fprintln(w, "\nvariants:")
			for _, v := range pr.Variants {
				binds := lang.BindTexts(v.Binds)
				var blocks []string
				for name := range v.Replace {
					blocks = append(blocks, "replaces "+name)
				}
				sort.Strings(blocks)
				binds = append(binds, blocks...)
				def := ""
				if v.Default {
					def = " (default)"
				}
				fmt.Fprintf(w, "  %s%s: %s\n    %s\n", v.Name, def, v.Doc, strings.Join(binds, ", "))
			}
			fmt.Fprintln(w, "\nproperties:")
			for _, p := range pr.Props {
				fmt.Fprintf(w, "  %-10s %s\n", p.Name, p.Doc)
			}
			fmt.Fprintln(w, "\nthreads:")
			for _, t := range pr.Threads {
				n := t.Name
				if t.Count != nil {
					n += "[...]"
				}
				if t.Spawned {
					n += " (spawned)"
				}
				fmt.Fprintf(w, "  %s\n", n)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&source, "source", false, "print the protocol file")
	cmd.Flags().StringVarP(&variant, "variant", "v", "", "print the protocol as this variant makes it: its parameter values, its blocks in place")
	cf.add(cmd)
	return cmd
}
