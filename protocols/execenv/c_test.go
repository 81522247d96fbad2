package execenv_test

import (
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/c"
)

// TestCAgrees holds the C program c/execenv.c to the protocol execenv.oc:
// the same variants, and under every model the same verdicts for both
// spawn paths (-DEMBEDDER is SPAWN=embedder). Its asserts name the
// properties deliver, start-once and tls; linearizability has no
// counterpart in C, which has no operations. -short compares the sc and
// rc11 columns only (the hardware models take most of the time).
func TestCAgrees(t *testing.T) {
	oc, err := protocols.Load("execenv")
	if err != nil {
		t.Fatal(err)
	}
	for _, spawn := range []string{"wasi", "embedder"} {
		t.Run(spawn, func(t *testing.T) {
			t.Parallel()
			var opt c.Options
			if spawn == "embedder" {
				opt.Defines = []string{"EMBEDDER"}
			}
			prog, err := checker.LoadC("c/execenv.c", opt)
			if err != nil {
				t.Fatal(err)
			}
			var models []*model.Model
			if testing.Short() {
				models = []*model.Model{model.SC, model.RC11}
			}
			want, err := oc.Compare(checker.CompareOptions{Params: map[string]string{"SPAWN": spawn}, Models: models})
			if err != nil {
				t.Fatal(err)
			}
			got, err := prog.Compare(checker.CompareOptions{Models: models})
			if err != nil {
				t.Fatal(err)
			}
			checkertest.SameTable(t, got, want, nil, "linearizability")
		})
	}
}
