package tune_test

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/tune"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// storeBuffering is Dekker's core: each thread stores its flag and loads
// the other's; both reading 0 is the weak outcome.
const storeBuffering = `protocol sb
shared x = 0
shared y = 0
property mutex
thread a {
  store(x, 1, rlx)
  r = load(y, rlx)
}
thread b {
  store(y, 1, rlx)
  s = load(x, rlx)
}
final mutex: a.r == 1 || b.s == 1
`

// TestTuneClassicShapes checks tune on shapes whose weakest orderings the
// literature gives: message passing needs a release store and an acquire
// load; store buffering (Dekker's core) needs all four accesses seq_cst;
// IRIW needs seq_cst everywhere its readers look; a reader that re-reads
// a flag it set itself needs nothing.
func TestTuneClassicShapes(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      [][]string // every minimal assignment, sites in source order
	}{
		{"message passing, a branch a parameter rules out", `protocol mp
param MODE = fast in fast, safe
shared data = 0
shared flag = 0
property seen
thread w {
  data = 1
  if MODE == fast {
    store(flag, 1, rlx)
  } else {
    store(flag, 1, sc)
  }
}
thread r {
  f = load(flag, rlx)
  if f == 1 {
    d = data
    assert seen: d == 1
  }
}
`, [][]string{{"rel", "acq"}}},
		{"message passing", `protocol mp
shared data = 0
shared flag = 0
property seen
thread w {
  data = 1
  store(flag, 1, rlx)
}
thread r {
  f = load(flag, rlx)
  if f == 1 {
    d = data
    assert seen: d == 1
  }
}
`, [][]string{{"rel", "acq"}}},
		{"store buffering", storeBuffering, [][]string{{"sc", "sc", "sc", "sc"}}},
		{"iriw", `protocol iriw
shared x = 0
shared y = 0
property agree
thread wx { store(x, 1, rlx) }
thread wy { store(y, 1, rlx) }
thread r1 {
  a = load(x, rlx)
  b = load(y, rlx)
}
thread r2 {
  c = load(y, rlx)
  d = load(x, rlx)
}
final agree: !(r1.a == 1 && r1.b == 0 && r2.c == 1 && r2.d == 0)
`, [][]string{{"sc", "sc", "sc", "sc", "sc", "sc"}}},
		// With fences: a release fence may stand for the release store and
		// an acquire fence for the acquire load (sites: each access after
		// its thread's first has a fence slot before it).
		{"message passing with fences", `protocol mpf
shared data = 0
shared flag = 0
property seen
thread w {
  store(data, 1, rlx)
  store(flag, 1, rlx)
}
thread r {
  f = load(flag, rlx)
  d = load(data, rlx)
  assert seen: f == 0 || d == 1
}
`, [][]string{
			{"rlx", "na", "rel", "acq", "na", "rlx"},
			{"rlx", "na", "rel", "rlx", "acq", "rlx"},
			{"rlx", "rel", "rlx", "acq", "na", "rlx"},
			{"rlx", "rel", "rlx", "rlx", "acq", "rlx"},
		}},
		// Store buffering: seq_cst accesses or a seq_cst fence, in each
		// thread.
		{"store buffering with fences", storeBuffering, [][]string{
			{"sc", "na", "sc", "sc", "na", "sc"},
			{"rlx", "sc", "rlx", "sc", "na", "sc"},
			{"sc", "na", "sc", "rlx", "sc", "rlx"},
			{"rlx", "sc", "rlx", "rlx", "sc", "rlx"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := checkertest.Instance(t, tc.src)
			tu, err := tune.Run(in, tune.Options{Models: []*model.Model{model.RC11}, Fences: strings.HasSuffix(tc.name, "with fences")})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(tu.Minimal); got != fmt.Sprint(tc.want) {
				t.Errorf("minimal %s, want %v (%d checks)", got, tc.want, tu.Checks)
			}
		})
	}
}

