package checker

import (
	"fmt"
	"strings"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// linViolation judges h by spec and says, when it does not linearize,
// why: the order no results fit, or the synchronisation that is missing.
// It returns nil when h linearizes.
func linViolation(p *model.Program, spec model.Spec, h *model.History) *explore.Violation {
	lin := model.Linearize(spec, h)
	if lin.OK {
		return nil
	}
	return &explore.Violation{Prop: PropLinearizability, History: h, Lin: lin, Msg: linMessage(p, spec, h, lin)}
}

// linMessage says in words why h does not linearize (lin is its
// judgement by spec): which operations happen before which, and either
// where every order the specification tried stopped, or the
// synchronisation the specification promises that the execution lacks.
func linMessage(p *model.Program, spec model.Spec, h *model.History, lin *model.Linearization) string {
	name := func(i int) string {
		return p.Threads[h.Ops[i].Thread].Name + "'s " + spec.Describe(&h.Ops[i])
	}
	short := func(i int) string { return spec.Describe(&h.Ops[i]) }
	var b strings.Builder
	if lin.Missing != nil {
		var order []string
		for _, i := range lin.Order {
			order = append(order, short(i))
		}
		fmt.Fprintf(&b, "the results fit the order %s, but the implementation lacks synchronisation the specification promises: ", strings.Join(order, ", "))
		for k, m := range lin.Missing {
			if k > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s does not happen before %s returns (%s takes what %s published)", name(m.From), name(m.To), short(m.To), short(m.From))
		}
		return b.String()
	}
	var ops []string
	for i := range h.Ops {
		ops = append(ops, p.Threads[h.Ops[i].Thread].Name+": "+short(i))
	}
	fmt.Fprintf(&b, "no order of [%s] that extends happens-before", strings.Join(ops, ", "))
	if edges := h.Order(); len(edges) > 0 {
		var parts []string
		for _, e := range edges {
			parts = append(parts, fmt.Sprintf("%s returns before %s is called", name(e.From), name(e.To)))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, "; "))
	}
	b.WriteString(" gives these results: ")
	for k, d := range lin.DeadEnds {
		if k > 0 {
			b.WriteString("; ")
		}
		if len(d.Prefix) == 0 {
			b.WriteString("from its initial state")
		} else {
			var prefix []string
			for _, i := range d.Prefix {
				prefix = append(prefix, short(i))
			}
			fmt.Fprintf(&b, "after %s", strings.Join(prefix, ", "))
		}
		if st := spec.DescribeState(d.State); st != "" {
			fmt.Fprintf(&b, " (%s)", st)
		}
		var refused []string
		for _, i := range d.Refused {
			refused = append(refused, short(i))
		}
		fmt.Fprintf(&b, " the specification refuses %s", strings.Join(refused, " and "))
	}
	return b.String()
}

// linAnchors returns the events that show why h does not linearize: the
// call and the return of each missing synchronisation, or the markers of
// every operation.
func linAnchors(h *model.History, lin *model.Linearization) []model.EventRef {
	var out []model.EventRef
	add := func(r model.EventRef) {
		if r.T >= 0 {
			out = append(out, r)
		}
	}
	if lin.Missing != nil {
		for _, m := range lin.Missing {
			add(h.Ops[m.From].Call)
			add(h.Ops[m.To].Ret)
		}
		return out
	}
	for _, op := range h.Ops {
		if op.Pending {
			add(op.Call)
		} else {
			add(op.Ret)
		}
	}
	return out
}
