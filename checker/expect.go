package checker

import (
	"fmt"
	"slices"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// Expectations resolves the protocol's expect clauses over every
// registered model: one configuration per set of parameter overrides, each
// with the expected verdicts of its cells (variant × model).
func (p *Protocol) Expectations() ([]lang.Config, error) {
	return p.Protocol.Expectations(model.Names())
}

// Differences compares a report with a cell's expected verdicts: every
// property the cell lists is violated (by every execution, or final state
// of the state explorer, where it says so) and every other one holds. It
// returns how the report differs, nil when it does not; a property the
// search could not decide differs from any expectation.
func (r *Report) Differences(cell *lang.Cell) []string {
	var out []string
	for _, p := range r.Props {
		st := r.Stats
		if p.Stats != nil {
			st = *p.Stats
		}
		i := slices.IndexFunc(cell.Violated, func(v lang.Violation) bool { return v.Prop == p.Name })
		switch {
		case p.Status == Unknown:
			out = append(out, fmt.Sprintf("%s: no verdict (%s)", p.Name, p.Message))
		case i < 0 && p.Status == Violated:
			out = append(out, fmt.Sprintf("%s is violated, expected to hold: %s", p.Name, p.Message))
		case i >= 0 && p.Status == Holds:
			out = append(out, fmt.Sprintf("%s holds, expected to be violated", p.Name))
		case i >= 0 && cell.Violated[i].Every && p.Violations != st.Executions:
			out = append(out, fmt.Sprintf("%s is violated in %d of %d executions, expected in every one", p.Name, p.Violations, st.Executions))
		}
	}
	for _, v := range cell.Violated {
		if !slices.ContainsFunc(r.Props, func(p PropResult) bool { return p.Name == v.Prop }) {
			out = append(out, fmt.Sprintf("%s was not checked", v.Prop))
		}
	}
	return out
}
