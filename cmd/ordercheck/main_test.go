package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/trace"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// cliCase is a command line with its expected exit status and substrings
// of its standard output and error.
type cliCase struct {
	name    string
	args    []string
	code    int
	out     string
	errText string
}

func runCases(t *testing.T, cases []cliCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errText := runCLI(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errText)
			}
			if !strings.Contains(out, tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out)
			}
			if !strings.Contains(errText, tc.errText) {
				t.Errorf("stderr lacks %q:\n%s", tc.errText, errText)
			}
		})
	}
}

func TestLitmusCommand(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.litmus")
	os.WriteFile(bad, []byte("C bad\n{}\nP0(atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_sideways);\n}\n"), 0o644)
	mp := "../../protocols/litmus/testdata/MP+rlx.litmus"
	runCases(t, []cliCase{
		{"rc11", []string{"litmus", mp}, 0, "Test MP+rlx Allowed\nStates 4\n", ""},
		{"sc", []string{"litmus", "--model", "sc", mp}, 0, "No\nWitnesses\nPositive: 0 Negative: 3\n", ""},
		{"observation", []string{"litmus", "-m", "tso", mp}, 0, "Observation MP+rlx Never 0 3\n", ""},
		{"bad input", []string{"litmus", bad}, 2, "", "bad.litmus:4:31: expected a memory order"},
		{"missing file", []string{"litmus", filepath.Join(dir, "none.litmus")}, 2, "", "no such file"},
		{"unknown model", []string{"litmus", "--model", "power", mp}, 2, "", "unknown memory model \"power\""},
		{"no file", []string{"litmus"}, 2, "", "requires at least 1 arg"},
		{"bounded", []string{"litmus", "--max-executions", "1", mp}, 3, "Unknown\n", ""},
		{"why allowed", []string{"litmus", "--why", "1:r0=1 /\\ 1:r1=0", mp}, 0, "is allowed by rc11; a witness execution", ""},
		{"why forbidden", []string{"litmus", "-m", "sc", "--why", "1:r0=1 /\\ 1:r1=0", mp}, 0, "is forbidden by sc: each of the 1 candidate executions producing it violates an axiom: sc (1)", ""},
		{"why thin air", []string{"litmus", "--why", "0:r0=1 /\\ 1:r0=1", "../../protocols/litmus/testdata/LB+rlx.litmus"}, 0, "out of thin air", ""},
		{"why coherence", []string{"litmus", "--why", "1:r0=1 /\\ 1:r1=0", "../../protocols/litmus/testdata/CoRR.litmus"}, 0, "forbidden by rc11", ""},
		{"why load buffering on arm", []string{"litmus", "-m", "arm", "--why", "0:r0=0 /\\ 1:r1=1", "../../protocols/litmus/testdata/LB+cas+data.litmus"}, 0, "read x = 1  (rlx, from step 6)", ""},
		{"why a hardware cycle", []string{"litmus", "-m", "riscv", "--why", "0:r0=0 /\\ 1:r1=1", "../../protocols/litmus/testdata/LB+cas+data.litmus"}, 0,
			"the cycle: step 2 —control dependency to a write (r11)→ step 4 —is read by another thread (rfe)→ step 5 —data dependency (r10)→ step 6 —is read by another thread (rfe)→ step 2", ""},
		{"why bad outcome", []string{"litmus", "--why", "1:r0=", mp}, 2, "", "outcome:1:6: expected an integer"},
		{"version", []string{"--version"}, 0, version, ""},
		{"help", []string{"litmus", "--help"}, 0, "ordercheck litmus MP+rel+acq.litmus", ""},
	})
}

