package checker_test

import (
	"fmt"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/checker/trace"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

// TestExplorerMatchesReference checks that the optimised explorer visits
// exactly the executions of the reference explorer, each once, under every
// model.
func TestExplorerMatchesReference(t *testing.T) {
	for _, spec := range []struct {
		name string
		gen  progtest.Spec
	}{{"litmus-sized", progtest.LitmusSized}, {"protocol-sized", progtest.ProtocolSized}, {"large", progtest.Large}} {
		t.Run(spec.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p := progtest.Program(t, spec.gen)
				for _, m := range model.All() {
					if m.LoadBuffering {
						continue // the reference builds executions in po ∪ rf order (see TestSpeculation)
					}
					_, fast := progtest.Outcomes(t, p, m, checker.Explore)
					_, ref := progtest.Outcomes(t, p, m, checker.ExploreReference)
					progtest.Same(t, p, m.Name+": the reference", ref, "the explorer", fast)
				}
			})
		})
	}
}

// TestMappingSoundness checks the hardware models against C11: the final
// states of a program's compiled code under arm and riscv are among those
// RC11 allows once its no-thin-air axiom (acyclic po | rf) is dropped —
// hardware does not forbid load buffering, and nothing else may differ.
func TestMappingSoundness(t *testing.T) {
	rc11 := *progtest.MustModel(t, "rc11")
	rc11.Name, rc11.Axioms, rc11.Fast, rc11.Machine, rc11.LoadBuffering = "rc11 without no-thin-air", rc11.Axioms[1:], nil, nil, true
	if rc11.Axioms[0].Name == "no-thin-air" {
		t.Fatal("rc11's axioms no longer start with no-thin-air")
	}
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.LitmusSized)
		c11, _ := progtest.Outcomes(t, p, &rc11, checker.Explore)
		for _, name := range []string{"arm", "riscv"} {
			hw, _ := progtest.Outcomes(t, p, progtest.MustModel(t, name), checker.Explore)
			if k, ok := progtest.Subset(hw, c11); !ok {
				t.Fatalf("final state %q is allowed by %s but not by %s:\n%s", k, name, rc11.Name, p)
			}
		}
	})
}

// TestModelInclusion checks the strength order the models declare (each
// model's Within): the final states a model allows are among those every
// model it is within allows (sc ⊆ tso ⊆ rc11, rc11-consume ⊆ rc11, sc ⊆
// arm, sc ⊆ riscv; TestTSONotWithinRISCV says why not tso ⊆ riscv).
func TestModelInclusion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.LitmusSized)
		finals := map[string]map[string]bool{}
		for _, m := range model.All() {
			finals[m.Name], _ = progtest.Outcomes(t, p, m, checker.Explore)
		}
		for _, m := range model.All() {
			for _, weaker := range m.Within {
				if k, ok := progtest.Subset(finals[m.Name], finals[weaker.Name]); !ok {
					t.Fatalf("final state %q is allowed by %s but not by %s, which it is within:\n%s", k, m.Name, weaker, p)
				}
			}
		}
	})
}

// TestTSONotWithinRISCV pins the program the inclusion law found against
// tso ⊆ riscv: b's plain store to x0 and its seq_cst load of x1 pass each
// other under x86-TSO (the C11 mapping fences after seq_cst stores, not
// before loads) but not under RVWMO (a fence rw,rw comes before a seq_cst
// load), so c can see a's store to x1 and not b's to x0 on x86 only.
func TestTSONotWithinRISCV(t *testing.T) {
	pr, err := checker.Parse("tso-riscv.oc", `protocol tsoriscv
shared x0 = 0
shared x1 = 0
property never
thread a {
  r = x0
  x1 = 1
}
thread b {
  x0 = 1
  r = x0
  s = load(x1, sc)
}
thread c {
  r = load(x1, acq)
  s = x0
}
final never: !(a.r == 0 && b.r == 1 && b.s == 0 && c.r == 1 && c.s == 0)
`)
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model string
		want  checker.Status
	}{{"tso", checker.Violated}, {"riscv", checker.Holds}, {"sc", checker.Holds}} {
		rep, err := checker.Check(in.Prog, progtest.MustModel(t, c.model), checker.Properties(nil, "never"), explore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Props[0].Status; got != c.want {
			t.Errorf("under %s the outcome is %s, want %s", c.model, got, c.want)
		}
	}
}

