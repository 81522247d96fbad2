package protocols_test

import (
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/c"
)

// TestTarget: a target compiles a catalogue protocol's variant under its
// model, takes C options for C programs alone, and names the flag at
// fault.
func TestTarget(t *testing.T) {
	in, m, err := protocols.Target{Variant: "fixed", Model: "sc"}.Instance("dlsym")
	if err != nil || in.Variant != "fixed" || m != model.SC {
		t.Fatalf("Instance(dlsym fixed, sc) = %v, %v, %v", in, m, err)
	}
	if _, m, err := (protocols.Target{}).Instance("dlsym"); err != nil || m != checker.DefaultModel {
		t.Errorf("no model: %v, %v, want the default", m, err)
	}
	other, om, label, err := protocols.Target{Variant: "fixed"}.Against("unordered", in, m)
	if err != nil || other.Variant != "unordered" || om != m || label != "variant unordered" {
		t.Errorf("Against(unordered) = %v, %v, %q, %v", other, om, label, err)
	}
	other, om, label, err = protocols.Target{}.Against("model=tso", in, m)
	if err != nil || other != in || om.Name != "tso" || label != "model tso" {
		t.Errorf("Against(model=tso) = %v, %v, %q, %v", other, om, label, err)
	}
	withC := protocols.Target{C: c.Options{Defines: []string{"X"}}}
	if _, err := withC.Load("dlsym"); err != nil {
		t.Errorf("Load with C options of a protocol that is not C: %v, want them ignored", err)
	}
	for _, tc := range []struct {
		tg   protocols.Target
		want string
	}{
		{withC, "-D, -I and --unroll are for C programs"},
		{protocols.Target{C: c.Options{Unroll: -1}}, "--unroll -1"},
		{protocols.Target{Params: []string{"N"}}, `--param "N": expected NAME=VALUE`},
		{protocols.Target{Model: "nosuch"}, "nosuch"},
		{protocols.Target{Variant: "nosuch"}, "nosuch"},
	} {
		if _, _, err := tc.tg.Instance("dlsym"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.tg, err, tc.want)
		}
	}
	if ps, err := protocols.ParseParams([]string{"N=3", "M=a=b"}); err != nil || ps["N"] != "3" || ps["M"] != "a=b" {
		t.Errorf("ParseParams = %v, %v", ps, err)
	}
}
