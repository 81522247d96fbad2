// Package protocols is ordercheck's catalogue of protocols: each lives in
// its own folder with its protocol file, its write-up and, where it has
// them, its sequential specification and its Go implementation. Load
// resolves the names a command line gives, above the checker, which reads
// files only. The front ends that read protocols are its subpackages lang
// (the protocol language), c (C programs) and litmus (herd7's C litmus
// tests).
package protocols

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/cluster"
	"github.com/ordercheck/ordercheck/protocols/dlsym"
	"github.com/ordercheck/ordercheck/protocols/execenv"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// entry is one protocol of the catalogue.
type entry struct {
	name string
	// source is the protocol file's text.
	source string
	impl   *checker.Implementation
}

// catalogue is every protocol of the catalogue, by name.
var catalogue = []entry{
	{"cluster", cluster.Source, &checker.Implementation{Stress: cluster.Stress, Variants: sortedKeys(cluster.Variants)}},
	{"dlsym", dlsym.Source, &checker.Implementation{Stress: dlsym.Stress, Variants: sortedKeys(dlsym.Implementations)}},
	{"execenv", execenv.Source, &checker.Implementation{Stress: execenv.Stress, Variants: sortedKeys(execenv.Variants)}},
}

// Names lists the catalogue's protocols, sorted.
func Names() []string {
	var out []string
	for _, e := range catalogue {
		out = append(out, e.name)
	}
	return out
}

// All returns the catalogue's protocols, in the order of Names.
func All() ([]*checker.Protocol, error) {
	var out []*checker.Protocol
	for _, name := range Names() {
		pr, err := Lookup(name)
		if err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}

// Lookup returns the catalogue's protocol called name, with its Go
// implementation; it is the checker.Catalogue that replays traces and
// serves jobs naming catalogue protocols.
func Lookup(name string) (*checker.Protocol, error) {
	for _, e := range catalogue {
		if e.name == name {
			pr, err := lang.Parse("protocols/"+e.name+"/"+e.name+".oc", e.source)
			if err != nil {
				return nil, err
			}
			return &checker.Protocol{File: pr, Source: e.source, Impl: e.impl}, nil
		}
	}
	return nil, fmt.Errorf("unknown protocol %q%s (the catalogue has: %s; or give a protocol file)", name, model.DidYouMean(name, Names()), strings.Join(Names(), ", "))
}

// Load reads the protocol ref names: the file at that path when ref
// contains a slash or ends in .oc or .c (checker.Load), else the
// catalogue's protocol of that name. A file with the very text of a
// catalogue protocol is that protocol, with its Go implementation.
func Load(ref string) (*checker.Protocol, error) {
	if !strings.Contains(ref, "/") && !strings.HasSuffix(ref, ".oc") && !strings.HasSuffix(ref, ".c") {
		return Lookup(ref)
	}
	pr, err := checker.Load(ref)
	if err != nil {
		return nil, err
	}
	for _, e := range catalogue {
		if pr.C == nil && e.name == pr.File.Name && e.source == pr.Source {
			pr.Impl = e.impl
		}
	}
	return pr, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
