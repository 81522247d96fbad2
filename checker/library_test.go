package checker_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/internal/scratch"
)

// TestLibraryOutsideTheModule runs the example of docs/library.md as a Go
// user would: the first Go block of the page is the test file of a
// scratch module, outside this repository, that requires ordercheck (its
// go.mod points at this checkout) and may import only what the library
// exports.
func TestLibraryOutsideTheModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	page, err := os.ReadFile("../docs/library.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(page)
	if block == nil {
		t.Fatal("docs/library.md has no Go block")
	}
	dir := scratch.Module(t, "..", map[string]string{"scratch_test.go": string(block[1])})
	if out, err := scratch.GoTest(dir, "."); err != nil {
		t.Fatalf("the example of docs/library.md fails in a module of its own: %v\n%s", err, out)
	}
}

// TestLibraryLeavesTheCatalogueOut checks that the library's packages
// build without the catalogue (its protocols, their Go implementations,
// the stress harness's test helpers) and link no testing package: a user
// of the library links the checker, not ordercheck's seed protocols.
func TestLibraryLeavesTheCatalogueOut(t *testing.T) {
	const mod = "github.com/ordercheck/ordercheck/"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./", "./render", "./dist", "../model").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := []string{"model", "checker", "protocols/lang", "protocols/c", "protocols/litmus", "protocols/syntax", "protocols/harness"}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "testing" {
			t.Errorf("the library links package testing")
		}
		rest, ours := strings.CutPrefix(dep, mod)
		if !ours {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || rest == a || strings.HasPrefix(rest, a+"/") && !strings.HasPrefix(rest, "protocols/harness/")
		}
		if !ok {
			t.Errorf("the library imports %s", dep)
		}
	}
}
