package main

import (
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// statsLine matches the summary line, whose timing varies from run to run.
var statsLine = regexp.MustCompile(`(?m)^(verified|violated|bounded|timeout): .*$`)

// TestCounterexampleGolden pins the text of one counterexample of each kind:
// a stale read, a data race, a deadlock and a lost exception (go test
// ./cmd/ordercheck -update rewrites them).
func TestCounterexampleGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"stale-read", []string{"explore", "dlsym", "--variant", "unordered", "--property", "lib-init"}},
		{"race", []string{"explore", "cluster", "--variant", "original", "--model", "sc"}},
		{"deadlock", []string{"explore", "execenv", "--variant", "lock-across-start"}},
		{"lost-exception", []string{"explore", "execenv", "--variant", "original", "--model", "sc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errText := runCLI(tc.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, errText)
			}
			out = statsLine.ReplaceAllString(out, "$1: (statistics)")
			golden(t, filepath.Join("testdata", "cex-"+tc.name+".txt"), out)
		})
	}
}

// TestDeterminism checks that the same input gives the same output, apart
// from timings, whatever GOMAXPROCS.
func TestDeterminism(t *testing.T) {
	seconds := regexp.MustCompile(`"seconds": [0-9.e-]+`)
	norm := func(s string) string {
		return seconds.ReplaceAllString(statsLine.ReplaceAllString(s, "$1"), `"seconds": 0`)
	}
	for _, args := range [][]string{
		{"explore", "execenv", "--variant", "original"},
		{"compare", "cluster", "--format", "json"},
		{"show", "execenv"},
	} {
		var outs []string
		for _, procs := range []int{1, 2, 1} {
			prev := runtime.GOMAXPROCS(procs)
			_, out, _ := runCLI(args...)
			runtime.GOMAXPROCS(prev)
			outs = append(outs, norm(out))
		}
		if outs[0] != outs[1] || outs[0] != outs[2] {
			t.Errorf("%v: outputs differ between runs", args)
		}
	}
}
