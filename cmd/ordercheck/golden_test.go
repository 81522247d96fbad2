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
				path := filepath.Join("testdata", "compare-"+name+ext)
				if *update {
					if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if out != string(want) {
					t.Errorf("compare %s --format %s differs from %s:\n%s", name, format, path, out)
				}
			})
		}
	}
}
