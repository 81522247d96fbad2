// Package checkertest runs the expect clauses of protocol files as Go
// tests, so that a project's protocols are checked by go test beside its
// code:
//
//	func TestProtocols(t *testing.T) {
//		checkertest.Run(t, "testdata/once.oc")
//	}
//
// Each cell the clauses decide (a variant under a model, with a
// configuration's parameters) is a subtest VARIANT/MODEL[/PARAMS], so
// go test -run selects cells.
package checkertest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// ShortTimeout bounds each cell under go test -short. A cell that the
// bound cuts short is skipped then, not passed.
const ShortTimeout = 10 * time.Second

// Run checks the protocol file (or C program) at path with the default
// options; see RunOptions.
func Run(t *testing.T, path string) {
	t.Helper()
	RunOptions(t, path, explore.Options{})
}

// RunOptions checks every cell of the protocol's expect clauses as a
// parallel subtest of t, each bounded by opt. A cell whose verdict
// differs from its expectation fails with what differs, the
// counterexample and the command that explores the cell alone; a cell a
// bound cut short fails too (skipped under -short, where each cell is
// also bounded by ShortTimeout); a cell that no clause selects is
// skipped, unexplored; a protocol without expect clauses fails.
func RunOptions(t *testing.T, path string, opt explore.Options) {
	t.Helper()
	pr, err := checker.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	RunProtocol(t, pr, opt)
}

// RunProtocol is RunOptions for a protocol already loaded (a catalogue
// protocol, say).
func RunProtocol(t *testing.T, pr *checker.Protocol, opt explore.Options) {
	t.Helper()
	// The cells fail in subtests, whose messages go test places in this
	// package: each names the caller's line too.
	at := caller()
	ref := pr.Ref()
	if len(pr.File.Expects) == 0 {
		t.Fatalf("%s has no expect clauses: nothing to check", ref)
	}
	cases, err := expect.Cases(pr)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() && (opt.Timeout == 0 || opt.Timeout > ShortTimeout) {
		opt.Timeout = ShortTimeout
	}
	root := &node{}
	for i := range cases {
		c := &cases[i]
		path := []string{c.Model}
		if c.Variant != "" {
			path = append([]string{c.Variant}, path...)
		}
		path = append(path, lang.BindTexts(c.Params)...)
		root.add(path, c)
	}
	root.run(t, func(t *testing.T, c *expect.Case) {
		t.Parallel()
		check(t, ref, at, c, opt)
	})
}

// node is a level of subtests: its children in the order first named,
// or, at a leaf, its case.
type node struct {
	names    []string
	children map[string]*node
	c        *expect.Case
}

func (n *node) add(path []string, c *expect.Case) {
	if len(path) == 0 {
		n.c = c
		return
	}
	if n.children == nil {
		n.children = map[string]*node{}
	}
	ch := n.children[path[0]]
	if ch == nil {
		ch = &node{}
		n.children[path[0]] = ch
		n.names = append(n.names, path[0])
	}
	ch.add(path[1:], c)
}

// run runs each child as a subtest of t, f at the leaves. A case whose
// path continues below another case's (a configuration's cell below the
// default one's) runs in the leaf's subtest after it.
func (n *node) run(t *testing.T, f func(*testing.T, *expect.Case)) {
	for _, name := range n.names {
		ch := n.children[name]
		t.Run(name, func(t *testing.T) {
			if ch.c != nil {
				if len(ch.names) == 0 {
					f(t, ch.c)
					return
				}
				t.Run("defaults", func(t *testing.T) { f(t, ch.c) })
			}
			ch.run(t, f)
		})
	}
}

// caller returns the file:line of the first caller outside this package.
func caller() string {
	for skip := 2; ; skip++ {
		pc, file, line, ok := runtime.Caller(skip)
		if !ok {
			return "?"
		}
		if fn := runtime.FuncForPC(pc); fn == nil || !strings.HasPrefix(fn.Name(), "github.com/ordercheck/ordercheck/checker/checkertest.") {
			return fmt.Sprintf("%s:%d", filepath.Base(file), line)
		}
	}
}

