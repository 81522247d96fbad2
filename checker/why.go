package checker

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

// candidates accepts every graph: it turns the reference explorer into an
// enumerator of candidate executions, as herd7 builds them before it
// applies a model.
type candidates struct{}

func (candidates) Name() string             { return "candidates" }
func (candidates) Check(*model.Exec) string { return "" }
func (candidates) RacesUndefined() bool     { return false }

// Why explains whether a final outcome is allowed under m: by a witness
// execution when it is, and otherwise by the axioms that reject each
// candidate execution producing it.
func Why(p *model.Program, m model.Model, outcome *model.Cond, opt Options) (string, error) {
	var witness, example *Execution
	var exampleAxiom string
	byAxiom := map[string]int{}
	total := 0
	_, err := ExploreReference(p, candidates{}, opt, func(e *Execution) {
		if !outcome.Eval(&e.Final) {
			return
		}
		total++
		ax := m.Check(model.NewExec(e.Graph))
		if ax == "" {
			if witness == nil || e.Graph.Size() < witness.Graph.Size() {
				witness = e
			}
			return
		}
		byAxiom[ax]++
		if example == nil || e.Graph.Size() < example.Graph.Size() {
			example, exampleAxiom = e, ax
		}
	})
	if err != nil {
		return "", err
	}
	cond := outcome.Format(p)
	var b strings.Builder
	switch {
	case witness != nil:
		fmt.Fprintf(&b, "%s is allowed by %s; a witness execution:\n", cond, m.Name())
		b.WriteString(FormatWitness(&Witness{Execution: witness}, m))
	case total == 0:
		fmt.Fprintf(&b, "%s is forbidden by %s: no candidate execution produces it; its values could only come out of thin air (a cycle in po ∪ rf), which no-thin-air forbids\n", cond, m.Name())
	default:
		var parts []string
		for _, ax := range sortedAxioms(byAxiom) {
			parts = append(parts, fmt.Sprintf("%s (%d)", ax, byAxiom[ax]))
		}
		fmt.Fprintf(&b, "%s is forbidden by %s: each of the %d candidate executions producing it violates an axiom: %s\n", cond, m.Name(), total, strings.Join(parts, ", "))
		fmt.Fprintf(&b, "for instance, this one violates %s:\n", exampleAxiom)
		b.WriteString(FormatWitness(&Witness{Execution: example}, m))
	}
	return b.String(), nil
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

// Candidates returns the model that accepts every graph, so that
// ExploreReference enumerates all candidate executions (those without a
// cycle in po ∪ rf), for checking explorers and models against each other.
func Candidates() model.Model { return candidates{} }
