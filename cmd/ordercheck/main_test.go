package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestLitmusCommand(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.litmus")
	os.WriteFile(bad, []byte("C bad\n{}\nP0(atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_sideways);\n}\n"), 0o644)
	mp := "../../protocols/litmus/testdata/MP+rlx.litmus"
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		out     string // substring of stdout
		errText string // substring of stderr
	}{
		{"rc11", []string{"litmus", mp}, 0, "Test MP+rlx Allowed\nStates 4\n", ""},
		{"sc", []string{"litmus", "--model", "sc", mp}, 0, "No\nWitnesses\nPositive: 0 Negative: 3\n", ""},
		{"observation", []string{"litmus", "-m", "tso", mp}, 0, "Observation MP+rlx Never 0 3\n", ""},
		{"bad input", []string{"litmus", bad}, 2, "", "bad.litmus:4:31: expected a memory order"},
		{"missing file", []string{"litmus", filepath.Join(dir, "none.litmus")}, 2, "", "no such file"},
		{"unknown model", []string{"litmus", "--model", "arm", mp}, 2, "", "unknown memory model \"arm\""},
		{"no file", []string{"litmus"}, 2, "", "requires at least 1 arg"},
		{"bounded", []string{"litmus", "--max-executions", "1", mp}, 3, "Unknown\n", ""},
		{"version", []string{"--version"}, 0, version, ""},
		{"help", []string{"litmus", "--help"}, 0, "ordercheck litmus MP+rel+acq.litmus", ""},
	} {
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
