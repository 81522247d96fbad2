package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/history"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// TestHistoryFixtures checks the recorded histories under traces/histories
// with ordercheck linearize: *.ok.json must linearize (exit 0), *.bad.json
// must not (exit 1) and the visualisation must be written. Every protocol
// with a specification keeps one of each.
func TestHistoryFixtures(t *testing.T) {
	root := filepath.Join("..", "..", "traces", "histories")
	if *update {
		writeHistories(t, root)
	}
	files, _ := filepath.Glob(filepath.Join(root, "*.json"))
	kinds := map[string]bool{}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			hf, err := history.Read(fh)
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			want, kind := 0, ".ok"
			if strings.HasSuffix(f, ".bad.json") {
				want, kind = 1, ".bad"
			}
			kinds[hf.Protocol+kind] = true
			html := filepath.Join(t.TempDir(), "h.html")
			code, out, errText := runCLI("linearize", hf.Protocol, "--history", f, "--html", html)
			if code != want {
				t.Errorf("exit %d, want %d: %s %s", code, want, out, errText)
			}
			if st, err := os.Stat(html); err != nil || st.Size() == 0 {
				t.Errorf("no visualisation written: %v", err)
			}
		})
	}
	for _, name := range protocols.Names() {
		for _, kind := range []string{".ok", ".bad"} {
			if pr, _ := protocols.Load(name); pr.File.Spec != nil && !kinds[name+kind] {
				t.Errorf("no %s history of %s under %s", kind, name, root)
			}
		}
	}
}

// writeHistories records the fixtures: a linearizable history of a Go
// implementation per protocol, and a non-linearizable one from a buggy
// variant, of the Go implementation (its first failing round) or of the
// model (its first failing execution).
func writeHistories(t *testing.T, root string) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(name string, h *history.File) {
		f, err := os.Create(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := h.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	goRun := func(protocol, variant string, clients, rounds int) (string, []porcupine.Operation) {
		e, _ := protocols.Lookup(protocol)
		h, err := e.Impl.Stress(harness.Config{Variant: variant, Clients: clients, Rounds: rounds, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("the Go implementation, variant %s, %d clients × %d rounds, seed 1", variant, clients, rounds), h
	}
	goBad := func(protocol, variant string) {
		source, h := goRun(protocol, variant, 4, 200)
		pr, _ := protocols.Lookup(protocol)
		spec := pr.File.Spec.Model()
		for _, part := range spec.Partition(h) {
			if !porcupine.CheckOperations(*spec, part) {
				obj, _ := lang.Split(part[0].Input)
				save(protocol+"-"+variant+"-go.bad.json", history.NewFile(protocol, fmt.Sprintf("%s: its round %d, which does not linearize", source, obj), part))
				return
			}
		}
		t.Fatalf("no round of %s %s fails to linearize", protocol, variant)
	}
	modelBad := func(protocol, variant, modelName string) {
		pr, err := protocols.Load(protocol)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := pr.Instance(variant, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := model.Lookup(modelName)
		var bad []porcupine.Operation
		_, err = checker.Explore(inst.Prog, m, explore.Options{}, func(e *explore.Execution) {
			if h := timedHistory(e); bad == nil && !porcupine.CheckOperations(*pr.File.Spec.Model(), h) {
				bad = h
			}
		})
		if err != nil || bad == nil {
			t.Fatalf("no non-linearizable execution of %s %s under %s: %v", protocol, variant, modelName, err)
		}
		save(fmt.Sprintf("%s-%s-%s.bad.json", protocol, variant, modelName), history.NewFile(protocol, fmt.Sprintf("an execution of the model, variant %s, under %s", variant, modelName), bad))
	}
	for _, ok := range []struct {
		protocol, variant string
		clients           int
	}{{"dlsym", "fixed", 2}, {"execenv", "pr2685", 3}, {"cluster", "pr2685", 3}} {
		source, h := goRun(ok.protocol, ok.variant, ok.clients, 3)
		save(ok.protocol+"-"+ok.variant+"-go.ok.json", history.NewFile(ok.protocol, source, h))
	}
	modelBad("dlsym", "unordered", "rc11")
	goBad("execenv", "original")
	modelBad("cluster", "atomic-relaxed", "sc")
}

// timedHistory returns the history of e's operations as a recorder would
// time them on a clock, in the order the execution presents its events:
// one of the real-time histories the execution allows.
func timedHistory(e *explore.Execution) []porcupine.Operation {
	at := map[model.EventRef]int64{}
	for i, r := range e.Graph.Steps() {
		at[r] = int64(i)
	}
	out := []porcupine.Operation{}
	for _, op := range checker.History(e).Ops {
		if !op.Pending {
			out = append(out, porcupine.Operation{ClientId: op.Thread, Input: op.Name, Call: at[op.Call], Output: op.Result(), Return: at[op.Ret]})
		}
	}
	return out
}
