// Package scratch makes Go modules of their own that require this
// checkout of ordercheck, for tests that use the library as its users do:
// from outside, through what it exports.
package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Module writes files (path → text) into a new module directory whose
// go.mod requires ordercheck at root, the repository's top, and returns
// the directory.
func Module(t testing.TB, root string, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	all := map[string]string{
		"go.mod": "module scratch\n\ngo 1.26\n\nrequire github.com/ordercheck/ordercheck v0.0.0\n\nreplace github.com/ordercheck/ordercheck => " + root + "\n",
		"go.sum": string(sum),
	}
	for name, text := range files {
		all[name] = text
	}
	for name, text := range all {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// GoTest runs go test -count=1 with args on the module in dir and returns
// its output.
func GoTest(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", append([]string{"test", "-count=1"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
