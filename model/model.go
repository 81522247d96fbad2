package model

import (
	"fmt"
	"sort"
	"strings"
)

// Model is a memory model: a consistency predicate over execution graphs,
// made of named axioms.
type Model interface {
	// Name is the model's name on the command line (sc, tso, rc11, ...).
	Name() string
	// Check returns "" when the execution is consistent, otherwise the name
	// of an axiom it violates.
	Check(x *Exec) string
	// RacesUndefined reports whether a data race is undefined behaviour
	// under the model (herd7's Undef), as in RC11.
	RacesUndefined() bool
}

var registry = map[string]Model{}

func register(m Model) { registry[m.Name()] = m }

// Lookup returns the model called name.
func Lookup(name string) (Model, error) {
	if m, ok := registry[name]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("unknown memory model %q (known: %s)", name, strings.Join(ModelNames(), ", "))
}

// ModelNames lists the known models, sorted.
func ModelNames() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Consistent reports whether g is consistent under m.
func Consistent(m Model, g *Graph) bool { return m.Check(NewExec(g)) == "" }
