package checker_test

import (
	"os"
	"regexp"
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
