package checker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/herd"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/c"
	"github.com/ordercheck/ordercheck/protocols/lang"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

// BenchmarkDlsym covers the dlsym rows of docs/performance.md: the
// catalogue's fixed variant with N callers.
func BenchmarkDlsym(b *testing.B) { benchDlsym(b, "sc", "rc11") }

// BenchmarkHardware covers the hardware rows of docs/performance.md: the
// same under arm and riscv (probed for load buffering, then explored),
// execenv's pr2685, the catalogue's slowest cell under them, and the
// Treiber stack of the examples, which speculation could not finish.
func BenchmarkHardware(b *testing.B) {
	benchDlsym(b, "arm", "riscv")
	for _, c := range []struct{ ref, variant, name string }{
		{"execenv", "pr2685", "execenv-pr2685"},
		{"../protocols/examples/treiber.oc", "fixed", "treiber"},
	} {
		pr, err := protocols.Load(c.ref)
		if err != nil {
			b.Fatal(err)
		}
		inst, err := pr.Instance(c.variant, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range []string{"arm", "riscv"} {
			b.Run(c.name+"/"+m, func(b *testing.B) { benchExplore(b, inst.Prog, m) })
		}
	}
}

// BenchmarkC explores a C program whose static node pool holds hundreds of
// locations an execution never touches (as GenMC's stc and qu do), by
// graphs under rc11 and arm.
func BenchmarkC(b *testing.B) {
	pr, err := checker.LoadC("../protocols/c/testdata/pool.c", c.Options{})
	if err != nil {
		b.Fatal(err)
	}
	inst, err := pr.Instance("release", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []string{"rc11", "arm"} {
		b.Run("pool/"+m, func(b *testing.B) { benchExplore(b, inst.Prog, m) })
	}
}

// benchDlsym explores the catalogue's fixed dlsym with 2 and 3 callers
// under each model.
func benchDlsym(b *testing.B, models ...string) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		inst, err := pr.Instance("fixed", map[string]string{"N": fmt.Sprint(n)})
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range models {
			b.Run(fmt.Sprintf("N=%d/%s", n, m), func(b *testing.B) { benchExplore(b, inst.Prog, m) })
		}
	}
}

// referenceDlsym compiles testdata/dlsym-reference.oc, the program other
// tools' dlsym figures are for, with n callers.
func referenceDlsym(t testing.TB, n int) *model.Program {
	src, err := os.ReadFile("testdata/dlsym-reference.oc")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := lang.Parse("testdata/dlsym-reference.oc", string(src))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Compile("", map[string]string{"N": fmt.Sprint(n)})
	if err != nil {
		t.Fatal(err)
	}
	return inst.Prog
}

// BenchmarkDlsymReference covers the rows of docs/performance.md measured
// against GenMC and SPIN: the reference dlsym program.
func BenchmarkDlsymReference(b *testing.B) {
	for _, c := range []struct {
		n     int
		model string
	}{{3, "rc11"}, {4, "rc11"}, {4, "sc"}} {
		p := referenceDlsym(b, c.n)
		b.Run(fmt.Sprintf("N=%d/%s", c.n, c.model), func(b *testing.B) { benchExplore(b, p, c.model) })
	}
}

