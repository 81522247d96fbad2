package checker_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

// sharedLitmus is the herd7 corpus beside the project, with herd7's verdicts.
const sharedLitmus = "../../shared/litmus"

type herdRow struct {
	test, result     string
	pos, neg, nstate int
	states           []string
}

func readExpected(t *testing.T, name string) []herdRow {
	t.Helper()
	f, err := os.Open(filepath.Join(sharedLitmus, name))
	if err != nil {
		t.Skipf("herd7 corpus not available (%v): the conformance tests need ../shared/litmus beside the project", err)
	}
	defer f.Close()
	var rows []herdRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "test\t") || line == "" {
			continue
		}
		c := strings.Split(line, "\t")
		r := herdRow{test: c[0], result: c[1]}
		r.pos, _ = strconv.Atoi(c[5])
		r.neg, _ = strconv.Atoi(c[6])
		r.nstate, _ = strconv.Atoi(c[7])
		for _, s := range strings.Split(c[8], " | ") {
			r.states = append(r.states, strings.TrimSpace(s))
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

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
			rows := readExpected(t, tc.file)
			countsAgree := 0
			for _, row := range rows {
				t.Run(row.test, func(t *testing.T) {
					p, err := litmus.ParseFile(filepath.Join(sharedLitmus, filepath.Dir(tc.file), row.test))
					if err != nil {
						t.Fatal(err)
					}
					res, err := checker.RunLitmus(p, m, checker.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if got, want := strings.Join(res.States, " | "), strings.Join(row.states, " | "); got != want {
						t.Errorf("states:\n got  %s\n want %s", got, want)
					}
					if got := res.Verdict(); got != row.result {
						t.Errorf("result %s, herd7 says %s", got, row.result)
					}
					if tc.counts {
						if int(res.Positive) != row.pos || int(res.Negative) != row.neg {
							t.Errorf("executions: positive %d negative %d, herd7 %d %d", res.Positive, res.Negative, row.pos, row.neg)
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

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