// check checks one case and reports it on t; at is the line of the test
// that asked for it.
func check(t *testing.T, ref, at string, c *expect.Case, opt explore.Options) {
	if c.Clause == nil {
		t.Skip("no expect clause selects this cell: not explored")
	}
	r := c.Check(opt)
	switch r.Status() {
	case expect.Pass:
	case expect.NoExpectation:
		t.Skip("no expect clause selects this cell")
	case expect.NoVerdict:
		if testing.Short() {
			t.Skipf("no verdict under -short:\n%s", render.CaseDetail(ref, r))
		}
		t.Errorf("(checked from %s) no verdict:\n%s", at, render.CaseDetail(ref, r))
	default:
		t.Errorf("(checked from %s)\n%s", at, render.CaseDetail(ref, r))
	}
}

// Instance parses the protocol text src, written for a test, and
// compiles its default variant, failing t on an error.
func Instance(t testing.TB, src string) *checker.Instance {
	t.Helper()
	pr, err := checker.Parse("test.oc", src)
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("", nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// SameVerdicts checks that the graph explorer and the state explorer
// give every property of every variant of the protocol file at path the
// same status under each of models (default parameters); a model the
// state explorer has no operational form of is passed over. It fails when
// no pair was compared.
func SameVerdicts(t *testing.T, path string, models ...string) {
	t.Helper()
	pr, err := checker.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	variants := []string{""} // the protocol itself
	for i, v := range pr.File.Variants {
		if i == 0 {
			variants = nil
		}
		variants = append(variants, v.Name)
	}
	checked := 0
	for _, v := range variants {
		in, err := pr.Instance(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range models {
			m, err := model.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			graphs, err := in.Check(m, explore.Options{Engine: explore.EngineDPOR})
			if err != nil {
				t.Fatal(err)
			}
			states, err := in.Check(m, explore.Options{Engine: explore.EngineStates})
			if err != nil {
				if strings.Contains(err.Error(), "no operational form") {
					continue
				}
				t.Fatal(err)
			}
			checked++
			for i, p := range graphs.Props {
				if s := states.Props[i]; s.Status != p.Status {
					t.Errorf("%q under %s: %s %s by graphs (%s), %s by states (%s)", v, name, p.Name, p.Status, p.Message, s.Status, s.Message)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no cell compared the engines")
	}
}

// SameTable checks that comparison got gives every property the status
// want gives it, cell by cell: the same variants in the same order, the
// same models, and for each property of got the status of the property
// of want that names maps it to (itself when names has no entry); a
// property checked by asserts or final conditions must also hold
// vacuously on both sides or on neither (a built-in one's vacuity depends
// on how threads end: a C main that joins its threads blocks when one of
// them does). Every property of want must be compared so but those
// ignore lists: a C program that transcribes a protocol file, say, has no
// operations to linearize.
func SameTable(t *testing.T, got, want *checker.Comparison, names map[string]string, ignore ...string) {
	t.Helper()
	if len(got.Cases) != len(want.Cases) || len(got.Models) != len(want.Models) {
		t.Fatalf("%d variants × %d models, want %d × %d", len(got.Cases), len(got.Models), len(want.Cases), len(want.Models))
	}
	for i, in := range got.Cases {
		if in.Variant != want.Cases[i].Variant {
			t.Fatalf("variant %d is %s, want %s", i, in.Variant, want.Cases[i].Variant)
		}
		for j, m := range got.Models {
			if m != want.Models[j] {
				t.Fatalf("model %d is %s, want %s", j, m.Name, want.Models[j].Name)
			}
			compared := map[string]bool{}
			for _, p := range got.Reports[i][j].Props {
				name := p.Name
				if n, ok := names[name]; ok {
					name = n
				}
				var w *checker.PropResult
				for k := range want.Reports[i][j].Props {
					if q := &want.Reports[i][j].Props[k]; q.Name == name {
						w = q
					}
				}
				switch {
				case w == nil:
					t.Errorf("%s under %s: %s has no counterpart %s", in.Variant, m.Name, p.Name, name)
				case p.Status != w.Status || !lang.BuiltinProp(name) && p.Vacuous != w.Vacuous:
					t.Errorf("%s under %s: %s %v (%s), want %s %v (%s)", in.Variant, m.Name, p.Name, p.Status, p.Message, name, w.Status, w.Message)
				}
				compared[name] = true
			}
			for _, q := range want.Reports[i][j].Props {
				if !compared[q.Name] && !slices.Contains(ignore, q.Name) {
					t.Errorf("%s under %s: nothing compares with %s", in.Variant, m.Name, q.Name)
				}
			}
		}
	}
}
