package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFmtCommand(t *testing.T) {
	dir := t.TempDir()
	messy := filepath.Join(dir, "messy.oc")
	text := "protocol m\nshared x=0\nthread t {\n    x=1   // set\n}\n"
	want := "protocol m\nshared x = 0\nthread t {\n  x = 1 // set\n}\n"
	os.WriteFile(messy, []byte(text), 0o644)
	bad := filepath.Join(dir, "bad", "bad.oc")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("protocol b\nthread t {\n  x = = 1\n}\n"), 0o644)
	runCases(t, []cliCase{
		{"print", []string{"fmt", messy}, 0, want, ""},
		{"list", []string{"fmt", "-l", dir + "/messy.oc", "testdata/test"}, 1, messy + "\n", ""},
		{"list formatted", []string{"fmt", "-l", "testdata/test"}, 0, "", ""},
		{"diff", []string{"fmt", "-d", messy}, 1, "@@ -1,5 +1,5 @@\n protocol m\n-shared x=0\n+shared x = 0\n thread t {\n-    x=1   // set\n+  x = 1 // set\n }\n", ""},
		{"bad input", []string{"fmt", filepath.Join(dir, "bad")}, 2, "", "bad.oc:3:7: expected an expression"},
		{"w and d", []string{"fmt", "-w", "-d", messy}, 2, "", "-w and -d"},
	})
	if code, _, errText := runCLI("fmt", "-w", messy); code != 0 {
		t.Fatalf("fmt -w: exit %d: %s", code, errText)
	}
	if got, _ := os.ReadFile(messy); string(got) != want {
		t.Errorf("fmt -w wrote:\n%s", got)
	}
}

func TestVetCommand(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.oc")
	os.WriteFile(odd, []byte("protocol o\nparam K = 1\nshared x = 0\nthread t {\n  x = 1\n}\n"), 0o644)
	runCases(t, []cliCase{
		{"clean", []string{"vet", "../../protocols", "testdata/test"}, 0, "", ""},
		{"a finding", []string{"vet", odd}, 1, odd + ":2:7: parameter K is never used", ""},
		{"bad input", []string{"vet", filepath.Join(dir, "none.oc")}, 2, "", "no such file"},
	})
}
