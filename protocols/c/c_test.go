package c_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/c"
)

// TestPrograms checks the C programs under testdata against their
// "// ordercheck: expect" clauses, and that both engines agree on them
// (not under -short: the graph explorer's half is most of the time).
func TestPrograms(t *testing.T) {
	files, err := filepath.Glob("testdata/*.c")
	if err != nil || len(files) < 8 {
		t.Fatalf("want the C programs, found %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			checkertest.Run(t, f)
			if !testing.Short() {
				checkertest.SameVerdicts(t, f, "sc", "tso", "rc11")
			}
		})
	}
}

// TestLoopCut checks that a loop that is neither counted nor a spin runs
// at most Options.Unroll rounds and that one cut there gives no verdict
// naming its line, never "holds"; a larger bound lets it finish.
func TestLoopCut(t *testing.T) {
	src := []byte(`#include <pthread.h>
#include <stdatomic.h>
atomic_int x;
void *t(void *a) {
	while (atomic_load(&x) < 5)
		atomic_fetch_add(&x, 1);
	return NULL;
}
int main(void) {
	pthread_t h;
	pthread_create(&h, NULL, t, NULL);
	pthread_join(h, NULL);
	return 0;
}
`)
	for _, tt := range []struct {
		unroll int
		want   checker.Verdict
	}{{0, checker.VerdictBounded}, {5, checker.VerdictVerified}} {
		rep := checkSC(t, "cut.c", src, c.Options{Unroll: tt.unroll}, nil)
		if got := rep.Verdict(); got != tt.want {
			t.Errorf("unroll %d: verdict %v, want %v", tt.unroll, got, tt.want)
		}
		if tt.want == checker.VerdictBounded && !strings.Contains(rep.Stats.LimitText(), "cut.c:5:") {
			t.Errorf("unroll %d: the bound %q does not name the loop's line", tt.unroll, rep.Stats.LimitText())
		}
	}
}

// TestVariantProgram checks that each variant of a C file is its own
// program: the one the macros of its comment make, as show prints it.
func TestVariantProgram(t *testing.T) {
	pr, err := c.ParseFile("testdata/spinlock.c", c.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for variant, want := range map[string]string{
		"":        "cas(lock, expected, 1, acq, rlx)",
		"acquire": "cas(lock, expected, 1, acq, rlx)",
		"relaxed": "cas(lock, expected, 1, rlx, rlx)",
	} {
		text, err := pr.FormatVariant(variant)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, want) {
			t.Errorf("variant %q:\n%s\nwant it to contain %s", variant, text, want)
		}
	}
}

// TestSideEffectNames checks that a message about an expression with a
// side effect shows the C of it: an index idx++ out of range is "index
// idx++", not a register of the front end's.
func TestSideEffectNames(t *testing.T) {
	src := []byte(`#include <pthread.h>
int pool[1];
int idx;
void *w(void *a) { pool[idx++] = 1; pool[idx++] = 2; return NULL; }
int main(void) { pthread_t t; pthread_create(&t, NULL, w, NULL); return 0; }
`)
	rep := checkSC(t, "names.c", src, c.Options{}, checker.Properties(nil, "bounds"))
	if msg := rep.Props[0].Message; !strings.Contains(msg, "index idx++' of array pool out of range") {
		t.Errorf("bounds: %q", msg)
	}
}

// checkSC checks the default variant of C source src under sc.
func checkSC(t *testing.T, file string, src []byte, opt c.Options, props []checker.Property) *checker.Report {
	t.Helper()
	pr, err := c.Parse(file, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Compile("", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Lookup("sc")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := checker.Check(in.Prog, m, props, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestSpinAssume checks the complete executions of loops that break
// leaves, pruned as GenMC's spin-assume prunes them, against GenMC v0.11's
// counts for the same programs (-disable-sr): a failed round that writes
// nothing another thread sees is no execution of its own.
func TestSpinAssume(t *testing.T) {
	for _, tt := range []struct {
		file, variant string
		want          int64
	}{
		{"testdata/spin-stack.c", "", 8},
		{"testdata/spin-flag.c", "flag", 2},
		{"testdata/hazard.c", "protected", 13},
	} {
		for _, m := range []*model.Model{model.SC, model.RC11} {
			t.Run(filepath.Base(tt.file)+"/"+m.Name, func(t *testing.T) {
				pr, err := checker.LoadC(tt.file, c.Options{})
				if err != nil {
					t.Fatal(err)
				}
				in, err := pr.Instance(tt.variant, nil)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := in.Check(m, explore.Options{Engine: explore.EngineDPOR})
				if err != nil {
					t.Fatal(err)
				}
				if got := rep.Stats.Executions - rep.Stats.Blocked; got != tt.want || !rep.Stats.Exhaustive() {
					t.Errorf("%d complete executions (exhaustive %v), GenMC %d", got, rep.Stats.Exhaustive(), tt.want)
				}
			})
		}
	}
}

// TestIncludes checks a program whose header lies under an -I directory
// (Options.Includes) against its expect clauses, and that without the
// directory the include is a located error.
func TestIncludes(t *testing.T) {
	const file = "testdata/include/kernel.c"
	if _, err := checker.LoadC(file, c.Options{}); err == nil || !strings.Contains(err.Error(), "kernel.c:6:10: include file not found: <kern/once.h>") {
		t.Errorf("without -I: %v", err)
	}
	pr, err := checker.LoadC(file, c.Options{Includes: []string{"testdata/include"}})
	if err != nil {
		t.Fatal(err)
	}
	checkertest.RunProtocol(t, pr, explore.Options{})
}
