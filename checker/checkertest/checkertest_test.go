package checkertest_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/checker/internal/scratch"
)

// TestScratchModule runs the example of docs/ci.md as a user would: its
// Go block is the test file of a module of its own, outside this
// repository (its go.mod points at this checkout), and its protocol block
// that test's protocol file. The test passes as written and fails, naming
// the cell, with one expectation flipped.
func TestScratchModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	page, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	block := func(lang string) string {
		m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindSubmatch(page)
		if m == nil {
			t.Fatalf("docs/ci.md has no %s block", lang)
		}
		return string(m[1])
	}
	goTest, protocol := block("go"), block("oc")
	dir := scratch.Module(t, "../..", map[string]string{"mp_test.go": goTest, "testdata/mp.oc": protocol})
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goTestRun := func() (string, error) { return scratch.GoTest(dir, "-v", ".") }
	out, err := goTestRun()
	if err != nil {
		t.Fatalf("the example of docs/ci.md fails in a module of its own: %v\n%s", err, out)
	}
	for _, want := range []string{"--- PASS: TestProtocols/relaxed/rc11 ", "--- PASS: TestProtocols/fixed/sc "} {
		if !strings.Contains(out, want) {
			t.Errorf("go test -v lacks %q:\n%s", want, out)
		}
	}
	write("missing_test.go", "package mp_test\n\nimport (\n\t\"testing\"\n\n\t\"github.com/ordercheck/ordercheck/checker/checkertest\"\n)\n\nfunc TestMissing(t *testing.T) { checkertest.Run(t, \"testdata/nope.oc\") }\n")
	out, err = scratch.GoTest(dir, "-run", "TestMissing", ".")
	if err == nil || !strings.Contains(out, "no such file or directory") || strings.Contains(out, "unknown protocol") {
		t.Errorf("a missing file:\n%s", out)
	}
	os.Remove(filepath.Join(dir, "missing_test.go"))
	write("testdata/mp.oc", strings.Replace(protocol, "expect relaxed under arm, riscv, rc11, rc11-consume:", "expect relaxed under arm, riscv, rc11-consume:", 1))
	out, err = goTestRun()
	if err == nil {
		t.Fatalf("a flipped expectation passes:\n%s", out)
	}
	for _, want := range []string{"--- FAIL: TestProtocols/relaxed/rc11 ", "(checked from mp_test.go:", "delivered is violated, expected to hold", "counterexample for delivered:", "explore it alone: ordercheck explore testdata/mp.oc --variant relaxed --model rc11"} {
		if !strings.Contains(out, want) {
			t.Errorf("the failure lacks %q:\n%s", want, out)
		}
	}
}

// TestRun checks this repository's message-passing protocol in process.
func TestRun(t *testing.T) {
	checkertest.Run(t, "../../cmd/ordercheck/testdata/test/mp.oc")
}

// TestTutorial puts together the protocol of docs/protocol-language.md's
// tutorial — its first block, with the variants and the expect clauses of
// the later ones — and checks its expectations.
func TestTutorial(t *testing.T) {
	page, err := os.ReadFile("../../docs/protocol-language.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	start, end := strings.Index(text, "## A first protocol"), strings.Index(text, "## Statements")
	if start < 0 || end < start {
		t.Fatal("docs/protocol-language.md has no tutorial before its Statements section")
	}
	blocks := regexp.MustCompile("(?s)```\n(.*?)```").FindAllStringSubmatch(text[start:end], -1)
	if len(blocks) != 4 {
		t.Fatalf("the tutorial has %d blocks, want 4: protocol, output, variants, expectations", len(blocks))
	}
	protocol := strings.Replace(blocks[0][1], "\nshared done = 0", "\n"+blocks[2][1]+"\nshared done = 0", 1) + "\n" + blocks[3][1]
	path := filepath.Join(t.TempDir(), "once.oc")
	if err := os.WriteFile(path, []byte(protocol), 0o644); err != nil {
		t.Fatal(err)
	}
	checkertest.Run(t, path)
}
