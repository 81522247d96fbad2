package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTuneCommand(t *testing.T) {
	runCases(t, []cliCase{
		{"from unordered", []string{"tune", "dlsym", "--variant", "unordered"}, 1, "  protocols/dlsym/dlsym.oc:68:11  f = load(cache, LOAD)   rlx      acq\n  protocols/dlsym/dlsym.oc:73:11  store(cache, f, STORE)  rlx      rel\n  protocols/dlsym/dlsym.oc:74:15  f = load(cache, LOAD)   rlx      rlx\n", ""},
		{"why each site", []string{"tune", "dlsym", "--variant", "unordered"}, 1, "  protocols/dlsym/dlsym.oc:68:11: acq → rlx breaks data-race under rc11\n", ""},
		{"as a diff", []string{"tune", "dlsym", "--variant", "unordered"}, 1, "-      f = load(cache, LOAD) // R0\n+      f = load(cache, acq) // R0\n", ""},
		{"under consume", []string{"tune", "dlsym", "--variant", "unordered", "--model", "rc11-consume"}, 1, "  protocols/dlsym/dlsym.oc:68:11  f = load(cache, LOAD)   rlx      con\n", ""},
		{"consume-indep needs acquire", []string{"tune", "dlsym", "--variant", "consume-indep", "--model", "rc11-consume"}, 1, "  protocols/dlsym/dlsym.oc:68:11  f = load(cache, LOAD)   con      acq\n", ""},
		{"fixed is more than needed", []string{"tune", "dlsym", "--variant", "fixed"}, 1, "  protocols/dlsym/dlsym.oc:74:15: acq → rlx still keeps them\n", ""},
		{"minimal", []string{"tune", "../../checker/testdata/genmc/peterson.oc", "--property", "data-race", "--model", "sc"}, 1, "keeping data-race", ""},
		{"beyond orderings", []string{"tune", "execenv", "--variant", "original", "--model", "sc"}, 1, "  deliver is violated under sc even with every site seq_cst: no ordering fixes it (a logic bug, beyond orderings)\n", ""},
		{"atomics", []string{"tune", "execenv", "--variant", "original", "--model", "sc", "--atomics"}, 1, "  protocols/execenv/execenv.oc:179:7   E_P.module_inst = &I_C                 na       rlx\n", ""},
		{"explain", []string{"tune", "dlsym", "--variant", "fixed", "--explain", "dlsym.oc:68:11"}, 0, "counterexample for data-race:", ""},
		{"explain a non-site", []string{"tune", "dlsym", "--explain", "dlsym.oc:1:1"}, 2, "", "--explain dlsym.oc:1:1: not a site"},
		{"explain a number", []string{"tune", "dlsym", "--explain", "1"}, 2, "", "--explain 1: not a site"},
		{"explain a ./ path", []string{"tune", "dlsym", "--variant", "fixed", "--explain", "./protocols/dlsym/dlsym.oc:68:11"}, 0, "one step weaker (acq → rlx)", ""},
		{"explain a line and column", []string{"tune", "dlsym", "--variant", "fixed", "--explain", "68:11"}, 0, "one step weaker (acq → rlx)", ""},
		{"explain from the minimal ordering", []string{"tune", "dlsym", "--variant", "unordered", "--explain", "dlsym.oc:68:11"}, 0, "(acq → rlx)", ""},
		{"unknown property", []string{"tune", "dlsym", "--property", "lib-int"}, 2, "", "did you mean"},
		{"fences", []string{"tune", "testdata/test/novariants.oc", "--fences", "--model", "rc11"}, 1, "a fence before: store(flag, 1, rlx)", ""},
		{"a C program's diff", []string{"tune", "../../checker/tune/testdata/orders.c"}, 1, "+\tatomic_store_explicit(&flag, 1, memory_order_release);\n", ""},
		{"a C program's variant", []string{"tune", "../../protocols/dlsym/c/dlsym.c", "--variant", "fixed"}, 1, "not in the diff:\n  ../../protocols/dlsym/c/dlsym.c:86:7: rlx: the ordering is not written at this site", ""},
		{"-D for a protocol file", []string{"tune", "dlsym", "-D", "N=3"}, 2, "", "-D, -I and --unroll are for C programs"},
	})
	code, out, errText := runCLI("tune", "dlsym", "--variant", "fixed", "--json")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	var doc struct {
		Minimal [][]string
		Current string
		Checks  int
		Sites   []struct{ Position, Current string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Minimal) != 1 || len(doc.Minimal[0]) != 3 || doc.Minimal[0][2] != "rlx" || doc.Current != "holds" || doc.Checks == 0 || len(doc.Sites) != 3 {
		t.Errorf("tune --json: %+v", doc)
	}
}

// TestTuneHTML checks the page of tune: the sites, the diff, and the
// counterexample of each step that breaks something, linked.
func TestTuneHTML(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tune.html")
	if code, _, errText := runCLI("tune", "dlsym", "--variant", "fixed", "--html", path); code != 1 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<h1>Weakest orderings: dlsym, fixed</h1>", `<a href="#cex-0">rlx breaks data-race under rc11</a>`, `<section id="cex-0" class="counterexample">`, `<section id="cex-1" class="counterexample">`, "&#43;          f = load(cache, rlx)", "<svg"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
