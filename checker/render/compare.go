package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
)

// Format is an output format of a comparison.
type Format uint8

// The formats of a comparison.
const (
	FormatTable    Format = iota // an aligned table per model, for a terminal
	FormatMarkdown               // one Markdown table
	FormatJSON                   // every cell's report as JSON
	FormatHTML                   // a web page with the counterexamples (ComparisonHTML)
)

// ParseFormat reads a comparison format's name: table, markdown, json or
// html.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "table":
		return FormatTable, nil
	case "markdown":
		return FormatMarkdown, nil
	case "json":
		return FormatJSON, nil
	case "html":
		return FormatHTML, nil
	}
	return 0, fmt.Errorf("unknown format %q (table, markdown, json, html)", s)
}

// Comparison writes c in format f.
func Comparison(w io.Writer, c *checker.Comparison, f Format) error {
	switch f {
	case FormatMarkdown:
		comparisonMarkdown(w, c)
	case FormatJSON:
		return comparisonJSON(w, c)
	case FormatHTML:
		return ComparisonHTML(w, c)
	default:
		comparisonTable(w, c)
	}
	return nil
}

func cell(s checker.Status) string {
	switch s {
	case checker.Holds:
		return "ok"
	case checker.Violated:
		return "FAIL"
	}
	return "?"
}

const legend = "ok = holds, FAIL = violated, ? = unknown (a bound cut the search)"

// elsewhere says which properties were judged under another model than
// their column's (data races, under C11), or "".
func elsewhere(c *checker.Comparison) string {
	var notes []string
	for _, prop := range c.Props {
		var under, by []string
		for j, m := range c.Models {
			for i := range c.Cases {
				for _, p := range c.Reports[i][j].Props {
					if p.Name == prop && p.Model != nil && p.Model != m {
						if !slices.Contains(under, m.Name) {
							under = append(under, m.Name)
						}
						if !slices.Contains(by, p.Model.Name) {
							by = append(by, p.Model.Name)
						}
					}
				}
			}
		}
		if under != nil {
			notes = append(notes, fmt.Sprintf("%s under %s is judged under C11 (%s)", prop, strings.Join(under, ", "), strings.Join(by, ", ")))
		}
	}
	// The cells explored under another model (DRF-SC: Report.Via), the
	// variants grouped by the models they were asked under.
	type cells struct{ under, via string }
	var order []cells
	variants := map[cells][]string{}
	for i, cs := range c.Cases {
		var k cells
		var under []string
		for j, m := range c.Models {
			if r := c.Reports[i][j]; r.Via != nil {
				under, k.via = append(under, m.Name), r.Via.Name
			}
		}
		if under == nil {
			continue
		}
		k.under = strings.Join(under, ", ")
		if variants[k] == nil {
			order = append(order, k)
		}
		variants[k] = append(variants[k], variantName(cs))
	}
	for _, k := range order {
		verb := "is"
		if len(variants[k]) > 1 {
			verb = "are"
		}
		notes = append(notes, fmt.Sprintf("%s under %s %s explored under %s (atomics, if any, all seq_cst, and no race: DRF-SC)", strings.Join(variants[k], ", "), k.under, verb, k.via))
	}
	if note := consumeNote(c); note != "" {
		notes = append(notes, note)
	}
	return strings.Join(notes, "; ")
}

// consumeNote says, when a compared program has consume loads and a model
// treats them as relaxed (rc11, as herd7's rc11.cat does), what that
// model makes of them; "" otherwise.
func consumeNote(c *checker.Comparison) string {
	var relaxing []string
	for _, m := range c.Models {
		if m.RacesUndefined && !m.Consume {
			relaxing = append(relaxing, m.Name)
		}
	}
	if relaxing == nil {
		return ""
	}
	for _, in := range c.Cases {
		for _, th := range in.Prog.Threads {
			for _, ins := range th.Code {
				if ins.Ord == model.Con {
					return fmt.Sprintf("under %s a consume load is relaxed, as in herd7's rc11.cat (compilers make it an acquire; rc11-consume orders what depends on it)", strings.Join(relaxing, ", "))
				}
			}
		}
	}
	return ""
}

