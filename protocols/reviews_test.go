package protocols_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
)

// generated finds the tables a review generates: the compare command in
// a comment, the table, and the comment that ends it.
var generated = regexp.MustCompile(`(?s)<!-- ordercheck (compare [^>]*?) -->\n(.*?)<!-- end of generated table -->\n`)

// TestReviews checks that the tables of the design reviews in
// docs/reviews are what the compare command in the comment above each
// prints today, so that the hand-written analysis beside them cannot sit
// beside stale verdicts; -update rewrites the tables.
func TestReviews(t *testing.T) {
	files, err := filepath.Glob("../docs/reviews/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no reviews: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			blocks := generated.FindAllStringSubmatchIndex(text, -1)
			if len(blocks) == 0 {
				t.Fatal("no generated table")
			}
			var out strings.Builder
			last := 0
			for _, b := range blocks {
				command := text[b[2]:b[3]]
				table := compareMarkdown(t, command)
				if got := text[b[4]:b[5]]; got != table && !*update {
					t.Errorf("the table under %q is stale (go test ./protocols -update rewrites it):\n%s", command, table)
				}
				out.WriteString(text[last:b[4]] + table)
				last = b[5]
			}
			out.WriteString(text[last:])
			if *update {
				if err := os.WriteFile(f, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// compareMarkdown runs "compare P --format markdown [--models M,...]
// [--param K=V]..." and returns its output.
func compareMarkdown(t *testing.T, command string) string {
	t.Helper()
	args := strings.Fields(command)
	if len(args) < 4 || args[0] != "compare" || args[2] != "--format" || args[3] != "markdown" {
		t.Fatalf("%q: want compare P --format markdown [--models M,...] [--param K=V]...", command)
	}
	opt := checker.CompareOptions{}
	for i := 4; i+1 < len(args); i += 2 {
		switch args[i] {
		case "--models":
			for _, n := range strings.Split(args[i+1], ",") {
				m, err := model.Lookup(n)
				if err != nil {
					t.Fatal(err)
				}
				opt.Models = append(opt.Models, m)
			}
		case "--param":
			k, v, _ := strings.Cut(args[i+1], "=")
			if opt.Params == nil {
				opt.Params = map[string]string{}
			}
			opt.Params[k] = v
		default:
			t.Fatalf("%q: unknown flag %s", command, args[i])
		}
	}
	cmp := compared(t, args[1], opt)
	var b bytes.Buffer
	if err := render.Comparison(&b, cmp, render.FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
