package checker_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

var expectLine = regexp.MustCompile(`expect:((?:\s+[a-z0-9-]+=[A-Za-z]+)+)`)

// TestClassicShapes runs the project's own litmus tests: the classic shapes
// with verdicts derived by hand from the literature, written in each file as
// "expect: rc11=Ok sc=No tso=Ok".
func TestClassicShapes(t *testing.T) {
	files, err := filepath.Glob("../protocols/litmus/testdata/*.litmus")
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
				res, err := checker.RunLitmus(p, mod, explore.Options{})
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
