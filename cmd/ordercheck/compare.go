package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
)

func newCompareCmd() *cobra.Command {
	var models, variants, params []string
	var format, output string
	var b bounds
	var c cluster
	var cf cflags
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
				return usageError(err)
			}
			if err := probeOutputs(map[string]string{"output": output}); err != nil {
				return err
			}
			copt := checker.CompareOptions{Variants: variants}
			b.json = f == render.FormatJSON
			if copt.Options, err = b.options(cmd.Context()); err != nil {
				return err
			}
			if b.prog.On() {
				copt.Progress = b.prog.Cell
			}
			pr, err := cf.load(args[0])
			if err != nil {
				return usageError(err)
			}
			if copt.Params, err = parseParams(params); err != nil {
				return err
			}
			if copt.Models, err = lookupModels(models); err != nil {
				return err
			}
			what := ""
			if copt.Progress != nil {
				what = "cells checked"
			}
			r, finish, err := c.setup(cmd, "ordercheck compare", b.prog).Runner(1, what)
			if err != nil {
				return err
			}
			if _, remote := r.(*dist.Runner); remote {
				copt.Progress = nil // the queue's progress line says it
			}
			copt.Runner = r
			cmp, err := pr.Compare(copt)
			finish()
			b.prog.Clear()
			if err != nil {
				return usageError(err)
			}
			write := func(w io.Writer) error { return render.Comparison(w, cmp, f) }
			if output != "" {
				err = writeFile(cmd, output, write)
			} else {
				err = write(cmd.OutOrStdout())
			}
			if err != nil {
				return err
			}
			return verdictExit(cmp.Verdict())
		},
	}
	cmd.Flags().StringSliceVarP(&models, "models", "m", nil, "models to compare (default: "+strings.Join(model.Names(), ",")+")")
	cmd.Flags().StringSliceVarP(&variants, "variants", "v", nil, "variants to compare (default: all)")
	cmd.Flags().StringArrayVarP(&params, "param", "p", nil, "set a parameter for every variant, NAME=VALUE (repeatable)")
	cmd.Flags().StringVar(&format, "format", "table", "output: table, markdown, json or html (a page for a design review, with every counterexample)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the output to this file")
	b.add(cmd)
	c.add(cmd)
	cf.add(cmd)
	return cmd
}

// writeFile writes a file through write and says so on cmd's standard
// error; a file that cannot be made is a usage error.
func writeFile(cmd *cobra.Command, path string, write func(io.Writer) error) error {
	if err := render.WriteFile(path, write); err != nil {
		return usageError(err)
	}
	wrote(cmd, path)
	return nil
}

// wrote says on cmd's standard error that a file was written, so that no
// file appears unannounced.
func wrote(cmd *cobra.Command, path string) {
	fmt.Fprintf(cmd.ErrOrStderr(), "ordercheck: wrote %s\n", path)
}

// probeOutputs checks, before any work, that the files the flags name can
// be written (an empty path: no file), so that a bad path is bad usage at
// once rather than after the exploration.
func probeOutputs(flags map[string]string) error {
	names := make([]string, 0, len(flags))
	for flag := range flags {
		names = append(names, flag)
	}
	sort.Strings(names)
	for _, flag := range names {
		if path := flags[flag]; path != "" {
			if err := render.ProbeOutput(path); err != nil {
				return usageError(fmt.Errorf("--%s: %v", flag, err))
			}
		}
	}
	return nil
}
