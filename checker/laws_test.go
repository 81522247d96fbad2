package checker_test

import (
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
)

var modelNames = []string{"sc", "tso", "rc11"}

func mustModel(t interface{ Fatal(...any) }, name string) model.Model {
	m, err := model.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// outcomes explores p and returns its final states (all registers and
// locations) and the fingerprints of its executions, failing on duplicates.
//
// Programs whose exploration exceeds a budget of partial graphs are skipped,
// so that a rare large draw cannot stall the suite.
func outcomes(t *rapid.T, p *model.Program, m model.Model, explore func(*model.Program, model.Model, checker.Options, func(*checker.Execution)) (checker.Stats, error)) (states map[string]bool, graphs map[string]string) {
	states, graphs = map[string]bool{}, map[string]string{}
	st, err := explore(p, m, checker.Options{MaxGraphs: 50000}, func(e *checker.Execution) {
		key := e.Graph.Key()
		if _, dup := graphs[key]; dup {
			t.Fatalf("%s: execution visited twice:\n%s", m.Name(), e.Graph)
		}
		graphs[key] = e.Graph.String()
		states[checker.FormatState(p, p.Final.Show, &e.Final)] = true
	})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Exhaustive() {
		t.Skipf("%s: exploration exceeds the budget (%s)", m.Name(), st.Limit)
	}
	return states, graphs
}

func subset[V any](a map[string]V, b map[string]V) (string, bool) {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := b[k]; !ok {
			return k, false
		}
	}
	return "", true
}

// TestExplorerMatchesReference checks that the optimised explorer visits
// exactly the executions of the reference explorer, each once, under every
// model.
func TestExplorerMatchesReference(t *testing.T) {
	for _, spec := range []struct {
		name string
		gen  genSpec
	}{{"litmus-sized", litmusSized}, {"protocol-sized", protocolSized}, {"large", largeSpec}} {
		t.Run(spec.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p := genProgram(t, spec.gen)
				for _, name := range modelNames {
					m := mustModel(t, name)
					_, fast := outcomes(t, p, m, checker.Explore)
					_, ref := outcomes(t, p, m, checker.ExploreReference)
					if k, ok := subset(ref, fast); !ok {
						t.Fatalf("%s: the explorer misses an execution the reference finds:\n%s\n%s", name, p, ref[k])
					}
					if k, ok := subset(fast, ref); !ok {
						t.Fatalf("%s: the explorer finds an execution the reference does not:\n%s\n%s", name, p, fast[k])
					}
				}
			})
		})
	}
}

// TestModelInclusion checks that the final states under sc are among those
// under tso, and those under tso among those under rc11.
func TestModelInclusion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram(t, litmusSized)
		var prev map[string]bool
		for _, name := range modelNames {
			states, _ := outcomes(t, p, mustModel(t, name), checker.Explore)
			if prev != nil {
				if k, ok := subset(prev, states); !ok {
					t.Fatalf("final state %q is allowed by a stronger model but not by %s:\n%s", k, name, p)
				}
			}
			prev = states
		}
	})
}

var stronger = map[model.Op]map[model.Ordering][]model.Ordering{
	model.OpLoad:  {model.NA: {model.Rlx}, model.Rlx: {model.Con, model.Acq}, model.Con: {model.Acq}, model.Acq: {model.SC}},
	model.OpStore: {model.NA: {model.Rlx}, model.Rlx: {model.Rel}, model.Rel: {model.SC}},
	model.OpRMW:   {model.Rlx: {model.Acq, model.Rel}, model.Acq: {model.AcqRel}, model.Rel: {model.AcqRel}, model.AcqRel: {model.SC}},
	model.OpFence: {model.Rlx: {model.Acq, model.Rel}, model.Acq: {model.AcqRel}, model.Rel: {model.AcqRel}, model.AcqRel: {model.SC}},
}

// TestStrongerOrderingNeverAddsStates checks that strengthening one access
// or fence never adds a final state, under every model.
func TestStrongerOrderingNeverAddsStates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram(t, litmusSized)
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
			return
		}
		s := rapid.SampledFrom(sites).Draw(t, "site")
		q := cloneProgram(p)
		in := &q.Threads[s.t].Code[s.i]
		in.Ord = rapid.SampledFrom(stronger[in.Op][in.Ord]).Draw(t, "stronger")
		for _, name := range modelNames {
			m := mustModel(t, name)
			weak, _ := outcomes(t, p, m, checker.Explore)
			strong, _ := outcomes(t, q, m, checker.Explore)
			if k, ok := subset(strong, weak); !ok {
				t.Fatalf("%s: making instruction %d of thread %d %s adds final state %q:\n%s", name, s.i, s.t, in.Ord, k, p)
			}
		}
	})
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
