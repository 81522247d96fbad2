package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a trace of dlsym's unordered variant under rc11 violating
// lib-init: caller[0] initialises the library and stores the cache
// (events 0-14), caller[1] reads the cache and the uninitialised library
// (events 0-4).
const fixture = "../../traces/dlsym/unordered.rc11.lib-init.json"

// TestReplayEditedTraces edits a trace field by field: a trace that no
// longer describes an execution of its protocol is bad input (exit 2)
// naming what does not fit, never a verdict; an edit into another
// execution the protocol makes, or one the model forbids, is judged.
func TestReplayEditedTraces(t *testing.T) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	type trace = map[string]any
	ev := func(tr trace, th, i int) map[string]any {
		return tr["threads"].([]any)[th].(map[string]any)["events"].([]any)[i].(map[string]any)
	}
	steps := func(tr trace) []any { return tr["steps"].([]any) }
	co := func(tr trace, loc string) []any { return tr["co"].(map[string]any)[loc].([]any) }
	for _, tc := range []struct {
		name string
		edit func(trace)
		raw  func(string) string // edits the text instead
		code int
		msg  string
	}{
		{name: "as recorded", edit: func(trace) {}, code: 1, msg: "counterexample"},
		{name: "no property", edit: func(tr trace) { delete(tr, "property") }, code: 2, msg: "property: missing"},
		{name: "unknown property", edit: func(tr trace) { tr["property"] = "lib-int" }, code: 2, msg: "protocol dlsym has no property lib-int (did you mean lib-init?)"},
		{name: "no model", edit: func(tr trace) { delete(tr, "model") }, code: 2, msg: "model: missing"},
		{name: "unknown model", edit: func(tr trace) { tr["model"] = "power" }, code: 2, msg: "model: unknown memory model"},
		{name: "no protocol", edit: func(tr trace) { delete(tr, "protocol") }, code: 2, msg: "protocol: missing"},
		{name: "unknown protocol", edit: func(tr trace) { tr["protocol"] = "dlsim" }, code: 2, msg: "unknown protocol"},
		{name: "no variant", edit: func(tr trace) { delete(tr, "variant") }, code: 2, msg: "variant: missing"},
		{name: "unknown variant", edit: func(tr trace) { tr["variant"] = "fixd" }, code: 2, msg: "has no variant"},
		{name: "unknown parameter", edit: func(tr trace) { tr["params"].(map[string]any)["Q"] = "1" }, code: 2, msg: "has no parameter"},
		{name: "other format", edit: func(tr trace) { tr["format"] = "ordercheck-trace/0" }, code: 2, msg: "trace format"},
		{name: "negative rf", edit: func(tr trace) { ev(tr, 1, 1)["rf"] = []any{-1, 0} }, code: 2, msg: "threads[1].events[1].rf: [-1 0] names no event"},
		{name: "rf index past the end", edit: func(tr trace) { ev(tr, 1, 1)["rf"] = []any{0, 99} }, code: 2, msg: "names no event"},
		{name: "rf thread past the end", edit: func(tr trace) { ev(tr, 1, 1)["rf"] = []any{7, 0} }, code: 2, msg: "names no event"},
		{name: "rf to a read", edit: func(tr trace) { ev(tr, 1, 1)["rf"] = []any{0, 1} }, code: 2, msg: "is not a write of cache"},
		{name: "rf to another location", edit: func(tr trace) { ev(tr, 1, 1)["rf"] = []any{0, 5} }, code: 2, msg: "is not a write of cache"},
		{name: "rf on a write", edit: func(tr trace) { ev(tr, 0, 5)["rf"] = []any{0, 3} }, code: 2, msg: "threads[0].events[5].rf: only a read"},
		{name: "read's value", edit: func(tr trace) { ev(tr, 1, 2)["value"] = 42 }, code: 2, msg: "the read has the value 0, 42 was recorded"},
		{name: "write's value", edit: func(tr trace) { ev(tr, 0, 5)["value"] = 7 }, code: 2, msg: "the write has the value 42, 7 was recorded"},
		{name: "read's location", edit: func(tr trace) { ev(tr, 1, 2)["loc"] = "loaded" }, code: 2, msg: "it accesses lib.data, loaded was recorded"},
		{name: "no location on a read", edit: func(tr trace) { delete(ev(tr, 1, 2), "loc") }, code: 2, msg: "threads[1].events[2].loc"},
		{name: "location on a marker", edit: func(tr trace) { ev(tr, 1, 0)["loc"] = "cache" }, code: 2, msg: "threads[1].events[0].loc"},
		{name: "unknown kind", edit: func(tr trace) { ev(tr, 1, 0)["kind"] = "X" }, code: 2, msg: "threads[1].events[0].kind: \"X\" is not an event kind"},
		{name: "another kind", edit: func(tr trace) { ev(tr, 1, 4)["kind"] = "F" }, code: 2, msg: "a E event is next, F was recorded"},
		{name: "spurious on a write", edit: func(tr trace) { ev(tr, 0, 5)["spurious"] = true }, code: 2, msg: "spurious"},
		{name: "spurious on a plain read", edit: func(tr trace) { ev(tr, 1, 2)["spurious"] = true }, code: 2, msg: "no weak compare-exchange"},
		{name: "steps swapped", edit: func(tr trace) { s := steps(tr); s[1], s[2] = s[2], s[1] }, code: 2, msg: "out of program order"},
		{name: "a step twice", edit: func(tr trace) { s := steps(tr); s[2] = s[1] }, code: 2, msg: "out of program order"},
		{name: "a step missing", edit: func(tr trace) { s := steps(tr); tr["steps"] = s[:len(s)-1] }, code: 2, msg: "are in no step"},
		{name: "negative step", edit: func(tr trace) { steps(tr)[0] = []any{-1, 0} }, code: 2, msg: "steps[0]: [-1 0] names no event"},
		{name: "a step of three", edit: func(tr trace) { steps(tr)[0] = []any{0, 0, 5} }, code: 2, msg: "an event is [thread, index], not [0,0,5]"},
		{name: "an rf of one", edit: func(tr trace) { ev(tr, 1, 1)["rf"] = []any{0} }, code: 2, msg: "an event is [thread, index], not [0]"},
		{name: "a co entry of three", edit: func(tr trace) { co(tr, "cache")[0] = []any{0, 5, 1} }, code: 2, msg: "an event is [thread, index]"},
		{name: "a read before its write", edit: func(tr trace) {
			s := steps(tr)
			// caller[1]'s steps first: its cache read comes before caller[0]'s store.
			var mine, others []any
			for _, st := range s {
				if st.([]any)[0].(float64) == 1 {
					mine = append(mine, st)
				} else {
					others = append(others, st)
				}
			}
			tr["steps"] = append(mine, others...)
		}, code: 2, msg: "which comes later"},
		{name: "last events removed", edit: func(tr trace) {
			th := tr["threads"].([]any)[1].(map[string]any)
			th["events"] = th["events"].([]any)[:3]
			var kept []any
			for _, st := range steps(tr) {
				if p := st.([]any); p[0].(float64) != 1 || p[1].(float64) < 3 {
					kept = append(kept, st)
				}
			}
			tr["steps"] = kept
		}, code: 2, msg: "goes on after its last recorded event"},
		{name: "co missing a write", edit: func(tr trace) { c := co(tr, "dl_load_lock"); tr["co"].(map[string]any)["dl_load_lock"] = c[1:] }, code: 2, msg: "missing from the modification order"},
		{name: "co lists a write twice", edit: func(tr trace) { c := co(tr, "dl_load_lock"); c[1] = c[0] }, code: 2, msg: "is listed twice"},
		{name: "co lists a read", edit: func(tr trace) { co(tr, "cache")[0] = []any{0, 1} }, code: 2, msg: "co.cache[0]: [0 1] is not a write of the trace"},
		{name: "co of another location", edit: func(tr trace) { co(tr, "cache")[0] = []any{0, 5} }, code: 2, msg: "writes lib.data"},
		{name: "thread renamed", edit: func(tr trace) { tr["threads"].([]any)[1].(map[string]any)["name"] = "callee" }, code: 2, msg: "threads[1].name"},
		{name: "a thread dropped", edit: func(tr trace) {
			tr["threads"] = tr["threads"].([]any)[:1]
			var kept []any
			for _, st := range steps(tr) {
				if st.([]any)[0].(float64) == 0 {
					kept = append(kept, st)
				}
			}
			tr["steps"] = kept
		}, code: 2, msg: "1 threads recorded, the protocol has 2"},
		{name: "data after the trace", raw: func(s string) string { return s + "{}" }, code: 2, msg: "data after the trace"},
		{name: "not JSON", raw: func(s string) string { return s[:len(s)/2] }, code: 2, msg: "not an ordercheck trace"},
		{name: "another variant, same events", edit: func(tr trace) {
			tr["variant"] = "original"
			tr["params"].(map[string]any)["LOAD"] = "na"
			tr["params"].(map[string]any)["STORE"] = "na"
		}, code: 1, msg: "counterexample"},
		{name: "a variant that forbids it", edit: func(tr trace) {
			tr["variant"] = "fixed"
			tr["params"].(map[string]any)["LOAD"] = "acq"
			tr["params"].(map[string]any)["STORE"] = "rel"
		}, code: 0, msg: "no longer allows this execution"},
		{name: "lock order reversed", edit: func(tr trace) { c := co(tr, "dl_load_lock"); c[0], c[1] = c[1], c[0] }, code: 0, msg: "no longer allows this execution"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := string(data)
			if tc.edit != nil {
				var tr trace
				if err := json.Unmarshal(data, &tr); err != nil {
					t.Fatal(err)
				}
				tc.edit(tr)
				b, err := json.Marshal(tr)
				if err != nil {
					t.Fatal(err)
				}
				text = string(b)
			}
			if tc.raw != nil {
				text = tc.raw(text)
			}
			// A short path: messages shorten overlong words.
			dir, err := os.MkdirTemp("", "r")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			path := filepath.Join(dir, "t.json")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errText := runCLI("replay", path)
			if code != tc.code || !strings.Contains(out+errText, tc.msg) {
				t.Errorf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tc.code, tc.msg, out, errText)
			}
			if tc.code == 2 && !strings.Contains(errText, path) {
				t.Errorf("the error does not name the file: %s", errText)
			}
		})
	}
}

