package main

import (
	"github.com/spf13/cobra"
)

func newExploreCmd() *cobra.Command {
	var tg target
	var out outputs
	var b bounds
	var cl cluster
	cmd := &cobra.Command{
		Use:   "explore PROTOCOL|FILE",
		Short: "Explore every execution of a protocol and judge its properties",
		Long: `explore checks every execution of one variant of a protocol under one memory
model and reports each property as holds, violated or unknown, with a
counterexample for each violation. The protocol is a catalogue name, a
protocol file (.oc) or a C program (.c: pthreads, <stdatomic.h>, assert;
its variants and expectations in "// ordercheck:" comments, docs/c.md).

Exit status: 0 every property holds, 1 a property is violated, 2 bad input
or usage, 3 a bound cut the search short before a violation was found, 4 an
internal error.`,
		Example: `  ordercheck explore dlsym
  ordercheck explore dlsym --variant unordered --model rc11 --trace t.json --dot t.dot
  ordercheck replay t.json
  ordercheck explore dlsym --variant fixed --param N=3 --json
  ordercheck explore protocols/dlsym/c/dlsym.c --variant unordered --model arm`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The bounds first: bad flags cost nothing, and the memory
			// bound holds while the protocol loads too.
			opt, err := b.options(out.JSON)
			if err != nil {
				return err
			}
			inst, m, err := tg.Instance(args[0])
			if err != nil {
				return err
			}
			o := out.output(cmd)
			if err := o.Check(inst.Protocol); err != nil {
				return err
			}
			rep, err := cl.setup(cmd, "ordercheck explore", b.prog).Check(inst, m, opt) // clears the progress line
			if err != nil {
				return err
			}
			if err := o.Report(inst, m, rep); err != nil {
				return err
			}
			return verdictExit(rep.Verdict())
		},
	}
	tg.add(cmd)
	cmd.Flags().BoolVar(&out.JSON, "json", false, "print the result as JSON")
	cmd.Flags().StringVar(&out.HTML, "html", "", "also write the result as a web page, its counterexamples drawn, to this file")
	out.add(cmd)
	b.add(cmd)
	cl.add(cmd)
	cl.addParts(cmd)
	return cmd
}
