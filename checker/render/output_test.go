package render

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/history"
)

func TestOutput(t *testing.T) {
	dir := t.TempDir()
	var out, log bytes.Buffer
	page := filepath.Join(dir, "page.html")
	o := Output{Out: &out, Log: &log, HTML: page}
	text := func(w io.Writer) { io.WriteString(w, "text\n") }
	json := func() any { return map[string]int{"n": 1} }
	html := func(w io.Writer) error { _, err := io.WriteString(w, "<p>"); return err }
	if err := o.Print(text, json, html); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(page); err != nil || string(b) != "<p>" {
		t.Errorf("the page holds %q, %v", b, err)
	}
	if out.String() != "text\n" || log.String() != "ordercheck: wrote "+page+"\n" {
		t.Errorf("out %q, log %q: want the text, and the page announced", out.String(), log.String())
	}
	out.Reset()
	o.JSON, o.HTML = true, ""
	if err := o.Print(text, json, html); err != nil || !strings.Contains(out.String(), `"n": 1`) {
		t.Errorf("JSON: %q, %v", out.String(), err)
	}
	// A result with no JSON form (porcupine's linearization) says so.
	if err := o.Linearization("p", nil, &history.Linearization{}, "1s"); err == nil {
		t.Errorf("JSON of a linearization: no error")
	}
	// A file that cannot be written is named by its flag before any work.
	o.DOT = filepath.Join(dir, "no", "such", "folder.dot")
	if err := o.Check(nil); err == nil || !strings.HasPrefix(err.Error(), "--dot: ") {
		t.Errorf("Check: %v, want an error naming --dot", err)
	}
	if err := Probe(map[string]string{"b": dir, "a": "", "c": o.DOT}); err == nil || !strings.HasPrefix(err.Error(), "--b: ") {
		t.Errorf("Probe: %v, want the first flag in order with a bad path, --b", err)
	}
	// No witness: nothing to save, and the log says so.
	log.Reset()
	if err := o.Counterexample(nil, nil); err != nil || !strings.Contains(log.String(), "nothing is violated") {
		t.Errorf("Counterexample(nil): %v, log %q", err, log.String())
	}
}

func TestOutputCasesMinimized(t *testing.T) {
	var out, log bytes.Buffer
	o := Output{Out: &out, Log: &log}
	var opt expect.Options
	o.Cases(&opt)
	if opt.Case == nil || opt.Suite == nil {
		t.Fatal("text output: no case or suite printer")
	}
	opt.Suite(&expect.Suite{Ref: "p.oc"})
	if !strings.Contains(out.String(), "p.oc") {
		t.Errorf("suite line %q does not name the protocol", out.String())
	}
	o.JSON, opt = true, expect.Options{}
	o.Cases(&opt)
	if opt.Case != nil || opt.Suite != nil {
		t.Error("JSON output: cases printed as they come")
	}
	o.Minimized()("lib-init", 12, 7)
	if want := "ordercheck: lib-init: counterexample shrunk from 12 to 7 events by exhaustive search\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
}
