package model

import (
	"slices"
	"strings"
	"testing"
)

// models lists the registered models in Names' order: the columns of
// verdicts.
var models = []string{"sc", "tso", "arm", "riscv", "rc11", "rc11-consume"}

// verdicts gives, per model in the order of models, the first axiom an
// execution violates ("" when the model allows it).
type verdicts [6]string

// shapeCase is a named hand-built execution and its verdicts.
type shapeCase struct {
	name string
	s    shape
	want verdicts
}

// classic returns the classic shapes as hand-built executions, with the
// verdicts the literature gives: x86-TSO after Owens, Sarkar and Sewell,
// "A Better x86 Memory Model: x86-TSO" (TPHOLs 2009), and RC11 after
// Lahav, Vafeiadis, Kang, Hur and Dreyer, "Repairing Sequential
// Consistency in C/C++11" (PLDI 2017); SC forbids every non-SC outcome.
func classic() []shapeCase {
	// mp is message passing: data x then flag y; the reader sees the flag
	// set, then stale data. dep gives the data load an address dependency
	// on the flag load.
	mp := func(data, flag, rflag, rdata Ordering, dep bool) shape {
		rx := rd(X, rdata, InitRef(X))
		if dep {
			rx = addrDep(rx, 0)
		}
		return shape{threads: [][]Event{{wr(X, 1, data), wr(Y, 1, flag)}, {rd(Y, rflag, ref(0, 1)), rx}}}
	}
	// sbWith is store buffering, both loads reading 0, with a fence of
	// ordering f (none when NA) between each store and load.
	sbWith := func(o, f Ordering) shape {
		th := func(w, r Loc) []Event {
			evs := []Event{wr(w, 1, o), rd(r, o, InitRef(r))}
			if f != NA {
				evs = slices.Insert(evs, 1, fence(f))
			}
			return evs
		}
		return shape{threads: [][]Event{th(X, Y), th(Y, X)}}
	}
	return []shapeCase{
		// sc, tso, arm, riscv, rc11, rc11-consume
		{"SB relaxed: TSO's store buffers allow it", sbWith(Rlx, NA), verdicts{"sc", "", "", "", "", ""}},
		{"SB plain (racy, allowed)", sbWith(NA, NA), verdicts{"sc", "", "", "", "", ""}},
		{"SB seq_cst accesses", sbWith(SeqCst, NA), verdicts{"sc", "tso", "external", "Model", "sc", "sc"}},
		{"SB relaxed with seq_cst fences", sbWith(Rlx, SeqCst), verdicts{"sc", "tso", "external", "Model", "sc", "sc"}},
		{"SB relaxed with acq_rel fences", sbWith(Rlx, AcqRel), verdicts{"sc", "", "external", "", "", ""}},
		{"SB with xchg: locked instructions fence on x86", shape{threads: [][]Event{
			{rmwR(X, Rlx, InitRef(X)), rmwW(X, 1, Rlx), rd(Y, Rlx, InitRef(Y))},
			{rmwR(Y, Rlx, InitRef(Y)), rmwW(Y, 1, Rlx), rd(X, Rlx, InitRef(X))},
		}}, verdicts{"sc", "tso", "", "", "", ""}},
		{"MP relaxed", mp(Rlx, Rlx, Rlx, Rlx, false), verdicts{"sc", "tso", "", "", "", ""}},
		{"MP plain (racy, allowed)", mp(NA, NA, NA, NA, false), verdicts{"sc", "tso", "", "", "", ""}},
		{"MP release/acquire", mp(Rlx, Rel, Acq, Rlx, false), verdicts{"sc", "tso", "external", "Model", "coherence", "coherence"}},
		{"MP plain data, release/acquire flag", mp(NA, Rel, Acq, NA, false), verdicts{"sc", "tso", "external", "Model", "coherence", "coherence"}},
		{"MP release/acquire, new data read", shape{threads: [][]Event{
			{wr(X, 1, NA), wr(Y, 1, Rel)}, {rd(Y, Acq, ref(0, 1)), rd(X, NA, ref(0, 0))},
		}}, verdicts{"", "", "", "", "", ""}},
		{"MP relaxed with release and acquire fences", shape{threads: [][]Event{
			{wr(X, 1, Rlx), fence(Rel), wr(Y, 1, Rlx)}, {rd(Y, Rlx, ref(0, 2)), fence(Acq), rd(X, Rlx, InitRef(X))},
		}}, verdicts{"sc", "tso", "external", "Model", "coherence", "coherence"}},
		{"MP through a release sequence (two RMWs in between)", shape{threads: [][]Event{
			{wr(X, 1, Rlx), wr(Y, 1, Rel)},
			{rmwR(Y, Rlx, ref(0, 1)), rmwW(Y, 2, Rlx)},
			{rmwR(Y, Rlx, ref(1, 1)), rmwW(Y, 3, Rlx)},
			{rd(Y, Acq, ref(2, 1)), rd(X, Rlx, InitRef(X))},
		}}, verdicts{"sc", "tso", "external", "Model", "coherence", "coherence"}},
		{"MP consume without dependency", mp(Rlx, Rel, Con, Rlx, false), verdicts{"sc", "tso", "", "", "", ""}},
		{"MP consume with an address dependency", mp(Rlx, Rel, Con, Rlx, true), verdicts{"sc", "tso", "external", "Model", "", "coherence"}},
		{"MP consume then an acquire fence (C11's fence rule; rc11 never synchronises a consume)", shape{threads: [][]Event{
			{wr(X, 1, Rlx), wr(Y, 1, Rel)}, {rd(Y, Con, ref(0, 1)), fence(Acq), rd(X, Rlx, InitRef(X))},
		}}, verdicts{"sc", "tso", "external", "Model", "", "coherence"}},
		{"LB: po ∪ rf cycle", shape{threads: [][]Event{
			{rd(X, Rlx, ref(1, 1)), wr(Y, 1, Rlx)}, {rd(Y, Rlx, ref(0, 1)), wr(X, 1, Rlx)},
		}}, verdicts{"sc", "tso", "", "", "no-thin-air", "no-thin-air"}},
		{"IRIW relaxed: not multi-copy atomic in RC11", shape{threads: [][]Event{
			{wr(X, 1, Rlx)}, {wr(Y, 1, Rlx)},
			{rd(X, Rlx, ref(0, 0)), rd(Y, Rlx, InitRef(Y))},
			{rd(Y, Rlx, ref(1, 0)), rd(X, Rlx, InitRef(X))},
		}}, verdicts{"sc", "tso", "", "", "", ""}},
		{"CoRR: new then old value", shape{threads: [][]Event{
			{wr(X, 1, Rlx)}, {rd(X, Rlx, ref(0, 0)), rd(X, Rlx, InitRef(X))},
		}}, verdicts{"sc", "uniproc", "external", "Coherence", "coherence", "coherence"}},
		{"CoWW: co against po", coReorder(true), verdicts{"sc", "uniproc", "coWW", "Coherence", "coherence", "coherence"}},
		{"CoWW: co along po", coReorder(false), verdicts{"", "", "", "", "", ""}},
		{"RMW split by another write", shape{
			threads: [][]Event{{rmwR(X, Rlx, InitRef(X)), rmwW(X, 1, Rlx)}, {wr(X, 5, Rlx)}},
			co:      map[Loc][]EventRef{X: {ref(1, 0), ref(0, 1)}},
		}, verdicts{"atomicity", "atomicity", "atomic", "Atomic", "atomicity", "atomicity"}},
		// rmw ⊆ po ⊆ hb, so an RMW whose read reads a write co-after its
		// own write breaks coherence before coherence-rmw is asked.
		{"RMW reading a write co-after its own", shape{
			threads: [][]Event{{rmwR(X, Rlx, ref(1, 0)), rmwW(X, 1, Rlx)}, {wr(X, 5, Rlx)}},
			co:      map[Loc][]EventRef{X: {ref(0, 1), ref(1, 0)}},
		}, verdicts{"sc", "uniproc", "external", "Coherence", "coherence", "coherence"}},
		{"RMW after another write", shape{
			threads: [][]Event{{rmwR(X, Rlx, ref(1, 0)), rmwW(X, 6, Rlx)}, {wr(X, 5, Rlx)}},
			co:      map[Loc][]EventRef{X: {ref(1, 0), ref(0, 1)}},
		}, verdicts{"", "", "", "", "", ""}},
		{"a spawned thread reads its parent's overwritten value", shape{threads: [][]Event{
			{wr(X, 1, Rlx), spawn(1)}, {rd(X, Rlx, InitRef(X))},
		}}, verdicts{"sc", "uniproc", "external", "Coherence", "coherence", "coherence"}},
	}
}