var stronger = map[model.Op]map[model.Ordering][]model.Ordering{
	model.OpLoad:  {model.NA: {model.Rlx}, model.Rlx: {model.Con, model.Acq}, model.Con: {model.Acq}, model.Acq: {model.SeqCst}},
	model.OpStore: {model.NA: {model.Rlx}, model.Rlx: {model.Rel}, model.Rel: {model.SeqCst}},
	model.OpRMW:   {model.Rlx: {model.Acq, model.Rel}, model.Acq: {model.AcqRel}, model.Rel: {model.AcqRel}, model.AcqRel: {model.SeqCst}},
	model.OpFence: {model.Rlx: {model.Acq, model.Rel}, model.Acq: {model.AcqRel}, model.Rel: {model.AcqRel}, model.AcqRel: {model.SeqCst}},
}

// TestStrongerOrderingNeverAddsStates checks that strengthening one access
// or fence never adds a final state, under every model.
func TestStrongerOrderingNeverAddsStates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.LitmusSized)
		q, site := strengthenOne(t, p)
		if q == nil {
			return
		}
		for _, m := range model.All() {
			weak, _ := progtest.Outcomes(t, p, m, checker.Explore)
			strong, _ := progtest.Outcomes(t, q, m, checker.Explore)
			if k, ok := progtest.Subset(strong, weak); !ok {
				t.Fatalf("%s: strengthening %s adds final state %q:\n%s", m.Name, site, k, p)
			}
		}
	})
}

// strengthenOne returns p with one access or fence made stronger, and
// which; nil when nothing can be.
func strengthenOne(t *rapid.T, p *model.Program) (*model.Program, string) {
	type site struct{ t, i int }
	var sites []site
	for ti, th := range p.Threads {
		for i, in := range th.Code {
			if len(stronger[in.Op][in.Ord]) > 0 {
				sites = append(sites, site{ti, i})
			}
		}
	}
	if len(sites) == 0 {
		return nil, ""
	}
	s := rapid.SampledFrom(sites).Draw(t, "site")
	q := cloneProgram(p)
	in := &q.Threads[s.t].Code[s.i]
	from := in.Ord
	in.Ord = rapid.SampledFrom(stronger[in.Op][in.Ord]).Draw(t, "stronger")
	return q, fmt.Sprintf("instruction %d of thread %d from %s to %s", s.i, s.t, from, in.Ord)
}

func cloneProgram(p *model.Program) *model.Program {
	q := *p
	q.Threads = make([]model.Thread, len(p.Threads))
	for i, th := range p.Threads {
		th.Code = append([]model.Instr(nil), th.Code...)
		q.Threads[i] = th
	}
	return &q
}

// TestExplorerMatchesAxioms checks the explorer against the models read as
// plain predicates: every candidate execution (any reads-from, any
// modification order, as herd7 enumerates them) that the model accepts is
// explored, and nothing else is. The candidates come from herdCandidates,
// which guesses every value a read may return, so that they include the
// executions with a po ∪ rf cycle that the load-buffering models allow.
func TestExplorerMatchesAxioms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.LitmusSized)
		accepted := make([]map[string]string, len(model.All()))
		for i := range accepted {
			accepted[i] = map[string]string{}
		}
		err := herdCandidates(p, 20000, func(g *model.Graph) {
			x := model.NewExec(g)
			for i, m := range model.All() {
				if m.Check(x) == "" {
					accepted[i][g.Key()] = g.String()
				}
			}
		})
		if err != nil {
			t.Skip(err)
		}
		for i, m := range model.All() {
			_, explored := progtest.Outcomes(t, p, m, checker.Explore)
			progtest.Same(t, p, m.Name+"'s axioms", accepted[i], "the explorer", explored)
		}
	})
}

// TestStrongerOrderingNeverAddsRaces checks that strengthening one access
// or fence never adds a data race.
func TestStrongerOrderingNeverAddsRaces(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.LitmusSized)
		q, site := strengthenOne(t, p)
		if q == nil {
			return
		}
		for _, m := range model.All() {
			if racy(t, q, m) && !racy(t, p, m) {
				t.Fatalf("%s: strengthening %s adds a data race:\n%s", m.Name, site, p)
			}
		}
	})
}

