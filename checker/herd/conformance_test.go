package herd_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/herd"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

var sharedLitmus = progtest.Corpus()

// TestHerdConformance checks every test of the shared corpus against
// herd7's results: the same final states, the same Ok/No/Undef and, except
// under tso (whose figures count translated x86 programs), the same numbers
// of executions.
func TestHerdConformance(t *testing.T) {
	for _, tc := range []struct {
		model, file string
		counts      bool
	}{
		{"rc11", "expected-rc11.tsv", true},
		{"sc", "expected-sc.tsv", true},
		{"tso", "expected-tso.tsv", false},
		{"arm", "expected-arm.tsv", false},
		{"riscv", "expected-riscv.tsv", false},
		// The dependency tests, whose rows name them within deps/.
		{"rc11", "deps/expected-rc11.tsv", true},
		{"sc", "deps/expected-sc.tsv", true},
	} {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(tc.file, "expected-"), ".tsv"), func(t *testing.T) {
			m, err := model.Lookup(tc.model)
			if err != nil {
				t.Fatal(err)
			}
			rows := progtest.ReadExpected(t, tc.file)
			countsAgree := 0
			for _, row := range rows {
				t.Run(row.Test, func(t *testing.T) {
					p, err := litmus.ParseFile(filepath.Join(sharedLitmus, filepath.Dir(tc.file), row.Test))
					if err != nil {
						t.Fatal(err)
					}
					res, err := herd.Run(p, m, explore.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if got, want := strings.Join(res.States, " | "), strings.Join(row.States, " | "); got != want {
						t.Errorf("states:\n got  %s\n want %s", got, want)
					}
					if got := res.Verdict(); got != row.Result {
						t.Errorf("result %s, herd7 says %s", got, row.Result)
					}
					if tc.counts {
						if int(res.Positive) != row.Pos || int(res.Negative) != row.Neg {
							t.Errorf("executions: positive %d negative %d, herd7 %d %d", res.Positive, res.Negative, row.Pos, row.Neg)
						} else {
							countsAgree++
						}
					}
				})
			}
			if tc.counts {
				t.Logf("%s: execution counts agree with herd7 on %d of %d tests", tc.model, countsAgree, len(rows))
			}
		})
	}
}
