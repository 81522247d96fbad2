package render_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/checker/simulate"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestOutputResults: a check, a simulation and a test run printed as
// text or JSON, with their web page and JUnit file when asked for.
func TestOutputResults(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("unordered", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := in.Check(model.RC11, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out, log bytes.Buffer
	o := render.Output{Out: &out, Log: &log, HTML: filepath.Join(dir, "r.html")}
	o.Trace = filepath.Join(dir, "t.json")
	if err := o.Report(in, model.RC11, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "violated") || !strings.Contains(log.String(), "wrote "+o.Trace+"\nordercheck: wrote "+o.HTML) {
		t.Errorf("text report %q, log %q: want the trace, then the page announced", out.String(), log.String())
	}
	o.Trace = ""
	if page, err := os.ReadFile(o.HTML); err != nil || !bytes.Contains(page, []byte("<html")) {
		t.Errorf("the report's page: %v", err)
	}
	res, err := simulate.Instance(in, model.RC11, simulate.Options{Runs: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	o.JSON, o.HTML = true, ""
	if err := o.Simulation(in, model.RC11, res, &render.Against{Label: "model sc"}); err != nil || !strings.Contains(out.String(), `"against"`) {
		t.Errorf("JSON simulation: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := render.ProtocolVariant(&out, pr, "fixed"); err != nil || !strings.Contains(out.String(), "protocol dlsym") {
		t.Errorf("ProtocolVariant(fixed): %v\n%.200s", err, out.String())
	}
	if err := render.ProtocolVariant(&out, pr, "nosuch"); err == nil {
		t.Error("ProtocolVariant(nosuch): no error")
	}
	suites := []*expect.Suite{{Ref: "p.oc"}}
	out.Reset()
	o.JSON = false
	junit := filepath.Join(dir, "j.xml")
	if err := o.Tests(suites, junit); err != nil || !strings.Contains(out.String(), "0 passed") {
		t.Errorf("test tally: %v, %q", err, out.String())
	}
	if x, err := os.ReadFile(junit); err != nil || !bytes.Contains(x, []byte("<testsuites")) {
		t.Errorf("JUnit file: %v\n%s", err, x)
	}
}