func racy(t *rapid.T, p *model.Program, m *model.Model) bool {
	found := false
	st, err := checker.ExploreRaces(p, m, explore.Options{MaxGraphs: 50000}, func(e *explore.Execution) {
		found = found || len(e.Races) > 0
	})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Exhaustive() {
		t.Skip("exploration exceeds the budget")
	}
	return found
}

// TestCounterexamplesReplay checks that every counterexample, written as a
// trace and rebuilt from it, shows the same violation again.
func TestCounterexamplesReplay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.ProtocolSized)
		for _, m := range model.All() {
			rep, err := checker.Check(p, m, []checker.Property{checker.DataRace, checker.Deadlock}, explore.Options{MaxGraphs: 50000})
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range rep.Props {
				if pr.Witness == nil {
					continue
				}
				tr := trace.New(pr.Witness)
				g, err := tr.Rebuild(p)
				if err != nil {
					t.Fatalf("%s: %v\n%s", pr.Name, err, p)
				}
				if g.Key() != pr.Witness.Graph.Key() {
					t.Fatalf("%s: the rebuilt execution differs:\n%s\nrecorded:\n%s", pr.Name, g, pr.Witness.Graph)
				}
				w, reason, err := tr.Judge(g, pr.Witness.Model, []checker.Property{checker.DataRace, checker.Deadlock})
				if err != nil || w == nil {
					t.Fatalf("%s does not reproduce: %v %s\n%s", pr.Name, err, reason, p)
				}
			}
		}
	})
}

// TestPreemptionBounding checks that preemption-bounded exploration finds a
// subset of the executions, all of them once the bound is large enough,
// and says it was bounded exactly when it cut a schedule.
func TestPreemptionBounding(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.LitmusSized)
		m := progtest.MustModel(t, "rc11")
		_, all := progtest.Outcomes(t, p, m, checker.Explore)
		for _, k := range []int{0, 1, 100} {
			got := map[string]string{}
			st, err := checker.Explore(p, m, explore.Options{Preemptions: true, PreemptionBound: k, MaxGraphs: 50000}, func(e *explore.Execution) {
				if _, dup := got[e.Graph.Key()]; dup {
					t.Fatalf("bound %d: execution reported twice", k)
				}
				got[e.Graph.Key()] = e.Graph.String()
			})
			if err != nil {
				t.Fatal(err)
			}
			if st.Limit == explore.MaxGraphs {
				t.Skip("exploration exceeds the budget")
			}
			if key, ok := progtest.Subset(got, all); !ok {
				t.Fatalf("bound %d finds an execution the explorer does not:\n%s", k, got[key])
			}
			if k == 100 && len(got) != len(all) {
				t.Fatalf("a bound of 100 preemptions finds %d of %d executions", len(got), len(all))
			}
			if st.Exhaustive() && len(got) != len(all) {
				t.Fatalf("bound %d reports exhaustive with %d of %d executions", k, len(got), len(all))
			}
		}
	})
}

// TestParallelMatchesSequential checks that exploring on two workers visits
// exactly the executions of the sequential explorer, and that Check's
// verdicts and witnesses do not depend on the order they are found in.
func TestParallelMatchesSequential(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.ProtocolSized)
		m := rapid.SampledFrom(model.All()).Draw(t, "model")
		var mu sync.Mutex
		parallel := func(p *model.Program, m *model.Model, opt explore.Options, visit func(*explore.Execution)) (explore.Stats, error) {
			// A count bound would make one worker explore (its cut depends
			// on the order of the search); the sequential run found the
			// program within it.
			opt.Workers, opt.MaxGraphs = 2, 0
			return checker.Explore(p, m, opt, func(e *explore.Execution) {
				mu.Lock()
				defer mu.Unlock()
				visit(e)
			})
		}
		_, seq := progtest.Outcomes(t, p, m, checker.Explore)
		_, par := progtest.Outcomes(t, p, m, parallel)
		progtest.Same(t, p, m.Name+": the sequential explorer", seq, "the parallel one", par)
		props := []checker.Property{checker.DataRace, checker.Deadlock}
		a, err := checker.Check(p, m, props, explore.Options{Engine: explore.EngineDPOR, MaxGraphs: 50000})
		if err != nil {
			t.Fatal(err)
		}
		b, err := checker.Check(p, m, props, explore.Options{Engine: explore.EngineDPOR, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if a.Stats.Executions != b.Stats.Executions || a.Stats.Graphs != b.Stats.Graphs {
			t.Fatalf("sequential %v, parallel %v", a.Stats, b.Stats)
		}
		for i := range a.Props {
			x, y := a.Props[i], b.Props[i]
			if x.Status != y.Status || x.Violations != y.Violations || x.Message != y.Message ||
				(x.Witness == nil) != (y.Witness == nil) || x.Witness != nil && x.Witness.Graph.Key() != y.Witness.Graph.Key() {
				t.Fatalf("%s: sequential %s (%q), parallel %s (%q)", x.Name, x.Status, x.Message, y.Status, y.Message)
			}
		}
	})
}

