package progtest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Corpus is the directory of the herd7 litmus corpus: $ORDERCHECK_LITMUS
// when set (a relative path from the module's root), else
// ../shared/litmus beside the project.
func Corpus() string {
	dir := os.Getenv("ORDERCHECK_LITMUS")
	if dir == "" {
		dir = filepath.Join("..", "shared", "litmus")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root(), dir)
	}
	return dir
}

// corpusExpected reports whether the corpus should be there: the
// environment names it, or its folder is beside the project. A clone
// elsewhere has neither, and the tests that read it skip; any file
// missing or cut short in a corpus that is there fails them.
func corpusExpected() bool {
	if os.Getenv("ORDERCHECK_LITMUS") != "" {
		return true
	}
	_, err := os.Stat(Corpus())
	return err == nil
}

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
// "expected-rc11.tsv"). It skips t when no corpus is expected
// (corpusExpected), and fails it when one is and the file cannot be read:
// a corpus moved or cut short must not pass as a skip.
func ReadExpected(t *testing.T, name string) []HerdRow {
	t.Helper()
	f, err := os.Open(filepath.Join(Corpus(), name))
	if err != nil {
		if !corpusExpected() {
			t.Skipf("herd7 corpus not available (%v): the conformance tests need ../shared/litmus beside the project, or ORDERCHECK_LITMUS", err)
		}
		t.Fatalf("herd7 corpus: %v (ORDERCHECK_LITMUS names the corpus; else ../shared/litmus beside the project)", err)
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
	if len(rows) == 0 {
		t.Fatalf("herd7 corpus: %s has no results", f.Name())
	}
	return rows
}

// LitmusFiles returns the litmus tests of the herd7 corpus (Corpus, when
// it is there) and the project's own classic shapes, failing t when the
// latter are missing, or the corpus is expected and has none.
func LitmusFiles(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(Corpus(), "*", "*.litmus"))
	local, _ := filepath.Glob(filepath.Join(root(), "protocols", "litmus", "testdata", "*.litmus"))
	if len(local) == 0 {
		t.Fatal("no litmus tests in protocols/litmus/testdata")
	}
	if len(files) == 0 {
		if corpusExpected() {
			t.Fatalf("no litmus tests in the herd7 corpus %s", Corpus())
		}
		t.Log("herd7 corpus not available (../shared/litmus, or ORDERCHECK_LITMUS): only the classic shapes")
	}
	return append(files, local...)
}
