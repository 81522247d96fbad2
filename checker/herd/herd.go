// Package herd runs litmus tests in herd7's terms: Run explores a
// program under a model and gives its final states, whether its final
// condition holds (Ok, No, or Undef when the model makes a data race
// undefined) and the numbers of executions that satisfy it and do not;
// Explain says why an outcome is allowed (a witness execution) or
// forbidden (the axioms that reject each candidate producing it).
// Package render prints a Result as herd7 does (render.Herd).
package herd

import (
	"fmt"
	"sort"
	"sync"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/graphs"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

// Result is the outcome of a litmus test under one model, in the terms
// herd7 reports it.
type Result struct {
	Prog  *model.Program
	Model *model.Model
	// States are the distinct final states, formatted as herd7 prints them
	// ("1:r0=1; [x]=2;"), sorted.
	States []string
	// Positive and Negative count the executions that satisfy and do not
	// satisfy the condition's proposition.
	Positive, Negative int64
	// Undef is set when some execution has a data race and the model makes
	// races undefined behaviour.
	Undef bool
	// Race holds a racing pair of the racy execution with the least
	// fingerprint (so that it does not depend on the exploration order).
	Race  [2]model.EventRef
	Stats explore.Stats
}

// RunFile reads the litmus test at path (litmus.ParseFile) and runs
// it under m (Run); an error of the run names the file.
func RunFile(path string, m *model.Model, opt explore.Options) (*Result, error) {
	p, err := litmus.ParseFile(path)
	if err != nil {
		return nil, err
	}
	res, err := Run(p, m, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// ExplainFile explains whether outcome, a condition on the final state of
// the litmus test at path ("1:r0=1 /\ 1:r1=0"), is allowed under m
// (Explain).
func ExplainFile(path, outcome string, m *model.Model, opt explore.Options) (*Explanation, error) {
	p, err := litmus.ParseFile(path)
	if err != nil {
		return nil, err
	}
	c, err := litmus.ParseCondition(p, outcome)
	if err != nil {
		return nil, err
	}
	return Explain(p, m, c, opt)
}

// Run explores p under m and evaluates its final condition.
func Run(p *model.Program, m *model.Model, opt explore.Options) (*Result, error) {
	res := &Result{Prog: p, Model: m}
	final := p.Final
	if final == nil {
		final = &model.Final{Quant: model.Forall, Cond: &model.Cond{Kind: model.CTrue}}
	}
	states := map[string]bool{}
	var mu sync.Mutex // the explorer's workers report executions concurrently
	raceKey := ""
	stats, err := graphs.Explore(engine.NewRunner(p, m, engine.Config{Options: opt, Races: m.RacesUndefined}, func(e *explore.Execution) {
		state, holds := p.FormatState(final.Show, &e.Final), final.Cond.Eval(&e.Final)
		mu.Lock()
		defer mu.Unlock()
		states[state] = true
		if holds {
			res.Positive++
		} else {
			res.Negative++
		}
		if len(e.Races) > 0 {
			if k := e.Graph.Key(); !res.Undef || k < raceKey {
				res.Undef, res.Race, raceKey = true, e.Races[0], k
			}
		}
	}))
	if err != nil {
		return nil, err
	}
	res.Stats = stats
	for s := range states {
		res.States = append(res.States, s)
	}
	sort.Strings(res.States)
	return res, nil
}

// Holds reports whether the condition holds, by its quantifier.
func (r *Result) Holds() bool {
	switch r.quant() {
	case model.Exists:
		return r.Positive > 0
	case model.NotExists:
		return r.Positive == 0
	}
	return r.Negative == 0
}

func (r *Result) quant() model.Quantifier {
	if r.Prog.Final == nil {
		return model.Forall
	}
	return r.Prog.Final.Quant
}

// Verdict is herd7's result line: Ok, No, or Undef.
func (r *Result) Verdict() string {
	switch {
	case r.Undef:
		return "Undef"
	case r.Holds():
		return "Ok"
	}
	return "No"
}

// Observation is herd7's summary: Never, Sometimes or Always.
func (r *Result) Observation() string {
	switch {
	case r.Positive == 0:
		return "Never"
	case r.Negative == 0:
		return "Always"
	}
	return "Sometimes"
}

// Quant is the quantifier of the test's condition (forall when it has none).
func (r *Result) Quant() model.Quantifier { return r.quant() }
