package protocols_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/lang"
	"github.com/ordercheck/ordercheck/protocols/wamr"
)

// TestWamrSpecInTheLanguage holds the spec sections of execenv.oc and
// cluster.oc to wamr.Spec, the Go port's specification written by hand in
// Go: the two sections print alike, and on every sequential history of up
// to four operations and on random ones (overlapping, over several
// objects, with results in and out of each operation's range) the compiled spec and the Go one accept the same
// histories and describe operations in the same words (where Go's names the result).
func TestWamrSpecInTheLanguage(t *testing.T) {
	var specs []*porcupine.Model
	var texts []string
	for _, name := range []string{"execenv", "cluster"} {
		pr, err := protocols.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if pr.File.Spec == nil {
			t.Fatalf("%s.oc has no spec section", name)
		}
		specs = append(specs, pr.File.Spec.Model())
		flat := *pr.File // the spec section alone: a copy, not pr's file
		flat.Params, flat.Variants, flat.Shared, flat.Mutexes, flat.Props, flat.Procs, flat.Threads, flat.Finals, flat.Expects = nil, nil, nil, nil, nil, nil, nil, nil, nil
		text := flat.Format()
		texts = append(texts, text[strings.Index(text, "\nspec {"):])
	}
	if texts[0] != texts[1] {
		t.Fatalf("the spec sections of execenv.oc and cluster.oc differ:\n%s\n%s", texts[0], texts[1])
	}
	names := []string{wamr.OpSet, wamr.OpRestore, wamr.OpRaise, wamr.OpCreate}
	results := map[string][]int64{wamr.OpSet: {0}, wamr.OpRestore: {0, 1}, wamr.OpRaise: {0, 1, 2, 3}, wamr.OpCreate: {0, 1}}
	// Every sequential history of up to four operations, each result in
	// its operation's range...
	type opResult struct {
		name string
		out  int64
	}
	var all []opResult
	for _, n := range names {
		for _, r := range results[n] {
			all = append(all, opResult{n, r})
		}
	}
	var seq func(h []porcupine.Operation)
	seq = func(h []porcupine.Operation) {
		want := porcupine.CheckOperations(wamr.Spec, h)
		for i, s := range specs {
			if got := porcupine.CheckOperations(*s, h); got != want {
				t.Fatalf("spec %d: linearizable %v, Go's spec says %v: %v", i, got, want, h)
			}
		}
		if len(h) == 4 {
			return
		}
		for _, o := range all {
			at := int64(2 * len(h))
			seq(append(h[:len(h):len(h)], porcupine.Operation{ClientId: len(h), Input: o.name, Output: o.out, Call: at, Return: at + 1}))
		}
	}
	seq(nil)
	// ...and random ones, overlapping, over objects, with odd results.
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 7).Draw(t, "ops")
		objects := rapid.IntRange(0, 2).Draw(t, "objects")
		var h []porcupine.Operation
		clock := int64(0)
		for i := range n {
			name := rapid.SampledFrom(names).Draw(t, fmt.Sprint("name", i))
			// Mostly results the operation may return, sometimes others.
			out := rapid.SampledFrom(results[name]).Draw(t, fmt.Sprint("out", i))
			if rapid.IntRange(0, 9).Draw(t, fmt.Sprint("odd", i)) == 0 {
				out = rapid.Int64Range(-1, 4).Draw(t, fmt.Sprint("odd-out", i))
			}
			var in interface{} = name
			if objects > 0 {
				in = lang.Op{Object: rapid.IntRange(1, objects).Draw(t, fmt.Sprint("object", i)), Name: name}
			}
			call := clock + rapid.Int64Range(0, 2).Draw(t, fmt.Sprint("gap", i))
			ret := call + 1 + rapid.Int64Range(0, 3).Draw(t, fmt.Sprint("length", i))
			clock = call + 1
			h = append(h, porcupine.Operation{ClientId: i, Input: in, Output: out, Call: call, Return: ret})
			if want, got := wamr.Spec.DescribeOperation(in, out), specs[0].DescribeOperation(in, out); !strings.HasSuffix(want, "-> ") && want != got {
				t.Fatalf("%v -> %d described as %q, Go's spec says %q", in, out, got, want)
			}
		}
		want := porcupine.CheckOperations(wamr.Spec, h)
		for i, s := range specs {
			if got := porcupine.CheckOperations(*s, h); got != want {
				t.Fatalf("spec %d: linearizable %v, Go's spec says %v: %v", i, got, want, h)
			}
		}
	})
}
