package c_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/c"
)

// located matches an error located in the file, or in a header it
// includes.
var located = regexp.MustCompile(`^(f\.c|[^:]+\.h):\d+:\d+: `)

// FuzzParse feeds the C front end edited programs: none may make it
// panic or hang (reading a file takes under 10 seconds), an error it
// gives names a place in the file, and a program it accepts compiles in
// every variant and runs a few executions under sc with no internal
// error, its time bound kept.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.c")
	for _, s := range seeds {
		src, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		pr, err := checker.ParseC("f.c", src, c.Options{})
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("reading the file took %v", d)
		}
		if err != nil {
			if !located.MatchString(err.Error()) {
				t.Fatalf("an error that names no place in the file: %v", err)
			}
			return
		}
		variants := []string{""}
		for _, v := range pr.File.Variants {
			variants = append(variants, v.Name)
		}
		for _, v := range variants {
			in, err := pr.Instance(v, nil)
			if err != nil {
				continue
			}
			start := time.Now()
			_, err = in.Check(model.SC, explore.Options{MaxExecutions: 5, MaxGraphs: 200, Timeout: 500 * time.Millisecond})
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("variant %q: a check bounded by half a second took %v", v, d)
			}
			var ie *explore.InternalError
			if errors.As(err, &ie) {
				t.Fatalf("variant %q: %v", v, err)
			}
		}
	})
}
