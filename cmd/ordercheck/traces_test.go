package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// traceSets are the catalogue configurations whose counterexamples are
// kept under traces/ as regression fixtures.
var traceSets = []struct {
	protocol, dir string
	params        map[string]string
}{
	{"dlsym", "dlsym", nil},
	{"execenv", "execenv", nil},
	{"execenv", "execenv-embedder", map[string]string{"SPAWN": "embedder"}},
	{"cluster", "cluster", nil},
}

var fixtureModels = []string{"sc", "tso", "rc11", "rc11-consume"}

// TestTraceFixtures replays every counterexample under traces/: each must
// still reproduce, so a change that makes a known bug disappear fails.
// go test ./cmd/ordercheck -run TestTraceFixtures -update regenerates them
// from the catalogue: one per violated cell (variant, model, property).
func TestTraceFixtures(t *testing.T) {
	root := filepath.Join("..", "..", "traces")
	if *update {
		writeFixtures(t, root)
	}
	files, err := filepath.Glob(filepath.Join(root, "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces under %s (go test -run TestTraceFixtures -update makes them): %v", root, err)
	}
	for _, f := range files {
		if filepath.Base(filepath.Dir(f)) == "histories" {
			continue // checked by TestHistoryFixtures
		}
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			tr, err := checker.ReadTrace(fh)
			if err != nil {
				t.Fatal(err)
			}
			r, err := replayTrace(tr)
			if err != nil {
				t.Fatal(err)
			}
			if r.witness == nil {
				t.Fatalf("the known violation of %s no longer reproduces: %s", tr.Property, r.reason)
			}
		})
	}
}

// TestHistoryFixtures checks the recorded histories under traces/histories:
// *.ok.json must linearize (exit 0), *.bad.json must not (exit 1).
func TestHistoryFixtures(t *testing.T) {
	root := filepath.Join("..", "..", "traces", "histories")
	if *update {
		writeHistories(t, root)
	}
	files, _ := filepath.Glob(filepath.Join(root, "*.json"))
	if len(files) < 2 {
		t.Fatalf("expected a linearizable and a non-linearizable history under %s", root)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := 0
			if strings.HasSuffix(f, ".bad.json") {
				want = 1
			}
			code, out, errText := runCLI("linearize", "dlsym", "--history", f)
			if code != want {
				t.Errorf("exit %d, want %d: %s %s", code, want, out, errText)
			}
		})
	}
}

func writeHistories(t *testing.T, root string) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(name string, h *protocols.HistoryFile) {
		f, err := os.Create(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := h.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	stress, _ := protocols.Implementation("dlsym")
	save("dlsym-fixed-go.ok.json", protocols.NewHistoryFile("dlsym", "the Go implementation, variant fixed, 2 clients × 5 rounds, seed 1", stress("fixed", 2, 5, 1)))
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Compile("unordered", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := model.Lookup("rc11")
	var bad []porcupine.Operation
	_, err = checker.Explore(inst.Prog, m, checker.Options{}, func(e *checker.Execution) {
		if h := checker.History(e); bad == nil && !porcupine.CheckOperations(*protocols.Spec("dlsym"), h) {
			bad = h
		}
	})
	if err != nil || bad == nil {
		t.Fatalf("no non-linearizable execution of dlsym unordered under rc11: %v", err)
	}
	save("dlsym-unordered-rc11.bad.json", protocols.NewHistoryFile("dlsym", "an execution of the model, variant unordered, under rc11", bad))
}

func writeFixtures(t *testing.T, root string) {
	for _, set := range traceSets {
		dir := filepath.Join(root, set.dir)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		pr, err := protocols.Load(set.protocol)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range pr.Variants {
			inst, err := pr.Compile(v.Name, set.params)
			if err != nil {
				t.Fatal(err)
			}
			for _, mn := range fixtureModels {
				m, err := model.Lookup(mn)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := checker.Check(inst.Prog, m, propNames(pr), checker.Options{Spec: protocols.Spec(set.protocol)})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range rep.Props {
					if p.Witness == nil {
						continue
					}
					tr := checker.NewTrace(p.Witness, mn)
					tr.Variant, tr.Params = inst.Variant, map[string]string{}
					for _, b := range inst.Params {
						tr.Params[b.Param] = b.Value.Text
					}
					f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s.%s.%s.json", v.Name, mn, p.Name)))
					if err != nil {
						t.Fatal(err)
					}
					if err := tr.WriteJSON(f); err != nil {
						t.Fatal(err)
					}
					f.Close()
				}
			}
		}
	}
}
