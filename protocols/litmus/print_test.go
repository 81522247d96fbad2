package litmus

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPrintRoundTrip checks that printing a parsed litmus test and parsing
// it again gives the same program, for the project's tests and herd7's
// corpus when it is beside the project.
func TestPrintRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.litmus")
	// The corpus as the conformance tests find it (progtest.Corpus):
	// $ORDERCHECK_LITMUS from the module's root, else ../shared/litmus.
	corpus := os.Getenv("ORDERCHECK_LITMUS")
	named := corpus != ""
	if !named {
		corpus = "../shared/litmus"
	}
	if !filepath.IsAbs(corpus) {
		corpus = filepath.Join("..", "..", corpus)
	}
	shared, _ := filepath.Glob(filepath.Join(corpus, "*", "*.litmus"))
	if _, err := os.Stat(corpus); len(shared) == 0 && (named || err == nil) {
		t.Fatalf("no litmus tests in the herd7 corpus %s", corpus)
	}
	if len(shared) == 0 {
		t.Log("herd7 corpus not found beside the project: round-tripping the project's tests only")
	}
	for _, f := range append(files, shared...) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text, err := Print(p)
			if err != nil {
				t.Fatal(err)
			}
			q, err := Parse("printed.litmus", text)
			if err != nil {
				t.Fatalf("the printed test does not parse: %v\n%s", err, text)
			}
			if a, b := Canonical(p), Canonical(q); a != b {
				t.Errorf("printing changes the program:\n%s\n--- parsed back:\n%s\n--- text:\n%s", a, b, text)
			}
		})
	}
}
