package protocols_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/checker/trace"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

var update = flag.Bool("update", false, "rewrite the compare tables under testdata/ and the traces under ../traces/ from the catalogue")

// TestCatalogue checks that the expect clauses of every catalogue protocol
// decide each configuration's variants under every registered model, and
// that every verdict is the one expected, from one comparison per
// configuration (TestExpectations checks them again through the go test
// helper users run); and what follows from the verdicts, kept beside them:
// the compare tables (testdata/compare-*), and one counterexample trace
// per violated cell and property under ../traces/, each of which must
// still reproduce when replayed. -update rewrites both.
func TestCatalogue(t *testing.T) {
	for _, name := range protocols.Names() {
		pr, err := protocols.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		configs, err := pr.Expectations()
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range configs {
			dir := name + configSuffix(cfg)
			t.Run(dir, func(t *testing.T) {
				cmp := compared(t, name, checker.CompareOptions{Params: cfg.Overrides()})
				checkCells(t, cmp, cfg)
				for _, f := range []render.Format{render.FormatTable, render.FormatMarkdown} {
					var b bytes.Buffer
					if err := render.Comparison(&b, cmp, f); err != nil {
						t.Fatal(err)
					}
					golden(t, filepath.Join("testdata", "compare-"+dir+map[render.Format]string{render.FormatTable: ".txt", render.FormatMarkdown: ".md"}[f]), b.String())
				}
				traces(t, filepath.Join("..", "traces", dir), cmp)
			})
		}
	}
}

// configSuffix names a configuration after its parameter values: "" for
// the default parameters, "-embedder" for SPAWN=embedder.
func configSuffix(cfg lang.Config) string {
	s := ""
	for _, b := range cfg.Params {
		s += "-" + b.Value.Text
	}
	return s
}

// checkCells makes sure an expect clause decides every cell of the
// comparison, and that the cell's report is what it expects.
func checkCells(t *testing.T, cmp *checker.Comparison, cfg lang.Config) {
	for i, in := range cmp.Cases {
		for j, m := range cmp.Models {
			k := slices.IndexFunc(cfg.Cells, func(c lang.Cell) bool { return c.Variant == in.Variant && c.Model == m.Name })
			if k < 0 || cfg.Cells[k].Clause == nil {
				t.Errorf("%s under %s: no expect clause says what to expect", in.Variant, m.Name)
				continue
			}
			res := &expect.Result{Case: &expect.Case{Protocol: cmp.Protocol, Params: cfg.Params, Cell: cfg.Cells[k]}, Instance: in, Report: cmp.Reports[i][j]}
			res.Diffs = expect.Differences(res.Report, &res.Cell)
			if res.Status() != expect.Pass {
				t.Errorf("%s under %s: %s", in.Variant, m.Name, render.CaseDetail(cmp.Protocol.Ref(), res))
			}
		}
	}
}

// comparisons holds the comparisons the tests of this package made, by
// protocol and options: the catalogue is explored once per test binary.
var comparisons = struct {
	sync.Mutex
	m map[string]*checker.Comparison
}{m: map[string]*checker.Comparison{}}

// compared returns the comparison of the catalogue protocol name with
// opt, made once.
func compared(t *testing.T, name string, opt checker.CompareOptions) *checker.Comparison {
	t.Helper()
	var models []string
	for _, m := range opt.Models {
		models = append(models, m.Name)
	}
	key := fmt.Sprint(name, opt.Params, models) // fmt sorts maps' keys
	comparisons.Lock()
	defer comparisons.Unlock()
	if cmp := comparisons.m[key]; cmp != nil {
		return cmp
	}
	pr, err := protocols.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := pr.Compare(opt)
	if err != nil {
		t.Fatal(err)
	}
	comparisons.m[key] = cmp
	return cmp
}

// traces checks that dir holds exactly one trace per violated cell and
// property of the comparison, and that each replays to its violation;
// under -update it writes them anew.
func traces(t *testing.T, dir string, cmp *checker.Comparison) {
	want := map[string]bool{}
	for i, in := range cmp.Cases {
		for j, m := range cmp.Models {
			for _, p := range cmp.Reports[i][j].Props {
				if p.Witness == nil {
					continue
				}
				file := fmt.Sprintf("%s.%s.%s.json", in.Variant, m.Name, p.Name)
				want[file] = true
				if *update {
					writeTrace(t, filepath.Join(dir, file), trace.Of(in, p.Witness))
				}
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !want[filepath.Base(f)] {
			if *update {
				os.Remove(f)
				continue
			}
			t.Errorf("%s: a trace of a cell that is not violated", f)
		}
		delete(want, filepath.Base(f))
		replay(t, f)
	}
	for f := range want {
		t.Errorf("%s: no trace of this violation (go test ./protocols -update writes it)", filepath.Join(dir, f))
	}
}

func writeTrace(t *testing.T, path string, tr *trace.Trace) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := tr.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
}

// replay replays the trace at path: its violation must reproduce.
func replay(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.Read(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	r, err := trace.Replay(tr, protocols.Lookup)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if r.Witness == nil {
		t.Errorf("%s: the known violation of %s no longer reproduces: %s", path, tr.Property, r.Reason)
	}
}

// golden compares got with the file at path, or rewrites the file under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./protocols -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n%s", path, got)
	}
}
