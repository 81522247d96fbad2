package lang

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

// Config is one configuration of a protocol's expectations: parameter
// overrides and the expected verdict of each of its cells.
type Config struct {
	Params []Bind // the "with" overrides, sorted by name; none: the default parameters
	Cells  []Cell // variants in declaration order, each under the models in the order given
}

// Cell is the expected verdict of one variant under one model.
type Cell struct {
	Variant  string // "" when the protocol declares no variants
	Model    string
	Violated []Violation // in declaration order; none: every property holds
	Clause   *Expect     // the clause that decided the cell; nil: no clause selects it
}

// Overrides returns the configuration's parameters as Compile takes them.
func (c *Config) Overrides() map[string]string {
	if len(c.Params) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, b := range c.Params {
		m[b.Param] = b.Value.Text
	}
	return m
}

// Expectations resolves the expect clauses over models (the names of the
// memory models to check): one configuration per distinct "with" set, the
// default parameters first, then in the order the clauses first name them.
// A clause naming a model not in models is an error; a cell that no clause
// selects has a nil Clause, and the caller decides whether that is fine.
func (pr *Protocol) Expectations(models []string) ([]Config, error) {
	for _, e := range pr.Expects {
		for i, m := range e.Models {
			if !slices.Contains(models, m) {
				return nil, errAt(at(e.modelAt, i, e.Pos), "model %s is not among the models checked (%s)", m, strings.Join(models, ", "))
			}
		}
	}
	variants := []string{""}
	if len(pr.Variants) > 0 {
		variants = variants[:0]
		for _, v := range pr.Variants {
			variants = append(variants, v.Name)
		}
	}
	order := map[string]int{}
	for i, p := range pr.Props {
		order[p.Name] = i
	}
	configs := []Config{{}}
	index := map[string]int{"": 0}
	for _, e := range pr.Expects {
		k := e.paramKey()
		if _, ok := index[k]; !ok {
			index[k] = len(configs)
			params := slices.Clone(e.Params)
			sort.Slice(params, func(i, j int) bool { return params[i].Param < params[j].Param })
			configs = append(configs, Config{Params: params})
		}
	}
	for ci := range configs {
		c := &configs[ci]
		key := paramKeyOf(c.Params)
		for _, v := range variants {
			for _, m := range models {
				cell := Cell{Variant: v, Model: m}
				for _, e := range pr.Expects {
					if e.paramKey() == key && e.selects(v, m) && (cell.Clause == nil || e.rank() > cell.Clause.rank()) {
						cell.Clause = e
					}
				}
				if cell.Clause != nil && len(cell.Clause.Violated) > 0 {
					cell.Violated = slices.Clone(cell.Clause.Violated)
					sort.SliceStable(cell.Violated, func(i, j int) bool {
						return order[cell.Violated[i].Prop] < order[cell.Violated[j].Prop]
					})
				}
				c.Cells = append(c.Cells, cell)
			}
		}
	}
	return configs, nil
}

// String prints the clause as it is written in a protocol file.
func (e *Expect) String() string {
	var b strings.Builder
	b.WriteString("expect ")
	if e.Variants == nil {
		b.WriteString("*")
	} else {
		b.WriteString(strings.Join(e.Variants, ", "))
	}
	if len(e.Params) > 0 {
		b.WriteString(" with")
		for _, p := range e.Params {
			fmt.Fprintf(&b, " %s", p)
		}
	}
	if e.Models != nil {
		b.WriteString(" under " + strings.Join(e.Models, ", "))
	}
	if len(e.Violated) == 0 {
		b.WriteString(": holds")
		return b.String()
	}
	b.WriteString(": violates ")
	for i, v := range e.Violated {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.Prop)
		if v.Every {
			b.WriteString(" (every execution)")
		}
	}
	return b.String()
}

// rank orders clauses that select the same cell: explicit variants beat
// "*", and then a clause with "under" beats one without.
func (e *Expect) rank() int {
	r := 0
	if e.Variants != nil {
		r += 2
	}
	if e.Models != nil {
		r++
	}
	return r
}

// selects reports whether the clause selects variant under model, its
// parameters aside.
func (e *Expect) selects(variant, m string) bool {
	return (e.Variants == nil || slices.Contains(e.Variants, variant)) &&
		(e.Models == nil || slices.Contains(e.Models, m))
}

// paramKey names the clause's configuration: its overrides, sorted.
func (e *Expect) paramKey() string { return paramKeyOf(e.Params) }