// TestPresentationFollowsPSC checks that counterexamples present seq_cst
// events in an order psc allows: for every RC11 execution whose po ∪ rf ∪
// psc is acyclic, the presentation puts each psc pair in its order (two
// seq_cst fences once came out reversed).
func TestPresentationFollowsPSC(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := progtest.Program(t, progtest.LitmusSized)
		for _, m := range model.All() {
			if m.Order == nil {
				continue
			}
			_, err := checker.Explore(p, m, explore.Options{MaxGraphs: 50000}, func(e *explore.Execution) {
				x := model.NewExec(e.Graph)
				psc := x.Of(m.Order)
				if !x.Po.Union(x.Rf, psc).Acyclic() {
					return
				}
				at := map[int]int{}
				for k, r := range e.Graph.StepsBy(x, psc) {
					at[x.Index(r)] = k
				}
				psc.Each(func(a, b int) {
					if a != b && at[a] > at[b] {
						t.Fatalf("%s: the presentation puts %v before %v, against psc:\n%s", m.Name, x.Refs[b], x.Refs[a], e.Graph)
					}
				})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestFastMatchesAxioms checks each model's fast consistency check against
// its axioms, the definition: on every candidate execution (any rf, any co)
// of random programs, where the fast check decides, it decides alike.
func TestFastMatchesAxioms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var p *model.Program
		switch rapid.IntRange(0, 3).Draw(t, "shape") {
		case 0:
			p = progtest.Program(t, rapid.SampledFrom([]progtest.Spec{progtest.LitmusSized, progtest.ProtocolSized}).Draw(t, "size"))
		case 1:
			p = progtest.Guarded(t)
		case 2:
			p = progtest.Spawning(t)
		default:
			p = progtest.Chain(t)
		}
		if !fastMatchesAxioms(t, p) {
			t.Skip("too many candidates")
		}
	})
}

// TestFastMatchesAxiomsCorpus checks the fast consistency checks against
// the axioms on every candidate execution of the herd7 corpus's tests and
// the classic shapes.
func TestFastMatchesAxiomsCorpus(t *testing.T) {
	for _, f := range progtest.LitmusFiles(t) {
		p, err := litmus.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !fastMatchesAxioms(t, p) {
			t.Logf("%s: too many candidates", f)
		}
	}
}

// fastMatchesAxioms compares every model's fast check with its axioms on
// every candidate execution of p; false when there are too many.
func fastMatchesAxioms(t interface {
	Fatalf(string, ...any)
}, p *model.Program) bool {
	st, err := checker.ExploreReference(p, checker.Candidates(), explore.Options{MaxGraphs: 50000}, func(e *explore.Execution) {
		for _, m := range model.All() {
			if m.Fast == nil {
				continue
			}
			ok, decided := m.Fast(e.Graph)
			if axiom := m.Check(model.NewExec(e.Graph)); decided && ok != (axiom == "") {
				t.Fatalf("%s: the fast check says consistent=%v, the axioms %q:\n%s\n%s", m.Name, ok, axiom, p, e.Graph)
			}
		}
	})
	if err != nil {
		t.Fatalf("%v", err)
	}
	return st.Exhaustive()
}
