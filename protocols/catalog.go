// Package protocols is ordercheck's catalogue of protocols: each lives in
// its own folder with its protocol file, its write-up and, where it has
// them, its sequential specification and its Go implementation. The front
// ends that read protocols are its subpackages lang (the protocol
// language) and litmus (herd7's C litmus tests).
package protocols

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/cluster"
	"github.com/ordercheck/ordercheck/protocols/dlsym"
	"github.com/ordercheck/ordercheck/protocols/execenv"
	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// Entry is one protocol of the catalogue.
type Entry struct {
	Name string
	// Source is the protocol file's text.
	Source string
	// Impl is its Go implementation; nil when it has none.
	Impl *Implementation
}

// Implementation is a protocol's Go implementation.
type Implementation struct {
	// Stress runs the variant cfg names (with its parameters, clients,
	// rounds and seed) and returns the recorded history; an error wrapping
	// harness.ErrDeadlock comes with the history recorded before a round
	// blocked.
	Stress func(cfg harness.Config) ([]porcupine.Operation, error)
	// Variants lists the variants it implements, sorted.
	Variants []string
}

// catalogue is every protocol of the catalogue, by name.
var catalogue = []*Entry{
	{Name: "cluster", Source: cluster.Source, Impl: &Implementation{cluster.Stress, sortedKeys(cluster.Variants)}},
	{Name: "dlsym", Source: dlsym.Source, Impl: &Implementation{dlsym.Stress, sortedKeys(dlsym.Implementations)}},
	{Name: "execenv", Source: execenv.Source, Impl: &Implementation{execenv.Stress, sortedKeys(execenv.Variants)}},
}

// Names lists the catalogue's protocols, sorted.
func Names() []string {
	var out []string
	for _, e := range catalogue {
		out = append(out, e.Name)
	}
	return out
}

// Lookup returns the catalogue's protocol called name.
func Lookup(name string) (*Entry, error) {
	for _, e := range catalogue {
		if e.Name == name {
			return e, nil
		}
	}
	return nil, fmt.Errorf("unknown protocol %q%s (the catalogue has: %s; or give a protocol file)", name, model.DidYouMean(name, Names()), strings.Join(Names(), ", "))
}

// Parse parses the entry's protocol file.
func (e *Entry) Parse() (*lang.Protocol, error) {
	return lang.Parse("protocols/"+e.Name+"/"+e.Name+".oc", e.Source)
}

// Load parses the catalogue protocol called name.
func Load(name string) (*lang.Protocol, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return e.Parse()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
