package checker_test

import (
	"bytes"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestReportWire sends every cell of catalogue comparisons through
// MarshalReport and UnmarshalReport, into instances compiled anew as
// another process would, and renders both comparisons in every format:
// the pages must be the same, counterexamples included.
func TestReportWire(t *testing.T) {
	for _, tc := range []struct {
		name   string
		models []string
	}{
		{"dlsym", nil},
		{"cluster", nil},
		{"execenv", []string{"sc", "rc11", "rc11-consume"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := protocols.Load(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			var models []*model.Model
			for _, name := range tc.models {
				models = append(models, progtest.MustModel(t, name))
			}
			cmp, err := pr.Compare(checker.CompareOptions{Models: models})
			if err != nil {
				t.Fatal(err)
			}
			again, err := protocols.Load(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			sent := &checker.Comparison{Protocol: again, Props: cmp.Props, Models: cmp.Models}
			for i, row := range cmp.Reports {
				in, err := again.Instance(cmp.Cases[i].Variant, nil)
				if err != nil {
					t.Fatal(err)
				}
				sent.Cases = append(sent.Cases, in)
				var got []*checker.Report
				for _, r := range row {
					data, err := checker.MarshalReport(r)
					if err != nil {
						t.Fatal(err)
					}
					back, err := checker.UnmarshalReport(data, in)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, back)
				}
				sent.Reports = append(sent.Reports, got)
			}
			for _, f := range []render.Format{render.FormatTable, render.FormatMarkdown, render.FormatJSON, render.FormatHTML} {
				var a, b bytes.Buffer
				if err := render.Comparison(&a, cmp, f); err != nil {
					t.Fatal(err)
				}
				if err := render.Comparison(&b, sent, f); err != nil {
					t.Fatal(err)
				}
				if a.String() != b.String() {
					t.Errorf("format %d differs after the wire:\n%s\n---\n%s", f, a.String(), b.String())
				}
			}
		})
	}
}
