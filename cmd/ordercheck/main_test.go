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

func TestProtocolCommands(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.oc")
	os.WriteFile(bad, []byte("protocol bad\nshared x = 0\nthread t {\n  r = load(x, rel)\n}\n"), 0o644)
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		out     string
		errText string
	}{
		{"explore default variant", []string{"explore", "dlsym"}, 1, "variant original", ""},
		{"explore counterexample", []string{"explore", "dlsym", "--variant", "unordered"}, 1, "counterexample for lib-init", ""},
		{"explore verified", []string{"explore", "dlsym", "--variant", "fixed"}, 0, "verified: 26 executions", ""},
		{"explore consume model", []string{"explore", "dlsym", "--variant", "consume", "--model", "rc11-consume"}, 0, "verified", ""},
		{"explore json", []string{"explore", "dlsym", "--variant", "fixed", "--json"}, 0, `"verdict": "verified"`, ""},
		{"explore params", []string{"explore", "dlsym", "--variant", "fixed", "--param", "N=3"}, 0, "N=3", ""},
		{"explore bounded", []string{"explore", "dlsym", "--variant", "fixed", "--max-executions", "2"}, 3, "bounded", ""},
		{"explore file", []string{"explore", "../../protocols/dlsym/dlsym.oc", "--variant", "fixed"}, 0, "verified", ""},
		{"explore bad file", []string{"explore", bad}, 2, "", "bad.oc:4:15: rel is not a valid ordering for a load"},
		{"unknown protocol", []string{"explore", "nosuch"}, 2, "", "unknown protocol \"nosuch\""},
		{"unknown variant", []string{"explore", "dlsym", "--variant", "nosuch"}, 2, "", "has no variant \"nosuch\""},
		{"unknown param", []string{"explore", "dlsym", "--param", "Q=1"}, 2, "", "has no parameter \"Q\""},
		{"malformed param", []string{"explore", "dlsym", "--param", "N"}, 2, "", "expected NAME=VALUE"},
		{"unknown model", []string{"explore", "dlsym", "--model", "arm"}, 2, "", "unknown memory model"},
		{"compare holds", []string{"compare", "dlsym", "--variants", "fixed,dcl"}, 0, "model rc11-consume", ""},
		{"compare json", []string{"compare", "dlsym", "--variants", "fixed", "--models", "rc11", "--format", "json"}, 0, `"protocol": "dlsym"`, ""},
		{"compare bad format", []string{"compare", "dlsym", "--variants", "fixed", "--models", "sc", "--format", "xml"}, 2, "", "unknown format"},
		{"list", []string{"list"}, 0, "execenv", ""},
		{"show", []string{"show", "execenv"}, 0, "pr2882", ""},
		{"show source", []string{"show", "--source", "dlsym"}, 0, "protocol dlsym", ""},
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
