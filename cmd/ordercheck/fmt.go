package main

import (
	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

func newFmtCmd() *cobra.Command {
	var fo render.Reformat
	cmd := &cobra.Command{
		Use:   "fmt [-w|-d|-l] PATH...",
		Short: "Lay out protocol files canonically, as gofmt does Go",
		Long: `fmt lays out protocol files (*.oc; folders are searched as by test) in the
canonical layout: two spaces of indentation per open brace, one space around
binary operators and after commas, none inside calls and indices, the
trailing comments of consecutive lines aligned, at most one blank line in a
row. Tokens, line breaks and comments stay as written, and the result is
checked to parse to the same protocol. Without flags it prints the
formatted file.

Exit status: 0 done (with -l or -d: and every file was already formatted),
1 with -l or -d, some file is not formatted, 2 bad input.`,
		Example: `  ordercheck fmt -d protocols/
  ordercheck fmt -w locks/once.oc`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := fo.Check(); err != nil {
				return err
			}
			files, err := protocols.Find(args, false, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			unformatted := false
			for _, f := range files {
				src, out, err := lang.FormatFile(f)
				if err != nil {
					return err
				}
				unformatted = unformatted || out != src
				if err := fo.File(cmd.OutOrStdout(), f, src, out); err != nil {
					return err
				}
			}
			if unformatted && (fo.List || fo.Diff) {
				return &exitError{code: exitViolation}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&fo.Write, "write", "w", false, "write the result to the file instead of printing it")
	cmd.Flags().BoolVarP(&fo.Diff, "diff", "d", false, "print a unified diff of the changes instead")
	cmd.Flags().BoolVarP(&fo.List, "list", "l", false, "print the names of the files whose layout differs")
	return cmd
}
