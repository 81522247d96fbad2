package herd

import (
	"sort"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/model"
)

// Explanation says whether an outcome is allowed under a model, and why.
type Explanation struct {
	Prog    *model.Program
	Model   *model.Model
	Outcome *model.Cond
	// Witness is a smallest execution producing the outcome, when the
	// model allows one.
	Witness *explore.Execution
	// Candidates counts the candidate executions producing the outcome;
	// ByAxiom how many of them each axiom rejects (the first it violates),
	// and Example is a smallest one that Axiom rejects.
	Candidates int
	ByAxiom    map[string]int
	Example    *explore.Execution
	Axiom      string
}

// Allowed reports whether the model allows the outcome.
func (x *Explanation) Allowed() bool { return x.Witness != nil }

// Axioms lists the axioms that reject candidates, most first.
func (x *Explanation) Axioms() []string { return sortedAxioms(x.ByAxiom) }

// Explain explains whether a final outcome is allowed under m: by a
// witness execution when it is, and otherwise by the axioms that reject
// each candidate execution producing it. It explores on one worker
// (whatever opt.Workers says): the candidates are counted, and the
// witness is the first found, in one order.
func Explain(p *model.Program, m *model.Model, outcome *model.Cond, opt explore.Options) (*Explanation, error) {
	opt.Workers = 0
	x := &Explanation{Prog: p, Model: m, Outcome: outcome, ByAxiom: map[string]int{}}
	cands, run := graphs.Candidates, graphs.Reference
	if m.LoadBuffering {
		// Cycles in po ∪ rf are the model's to judge: enumerate those
		// candidates too, by speculation (which builds only candidates
		// coherent per location, as every model requires).
		c := *cands
		c.LoadBuffering = true
		cands, run = &c, graphs.Explore
	}
	_, err := run(engine.NewRunner(p, cands, engine.Config{Options: opt}, func(e *explore.Execution) {
		if !outcome.Eval(&e.Final) {
			return
		}
		x.Candidates++
		ax := m.Check(model.NewExec(e.Graph))
		if ax == "" {
			if x.Witness == nil || e.Graph.Size() < x.Witness.Graph.Size() {
				x.Witness = e
			}
			return
		}
		x.ByAxiom[ax]++
		if x.Example == nil || e.Graph.Size() < x.Example.Graph.Size() {
			x.Example, x.Axiom = e, ax
		}
	}))
	if err != nil {
		return nil, err
	}
	// The candidates were enumerated under no model: present them under m.
	for _, e := range []*explore.Execution{x.Witness, x.Example} {
		if e != nil {
			e.Model = m
		}
	}
	return x, nil
}

func sortedAxioms(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