func TestProtocolCommands(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.oc")
	os.WriteFile(bad, []byte("protocol bad\nshared x = 0\nthread t {\n  r = load(x, rel)\n}\n"), 0o644)
	nospec := filepath.Join(dir, "nospec.oc")
	os.WriteFile(nospec, []byte("protocol nospec\nshared x = 0\nproperty linearizability\nthread t {\n  op get { return x }\n}\n"), 0o644)
	runCases(t, []cliCase{
		{"explore default variant", []string{"explore", "dlsym"}, 1, "variant original", ""},
		{"explore counterexample", []string{"explore", "dlsym", "--variant", "unordered"}, 1, "counterexample for lib-init", ""},
		{"explore verified", []string{"explore", "dlsym", "--variant", "fixed"}, 0, "verified: 29 states, 1 final", ""},
		{"explore races under C11", []string{"explore", "dlsym", "--variant", "fixed", "--model", "sc"}, 0, "data-race        holds  judged under C11 (rc11, 29 states)", ""},
		{"explore races under C11 json", []string{"explore", "dlsym", "--variant", "fixed", "--model", "sc", "--json"}, 0, "\"model\": \"rc11\",\n      \"status\": \"holds\",\n      \"message\": \"\",\n      \"violations\": 0,\n      \"stats\": {\n        \"engine\": \"states\",\n        \"states\": 29,", ""},
		{"explore verified by graphs", []string{"explore", "dlsym", "--variant", "fixed", "--engine", "dpor"}, 0, "verified: 26 executions", ""},
		{"explore unknown engine", []string{"explore", "dlsym", "--engine", "bfs"}, 2, "", "unknown engine"},
		{"explore consume model", []string{"explore", "dlsym", "--variant", "consume", "--model", "rc11-consume"}, 0, "verified", ""},
		{"explore json", []string{"explore", "dlsym", "--variant", "fixed", "--json"}, 0, `"verdict": "verified"`, ""},
		{"explore params", []string{"explore", "dlsym", "--variant", "fixed", "--param", "N=3"}, 0, "N=3", ""},
		{"explore bounded", []string{"explore", "dlsym", "--variant", "fixed", "--max-executions", "1"}, 3, "bounded", ""},
		{"explore preemption bound", []string{"explore", "dlsym", "--variant", "fixed", "--preemption-bound", "1", "--json"}, 3, `"verdict": "bounded(1)"`, ""},
		{"explore depth bound", []string{"explore", "dlsym", "--variant", "fixed", "--max-depth", "5"}, 3, "bounded by max-events", ""},
		{"explore file", []string{"explore", "../../protocols/dlsym/dlsym.oc", "--variant", "fixed"}, 0, "verified", ""},
		{"explore bad file", []string{"explore", bad}, 2, "", "bad.oc:4:15: rel is not a valid ordering for a load"},
		{"linearizability without a spec", []string{"explore", nospec}, 2, "", "nospec.oc:3:1: property linearizability needs the sequential specification"},
		{"unknown protocol", []string{"explore", "nosuch"}, 2, "", "unknown protocol \"nosuch\""},
		{"unknown variant", []string{"explore", "dlsym", "--variant", "nosuch"}, 2, "", "has no variant \"nosuch\""},
		{"unknown param", []string{"explore", "dlsym", "--param", "Q=1"}, 2, "", "has no parameter \"Q\""},
		{"malformed param", []string{"explore", "dlsym", "--param", "N"}, 2, "", "expected NAME=VALUE"},
		{"unknown model", []string{"explore", "dlsym", "--model", "power"}, 2, "", "unknown memory model"},
		{"compare holds", []string{"compare", "dlsym", "--variants", "fixed,dcl"}, 0, "model rc11-consume", ""},
		{"compare html", []string{"compare", "dlsym", "--variants", "unordered", "--models", "rc11", "--format", "html"}, 1, `<section id="cex-0-0-data-race" class="counterexample">`, ""},
		{"compare html to a file", []string{"compare", "dlsym", "--variants", "fixed", "--models", "sc", "--format", "html", "-o", filepath.Join(dir, "review.html")}, 0, "", "ordercheck: wrote " + filepath.Join(dir, "review.html")},
		{"compare to an unwritable file", []string{"compare", "dlsym", "--variants", "fixed", "--models", "sc", "-o", filepath.Join(dir, "none", "x.txt")}, 2, "", "no such file or directory"},
		{"explore html", []string{"explore", "dlsym", "--variant", "unordered", "--html", filepath.Join(dir, "e.html")}, 1, "counterexample for lib-init", "ordercheck: wrote " + filepath.Join(dir, "e.html")},
		{"compare without variants", []string{"compare", "testdata/test/novariants.oc", "--models", "sc,rc11"}, 1, "model rc11\n  variant         delivered  states\n  (the protocol)  FAIL       ", ""},
		{"compare json", []string{"compare", "dlsym", "--variants", "fixed", "--models", "rc11", "--format", "json"}, 0, `"protocol": "dlsym"`, ""},
		{"compare bad format", []string{"compare", "dlsym", "--variants", "fixed", "--models", "sc", "--format", "xml"}, 2, "", "unknown format"},
		{"simulate violation", []string{"simulate", "dlsym", "--variant", "unordered", "--runs", "200", "--seed", "7", "--scheduler", "pct"}, 1, "counterexample for lib-init", ""},
		{"simulate no verdict", []string{"simulate", "dlsym", "--variant", "fixed", "--runs", "100", "--json"}, 3, `"ci_high"`, ""},
		{"simulate pct", []string{"simulate", "cluster", "--scheduler", "pct", "--runs", "100"}, 1, "final states:", ""},
		{"simulate against", []string{"simulate", "dlsym", "--variant", "unordered", "--runs", "200", "--scheduler", "pct", "--against", "model=sc"}, 1, "against model sc: the final-state distributions", ""},
		{"simulate bad scheduler", []string{"simulate", "dlsym", "--scheduler", "fifo"}, 2, "", "unknown scheduler"},
		{"simulate bad runs", []string{"simulate", "dlsym", "--runs", "0"}, 2, "", "must be positive"},
		{"linearize", []string{"linearize", "dlsym", "--variant", "fixed", "--ops", "20"}, 0, "linearizable", ""},
		{"linearize bad history", []string{"linearize", "dlsym", "--history", "../../traces/histories/dlsym-unordered-rc11.bad.json"}, 1, "not linearizable", ""},
		{"linearize unknown protocol", []string{"linearize", "nosuch"}, 2, "", "unknown protocol \"nosuch\""},
		{"linearize execenv", []string{"linearize", "execenv", "--variant", "pr2685", "--ops", "20"}, 0, "linearizable", ""},
		{"linearize execenv lost exception", []string{"linearize", "execenv", "--history", "../../traces/histories/execenv-original-go.bad.json"}, 1, "not linearizable", ""},
		{"linearize execenv deadlock", []string{"linearize", "execenv", "--variant", "pr2685", "--param", "SPAWN=embedder", "--ops", "5"}, 1, "deadlock: round 1 made no progress", ""},
		{"linearize execenv bad param", []string{"linearize", "execenv", "--param", "SPAWN=other"}, 2, "", "no parameter SPAWN=other"},
		{"linearize cluster atomic", []string{"linearize", "cluster", "--variant", "atomic-acqrel", "--ops", "200"}, 1, "not linearizable", ""},
		{"linearize no go variant", []string{"linearize", "dlsym", "--variant", "consume"}, 2, "", "has no variant \"consume\""},
		{"list", []string{"list"}, 0, "execenv", ""},
		{"show", []string{"show", "execenv"}, 0, "pr2882", ""},
		{"show source", []string{"show", "--source", "dlsym"}, 0, "protocol dlsym", ""},
		{"show variant", []string{"show", "--variant", "dcl", "dlsym"}, 0, "param LOAD = acq", ""},
		{"show unknown variant", []string{"show", "--variant", "fixd", "dlsym"}, 2, "", "no variant \"fixd\""},
	})
}