// TestReplayElsewhere replays a trace of a protocol file from another
// directory, the file gone: the trace carries the protocol's text.
func TestReplayElsewhere(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/test/mp.oc")
	if err != nil {
		t.Fatal(err)
	}
	proto := filepath.Join(dir, "mp.oc")
	if err := os.WriteFile(proto, src, 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "t.json")
	if code, _, errText := runCLI("explore", proto, "--variant", "relaxed", "--trace", trace, "--property", "delivered"); code != 1 {
		t.Fatalf("explore: exit %d: %s", code, errText)
	}
	code, _, errText := runCLI("replay", trace)
	if code != 1 || !strings.Contains(errText, "replaying the file "+proto) {
		t.Errorf("replay beside the file: exit %d: %s", code, errText)
	}
	if err := os.Remove(proto); err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI("replay", trace)
	if code != 1 || !strings.Contains(errText, "replaying the protocol text in the trace") || !strings.Contains(out, "counterexample for delivered") {
		t.Errorf("replay without the file: exit %d\n%s\n%s", code, out, errText)
	}
}

// TestLinearizeEditedHistories edits a recorded history record by record:
// what is not a history of the protocol's operations is bad input naming
// the record, before porcupine sees it.
func TestLinearizeEditedHistories(t *testing.T) {
	const fixture = "../../traces/histories/execenv-original-go.bad.json"
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	type history = map[string]any
	op := func(h history, i int) map[string]any { return h["operations"].([]any)[i].(map[string]any) }
	for _, tc := range []struct {
		name string
		edit func(history)
		raw  func(string) string
		code int
		msg  string
	}{
		{name: "as recorded", edit: func(history) {}, code: 1},
		{name: "no input", edit: func(h history) { delete(op(h, 0), "input") }, code: 2, msg: "operations[0].input: missing"},
		{name: "no output", edit: func(h history) { delete(op(h, 0), "output") }, code: 2, msg: "operations[0].output: missing"},
		{name: "null output", edit: func(h history) { op(h, 0)["output"] = nil }, code: 2, msg: "operations[0].output: missing"},
		{name: "no client", edit: func(h history) { delete(op(h, 1), "client") }, code: 2, msg: "operations[1].client: missing"},
		{name: "no call", edit: func(h history) { delete(op(h, 1), "call") }, code: 2, msg: "operations[1].call: missing"},
		{name: "no return", edit: func(h history) { delete(op(h, 1), "return") }, code: 2, msg: "operations[1].return: missing"},
		{name: "unknown operation", edit: func(h history) { op(h, 0)["input"] = "rase" }, code: 2, msg: "operations[0].input: rase is not an operation of execenv (did you mean raise?)"},
		{name: "output out of range", edit: func(h history) { op(h, 0)["input"] = "raise"; op(h, 0)["output"] = 7 }, code: 2, msg: "operations[0].output: 7 is not a result of raise (it returns 0, 1, 2, 3)"},
		{name: "negative client", edit: func(h history) { op(h, 0)["client"] = -1 }, code: 2, msg: "operations[0].client: -1 is negative"},
		{name: "object zero", edit: func(h history) { op(h, 0)["object"] = 0 }, code: 2, msg: "operations[0].object: 0; objects count from 1"},
		{name: "negative object", edit: func(h history) { op(h, 0)["object"] = -3 }, code: 2, msg: "operations[0].object: -3"},
		{name: "one operation without its object", edit: func(h history) { delete(op(h, 2), "object") }, code: 2, msg: "operations[2].object: missing, while operations[0] names its object"},
		{name: "return before call", edit: func(h history) { op(h, 0)["return"] = op(h, 0)["call"].(float64) - 1 }, code: 2, msg: "operations[0]: returns"},
		{name: "a client's calls overlap", edit: func(h history) {
			a, b := op(h, 0), op(h, 1)
			b["client"] = a["client"]
			b["call"] = a["call"]
			b["return"] = a["return"].(float64) + 1
		}, code: 2, msg: "before its operations["},
		{name: "another protocol", edit: func(h history) { h["protocol"] = "dlsym" }, code: 2, msg: "records protocol dlsym"},
		{name: "no protocol", edit: func(h history) { delete(h, "protocol") }, code: 2, msg: "protocol: missing"},
		{name: "unknown field", edit: func(h history) { op(h, 0)["when"] = 3 }, code: 2, msg: "unknown field"},
		{name: "data after the history", raw: func(s string) string { return s + "[]" }, code: 2, msg: "data after the history"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := string(data)
			if tc.edit != nil {
				var h history
				if err := json.Unmarshal(data, &h); err != nil {
					t.Fatal(err)
				}
				tc.edit(h)
				b, err := json.Marshal(h)
				if err != nil {
					t.Fatal(err)
				}
				text = string(b)
			}
			if tc.raw != nil {
				text = tc.raw(text)
			}
			dir, err := os.MkdirTemp("", "h")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			path := filepath.Join(dir, "h.json")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errText := runCLI("linearize", "execenv", "--history", path)
			if code != tc.code || !strings.Contains(errText, tc.msg) {
				t.Errorf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tc.code, tc.msg, out, errText)
			}
		})
	}
}

