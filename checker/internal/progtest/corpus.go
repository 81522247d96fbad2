package progtest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Corpus is the directory of the herd7 litmus corpus beside the project
// (../shared/litmus from the module's root).
func Corpus() string { return filepath.Join(root(), "..", "shared", "litmus") }

// root is the module's root, found from a test's working directory.
func root() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return "."
		}
	}
}

// HerdRow is one row of the corpus's expected-<model>.tsv: a test, herd7's
// verdict, its positive and negative executions, its number of final
// states and the states.
type HerdRow struct {
	Test, Result     string
	Pos, Neg, NState int
	States           []string
}

// ReadExpected reads the corpus's file of herd7's results (name, such as
// "expected-rc11.tsv"), skipping t when the corpus is not beside the
// project.
func ReadExpected(t *testing.T, name string) []HerdRow {
	t.Helper()
	f, err := os.Open(filepath.Join(Corpus(), name))
	if err != nil {
		t.Skipf("herd7 corpus not available (%v): the conformance tests need ../shared/litmus beside the project", err)
	}
	defer f.Close()
	var rows []HerdRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "test\t") || line == "" {
			continue
		}
		c := strings.Split(line, "\t")
		r := HerdRow{Test: c[0], Result: c[1]}
		r.Pos, _ = strconv.Atoi(c[5])
		r.Neg, _ = strconv.Atoi(c[6])
		r.NState, _ = strconv.Atoi(c[7])
		for _, s := range strings.Split(c[8], " | ") {
			r.States = append(r.States, strings.TrimSpace(s))
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// LitmusFiles returns the litmus tests of the herd7 corpus (when it is
// beside the project) and the project's own classic shapes, failing t
// when the latter are missing.
func LitmusFiles(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(Corpus(), "*", "*.litmus"))
	local, _ := filepath.Glob(filepath.Join(root(), "protocols", "litmus", "testdata", "*.litmus"))
	if len(local) == 0 {
		t.Fatal("no litmus tests in protocols/litmus/testdata")
	}
	if len(files) == 0 {
		t.Log("herd7 corpus not available beside the project: only the classic shapes")
	}
	return append(files, local...)
}
