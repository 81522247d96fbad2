package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ordercheck/ordercheck/checker/simulate"
	"github.com/ordercheck/ordercheck/model"
)

// Simulation writes a simulation's statistics, a bar chart of its final
// states, and the first counterexample of each violated property.
func Simulation(w io.Writer, s *simulate.Result, m *model.Model) {
	fmt.Fprintf(w, "%d runs, seed %d\n", s.Runs, s.Seed)
	if s.Interrupted {
		fmt.Fprintln(w, "interrupted: the statistics are those of the runs done")
	}
	if m.LoadBuffering {
		fmt.Fprintf(w, "note: runs follow program order and reads-from, so they never show a load reading a later store of its own thread (load buffering), which %s allows; explore finds those\n", m.Name)
	}
	fmt.Fprintln(w)
	width := 0
	for _, p := range s.Properties {
		width = max(width, len(p.Name))
	}
	for _, p := range s.Properties {
		line := fmt.Sprintf("  %-*s  %6d violations  p = %.4f  95%% CI [%.4f, %.4f]", width, p.Name, p.Violations, p.Probability, p.CILow, p.CIHigh)
		if p.Violations > 0 {
			line += fmt.Sprintf("  ~%.0f runs to the first failure", 1/p.Probability)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "\nfinal states:")
	sw := 0
	for _, o := range s.Outcomes {
		sw = max(sw, len(o.State))
	}
	for _, o := range s.Outcomes {
		bar := strings.Repeat("#", int(math.Round(o.Frequency*40)))
		fmt.Fprintf(w, "  %-*s  %6d  %6.2f%%  %s\n", sw, o.State, o.Count, 100*o.Frequency, bar)
	}
	for _, p := range s.Properties {
		if p.Witness != nil {
			fmt.Fprintf(w, "\ncounterexample for %s (%s):\n%s", p.Name, p.Witness.Violation.Msg, Witness(p.Witness))
		}
	}
}

// Against is a homogeneity test of a simulation against another: of
// another variant or model, as Label says.
type Against struct {
	Label string `json:"against"`
	simulate.Difference
}

// MarshalJSON writes the test's figures and whether the distributions
// differ at the 5% level.
func (a *Against) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Label  string  `json:"against"`
		Chi2   float64 `json:"chi2"`
		DF     int     `json:"df"`
		P      float64 `json:"p"`
		Differ bool    `json:"differ"`
	}{a.Label, a.Chi2, a.DF, a.P, a.Significant()})
}

// SimulationJSON is a simulation's JSON document, with its homogeneity
// test against another when there is one.
type SimulationJSON struct {
	*simulate.Result
	Against *Against `json:"homogeneity,omitempty"`
}

// Difference writes the result of a homogeneity test of two simulations.
func Difference(w io.Writer, a *Against) {
	verdict := "do not differ"
	if a.Significant() {
		verdict = "differ"
	}
	fmt.Fprintf(w, "\nagainst %s: the final-state distributions %s at the 5%% level (chi-square %.2f, df %d, p = %.4g)\n", a.Label, verdict, a.Chi2, a.DF, a.P)
}
