package checker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/simulate"
	"github.com/ordercheck/ordercheck/checker/trace"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestVerdicts: a simulation's and a replay's verdicts,
// and a trace replayed from its file.
func TestVerdicts(t *testing.T) {
	if v := (&simulate.Result{}).Verdict(); v != checker.VerdictBounded {
		t.Errorf("a simulation without violation: %s, want bounded", v)
	}
	if v := (&simulate.Result{Properties: []simulate.Prop{{Violations: 1}}}).Verdict(); v != checker.VerdictViolated {
		t.Errorf("a simulation with a violation: %s, want violated", v)
	}
	in := catalogueInstance(t, "dlsym", "unordered", nil)
	rep, err := in.Check(model.RC11, explore.Options{})
	if err != nil || rep.Verdict() != checker.VerdictViolated {
		t.Fatalf("dlsym unordered: %v", err)
	}
	var buf strings.Builder
	if err := trace.Of(in, rep.Witness("")).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, r, err := trace.ReplayFile(path, protocols.Lookup)
	if err != nil || tr.Property == "" || r.Verdict() != checker.VerdictViolated {
		t.Fatalf("ReplayFile: %v", err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := trace.ReplayFile(path, protocols.Lookup); err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("ReplayFile of a broken trace: %v, want an error naming the file", err)
	}
}
