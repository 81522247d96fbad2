package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/herd"
	"github.com/ordercheck/ordercheck/model"
)

// Herd writes a litmus result in herd7's output format.
func Herd(w io.Writer, r *herd.Result) {
	name := r.Prog.Name
	q := r.Quant()
	kind := map[model.Quantifier]string{model.Exists: "Allowed", model.NotExists: "Forbidden", model.Forall: "Required"}[q]
	fmt.Fprintf(w, "Test %s %s\n", name, kind)
	if !r.Stats.Exhaustive() {
		fmt.Fprintf(w, "Bounded %s: the states below are incomplete and no verdict is given\n", r.Stats.LimitText())
	}
	fmt.Fprintf(w, "States %d\n", len(r.States))
	for _, s := range r.States {
		fmt.Fprintln(w, s)
	}
	verdict := r.Verdict()
	if !r.Stats.Exhaustive() {
		verdict = "Unknown"
	}
	fmt.Fprintln(w, verdict)
	pos, neg := r.Positive, r.Negative
	if q == model.NotExists {
		pos, neg = neg, pos
	}
	fmt.Fprintf(w, "Witnesses\nPositive: %d Negative: %d\n", pos, neg)
	if r.Undef {
		fmt.Fprintln(w, "Flag *undef*")
	}
	cond := "true"
	if r.Prog.Final != nil {
		cond = r.Prog.Final.Cond.Format(r.Prog)
	}
	fmt.Fprintf(w, "Condition %s (%s)\n", q, cond)
	fmt.Fprintf(w, "Observation %s %s %d %d\n", name, r.Observation(), r.Positive, r.Negative)
	fmt.Fprintf(w, "Time %s %.2f\n\n", name, r.Stats.Elapsed.Round(10*time.Millisecond).Seconds())
}

// Explanation writes why an outcome is allowed or forbidden.
func Explanation(w io.Writer, x *herd.Explanation) {
	cond := x.Outcome.Format(x.Prog)
	m := x.Model
	switch {
	case x.Allowed():
		fmt.Fprintf(w, "%s is allowed by %s; a witness execution:\n", cond, m.Name)
		fmt.Fprint(w, Witness(&explore.Witness{Execution: x.Witness}))
	case x.Candidates == 0:
		if m.LoadBuffering {
			fmt.Fprintf(w, "%s is forbidden by %s: no candidate execution coherent per location produces it\n", cond, m.Name)
		} else {
			fmt.Fprintf(w, "%s is forbidden by %s: no candidate execution produces it; its values could only come out of thin air (a cycle in po ∪ rf), which no-thin-air forbids\n", cond, m.Name)
		}
	default:
		var parts []string
		for _, ax := range x.Axioms() {
			parts = append(parts, fmt.Sprintf("%s (%d)", ax, x.ByAxiom[ax]))
		}
		fmt.Fprintf(w, "%s is forbidden by %s: each of the %d candidate executions producing it violates an axiom: %s\n", cond, m.Name, x.Candidates, strings.Join(parts, ", "))
		fmt.Fprintf(w, "for instance, this one violates %s:\n", x.Axiom)
		ex := &explore.Witness{Execution: x.Example}
		fmt.Fprint(w, Witness(ex))
		if line := cycleLine(ex, x.Axiom); line != "" {
			fmt.Fprintln(w, line)
		}
	}
}

// cycleLine names the cycle by which a candidate violates the
// acyclicity axiom named axiom, in its model's terms where the model
// names the parts of the axiom ("step 2 —control dependency to a write→
// step 4 —…→ step 2"); "" when the axiom is not one of acyclicity.
func cycleLine(w *explore.Witness, axiom string) string {
	x, refs := presentation(w)
	cycle, edges := w.Model.Cycle(x, axiom)
	if cycle == nil {
		return ""
	}
	num := map[model.EventRef]int{}
	for i, r := range refs {
		num[r] = i + 1
	}
	name := func(i int) string {
		r := x.Refs[i]
		if r.IsInit() {
			return "init " + x.G.Prog.Locs[r.I].Name
		}
		if n, ok := num[r]; ok {
			return fmt.Sprintf("step %d", n)
		}
		return "an event left out"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "       the cycle: %s", name(cycle[0]))
	for k := range cycle {
		fmt.Fprintf(&b, " —%s→ %s", edges[k], name(cycle[(k+1)%len(cycle)]))
	}
	return b.String()
}
