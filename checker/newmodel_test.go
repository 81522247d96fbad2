package checker_test

import (
	"path/filepath"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/herd"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

// TestAddingAModel shows that adding a memory model takes one value in one
// file: this test-only model, sequential consistency written again with
// SC's machine, registered here and nowhere else, is listed with the
// others, compared under by default, explored by both engines, and allows
// exactly SC's executions.
func TestAddingAModel(t *testing.T) {
	sc := model.SC
	toy := model.Register(&model.Model{
		Name: "sc-plus-nothing",
		Doc:  "sequential consistency, written again",
		Axioms: []model.Axiom{
			{Name: "atomicity", Test: model.Empty, Rel: model.Let("rmw & (fr; co)", func(x *model.Exec) model.Relation { return x.Rmw.Inter(x.Fr.Seq(x.Co)) })},
			{Name: "sc", Test: model.Acyclic, Rel: model.Let("po | rf | co | fr", func(x *model.Exec) model.Relation { return x.Po.Union(x.Rf, x.Co, x.Fr) })},
		},
		HB:        model.HB,
		Within:    []*model.Model{sc},
		Strength:  1,
		Machine:   sc.Machine,
		Stale:     sc.Stale,
		Unordered: sc.Unordered,
	})
	t.Cleanup(func() { model.Unregister(toy.Name) })

	if !slices.Contains(model.Names(), toy.Name) {
		t.Fatalf("%s is not listed: %v", toy.Name, model.Names())
	}
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := pr.Compare(checker.CompareOptions{Variants: []string{"original", "fixed"}})
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int {
		return slices.IndexFunc(cmp.Models, func(m *model.Model) bool { return m.Name == name })
	}
	j, k := col(toy.Name), col("sc")
	if j < 0 {
		t.Fatalf("compare leaves %s out", toy.Name)
	}
	for i, in := range cmp.Cases {
		for p := range cmp.Reports[i][j].Props {
			if got, want := cmp.Reports[i][j].Props[p], cmp.Reports[i][k].Props[p]; got.Status != want.Status {
				t.Errorf("%s, %s: %s under %s, %s under sc", in.Variant, got.Name, got.Status, toy.Name, want.Status)
			}
		}
		if r := cmp.Reports[i][j]; r.Engine != explore.EngineStates {
			t.Errorf("%s: explored by %s, not by its machine's states", in.Variant, r.Engine)
		}
	}

	files, _ := filepath.Glob("../protocols/litmus/testdata/*.litmus")
	for _, f := range files {
		p, err := litmus.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := herd.Run(p, toy, explore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := herd.Run(p, sc, explore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.States, b.States) || a.Verdict() != b.Verdict() {
			t.Errorf("%s: %v %s under %s, %v %s under sc", f, a.States, a.Verdict(), toy.Name, b.States, b.Verdict())
		}
	}

	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.ProtocolSized)
		_, mine := progtest.Outcomes(t, p, toy, checker.Explore)
		_, theirs := progtest.Outcomes(t, p, sc, checker.Explore)
		progtest.Same(t, p, toy.Name, mine, "sc", theirs)
	})
}
