package herd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/herd"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

var expectLine = regexp.MustCompile(`expect:((?:\s+[a-z0-9-]+=[A-Za-z]+)+)`)

// TestClassicShapes runs the project's own litmus tests: the classic shapes
// with verdicts derived by hand from the literature, written in each file as
// "expect: rc11=Ok sc=No tso=Ok".
func TestClassicShapes(t *testing.T) {
	files, err := filepath.Glob("../../protocols/litmus/testdata/*.litmus")
	if err != nil || len(files) == 0 {
		t.Fatalf("no litmus tests found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := litmus.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := readFile(t, f)
			m := expectLine.FindStringSubmatch(src)
			if m == nil {
				t.Fatal("no \"expect:\" line")
			}
			for _, kv := range strings.Fields(m[1]) {
				name, want, _ := strings.Cut(kv, "=")
				mod, err := model.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				res, err := herd.Run(p, mod, explore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Verdict(); got != want {
					var herd strings.Builder
					render.Herd(&herd, res)
					t.Errorf("%s: %s, expected %s\n%s", name, got, want, herd.String())
				}
			}
		})
	}
}

// TestLitmusFiles: a litmus file run and an outcome of it explained, and
// an error of either that names what is wrong.
func TestLitmusFiles(t *testing.T) {
	const mp = "../../protocols/litmus/testdata/MP+rel+acq.litmus"
	res, err := herd.RunFile(mp, model.RC11, explore.Options{})
	if err != nil || res.Verdict() != "No" {
		t.Errorf("RunFile(%s) = %v, %v: want No, message passing holds", mp, res, err)
	}
	x, err := herd.ExplainFile(mp, `1:r0=1 /\ 1:r1=0`, model.RC11, explore.Options{Workers: 4})
	if err != nil || x.Allowed() {
		t.Errorf("ExplainFile: %v, allowed %v: want forbidden", err, err == nil && x.Allowed())
	}
	if _, err := herd.ExplainFile(mp, "1:r9=", model.RC11, explore.Options{}); err == nil {
		t.Error("ExplainFile of a broken outcome: no error")
	}
	if _, err := herd.RunFile("no/such.litmus", model.RC11, explore.Options{}); err == nil || !strings.Contains(err.Error(), "no/such.litmus") {
		t.Errorf("RunFile of no file: %v, want it named", err)
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
