package checker_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
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
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module scratch\n\ngo 1.26\n\nrequire github.com/ordercheck/ordercheck v0.0.0\n\nreplace github.com/ordercheck/ordercheck => " + root + "\n",
		"go.sum":          string(sum),
		"scratch_test.go": string(block[1]),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the example of docs/library.md fails in a module of its own: %v\n%s", err, out)
	}
}
