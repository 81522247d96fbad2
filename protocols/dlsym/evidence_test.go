package dlsym_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/dlsym"
)

var update = flag.Bool("update", false, "rewrite docs/evidence-dlsym.md")

const evidencePath = "../../docs/evidence-dlsym.md"

// TestEvidence sets the model's verdicts beside the evidence from the Go
// implementation — Go's race detector (ThreadSanitizer, run in a
// subprocess) and porcupine on recorded histories — asserts that they
// agree, and keeps the table in docs/evidence-dlsym.md (-update rewrites it).
func TestEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test -race in a subprocess")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("the race detector needs cgo and a C compiler")
	}
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# dlsym: the model against the Go implementation\n\n")
	b.WriteString("Produced by `go test ./protocols/dlsym -run TestEvidence -update`. Model columns: ordercheck's verdicts (two callers). Go columns: Go's race detector on a stress run, and porcupine on the recorded history (4 goroutines × 50 rounds) on this x86 machine.\n\n")
	b.WriteString("| variant | model data-race (every model) | model linearizability rc11 | model linearizability tso | race detector | porcupine (x86) |\n|---|---|---|---|---|---|\n")
	for _, v := range []string{"original", "fixed", "dcl", "nocache"} {
		inst, err := pr.Compile(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		verdict := func(m, prop string) checker.Status {
			mod, _ := model.Lookup(m)
			rep, err := checker.Check(inst.Prog, mod, []string{prop}, checker.Options{Spec: &dlsym.Spec})
			if err != nil {
				t.Fatal(err)
			}
			return rep.Props[0].Status
		}
		race := verdict("rc11", checker.PropDataRace)
		cmd := exec.Command("go", "test", "-race", "-count=1", "-run", "^TestRaceWitness$", ".")
		cmd.Env = append(os.Environ(), "ORDERCHECK_RACE_VARIANT="+v, "CGO_ENABLED=1")
		out, _ := cmd.CombinedOutput()
		tsan := strings.Contains(string(out), "WARNING: DATA RACE")
		if tsan != (race == checker.Violated) {
			t.Errorf("%s: the race detector reports a race: %v; the model's data-race: %s\n%s", v, tsan, race, out)
		}
		lin := porcupine.CheckOperationsTimeout(dlsym.Spec, dlsym.Stress(v, 4, 50, 1), 10*time.Second)
		tso := verdict("tso", checker.PropLinearizability)
		if runtime.GOARCH == "amd64" && (lin == porcupine.Ok) != (tso == checker.Holds) {
			t.Errorf("%s: porcupine says %s on x86; the model's tso linearizability: %s", v, lin, tso)
		}
		report := map[bool]string{true: "race reported", false: "no race"}[tsan]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", v, race, verdict("rc11", checker.PropLinearizability), tso, report, lin)
	}
	b.WriteString("\nThey agree: the race detector flags exactly the variant whose model races, and every history recorded on x86 linearizes, as the model predicts under tso. The rc11 column is what a weaker machine or an optimising compiler may show: the plain cache can hand out the pointer before the library's memory. The unordered, consume and codegen variants have no Go form (Go's atomics are sequentially consistent), so they have no Go evidence.\n")
	if runtime.GOARCH != "amd64" {
		t.Skip("the table records an x86 machine")
	}
	if *update {
		if err := os.WriteFile(evidencePath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(evidencePath)
	if err != nil {
		t.Fatalf("%v (go test -run TestEvidence -update writes it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("%s is out of date:\n%s", evidencePath, b.String())
	}
}
