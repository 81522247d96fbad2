package progtest

import (
	"sort"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// Explorer is an engine's entry point: checker.Explore, the reference
// explorer, speculation.
type Explorer func(*model.Program, *model.Model, explore.Options, func(*explore.Execution)) (explore.Stats, error)

// MustModel looks up a registered model, failing t when there is none.
func MustModel(t interface{ Fatal(...any) }, name string) *model.Model {
	m, err := model.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Outcomes explores p and returns its final states (all registers and
// locations) and the fingerprints of its executions, failing on duplicates.
//
// Programs whose exploration exceeds a budget of partial graphs are skipped,
// so that a rare large draw cannot stall the suite.
func Outcomes(t *rapid.T, p *model.Program, m *model.Model, run Explorer) (states map[string]bool, graphs map[string]string) {
	states, graphs = map[string]bool{}, map[string]string{}
	st, err := run(p, m, explore.Options{MaxGraphs: 50000}, func(e *explore.Execution) {
		key := e.Graph.Key()
		if _, dup := graphs[key]; dup {
			t.Fatalf("%s: execution visited twice:\n%s", m.Name, e.Graph)
		}
		graphs[key] = e.Graph.String()
		states[p.FormatState(p.Final.Show, &e.Final)] = true
	})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Exhaustive() {
		t.Skipf("%s: exploration exceeds the budget (%s)", m.Name, st.Limit)
	}
	return states, graphs
}

// Subset reports whether a's keys are all b's, and else the first that is not.
func Subset[V any](a map[string]V, b map[string]V) (string, bool) {
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

// Same fails unless two explorations of p found the same executions.
func Same(t *rapid.T, p *model.Program, aName string, a map[string]string, bName string, b map[string]string) {
	t.Helper()
	if k, ok := Subset(a, b); !ok {
		t.Fatalf("%s finds an execution %s misses:\n%s\n%s", aName, bName, p, a[k])
	}
	if k, ok := Subset(b, a); !ok {
		t.Fatalf("%s finds an execution %s misses:\n%s\n%s", bName, aName, p, b[k])
	}
}

// Machines returns the registered models that have an operational form:
// the state explorer runs them.
func Machines() []*model.Model {
	var out []*model.Model
	for _, m := range model.All() {
		if m.Machine != nil {
			out = append(out, m)
		}
	}
	return out
}
