package dlsym_test

import (
	"flag"
	"testing"

	"github.com/ordercheck/ordercheck/protocols/internal/evidence"
)

var update = flag.Bool("update", false, "rewrite docs/evidence-dlsym.md")

// TestEvidence sets the model's verdicts beside the Go implementation's
// evidence, asserts that they agree, and keeps the table in
// docs/evidence-dlsym.md (-update rewrites it).
func TestEvidence(t *testing.T) {
	rows := []evidence.Row{{Variant: "original"}, {Variant: "fixed"}, {Variant: "dcl"}, {Variant: "nocache"},
		{Variant: "original", Impl: "dlopen-original"}, {Variant: "fixed", Impl: "dlopen-fixed"}}
	for _, v := range []string{"unordered", "consume", "consume-indep", "codegen"} {
		rows = append(rows, evidence.Row{Variant: v, NoGo: true})
	}
	evidence.Table{
		Protocol: "dlsym",
		Path:     "../../docs/evidence-dlsym.md",
		Intro: "# dlsym: the model against the Go implementation\n\n" +
			"Produced by `go test ./protocols/dlsym -run TestEvidence -update`. Model columns: ordercheck's verdicts (two callers; data-race is judged alike under every model). " +
			"Go columns: Go's race detector on a stress run in a subprocess (4 goroutines × 20 rounds), porcupine on the recorded history (4 goroutines × 50 rounds) on this x86 machine, and the stress run's deadlock watchdog.",
		Outro: "They agree: the race detector flags exactly the variant whose model races, and every history recorded on x86 linearizes, as the model predicts under tso. " +
			"The rc11 column is what a weaker machine or an optimising compiler may show: the plain cache can hand out the pointer before the library's memory. " +
			"The dlopen rows run the same caches over the system's real dlopen and dlsym (cgo; the cached pointer is C's abs, called with -42): the race detector sees the plain cache's race there too. " +
			"The unordered, consume, consume-indep and codegen variants have no Go form (Go's atomics are sequentially consistent), so they have no Go evidence.\n",
		Rows:    rows,
		Clients: 4,
		Rounds:  50,
	}.Check(t, *update)
}