func paramKeyOf(params []Bind) string {
	parts := BindTexts(params)
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// at returns the position of the i-th name of a clause, or the clause's own
// position for a clause built without them.
func at(pos []model.Pos, i int, clause model.Pos) model.Pos {
	if i < len(pos) {
		return pos[i]
	}
	return clause
}

// lockingExpected refuses an expect clause that says property locking is
// violated when no variant's code needs the property (every lock and
// unlock is right by the code's shape, and no mutex is destroyed).
func (pr *Protocol) lockingExpected() error {
	if pr.prop(PropLocking) != nil {
		return nil
	}
	for _, e := range pr.Expects {
		for i, v := range e.Violated {
			if v.Prop == PropLocking {
				return errAt(at(e.propAt, i, e.Pos), "property locking cannot be violated here: every lock and unlock is right on every path of its thread, and no mutex is destroyed")
			}
		}
	}
	return nil
}

// checkExpects validates the expect clauses: names of variants,
// parameters, models and properties, and that no two clauses of equal
// precedence select the same cell.
func (pr *Protocol) checkExpects() error {
	for i, e := range pr.Expects {
		if err := pr.checkExpect(e); err != nil {
			return err
		}
		for _, prev := range pr.Expects[:i] {
			if what, ok := overlap(prev, e); ok {
				return errAt(e.Pos, "%s is also selected by the expect clause at %s", what, prev.Pos)
			}
		}
	}
	return nil
}

func (pr *Protocol) checkExpect(e *Expect) error {
	for i, v := range e.Variants {
		pos := at(e.variantAt, i, e.Pos)
		if len(pr.Variants) == 0 {
			return errAt(pos, "unknown variant %s: protocol %s has no variants (write \"*\")", v, pr.Name)
		}
		if pr.Variant(v) == nil {
			var names []string
			for _, x := range pr.Variants {
				names = append(names, x.Name)
			}
			return errAt(pos, "unknown variant %s (variants: %s)", v, strings.Join(names, ", "))
		}
		if slices.Contains(e.Variants[:i], v) {
			return errAt(pos, "variant %s is listed twice in this expect clause", v)
		}
	}
	for i, b := range e.Params {
		par := pr.param(b.Param)
		if par == nil {
			var names []string
			for _, x := range pr.Params {
				names = append(names, x.Name)
			}
			return errAt(b.Value.Pos, "unknown parameter %s (parameters: %s)", b.Param, strings.Join(names, ", "))
		}
		for _, prev := range e.Params[:i] {
			if prev.Param == b.Param {
				return errAt(b.Value.Pos, "parameter %s is set twice in this expect clause", b.Param)
			}
		}
		if err := par.check(b.Value); err != nil {
			return err
		}
	}
	for i, m := range e.Models {
		pos := at(e.modelAt, i, e.Pos)
		if _, err := model.Lookup(m); err != nil {
			return errAt(pos, "%v", err)
		}
		if slices.Contains(e.Models[:i], m) {
			return errAt(pos, "model %s is listed twice in this expect clause", m)
		}
	}
	for i, v := range e.Violated {
		pos := at(e.propAt, i, e.Pos)
		// Property locking comes with the code that needs it, once the
		// variants are compiled (lockingExpected).
		if !slices.ContainsFunc(pr.Props, func(p *Prop) bool { return p.Name == v.Prop }) && (v.Prop != PropLocking || len(pr.Mutexes) == 0) {
			return errAt(pos, "unknown property %s (declare it with \"property %s\")", v.Prop, v.Prop)
		}
		for _, prev := range e.Violated[:i] {
			if prev.Prop == v.Prop {
				return errAt(pos, "property %s is listed twice in this expect clause", v.Prop)
			}
		}
	}
	return nil
}

// overlap reports whether two clauses of equal precedence select a common
// cell, and describes the cells they share.
func overlap(a, b *Expect) (string, bool) {
	if a.rank() != b.rank() || a.paramKey() != b.paramKey() {
		return "", false
	}
	what := "every variant"
	if b.Variants != nil {
		i := slices.IndexFunc(b.Variants, func(v string) bool { return slices.Contains(a.Variants, v) })
		if i < 0 {
			return "", false
		}
		what = "variant " + b.Variants[i]
	}
	if b.Models == nil {
		what += " under every model"
	} else {
		i := slices.IndexFunc(b.Models, func(m string) bool { return slices.Contains(a.Models, m) })
		if i < 0 {
			return "", false
		}
		what += " under " + b.Models[i]
	}
	if k := b.paramKey(); k != "" {
		what += " with " + k
	}
	return what, true
}
