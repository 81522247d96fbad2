package checker

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

// Case is one version of a protocol to compare: a variant compiled with
// its parameters.
type Case struct {
	Variant string
	Doc     string
	Params  string
	Prog    *model.Program
}

// Comparison holds every case × model × property verdict.
type Comparison struct {
	Protocol string
	Props    []string
	Models   []string
	Cases    []Case
	// Reports[i][j] is case i under model j.
	Reports [][]*Report
}

// Compare checks every case under every model.
func Compare(protocol string, cases []Case, models []model.Model, props []string, opt Options) (*Comparison, error) {
	c := &Comparison{Protocol: protocol, Props: props, Cases: cases}
	for _, m := range models {
		c.Models = append(c.Models, m.Name())
	}
	for _, cs := range cases {
		var row []*Report
		for _, m := range models {
			rep, err := Check(cs.Prog, m, props, opt)
			if err != nil {
				return nil, fmt.Errorf("%s under %s: %w", cs.Variant, m.Name(), err)
			}
			row = append(row, rep)
		}
		c.Reports = append(c.Reports, row)
	}
	return c, nil
}

// Violated reports whether any cell is violated; Complete whether every
// exploration was exhaustive.
func (c *Comparison) Violated() (violated, complete bool) {
	complete = true
	for _, row := range c.Reports {
		for _, r := range row {
			violated = violated || r.Verdict() == "violated"
			complete = complete && r.Stats.Exhaustive()
		}
	}
	return violated, complete
}

func cell(s Status) string {
	switch s {
	case Holds:
		return "ok"
	case Violated:
		return "FAIL"
	}
	return "?"
}

// header is the table's columns: variant, then model/property pairs.
func (c *Comparison) header() []string {
	h := []string{"variant"}
	for _, m := range c.Models {
		for _, p := range c.Props {
			h = append(h, m+" "+p)
		}
	}
	return h
}

func (c *Comparison) rows() [][]string {
	var out [][]string
	for i, cs := range c.Cases {
		row := []string{cs.Variant}
		for _, r := range c.Reports[i] {
			for _, p := range r.Props {
				row = append(row, cell(p.Status))
			}
		}
		out = append(out, row)
	}
	return out
}

// WriteTable writes an aligned table for a terminal: one row per variant,
// one column per model and property (ok, FAIL, or ? when a bound left it
// unknown).
func (c *Comparison) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "protocol %s: %s\n\n", c.Protocol, legend)
	// One block per model keeps the table narrow.
	for j, m := range c.Models {
		widths := []int{len("variant")}
		for _, p := range c.Props {
			widths = append(widths, len(p))
		}
		for _, cs := range c.Cases {
			widths[0] = max(widths[0], len(cs.Variant))
		}
		fmt.Fprintf(w, "model %s\n", m)
		line := fmt.Sprintf("  %-*s", widths[0], "variant")
		for k, p := range c.Props {
			line += fmt.Sprintf("  %-*s", widths[k+1], p)
		}
		_, unit := c.Reports[0][j].Stats.Count()
		fmt.Fprintln(w, strings.TrimRight(line, " ")+"  "+unit)
		for i, cs := range c.Cases {
			r := c.Reports[i][j]
			line := fmt.Sprintf("  %-*s", widths[0], cs.Variant)
			for k, p := range r.Props {
				line += fmt.Sprintf("  %-*s", widths[k+1], cell(p.Status))
			}
			n, _ := r.Stats.Count()
			fmt.Fprintf(w, "%s  %d%s\n", line, n, limitNote(r))
		}
		fmt.Fprintln(w)
	}
}

const legend = "ok = holds, FAIL = violated, ? = unknown (a bound cut the search)"

func limitNote(r *Report) string {
	if r.Stats.Limit != "" {
		return " (bounded by " + r.Stats.Limit + ")"
	}
	return ""
}

// WriteMarkdown writes the table in Markdown, one column per model and property.
func (c *Comparison) WriteMarkdown(w io.Writer) {
	h := c.header()
	fmt.Fprintf(w, "| %s |\n", strings.Join(h, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(h)))
	for _, row := range c.rows() {
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintf(w, "\n%s.\n", legend)
}

// JSONComparison is the JSON form of a comparison.
type JSONComparison struct {
	Protocol string       `json:"protocol"`
	Results  []JSONResult `json:"results"`
}

// WriteJSON writes the comparison as JSON.
func (c *Comparison) WriteJSON(w io.Writer) error {
	out := JSONComparison{Protocol: c.Protocol, Results: []JSONResult{}}
	for i, cs := range c.Cases {
		for _, r := range c.Reports[i] {
			out.Results = append(out.Results, r.JSON("", cs.Variant, cs.Params))
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