// TestCFlags checks -D and --unroll on a C program: a -D that makes a
// variant of its own, a loop bound that turns "no verdict" into one, a
// trace that records both and replays with them (beside the file and
// without it), and the flags refused for a protocol file.
func TestCFlags(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "wait.c")
	src := `#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#ifndef ORD
#define ORD memory_order_release
#endif
int data;
atomic_int flag;
void *w(void *a) { data = 1; atomic_store_explicit(&flag, 1, ORD); return NULL; }
int main(void) {
	pthread_t t;
	pthread_create(&t, NULL, w, NULL);
	int n = 0;
	while (atomic_load_explicit(&flag, memory_order_acquire) == 0 && n < 10)
		n++;
	if (n < 10)
		assert(data == 1);
	return 0;
}
`
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "t.json")
	runCases(t, []cliCase{
		{"the default bound cuts the wait", []string{"explore", prog}, 3, "bounded by loop-bound of the loop at " + prog + ":14:2", ""},
		{"--unroll past it", []string{"explore", prog, "--unroll", "12"}, 0, "verified:", ""},
		{"-D makes it relaxed", []string{"explore", prog, "--unroll", "12", "-D", "ORD=memory_order_relaxed", "--trace", trace}, 1, "assertion  violated", "wrote " + trace},
		{"replay beside the file", []string{"replay", trace}, 1, "counterexample for assertion", "replaying the file " + prog},
		{"-D on a protocol file", []string{"explore", "dlsym", "-D", "X=1"}, 2, "", "-D, -I and --unroll are for C programs (.c files), not dlsym"},
		{"negative --unroll", []string{"explore", prog, "--unroll", "-1"}, 2, "", "--unroll -1: expected a number of rounds"},
		{"compare takes them", []string{"compare", prog, "--models", "rc11", "--unroll", "12", "-D", "ORD=memory_order_relaxed"}, 1, "violated", ""},
		{"show takes them", []string{"show", prog, "-D", "ORD=memory_order_relaxed", "--variant", ""}, 0, "store(flag, 1, rlx)", ""},
	})
	if err := os.Remove(prog); err != nil {
		t.Fatal(err)
	}
	code, out, errText := runCLI("replay", trace)
	if code != 1 || !strings.Contains(errText, "replaying the protocol text in the trace") || !strings.Contains(out, "counterexample for assertion") {
		t.Errorf("replay without the file: exit %d\n%s\n%s", code, out, errText)
	}
}