// TestAxioms checks every registered model on the classic shapes: the
// first axiom m.Check reports violated.
func TestAxioms(t *testing.T) {
	for _, m := range All() {
		col := slices.Index(models, m.Name)
		if col < 0 {
			t.Errorf("model %s has no column in the table of verdicts", m.Name)
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			for _, c := range classic() {
				t.Run(c.name, func(t *testing.T) {
					g := c.s.graph()
					if got, want := m.Check(NewExec(g)), c.want[col]; got != want {
						t.Errorf("Check = %q, want %q\n%s", got, want, g)
					}
					if got, want := m.Consistent(g), c.want[col] == ""; got != want {
						t.Errorf("Consistent = %v, want %v", got, want)
					}
				})
			}
		})
	}
}

// TestModelData checks what every model declares: a doc line, a strength,
// a happens-before, explanations, and Within naming registered weaker
// models; and the registry's order.
func TestModelData(t *testing.T) {
	if got := Names(); !slices.Equal(got, models) {
		t.Fatalf("Names() = %v, want %v", got, models)
	}
	for _, m := range All() {
		t.Run(m.Name, func(t *testing.T) {
			if m.Doc == "" || m.Strength <= 0 || m.HB == nil || m.Stale == nil || m.Unordered == nil || len(m.Axioms) == 0 {
				t.Errorf("incomplete: Doc %q, Strength %d, HB %v, Stale set %v, Unordered set %v, %d axioms",
					m.Doc, m.Strength, m.HB, m.Stale != nil, m.Unordered != nil, len(m.Axioms))
			}
			for _, w := range m.Within {
				if o, err := Lookup(w.Name); o != w {
					t.Errorf("Within: %s is not registered: %v", w.Name, err)
				} else if w.Strength < m.Strength {
					t.Errorf("Within names %s, stronger than %s", w.Name, m.Name)
				}
			}
			if got, _ := Lookup(m.Name); got != m {
				t.Errorf("Lookup(%q) = %v", m.Name, got)
			}
			if m.String() != m.Name {
				t.Errorf("String() = %q", m.String())
			}
		})
	}
}

