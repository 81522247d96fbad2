package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

func newCompareCmd() *cobra.Command {
	var models, variants []string
	var format, output string
	var b bounds
	var c cluster
	var tg target
	cmd := &cobra.Command{
		Use:   "compare PROTOCOL|FILE",
		Short: "Check every variant under every model, in one table",
		Long: `compare checks every variant of a protocol (or those given) under every model
(or those given) and prints one table of property verdicts: for a design
review of competing fixes.

Exit status: 0 every property holds everywhere, 1 some cell is violated, 2
bad input or usage, 3 a bound cut some search short and nothing is violated,
4 an internal error.`,
		Example: `  ordercheck compare dlsym
  ordercheck compare dlsym --models rc11,rc11-consume --format markdown
  ordercheck compare dlsym --variants original,fixed --format json
  ordercheck compare execenv --format html -o review.html
  ordercheck compare execenv --procs 2
  ordercheck compare execenv --cluster nats://127.0.0.1:4222`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := render.ParseFormat(format)
			if err != nil {
				return err
			}
			if err := render.Probe(map[string]string{"output": output}); err != nil {
				return err
			}
			copt := checker.CompareOptions{Variants: variants}
			if copt.Options, err = b.options(f == render.FormatJSON); err != nil {
				return err
			}
			if b.prog.On() {
				copt.Progress = b.prog.Cell
			}
			pr, err := tg.Protocol(args[0])
			if err != nil {
				return err
			}
			if copt.Params, err = protocols.ParseParams(tg.Params); err != nil {
				return err
			}
			if copt.Models, err = checker.LookupModels(models); err != nil {
				return err
			}
			cmp, err := c.setup(cmd, "ordercheck compare", b.prog).Compare(pr, copt)
			b.prog.Clear()
			if err != nil {
				return err
			}
			o := outputs{}.output(cmd)
			if err := o.Write(output, func(w io.Writer) error { return render.Comparison(w, cmp, f) }); err != nil {
				return err
			}
			return verdictExit(cmp.Verdict())
		},
	}
	cmd.Flags().StringSliceVarP(&models, "models", "m", nil, "models to compare (default: "+strings.Join(model.Names(), ",")+")")
	cmd.Flags().StringSliceVarP(&variants, "variants", "v", nil, "variants to compare (default: all)")
	cmd.Flags().StringArrayVarP(&tg.Params, "param", "p", nil, "set a parameter for every variant, NAME=VALUE (repeatable)")
	cmd.Flags().StringVar(&format, "format", "table", "output: table, markdown, json or html (a page for a design review, with every counterexample)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the output to this file")
	b.add(cmd)
	c.add(cmd)
	tg.addC(cmd)
	return cmd
}
