package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/checker/tune"
)

func newTuneCmd() *cobra.Command {
	var explain string
	var models, props []string
	var atomics, fences bool
	var b bounds
	var tg target
	var out outputs
	cmd := &cobra.Command{
		Use:   "tune PROTOCOL|FILE",
		Short: "Find the weakest orderings that keep every property",
		Long: `tune searches the orderings of a variant's atomic accesses and fences (each
place in the source is one site, whatever threads run it) for every minimal
assignment under which the chosen properties hold under every chosen model:
loads rlx < con < acq < sc (con where a model tells it from rlx), stores
rlx < rel < sc, read-modify-writes rlx < acq, rel < acq_rel < sc, fences
acq, rel < acq_rel < sc. A stronger ordering never adds behaviours, so each
check settles every assignment above it (when it holds) or below it (when
it fails). Properties violated even with every site seq_cst are reported as
beyond orderings (logic bugs) and left out of the search. Plain accesses
stay plain unless --atomics lets tune make the racing ones atomic; with
--fences a fence may go before each access that follows another in its
thread (no fence, acq, rel < acq_rel < sc), and minimal assignments with
fewer fences come first.

The result: a table of sites with their current and minimal orderings,
whether the current orderings are minimal and what one step weaker at each
site breaks (--explain FILE:LINE:COL prints that counterexample), and each
minimal assignment as a variant (when parameters can say it) and as a diff
of the file (of a C program: its memory_order_* arguments, and implied
seq_cst calls made _explicit).

Exit status: 0 the current orderings are minimal, 1 they are not (too weak
or stronger than needed) or some property is beyond orderings, 2 bad input,
3 a bound cut a check short.`,
		Example: `  ordercheck tune dlsym --variant unordered
  ordercheck tune dlsym --variant fixed --model rc11,tso
  ordercheck tune dlsym --variant fixed --explain protocols/dlsym/dlsym.oc:68:11`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := b.options(true)
			if err != nil {
				return err
			}
			o := out.output(cmd)
			if err := o.Check(nil); err != nil {
				return err
			}
			inst, _, err := tg.Instance(args[0])
			if err != nil {
				return err
			}
			topt := tune.Options{Options: opt, Atomics: atomics, Fences: fences}
			if topt.Models, err = checker.LookupModels(models); err != nil { // none: the checker's default
				return err
			}
			if err := inst.Protocol.HasProp(props...); err != nil {
				return fmt.Errorf("--property: %w", err)
			}
			topt.Props = props
			t, err := tune.Run(inst, topt)
			if err != nil {
				return err
			}
			if explain != "" {
				i, err := t.Site(explain)
				if err != nil {
					return fmt.Errorf("--explain %w", err)
				}
				render.Weakening(o.Out, t, i)
				return nil
			}
			if err := o.Tuning(t); err != nil {
				return err
			}
			return verdictExit(t.Verdict())
		},
	}
	cmd.Flags().StringVarP(&tg.Variant, "variant", "v", "", "variant to tune (default: the protocol's default)")
	cmd.Flags().StringSliceVarP(&models, "model", "m", nil, "models every property must hold under (default: "+checker.DefaultModel.Name+")")
	cmd.Flags().StringSliceVar(&props, "property", nil, "properties to keep (default: all the protocol's)")
	cmd.Flags().StringArrayVarP(&tg.Params, "param", "p", nil, "set a parameter, NAME=VALUE (repeatable)")
	cmd.Flags().BoolVar(&out.JSON, "json", false, "print the result as JSON")
	cmd.Flags().StringVar(&out.HTML, "html", "", "also write the result as a web page, with each weakening's counterexample, to this file")
	cmd.Flags().BoolVar(&atomics, "atomics", false, "also make plain accesses atomic where that can remove a data race (they may stay plain)")
	cmd.Flags().BoolVar(&fences, "fences", false, "also consider a fence before each access that follows another in its thread (fewer fences first)")
	cmd.Flags().StringVar(&explain, "explain", "", "print the counterexample one step weaker at this site (FILE:LINE:COL)")
	b.add(cmd)
	tg.addC(cmd)
	return cmd
}