// TestRegistry checks Lookup of an unknown name, Register of a duplicate
// name, and Register then Unregister of a test-only model.
func TestRegistry(t *testing.T) {
	t.Run("unknown", func(t *testing.T) {
		m, err := Lookup("power")
		if m != nil || err == nil {
			t.Fatalf("Lookup(power) = %v, %v", m, err)
		}
		for _, n := range append([]string{`"power"`}, models...) {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("error %q does not name %s", err, n)
			}
		}
	})
	t.Run("duplicate", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("Register of a second sc did not panic")
			}
			if got := Names(); !slices.Equal(got, models) {
				t.Errorf("after the panic, Names() = %v", got)
			}
		}()
		Register(&Model{Name: "sc", Strength: 9})
	})
	t.Run("test-only model", func(t *testing.T) {
		toy := Register(&Model{Name: "test-strongest", Doc: "a test's", Strength: 0, HB: HB})
		t.Cleanup(func() { Unregister(toy.Name) })
		if got := Names(); !slices.Equal(got, append([]string{toy.Name}, models...)) {
			t.Errorf("Names() = %v: the strongest model should come first", got)
		}
		if m, err := Lookup(toy.Name); m != toy || err != nil {
			t.Errorf("Lookup = %v, %v", m, err)
		}
		if got := toy.Check(NewExec(sb.graph())); got != "" {
			t.Errorf("a model without axioms rejects SB: %q", got)
		}
		Unregister(toy.Name)
		if got := Names(); !slices.Equal(got, models) {
			t.Errorf("after Unregister, Names() = %v", got)
		}
		if _, err := Lookup(toy.Name); err == nil {
			t.Error("Lookup finds an unregistered model")
		}
	})
}