// count writes a report's count, naming its unit when it is not the
// column's (an engine other than the first row's explored it).
func count(r *checker.Report, unit string) string {
	n, u := r.Stats.Count()
	if u != unit {
		return fmt.Sprintf("%d %s", n, u)
	}
	return fmt.Sprint(n)
}

// comparisonTable writes an aligned table for a terminal: one block per
// model, one row per variant, one column per property (ok, FAIL, or ?
// when a bound left it unknown).
func comparisonTable(w io.Writer, c *checker.Comparison) {
	fmt.Fprintf(w, "protocol %s: %s\n\n", c.Protocol.File.Name, legend)
	// One block per model keeps the table narrow.
	for j, m := range c.Models {
		widths := []int{len("variant")}
		for _, p := range c.Props {
			widths = append(widths, max(len(p), len("FAIL")))
		}
		for _, cs := range c.Cases {
			widths[0] = max(widths[0], len(variantName(cs)))
		}
		fmt.Fprintf(w, "model %s\n", m.Name)
		line := fmt.Sprintf("  %-*s", widths[0], "variant")
		for k, p := range c.Props {
			line += fmt.Sprintf("  %-*s", widths[k+1], p)
		}
		_, unit := c.Reports[0][j].Stats.Count()
		fmt.Fprintln(w, strings.TrimRight(line, " ")+"  "+unit)
		for i, cs := range c.Cases {
			r := c.Reports[i][j]
			line := fmt.Sprintf("  %-*s", widths[0], variantName(cs))
			for k, p := range r.Props {
				line += fmt.Sprintf("  %-*s", widths[k+1], cell(p.Status))
			}
			note := ""
			if !r.Stats.Exhaustive() {
				note = " (bounded by " + r.Stats.LimitText() + ")"
			}
			fmt.Fprintf(w, "%s  %s%s\n", line, count(r, unit), note)
		}
		fmt.Fprintln(w)
	}
	if note := elsewhere(c); note != "" {
		fmt.Fprintf(w, "%s.\n", note)
	}
}

// variantName names a case's variant in a table: "(the protocol)" for a
// protocol without variants.
func variantName(in *checker.Instance) string {
	if in.Variant == "" {
		return "(the protocol)"
	}
	return in.Variant
}

// comparisonMarkdown writes the comparison in Markdown, a table per model
// (a column per property), so that it fits a page.
func comparisonMarkdown(w io.Writer, c *checker.Comparison) {
	for j, m := range c.Models {
		if j > 0 {
			fmt.Fprintln(w)
		}
		_, unit := c.Reports[0][j].Stats.Count()
		fmt.Fprintf(w, "**%s**\n\n| variant | %s | %s |\n|%s\n", m.Name, strings.Join(c.Props, " | "), unit, strings.Repeat("---|", len(c.Props)+2))
		for i, cs := range c.Cases {
			r := c.Reports[i][j]
			row := []string{variantName(cs)}
			for _, p := range r.Props {
				row = append(row, cell(p.Status))
			}
			row = append(row, count(r, unit))
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintf(w, "\n%s.\n", legend)
	if note := elsewhere(c); note != "" {
		fmt.Fprintf(w, "%s.\n", note)
	}
}

// JSONComparison is the JSON form of a comparison.
type JSONComparison struct {
	Protocol string       `json:"protocol"`
	Results  []JSONResult `json:"results"`
}

func comparisonJSON(w io.Writer, c *checker.Comparison) error {
	out := JSONComparison{Protocol: c.Protocol.File.Name, Results: []JSONResult{}}
	for i, cs := range c.Cases {
		for _, r := range c.Reports[i] {
			out.Results = append(out.Results, ReportJSON(r, cs, false))
		}
	}
	return JSON(w, out)
}