func TestTraceAndReplay(t *testing.T) {
	dir := t.TempDir()
	traceFile, dotFile := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.dot")
	code, out, errText := runCLI("explore", "dlsym", "--variant", "unordered", "--model", "rc11", "--trace", traceFile, "--dot", dotFile, "--property", "lib-init")
	if code != 1 {
		t.Fatalf("explore: exit %d, want 1: %s", code, errText)
	}
	want := out[strings.Index(out, "counterexample for lib-init"):]
	if end := strings.Index(want[1:], "counterexample for"); end >= 0 {
		want = want[:end+1]
	}
	code, replayed, errText := runCLI("replay", traceFile)
	if code != 1 {
		t.Fatalf("replay: exit %d, want 1: %s %s", code, replayed, errText)
	}
	if !strings.Contains(replayed, strings.TrimRight(want, "\n")) {
		t.Errorf("replay prints another counterexample:\n%s\nwant:\n%s", replayed, want)
	}
	src, err := os.ReadFile(dotFile)
	if err != nil || !strings.HasPrefix(string(src), "digraph execution {") {
		t.Fatalf("dot file: %v\n%s", err, src)
	}
	if dot, err := exec.LookPath("dot"); err == nil {
		if out, err := exec.Command(dot, "-Tsvg", "-o", filepath.Join(dir, "t.svg"), dotFile).CombinedOutput(); err != nil {
			t.Errorf("Graphviz rejects the DOT file: %v: %s", err, out)
		}
	} else {
		t.Log("Graphviz's dot is not installed: the DOT file was not rendered")
	}

	// The same trace against the fixed variant: the execution is no longer allowed.
	retarget := func(variant string) string {
		f, _ := os.Open(traceFile)
		tr, err := trace.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		tr.Variant, tr.Params = variant, nil
		p := filepath.Join(dir, variant+".json")
		out, _ := os.Create(p)
		tr.WriteJSON(out)
		out.Close()
		return p
	}
	code, out, _ = runCLI("replay", retarget("fixed"))
	if code != 0 || !strings.Contains(out, "no longer reproduces") {
		t.Errorf("replay on the fixed variant: exit %d, want 0 and a plain statement:\n%s", code, out)
	}
	code, _, errText = runCLI("replay", retarget("nocache"))
	if code != 2 || !strings.Contains(errText, "does not fit the protocol") {
		t.Errorf("replay on a variant with other events: exit %d, want 2: %s", code, errText)
	}
	code, _, errText = runCLI("replay", dotFile)
	if code != 2 || !strings.Contains(errText, "not an ordercheck trace") {
		t.Errorf("replay of a non-trace: exit %d, want 2: %s", code, errText)
	}
}