// TestTuneLocks checks tune on two locks with known answers. The seqlock
// of protocols/examples, written with the fence recipe (Boehm, "Can
// seqlocks get along with programming language memory models?", MSPC
// 2012: acquire sequence load, relaxed data loads, acquire fence before
// the second sequence load; release fence after making the sequence
// odd, relaxed data stores, release closing store), has the recipe among
// its minimal assignments and is minimal itself. Peterson's lock from
// all seq_cst keeps seq_cst on its entry stores and on the flag loads
// (each thread's store then load of the other's flag is store
// buffering), but not on the turn loads: a thread that passes on reading
// the other's later turn store saw that store come after its own in
// modification order, which the seq_cst flag stores and loads then order
// against the other's entry (a psc cycle otherwise); its unlock needs
// only release, which the next entrant's seq_cst flag load acquires.
func TestTuneLocks(t *testing.T) {
	for _, tc := range []struct {
		name, file, variant string
		want                []string // a minimal assignment, sites in source order
		only                bool     // the only one
	}{
		{"seqlock, the fence recipe", "../../protocols/examples/seqlock.oc", "fenced",
			[]string{"rlx", "rel", "rlx", "rlx", "rel", "acq", "rlx", "rlx", "acq", "rlx"}, false},
		{"peterson", "../testdata/genmc/peterson.oc", "",
			[]string{"sc", "sc", "sc", "rlx", "rel", "sc", "sc", "sc", "rlx", "rel"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := checker.Load(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			in, err := pr.Instance(tc.variant, nil)
			if err != nil {
				t.Fatal(err)
			}
			tu, err := tune.Run(in, tune.Options{Models: []*model.Model{model.RC11}})
			if err != nil {
				t.Fatal(err)
			}
			found := slices.ContainsFunc(tu.Minimal, func(m []model.Ordering) bool { return fmt.Sprint(m) == fmt.Sprint(tc.want) })
			if !found || tc.only && len(tu.Minimal) != 1 || tu.One {
				t.Errorf("minimal %v (%d checks), want %v among them", tu.Minimal, tu.Checks, tc.want)
			}
			if tc.variant != "" && !tu.CurrentMinimal {
				t.Errorf("the %s variant is not minimal: minimal %v", tc.variant, tu.Minimal)
			}
		})
	}
}

// tuneShapes are litmus shapes with a weak outcome that orderings
// forbid: message passing, store buffering, load buffering, S, R and
// 2+2W. %s stands for each access's ordering, %F for an optional fence.
var tuneShapes = []struct{ name, t0, t1, never string }{
	{"MP", "store(x, 1, %s)\n%F\nstore(y, 1, %s)", "a = load(y, %s)\n%F\nb = load(x, %s)", "t1.a == 1 && t1.b == 0"},
	{"SB", "store(x, 1, %s)\n%F\na = load(y, %s)", "store(y, 1, %s)\n%F\nb = load(x, %s)", "t0.a == 0 && t1.b == 0"},
	{"LB", "a = load(x, %s)\n%F\nstore(y, 1, %s)", "b = load(y, %s)\n%F\nstore(x, 1, %s)", "t0.a == 1 && t1.b == 1"},
	{"S", "store(x, 2, %s)\n%F\nstore(y, 1, %s)", "a = load(y, %s)\n%F\nstore(x, 1, %s)", "t1.a == 1 && x == 2"},
	{"R", "store(x, 1, %s)\n%F\nstore(y, 1, %s)", "store(y, 2, %s)\n%F\na = load(x, %s)", "y == 2 && t1.a == 0"},
	{"2+2W", "store(x, 1, %s)\n%F\nstore(y, 2, %s)", "store(y, 1, %s)\n%F\nstore(x, 2, %s)", "x == 1 && y == 1"},
}

// drawShape writes a random instance of a shape as a protocol: random
// orderings, a fence between the accesses now and then, a load or store
// turned into a read-modify-write now and then.
func drawShape(t *rapid.T) string {
	sh := tuneShapes[rapid.IntRange(0, len(tuneShapes)-1).Draw(t, "shape")]
	thread := func(name, code string) string {
		var b strings.Builder
		for _, line := range strings.Split(code, "\n") {
			if line == "%F" {
				if rapid.IntRange(0, 3).Draw(t, name+"-fence") == 0 {
					b.WriteString("  fence(" + rapid.SampledFrom([]string{"acq", "rel", "acq_rel", "sc"}).Draw(t, name+"-fence-ord") + ")\n")
				}
				continue
			}
			load := strings.Contains(line, "load(")
			ords := []string{"rlx", "rel", "sc"}
			if load {
				ords = []string{"rlx", "acq", "sc"}
			}
			ord := rapid.SampledFrom(ords).Draw(t, name+"-ord")
			line = strings.Replace(line, "%s", ord, 1)
			if !load && rapid.IntRange(0, 4).Draw(t, name+"-rmw") == 0 {
				// store(x, v, o) as r = xchg(x, v, o)
				line = "o = xchg(" + strings.TrimPrefix(line, "store(")
				line += "\n  assert never: o >= 0" // reads o
			}
			b.WriteString("  " + line + "\n")
		}
		body := b.String()
		// Now and then the rest of the thread runs only if its first load
		// read 1: code with a branch.
		if first, rest, ok := strings.Cut(body, "\n"); ok && strings.Contains(first, " = load(") && rest != "" && rapid.Bool().Draw(t, name+"-guard") {
			reg := strings.TrimSpace(strings.SplitN(first, "=", 2)[0])
			body = first + "\n  if " + reg + " == 1 {\n" + rest + "  }\n"
		}
		return "thread " + name + " {\n" + body + "}\n"
	}
	return "protocol shape" + "\nshared x = 0\nshared y = 0\nproperty never\n" +
		thread("t0", sh.t0) + thread("t1", sh.t1) + "final never: !(" + sh.never + ")\n"
}

// TestFenceSlotsEmpty checks that fence slots left empty change nothing:
// on random litmus shapes, the program with a slot before every access
// but the first of each thread, none filled, has the verdicts and the
// executions of the program itself.
func TestFenceSlotsEmpty(t *testing.T) {
	m := model.RC11
	rapid.Check(t, func(t *rapid.T) {
		pr, err := checker.Parse("shape.oc", drawShape(t))
		if err != nil {
			t.Fatal(err)
		}
		in, err := pr.Instance("", nil)
		if err != nil {
			t.Fatal(err)
		}
		slotted := tune.WithFenceSlots(in.Prog)
		sites := tune.Sites(slotted, false, nil)
		ords := make([]model.Ordering, len(sites))
		for i, s := range sites {
			ords[i] = s.Current
		}
		props := checker.Properties(nil, pr.PropNames()...)
		a, err := checker.Check(in.Prog, m, props, explore.Options{Engine: explore.EngineDPOR})
		if err != nil {
			t.Fatal(err)
		}
		b, err := checker.Check(tune.WithOrderings(slotted, sites, ords), m, props, explore.Options{Engine: explore.EngineDPOR})
		if err != nil {
			t.Fatal(err)
		}
		if a.Props[0].Status != b.Props[0].Status || a.Stats.Executions != b.Stats.Executions {
			t.Fatalf("without slots %v in %d executions, with empty slots %v in %d", a.Props[0].Status, a.Stats.Executions, b.Props[0].Status, b.Stats.Executions)
		}
	})
}

// TestTuneMatchesEnumeration checks tune's minimal assignments on random
// litmus shapes (random orderings, fences, read-modify-writes) against
// checking every assignment: the pruned search finds exactly the minimal
// assignments that hold.
func TestTuneMatchesEnumeration(t *testing.T) {
	m := model.RC11
	rapid.Check(t, func(t *rapid.T) {
		src := drawShape(t)
		pr, err := checker.Parse("shape.oc", src)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		pin, err := pr.Instance("", nil)
		if err != nil {
			t.Fatal(err)
		}
		p := pin.Prog
		sites := tune.Sites(p, false, nil)
		props := pr.PropNames()
		tu, err := tune.Run(pin, tune.Options{Models: []*model.Model{m}})
		if err != nil {
			t.Fatal(err)
		}
		if len(tu.Props) < len(props) {
			return // some property beyond orderings: nothing to enumerate for it
		}
		// Every assignment, checked.
		var holding [][]model.Ordering
		var rec func(i int, a []model.Ordering)
		rec = func(i int, a []model.Ordering) {
			if i == len(sites) {
				rep, err := checker.Check(tune.WithOrderings(p, sites, a), m, checker.Properties(nil, props...), explore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, pr := range rep.Props {
					if pr.Status != checker.Holds {
						return
					}
				}
				holding = append(holding, slices.Clone(a))
				return
			}
			for _, l := range sites[i].Levels {
				rec(i+1, append(a, l))
			}
		}
		rec(0, nil)
		// The lattice written out again, independently of tune's: what
		// each ordering guarantees.
		guarantees := map[model.Ordering]string{model.NA: "", model.Rlx: "a", model.Con: "ac", model.Acq: "acq", model.Rel: "ar", model.AcqRel: "acqr", model.SeqCst: "acqrs"}
		below := func(a, b []model.Ordering) bool {
			for i := range a {
				for _, g := range guarantees[a[i]] {
					if !strings.ContainsRune(guarantees[b[i]], g) {
						return false
					}
				}
			}
			return true
		}
		var want []string
		for _, h := range holding {
			minimal := true
			for _, o := range holding {
				if !slices.Equal(o, h) && below(o, h) {
					minimal = false
				}
			}
			if minimal {
				want = append(want, fmt.Sprint(h))
			}
		}
		var got []string
		for _, mm := range tu.Minimal {
			got = append(got, fmt.Sprint(mm))
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("tune's minimal %v, enumeration's %v\n%s", got, want, p)
		}
		// Descending from the top, as tune does past MaxAssignments, ends
		// at one of them.
		one, err := tune.Run(pin, tune.Options{Models: []*model.Model{m}, MaxAssignments: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !one.One || len(one.Minimal) != 1 || !slices.Contains(want, fmt.Sprint(one.Minimal[0])) {
			t.Fatalf("descending found %v (one: %v), not one of %v", one.Minimal, one.One, want)
		}
		if one.CurrentMinimal != tu.CurrentMinimal || one.CurrentHolds != tu.CurrentHolds {
			t.Fatalf("descending says the current orderings hold %v, minimal %v; the search %v, %v", one.CurrentHolds, one.CurrentMinimal, tu.CurrentHolds, tu.CurrentMinimal)
		}
	})
}

// BenchmarkTune measures tune on the catalogue's dlsym from unordered and
// on Peterson's lock from all seq_cst, reporting the checks it ran beside
// the assignments plain enumeration would check.
func BenchmarkTune(b *testing.B) {
	for _, bc := range []struct{ name, ref, variant string }{
		{"dlsym-unordered", "dlsym", "unordered"},
		{"peterson", "../testdata/genmc/peterson.oc", ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			pr, err := protocols.Load(bc.ref)
			if err != nil {
				b.Fatal(err)
			}
			in, err := pr.Instance(bc.variant, nil)
			if err != nil {
				b.Fatal(err)
			}
			var tu *tune.Tuning
			for b.Loop() {
				if tu, err = tune.Run(in, tune.Options{Models: []*model.Model{model.RC11}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(tu.Checks), "checks")
			b.ReportMetric(float64(tu.Refuted), "refuted")
			b.ReportMetric(float64(tu.Assignments), "assignments")
		})
	}
}

// TestTuneRefutesUnderRaceModel checks that a counterexample reused on
// another assignment judges races under that assignment's race model: a
// race found under arm (judged under rc11, where con is relaxed) must not
// refute a consume load, which rc11-consume orders by its dependency.
func TestTuneRefutesUnderRaceModel(t *testing.T) {
	in := checkertest.Instance(t, `protocol conrace
shared a[2]
shared idx = 0
property data-race
thread w {
  a[1] = 1
  store(idx, 1, rel)
}
thread r {
  i = load(idx, rlx)
  v = a[i]
}
`)
	var models []*model.Model
	for _, name := range []string{"arm", "rc11-consume"} {
		m, err := model.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	tu, err := tune.Run(in, tune.Options{Models: models})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tu.Minimal); got != "[[rel con]]" {
		t.Errorf("minimal %s, want [[rel con]]", got)
	}
}

var updateTuned = flag.Bool("update-tuned", false, "rewrite testdata/orders.tuned.c from tune's result")

// TestTuneRewritesC checks tune's diff of a C program against its golden
// file (testdata/orders.tuned.c): explicit memory_order_* and
// __ATOMIC_* arguments rewritten in place, implied seq_cst operations
// made their _explicit twins, an order a macro supplies left and said so,
// joins no sites. Read back, the rewritten program has the minimal
// orderings as its current ones, but for the site left as it was.
func TestTuneRewritesC(t *testing.T) {
	const path = "testdata/orders.c"
	pr, err := checker.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("", nil)
	if err != nil {
		t.Fatal(err)
	}
	tu, err := tune.Run(in, tune.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tu.Minimal) != 1 {
		t.Fatalf("%d minimal assignments, want 1", len(tu.Minimal))
	}
	lines := strings.Split(pr.Source, "\n")
	for _, s := range tu.Sites {
		if strings.Contains(lines[s.Pos.Line-1], "pthread_join") {
			t.Errorf("a join is a site: %s", s.Pos)
		}
	}
	rw := tu.Rewrite(0)
	const tuned = "testdata/orders.tuned.c"
	if *updateTuned {
		if err := os.WriteFile(tuned, []byte(rw.Text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(tuned); err != nil || string(want) != rw.Text {
		t.Errorf("the rewritten program differs from %s (-update-tuned rewrites it; %v):\n%s", tuned, err, rw.Text)
	}
	macro := path + ":25:2: rlx:"
	if len(rw.Unwritten) != 1 || !strings.HasPrefix(rw.Unwritten[0], macro) {
		t.Errorf("unwritten: %q, want the site %s alone", rw.Unwritten, macro)
	}
	back, err := checker.ParseC(path, rw.Text, *pr.C)
	if err != nil {
		t.Fatalf("the rewritten program does not read back: %v", err)
	}
	bin, err := back.Instance("", nil)
	if err != nil {
		t.Fatal(err)
	}
	now := map[model.Pos]model.Ordering{}
	for _, s := range tune.Sites(bin.Prog, false, nil) {
		now[s.Pos] = s.Current
	}
	for i, s := range tu.Sites {
		want := tu.Minimal[0][i]
		if strings.HasPrefix(s.Pos.String()+":", macro[:len(macro)-len(" rlx:")]) {
			want = s.Current
		}
		if now[s.Pos] != want {
			t.Errorf("%s: read back %s, want %s", s.Pos, now[s.Pos], want)
		}
	}
}