// TestDataRaces checks DataRaces with each C11 model's happens-before:
// conflicting accesses of different threads, one of them plain,
// unordered by hb.
func TestDataRaces(t *testing.T) {
	// Indices: 2 Wx, 3 Wy (thread 0); 4 Ry, 5 Rx (thread 1).
	mp := func(data, flag, rflag Ordering, dep bool) shape {
		rx := rd(X, data, ref(0, 0))
		if dep {
			rx = addrDep(rx, 0)
		}
		return shape{threads: [][]Event{{wr(X, 1, data), wr(Y, 1, flag)}, {rd(Y, rflag, ref(0, 1)), rx}}}
	}
	cases := []struct {
		name  string
		model string
		s     shape
		want  [][2]int
	}{
		{"plain data, relaxed flag", "rc11", mp(NA, Rlx, Rlx, false), [][2]int{{2, 5}}},
		{"plain data and flag", "rc11", mp(NA, NA, NA, false), [][2]int{{2, 5}, {3, 4}}},
		{"plain data, release/acquire flag", "rc11", mp(NA, Rel, Acq, false), nil},
		{"all atomic", "rc11", mp(Rlx, Rlx, Rlx, false), nil},
		{"plain reads only", "rc11", shape{threads: [][]Event{{rd(X, NA, InitRef(X))}, {rd(X, NA, InitRef(X))}}}, nil},
		{"one thread", "rc11", shape{threads: [][]Event{{wr(X, 1, NA), rd(X, NA, ref(0, 0))}}}, nil},
		{"spawn orders", "rc11", shape{threads: [][]Event{{wr(X, 1, NA), spawn(1)}, {rd(X, NA, ref(0, 0))}}}, nil},
		{"consume, dependent plain read", "rc11", mp(NA, Rel, Con, true), [][2]int{{2, 5}}},
		{"consume, dependent plain read", "rc11-consume", mp(NA, Rel, Con, true), nil},
		{"consume, independent plain read", "rc11-consume", mp(NA, Rel, Con, false), [][2]int{{2, 5}}},
		{"plain data, release/acquire flag", "sc", mp(NA, Rel, Acq, false), nil},
		{"plain data, relaxed flag", "tso", mp(NA, Rlx, Rlx, false), [][2]int{{2, 5}}},
	}
	for _, c := range cases {
		t.Run(c.model+"/"+c.name, func(t *testing.T) {
			m, err := Lookup(c.model)
			if err != nil {
				t.Fatal(err)
			}
			x := NewExec(c.s.graph())
			if got := DataRaces(x, m.HappensBefore(x)); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestRaceModel checks which model judges data races: a C11 model itself;
// for sc and tso, rc11, or rc11-consume when the program has a consume load
// (or a compare-exchange failing as one).
func TestRaceModel(t *testing.T) {
	prog := func(in Instr) *Program {
		return &Program{Threads: []Thread{{Code: []Instr{{Op: OpStore, Ord: Rel}, in}}}}
	}
	plain, consume := prog(Instr{Op: OpLoad, Ord: Acq}), prog(Instr{Op: OpLoad, Ord: Con})
	casCon := prog(Instr{Op: OpCAS, Ord: Acq, FailOrd: Con})
	cases := []struct {
		model string
		p     *Program
		want  string
	}{
		{"sc", plain, "rc11"}, {"sc", consume, "rc11-consume"}, {"tso", plain, "rc11"}, {"tso", casCon, "rc11-consume"},
		{"rc11", consume, "rc11"}, {"rc11-consume", plain, "rc11-consume"},
	}
	for _, c := range cases {
		t.Run(c.model+"/"+c.want, func(t *testing.T) {
			m, err := Lookup(c.model)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.RaceModel(c.p).Name; got != c.want {
				t.Errorf("RaceModel = %s, want %s", got, c.want)
			}
		})
	}
}

// TestCycle checks the cycles the hardware models name for message
// passing with release and acquire: ARM's STLR and LDAR, RVWMO's fences
// around the store and after the load, each with the observations between
// the threads.
func TestCycle(t *testing.T) {
	mp := shape{threads: [][]Event{{wr(X, 1, Rlx), wr(Y, 1, Rel)}, {rd(Y, Acq, ref(0, 1)), rd(X, Rlx, InitRef(X))}}}
	for _, c := range []struct {
		model, axiom string
		want         []string
	}{
		{"arm", "external", []string{"is read by another thread (rfe)", "load-acquire (LDAR) before", "reads what another thread overwrites (fre)", "store-release (STLR) after"}},
		{"riscv", "Model", []string{"a fence between them (r4)", "a fence between them (r4)", "is read by another thread (rfe)", "reads what is overwritten by (fr)"}},
		{"sc", "sc", []string{"po | rf | co | fr", "po | rf | co | fr", "po | rf | co | fr", "po | rf | co | fr"}},
	} {
		t.Run(c.model, func(t *testing.T) {
			m, err := Lookup(c.model)
			if err != nil {
				t.Fatal(err)
			}
			x := NewExec(mp.graph())
			cycle, edges := m.Cycle(x, c.axiom)
			if len(cycle) != len(edges) {
				t.Fatalf("%d events, %d edges", len(cycle), len(edges))
			}
			slices.Sort(edges)
			if !slices.Equal(edges, c.want) {
				t.Errorf("edges %q, want %q", edges, c.want)
			}
			if cycle, _ := m.Cycle(x, "no such axiom"); cycle != nil {
				t.Errorf("a cycle for an unknown axiom: %v", cycle)
			}
		})
	}
}
