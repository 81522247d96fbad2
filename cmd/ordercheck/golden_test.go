package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ordercheck/ordercheck/protocols"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestCompareGolden pins the compare output of every catalogue protocol,
// in the table and Markdown formats (go test ./cmd/ordercheck -update
// rewrites them after an intended change).
func TestCompareGolden(t *testing.T) {
	for _, name := range protocols.Names() {
		for _, format := range []string{"table", "markdown"} {
			t.Run(name+"/"+format, func(t *testing.T) {
				code, out, errText := runCLI("compare", name, "--format", format)
				if code != 0 && code != 1 {
					t.Fatalf("exit %d: %s", code, errText)
				}
				ext := map[string]string{"table": ".txt", "markdown": ".md"}[format]
				golden(t, filepath.Join("testdata", "compare-"+name+ext), out)
			})
		}
	}
}

// golden compares got with the file at path, or rewrites the file under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n%s", path, got)
	}
}
