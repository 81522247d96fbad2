// Package evidence sets a catalogue protocol's model verdicts beside the
// evidence from its Go implementation — Go's race detector in a
// subprocess, porcupine on recorded histories, the stress run's deadlock
// watchdog — asserts that they agree, and keeps the table in docs/.
package evidence

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/harness/harnesstest"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// Row is one variant, with protocol parameters, to set beside the model.
type Row struct {
	Variant string
	Params  map[string]string
	NoGo    bool   // the variant has no faithful Go form: model columns only
	Impl    string // the Go implementation to run, when not named Variant
}

// impl names the row's Go implementation.
func (r Row) impl() string {
	if r.Impl != "" {
		return r.Impl
	}
	return r.Variant
}

// name is how the table names the row.
func (r Row) name() string {
	if r.Impl != "" {
		return r.Variant + " (Go: " + r.Impl + ")"
	}
	return r.Variant
}

// Table describes a protocol's evidence document.
type Table struct {
	Protocol string
	Path     string // the document, relative to the test's package
	Intro    string // Markdown before the table
	Outro    string // Markdown after it: the agreement and every disagreement explained
	Rows     []Row
	Clients  int // stress goroutines per round
	Rounds   int // stress rounds for porcupine
}

type cells struct {
	race, linRC11, linTSO, deadlock checker.Status
	tsan, goDeadlock                bool
	lin                             porcupine.CheckResult
}

// Check computes every row, fails the test where the Go evidence and the
// model disagree, and compares the table with Path (rewriting it when
// update is set). Without the race detector the test fails.
func (tb Table) Check(t *testing.T, update bool) {
	if testing.Short() {
		t.Skip("runs go test -race in subprocesses")
	}
	pr, err := protocols.Load(tb.Protocol)
	if err != nil {
		t.Fatal(err)
	}
	rd := harnesstest.NewRaceDetector(t, ".")
	got := make([]cells, len(tb.Rows))
	var mu sync.Mutex
	t.Run("rows", func(t *testing.T) {
		for i, row := range tb.Rows {
			t.Run(row.impl()+paramText(row.Params, "/"), func(t *testing.T) {
				t.Parallel()
				c := tb.row(t, pr, rd, row)
				mu.Lock()
				got[i] = c
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	var b strings.Builder
	b.WriteString(tb.Intro)
	b.WriteString("\n\n| variant | params | model data-race | model linearizability rc11 | model linearizability tso | model deadlock | race detector | porcupine (x86) | Go deadlock |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, row := range tb.Rows {
		c := got[i]
		goCols := "— | — | —"
		if !row.NoGo {
			goCols = fmt.Sprintf("%s | %s | %s", yes(c.tsan, "race reported", "no race"), c.lin, yes(c.goDeadlock, "blocked", "none"))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", row.name(), paramText(row.Params, ""), c.race, c.linRC11, c.linTSO, c.deadlock, goCols)
	}
	b.WriteString("\n" + tb.Outro)
	if runtime.GOARCH != "amd64" {
		t.Skip("the table records an x86 machine")
	}
	if update {
		if err := os.WriteFile(tb.Path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(tb.Path)
	if err != nil {
		t.Fatalf("%v (go test -run TestEvidence -update writes it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("%s is out of date:\n%s", tb.Path, b.String())
	}
}

// row computes one row's cells and asserts their agreement.
func (tb Table) row(t *testing.T, pr *checker.Protocol, rd *harnesstest.RaceDetector, row Row) cells {
	// The model's verdicts are the protocol file's expectations, which the
	// catalogue test checks.
	cfgs, err := pr.Expectations()
	if err != nil {
		t.Fatal(err)
	}
	verdict := func(m, prop string) checker.Status {
		for _, cfg := range cfgs {
			if !maps.Equal(cfg.Overrides(), row.Params) {
				continue
			}
			for _, c := range cfg.Cells {
				if c.Variant == row.Variant && c.Model == m && c.Clause != nil {
					if slices.ContainsFunc(c.Violated, func(v lang.Violation) bool { return v.Prop == prop }) {
						return checker.Violated
					}
					return checker.Holds
				}
			}
		}
		t.Fatalf("no expect clause of %s says what %s %s under %s is", tb.Protocol, row.Variant, paramText(row.Params, ""), m)
		return 0
	}
	c := cells{
		race:     verdict("rc11", checker.PropDataRace),
		linRC11:  verdict("rc11", checker.PropLinearizability),
		linTSO:   verdict("tso", checker.PropLinearizability),
		deadlock: verdict("tso", checker.PropDeadlock),
	}
	if row.NoGo {
		return c
	}
	cfg := harness.Config{Variant: row.impl(), Params: row.Params, Clients: tb.Clients, Rounds: 20, Seed: 1}
	var out string
	c.tsan, out = rd.Races(t, cfg)
	if c.tsan != (c.race == checker.Violated) {
		t.Errorf("the race detector reports a race: %v; the model's data-race: %s\n%s", c.tsan, c.race, out)
	}
	cfg.Rounds = tb.Rounds
	h, err := pr.Impl.Stress(cfg)
	if err != nil && !errors.Is(err, harness.ErrDeadlock) {
		t.Fatal(err)
	}
	c.goDeadlock = err != nil
	if c.goDeadlock != (c.deadlock == checker.Violated) {
		t.Errorf("the Go version blocks: %v (%v); the model's deadlock: %s", c.goDeadlock, err, c.deadlock)
	}
	c.lin = porcupine.CheckOperationsTimeout(*pr.File.Spec.Model(), h, 10*time.Second)
	if c.lin == porcupine.Unknown {
		t.Errorf("porcupine timed out: no verdict")
	}
	if runtime.GOARCH == "amd64" && (c.lin == porcupine.Ok) != (c.linTSO == checker.Holds) {
		t.Errorf("porcupine says %s on x86; the model's tso linearizability: %s", c.lin, c.linTSO)
	}
	return c
}

func yes(b bool, y, n string) string {
	if b {
		return y
	}
	return n
}

// paramText writes parameters as K=V, sorted, after sep ("" for none).
func paramText(params map[string]string, sep string) string {
	var parts []string
	for k, v := range params {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return map[string]string{"": "—"}[sep]
	}
	return sep + strings.Join(parts, ",")
}