// TestReferenceDlsymCounts pins the reference program's execution counts,
// an independent oracle: GenMC v0.11 reports 29,485 executions for N=5
// under RC11 on the same program, which this explorer finds too (28 s, too
// slow for the suite; docs/performance.md); the smaller N are pinned here.
// SC has as many executions: acquire/release and the lock leave the
// program no weak behaviour.
func TestReferenceDlsymCounts(t *testing.T) {
	for _, c := range []struct {
		n     int
		model string
		want  int64
	}{
		{2, "rc11", 6}, {3, "rc11", 63}, {4, "rc11", 1108},
		{2, "sc", 6}, {3, "sc", 63}, {4, "sc", 1108},
	} {
		t.Run(fmt.Sprintf("N=%d/%s", c.n, c.model), func(t *testing.T) {
			st, err := checker.Explore(referenceDlsym(t, c.n), progtest.MustModel(t, c.model), explore.Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.Executions != c.want || !st.Exhaustive() {
				t.Errorf("%v, want %d executions", st, c.want)
			}
		})
	}
}

// TestPerfLitmus pins the litmus files of the herd7 rows of
// docs/performance.md (ordercheck litmus testdata/perf/*.litmus): their
// execution counts are the benchmark shapes'.
func TestPerfLitmus(t *testing.T) {
	for _, c := range []struct {
		file  string
		execs int64
	}{{"W-5", 14400}, {"Counter-5", 120}} {
		t.Run(c.file, func(t *testing.T) {
			p, err := litmus.ParseFile("testdata/perf/" + c.file + ".litmus")
			if err != nil {
				t.Fatal(err)
			}
			res, err := herd.Run(p, progtest.MustModel(t, "rc11"), explore.Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Positive + res.Negative; got != c.execs || !res.Stats.Exhaustive() {
				t.Errorf("%d executions (%v), want %d", got, res.Stats, c.execs)
			}
		})
	}
}

// BenchmarkStates covers the rows docs/performance.md measures with the
// state-merging explorer (what explore and compare use under sc, tso and
// rc11): the reference dlsym program and the catalogue's fixed variant,
// every property of theirs checked (but data races in the SPIN row).
func BenchmarkStates(b *testing.B) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		b.Fatal(err)
	}
	dlsymSpec := pr.SeqSpec()
	catalogue := func(n int) *model.Program {
		inst, err := pr.Instance("fixed", map[string]string{"N": fmt.Sprint(n)})
		if err != nil {
			b.Fatal(err)
		}
		return inst.Prog
	}
	all := []string{checker.PropDataRace, "lib-init", checker.PropDeadlock, checker.PropLinearizability}
	for _, c := range []struct {
		name  string
		p     *model.Program
		model string
		props []string
	}{
		{"reference/N=8/sc", referenceDlsym(b, 8), "sc", []string{"lib-init", checker.PropDataRace}},
		{"reference/N=6/rc11", referenceDlsym(b, 6), "rc11", []string{"lib-init", checker.PropDataRace}},
		{"catalogue/N=6/sc", catalogue(6), "sc", all},
		{"catalogue/N=4/rc11", catalogue(4), "rc11", all},
		// The SPIN row: SPIN checks assertions and deadlocks in SC's
		// interleavings; data races, C11's verdict, add an RC11
		// exploration of N=8 (the next row, as explore runs it).
		{"catalogue/N=8/sc", catalogue(8), "sc", all[1:]},
		{"catalogue/N=8/sc+races", catalogue(8), "sc", all},
		{"catalogue/N=6/rc11", catalogue(6), "rc11", all}, // the GenMC row
		{"catalogue/N=5/tso", catalogue(5), "tso", all},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := progtest.MustModel(b, c.model)
			var states int64
			b.ReportAllocs()
			for b.Loop() {
				rep, err := checker.Check(c.p, m, checker.Properties(dlsymSpec, c.props...), explore.Options{Engine: explore.EngineStates, Workers: *benchWorkers})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Verdict() != checker.VerdictVerified {
					b.Fatalf("verdict %s", rep.Verdict())
				}
				states = rep.Stats.States
			}
			b.ReportMetric(float64(states), "states")
			b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}

// BenchmarkLitmus covers the litmus rows of docs/performance.md: the herd7
// corpus (every test under rc11, as ordercheck litmus runs it, each a
// small exploration by graphs) and the scaling set in testdata/perf.
func BenchmarkLitmus(b *testing.B) {
	run := func(b *testing.B, files []string) {
		var progs []*model.Program
		for _, f := range files {
			p, err := litmus.ParseFile(f)
			if err != nil {
				b.Fatal(err)
			}
			progs = append(progs, p)
		}
		m := progtest.MustModel(b, "rc11")
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range progs {
				if _, err := herd.Run(p, m, explore.Options{Workers: *benchWorkers}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if corpus, _ := filepath.Glob(filepath.Join(progtest.Corpus(), "*", "*.litmus")); len(corpus) > 0 {
		b.Run("corpus", func(b *testing.B) { run(b, corpus) })
	}
	for _, name := range []string{"W-5", "Counter-5"} {
		b.Run(name, func(b *testing.B) { run(b, []string{"testdata/perf/" + name + ".litmus"}) })
	}
}
