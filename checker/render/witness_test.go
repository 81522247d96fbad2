package render_test

import (
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestWitnessBlocks checks that a counterexample shows an allocation and
// a free as one line each — the block, its cells and the steps they take
// — rather than one line per cell, and keeps the numbering of the steps
// after them.
func TestWitnessBlocks(t *testing.T) {
	pr, err := protocols.Load("../../protocols/examples/treiber-reclaim.oc")
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("free", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Lookup("sc")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := in.Check(m, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, p := range rep.Props {
		if p.Witness != nil && p.Name == "memory-safety" {
			text = render.Witness(p.Witness)
		}
	}
	for _, want := range []string{"allocate node@pusher:27#0, its 2 cells uninitialised (steps 2-4)", "its 2 cells freed (steps "} {
		if !strings.Contains(text, want) {
			t.Errorf("the counterexample lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"= uninitialised  (plain)", "= freed  (plain)", "\n    3. "} {
		if strings.Contains(text, bad) {
			t.Errorf("the counterexample shows %q:\n%s", bad, text)
		}
	}
}