// TestHTMLFiles checks that --html and -o write the review page.
func TestHTMLFiles(t *testing.T) {
	dir := t.TempDir()
	runCases(t, []cliCase{
		{"explore html", []string{"explore", "dlsym", "--variant", "unordered", "--html", filepath.Join(dir, "e.html")}, 1, "", ""},
		{"compare html", []string{"compare", "dlsym", "--variants", "unordered", "--models", "rc11", "--format", "html", "-o", filepath.Join(dir, "c.html")}, 1, "", ""},
	})
	// A linearizability counterexample says on the page why no order
	// works.
	if b, err := os.ReadFile(filepath.Join(dir, "c.html")); err != nil || !strings.Contains(string(b), "that extends happens-before gives these results") {
		t.Errorf("the page does not say why the history does not linearize (%v)", err)
	}
	for _, f := range []string{"e.html", "c.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(b), `class="counterexample"`) || !strings.Contains(string(b), "<svg") {
			t.Errorf("%s: no review page with a drawn counterexample (%v)", f, err)
		}
	}
}

// TestOneVocabulary checks every command's flags: a command that takes
// --model, --variant or --param takes the plural too (and a command that
// names one plural takes the singular), -v is --variant wherever there is
// one (never --version), and an unknown flag gets the nearest known one.
func TestOneVocabulary(t *testing.T) {
	root := newRoot()
	for _, c := range root.Commands() {
		t.Run(c.Name(), func(t *testing.T) {
			for singular, value := range map[string]string{"model": "rc11", "variant": "fixed", "param": "N=2"} {
				f := c.Flags().Lookup(singular)
				if f == nil {
					continue
				}
				for _, spelling := range []string{singular, singular + "s"} {
					fresh := newRoot()
					cmd, _, err := fresh.Find([]string{c.Name()})
					if err != nil {
						t.Fatal(err)
					}
					if err := cmd.ParseFlags([]string{"--" + spelling, value}); err != nil {
						t.Errorf("--%s %s: %v", spelling, value, err)
					} else if got := cmd.Flags().Lookup(singular).Value.String(); !strings.Contains(got, value) {
						t.Errorf("--%s %s sets %s to %q", spelling, value, singular, got)
					}
				}
				if singular == "variant" && (f.Shorthand != "v") {
					t.Errorf("--variant has shorthand %q, want -v", f.Shorthand)
				}
			}
			if c.Name() == "help" || c.Name() == "completion" {
				return
			}
			code, _, errText := runCLI(c.Name(), "--verbos")
			if code != exitUsage || !strings.Contains(errText, "unknown flag --verbos") {
				t.Errorf("an unknown flag: exit %d, %q", code, errText)
			}
		})
	}
	if code, _, errText := runCLI("explore", "dlsym", "--modle", "sc"); code != exitUsage || !strings.Contains(errText, "unknown flag --modle (did you mean --model?)") {
		t.Errorf("--modle: exit %d, %q", code, errText)
	}
	if code, out, _ := runCLI("--version"); code != 0 || !strings.Contains(out, version) {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
