// Package protocols is ordercheck's catalogue of protocols: each lives in
// its own folder with its protocol file and write-up.
package protocols

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/cluster"
	"github.com/ordercheck/ordercheck/protocols/dlsym"
	"github.com/ordercheck/ordercheck/protocols/execenv"
	"github.com/ordercheck/ordercheck/protocols/lang"
	"github.com/ordercheck/ordercheck/protocols/wamr"
)

var sources = map[string]string{
	"cluster": cluster.Source,
	"dlsym":   dlsym.Source,
	"execenv": execenv.Source,
}

// Names lists the catalogue's protocols, sorted.
func Names() []string {
	var out []string
	for n := range sources {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Load parses the catalogue protocol called name.
func Load(name string) (*lang.Protocol, error) {
	src, ok := sources[name]
	if !ok {
		return nil, fmt.Errorf("unknown protocol %q (the catalogue has: %s; or give a protocol file)", name, strings.Join(Names(), ", "))
	}
	return lang.Parse("protocols/"+name+"/"+name+".oc", src)
}

// Source returns the protocol file of the catalogue protocol called name.
func Source(name string) (string, error) {
	src, ok := sources[name]
	if !ok {
		return "", fmt.Errorf("unknown protocol %q", name)
	}
	return src, nil
}

// Spec returns the sequential specification of the catalogue protocol
// called name, which its operations' histories must linearize to; nil when
// it has none.
func Spec(name string) *porcupine.Model {
	switch name {
	case "dlsym":
		return &dlsym.Spec
	case "execenv", "cluster":
		return &wamr.Spec
	}
	return nil
}
