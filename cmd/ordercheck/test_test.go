package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flipped writes a copy of testdata/test/mp.oc in dir whose clauses
// expect the relaxed variant to hold under rc11, which it does not.
func flipped(t *testing.T, dir string) string {
	src, err := os.ReadFile("testdata/test/mp.oc")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "expect relaxed under arm, riscv, rc11, rc11-consume: violates delivered, data-race\n", "expect relaxed under arm, riscv, rc11-consume: violates delivered, data-race\n", 1)
	if text == string(src) {
		t.Fatal("mp.oc changed: its rc11 clause is not where the test flips it")
	}
	path := filepath.Join(dir, "flipped.oc")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTestCommand(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad", "bad.oc")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("protocol bad\nthread t {\n  r = load(x, acq)\n}\n"), 0o644)
	none := filepath.Join(dir, "none", "none.oc")
	os.MkdirAll(filepath.Dir(none), 0o755)
	os.WriteFile(none, []byte("protocol none\nshared x = 0\nthread t {\n  x = 1\n}\n"), 0o644)
	skipped := filepath.Join(dir, "none", "testdata", "ignored.oc")
	os.MkdirAll(filepath.Dir(skipped), 0o755)
	os.WriteFile(skipped, []byte("not a protocol"), 0o644)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	// A C program that says what it expects, beside C that is not one.
	prog := filepath.Join(dir, "c", "prog.c")
	os.MkdirAll(filepath.Dir(prog), 0o755)
	os.WriteFile(prog, []byte("#include <assert.h>\nint x;\nint main(void) {\n\tx = 1;\n\tassert(x == 1);\n\treturn 0;\n}\n// ordercheck: expect * under sc: holds\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "c", "helper.c"), []byte("this is not a program"), 0o644)
	flip := flipped(t, t.TempDir())
	// Two folders, not the whole catalogue: every catalogue file's expect
	// clauses are already checked by the protocols package's
	// TestExpectations (and the examples' by TestExamples, so that -short
	// leaves them out here).
	catalogue, tally := []string{"test", "../../protocols/examples", "../../protocols/dlsym"}, " passed, 0 failed, 0 no verdict, 9 without expectation\n"
	if testing.Short() {
		catalogue, tally = []string{"test", "../../protocols/dlsym"}, " passed, 0 failed, 0 no verdict\n"
	}
	runCases(t, []cliCase{
		{"catalogue files", catalogue, 0, tally, ""},
		{"catalogue name", []string{"test", "dlsym"}, 0, "--- PASS: dlsym fixed/rc11 (", ""},
		{"every cell", []string{"test", "testdata/test/mp.oc"}, 0, "--- PASS: testdata/test/mp.oc relaxed/rc11 (", ""},
		{"summary", []string{"test", "testdata/test"}, 0, "ok\ttestdata/test/mp.oc\t", ""},
		{"counts", []string{"test", "testdata/test"}, 0, "\n18 passed, 0 failed, 0 no verdict\n", ""},
		{"run selects", []string{"test", "testdata/test", "--run", "fixed/rc11$"}, 0, "\n1 passed, 0 failed, 0 no verdict\n", ""},
		{"run selects nothing", []string{"test", "testdata/test", "--run", "nosuch"}, 2, "", "--run \"nosuch\" selects no cell"},
		{"run by protocol name", []string{"test", "testdata/test", "--run", "^mp/fixed/rc11$"}, 0, "\n1 passed, 0 failed, 0 no verdict\n", ""},
		{"bad run", []string{"test", "--run", "("}, 2, "", "--run: error parsing regexp"},
		{"bad jobs", []string{"test", "--jobs", "0"}, 2, "", "--jobs 0: must be at least 1"},
		{"failing cell", []string{"test", flip}, 1, "--- FAIL: " + flip + " relaxed/rc11 (", ""},
		{"failing cell says why", []string{"test", flip}, 1, "    delivered is violated, expected to hold: reader: flag seen, message not", ""},
		{"failing cell's counterexample", []string{"test", flip}, 1, "    counterexample for delivered:\n", ""},
		{"failing cell's command", []string{"test", flip}, 1, "    explore it alone: ordercheck explore " + flip + " --variant relaxed --model rc11\n", ""},
		{"failing protocol", []string{"test", flip}, 1, "FAIL\t" + flip + "\t", ""},
		{"failing count", []string{"test", flip}, 1, "11 passed, 1 failed, 0 no verdict\n", ""},
		{"no expect clauses", []string{"test", filepath.Join(dir, "none")}, 0, "?\t" + none + "\t[no expect clauses]\n", ""},
		{"bad file", []string{"test", filepath.Join(dir, "bad"), "testdata/test"}, 2, "FAIL\t" + bad + " [bad input]\n    " + bad + ":3:", ""},
		{"bad file, the rest checked", []string{"test", filepath.Join(dir, "bad"), "testdata/test"}, 2, "18 passed, 0 failed, 0 no verdict", ""},
		{"bounded", []string{"test", "testdata/test", "--max-states", "2"}, 3, "--- NOVERDICT: testdata/test/mp.oc fixed/rc11 (", ""},
		{"bounded says so", []string{"test", "testdata/test", "--max-states", "2"}, 3, "the search was cut short: max-graphs", ""},
		{"missing path", []string{"test", filepath.Join(dir, "nosuch")}, 2, "", "no such file or directory"},
		{"folder without protocols", []string{"test", filepath.Join(dir, "empty")}, 2, "", "no protocol files"},
		{"C programs that expect", []string{"test", filepath.Join(dir, "c")}, 0, "--- PASS: " + prog + " sc (", ""},
		{"only C programs that expect", []string{"test", filepath.Join(dir, "c")}, 0, "\n1 passed, 0 failed, 0 no verdict", ""},
		{"named folder read even when skipped below", []string{"test", filepath.Join(dir, "none", "testdata")}, 2, "[bad input]", ""},
	})
}

// TestTestCatalogueCopy flips one expectation in a copy of a catalogue
// protocol: the copy keeps its specification (its spec section), so every
// other cell still passes and the flipped one fails with its
// counterexample.
func TestTestCatalogueCopy(t *testing.T) {
	src, err := os.ReadFile("../../protocols/dlsym/dlsym.oc")
	if err != nil {
		t.Fatal(err)
	}
	clause := "expect consume under rc11: violates data-race, lib-init, linearizability\n"
	text := strings.Replace(string(src), clause, "expect consume under rc11: violates data-race, lib-init\n", 1)
	if text == string(src) {
		t.Fatalf("dlsym.oc has no line %q to flip", clause)
	}
	path := filepath.Join(t.TempDir(), "dlsym.oc")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	runCases(t, []cliCase{
		{"the flipped cell", []string{"test", path}, 1, "--- FAIL: " + path + " consume/rc11 (", ""},
		{"what differs", []string{"test", path}, 1, "    linearizability is violated, expected to hold: no order of", ""},
		{"its counterexample", []string{"test", path}, 1, "    counterexample for linearizability:\n", ""},
		{"the rest passes", []string{"test", path}, 1, "47 passed, 1 failed, 0 no verdict\n", ""},
	})
}

// TestTestCFlags checks that test takes a C program's -D: the C
// execenv's expectations are its default spawn path's, so under
// -D EMBEDDER the cells that deadlock fail, and the command that explores
// one alone keeps the macro.
func TestTestCFlags(t *testing.T) {
	c := "../../protocols/execenv/c/execenv.c"
	runCases(t, []cliCase{
		{"as written", []string{"test", c, "--run", "original/sc"}, 0, "1 passed, 0 failed, 0 no verdict\n", ""},
		{"with the macro", []string{"test", c, "-D", "EMBEDDER", "--run", "original/sc"}, 1, "explore it alone: ordercheck explore " + c + " --variant original --model sc -D EMBEDDER\n", ""},
		{"for C files only", []string{"test", "../../protocols/dlsym/dlsym.oc", "-D", "X", "--run", "fixed/sc"}, 0, "passed, 0 failed", ""},
	})
}

func TestTestJSON(t *testing.T) {
	flip := flipped(t, t.TempDir())
	code, out, errText := runCLI("test", "--json", "testdata/test/mp.oc", flip)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errText)
	}
	var doc struct {
		Protocols []struct {
			Protocol, Status string
			Cases            []struct {
				Name, Status, Expected, Replay string
				Deviations                     []string
			}
		}
		Summary map[string]int
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if dec.More() {
		t.Errorf("more than one JSON document:\n%s", out)
	}
	if len(doc.Protocols) != 2 || doc.Protocols[0].Status != "ok" || doc.Protocols[1].Status != "fail" {
		t.Fatalf("protocols: %+v", doc.Protocols)
	}
	if doc.Summary["pass"] != 23 || doc.Summary["fail"] != 1 {
		t.Errorf("summary %v, want 23 passed and 1 failed", doc.Summary)
	}
	for _, c := range doc.Protocols[1].Cases {
		if c.Name != "relaxed/rc11" {
			continue
		}
		if c.Status != "fail" || len(c.Deviations) == 0 || !strings.Contains(c.Replay, "--variant relaxed --model rc11") || c.Expected != "expect *: holds" {
			t.Errorf("the failing cell: %+v", c)
		}
	}
}

// TestTestJUnit reads the JUnit report back as a CI system does: the
// elements and attributes of the JUnit schema, the counts agreeing with
// the test cases, the failure's text the counterexample.
func TestTestJUnit(t *testing.T) {
	dir := t.TempDir()
	flip := flipped(t, dir)
	none := filepath.Join(dir, "none.oc")
	os.WriteFile(none, []byte("protocol none\nshared x = 0\nthread t {\n  x = 1\n}\n"), 0o644)
	report := filepath.Join(dir, "report.xml")
	code, _, errText := runCLI("test", "--junit", report, "testdata/test/mp.oc", flip, none, "--run", "mp.oc|relaxed|none")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errText)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	type problem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Skipped  int    `xml:"skipped,attr"`
			Time     string `xml:"time,attr"`
			Cases    []struct {
				Name      string   `xml:"name,attr"`
				ClassName string   `xml:"classname,attr"`
				Time      string   `xml:"time,attr"`
				Failure   *problem `xml:"failure"`
				Error     *problem `xml:"error"`
				Skipped   *problem `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	if len(doc.Suites) != 3 {
		t.Fatalf("%d testsuites, want 3:\n%s", len(doc.Suites), data)
	}
	tests, failures, skipped := 0, 0, 0
	for _, s := range doc.Suites {
		n, f, k := 0, 0, 0
		for _, c := range s.Cases {
			n++
			if c.Name == "" || c.ClassName != s.Name || c.Time == "" {
				t.Errorf("%s: testcase lacks name, classname or time: %+v", s.Name, c)
			}
			if c.Failure != nil {
				f++
				if c.Name != "relaxed/rc11" || !strings.Contains(c.Failure.Text, "counterexample for delivered:") || c.Failure.Message == "" {
					t.Errorf("failure: %s %+v", c.Name, c.Failure)
				}
			}
			if c.Skipped != nil {
				k++
			}
		}
		if s.Tests != n || s.Failures != f || s.Skipped != k || s.Errors != 0 || s.Time == "" {
			t.Errorf("%s: counts %d/%d/%d/%d, cases say %d/%d/%d/0", s.Name, s.Tests, s.Failures, s.Skipped, s.Errors, n, f, k)
		}
		tests, failures, skipped = tests+n, failures+f, skipped+k
	}
	if doc.Tests != tests || doc.Failures != failures || doc.Skipped != skipped || failures != 1 || skipped != 1 || tests != 19 {
		t.Errorf("testsuites counts %d/%d/%d, want %d/%d/%d with 19 tests, 1 failure, 1 skipped", doc.Tests, doc.Failures, doc.Skipped, tests, failures, skipped)
	}
}
