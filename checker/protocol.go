package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/c"
	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/lang"
	"github.com/ordercheck/ordercheck/protocols/syntax"
)

// Protocol is a protocol ready to check: its parsed file (parameters,
// variants, properties, threads, expectations) and, for a catalogue
// protocol, its sequential specification and Go implementation.
type Protocol struct {
	// File is the parsed protocol: its name, parameters, variants,
	// properties, threads, specification and expect clauses.
	File *lang.Protocol
	// Path is the protocol file's path; "" for a catalogue protocol.
	Path string
	// Source is the protocol file's text.
	Source string
	// Impl is the protocol's Go implementation; nil when there is none.
	Impl *Implementation
	// C holds the choices a C program was read with (-D, --unroll); nil
	// for a protocol file.
	C *c.Options
}

// Implementation is a protocol's Go implementation, which Linearize
// stress-tests.
type Implementation struct {
	// Stress runs the variant cfg names (with its parameters, clients,
	// rounds and seed) and returns the recorded history; an error wrapping
	// harness.ErrDeadlock comes with the history recorded before a round
	// blocked.
	Stress func(cfg harness.Config) ([]porcupine.Operation, error)
	// Variants lists the variants it implements, sorted.
	Variants []string
}

// Catalogue finds a protocol by name, for the traces and jobs that name
// one rather than carry its text; package protocols' Lookup is
// ordercheck's catalogue.
type Catalogue func(name string) (*Protocol, error)

// Load reads the protocol file at path (see Parse), or the C program
// when the path ends in .c (LoadC). Names of catalogue protocols are
// package protocols' to resolve.
func Load(path string) (*Protocol, error) {
	if strings.HasSuffix(path, ".c") {
		return LoadC(path, c.Options{})
	}
	src, err := syntax.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse reads a protocol from the text of a protocol file (file names it
// in messages). Its spec section is the specification linearizability
// checks. A protocol that checks linearizability with no specification
// is an error.
func Parse(file, src string) (*Protocol, error) {
	pr, err := lang.Parse(file, src)
	if err != nil {
		return nil, err
	}
	for _, prop := range pr.Props {
		if prop.Name == PropLinearizability && pr.Spec == nil {
			return nil, &syntax.Error{Pos: prop.Pos, Msg: "property linearizability needs the sequential specification histories are checked against: add a spec section (docs/protocol-language.md, \"Sequential specifications\")"}
		}
	}
	return &Protocol{File: pr, Path: file, Source: src}, nil
}

// LoadC reads a C program (see package protocols/c) with the command
// line's choices.
func LoadC(path string, opt c.Options) (*Protocol, error) {
	src, err := syntax.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseC(path, src, opt)
}

// ParseC reads a C program from its text (file names it in messages and
// locates its relative includes).
func ParseC(file, src string, opt c.Options) (*Protocol, error) {
	pr, err := c.Parse(file, []byte(src), opt)
	if err != nil {
		return nil, err
	}
	return &Protocol{File: pr, Path: file, Source: src, C: &opt}, nil
}

// Ref is the name a trace or a command line gives the protocol: the
// catalogue's name, or the file's path.
func (p *Protocol) Ref() string {
	if p.Path != "" {
		return p.Path
	}
	return p.File.Name
}

// PropNames lists the protocol's properties, in the order of the file.
func (p *Protocol) PropNames() []string {
	var out []string
	for _, pp := range p.File.Props {
		out = append(out, pp.Name)
	}
	return out
}

// Properties returns the protocol's properties, linearizability against
// its specification.
func (p *Protocol) Properties() []Property { return Properties(p.SeqSpec(), p.PropNames()...) }

// SeqSpec returns the sequential specification of the protocol's spec
// section, which linearizability checks histories against, or nil when it
// has none.
func (p *Protocol) SeqSpec() model.Spec {
	if p.File.Spec == nil {
		return nil
	}
	return p.File.Spec
}

// Instance is one variant of a protocol with its parameters bound,
// compiled to a program.
type Instance struct {
	*lang.Instance
	Protocol *Protocol
}

// Instance compiles a variant ("": the default one) with parameter
// overrides (nil: none).
func (p *Protocol) Instance(variant string, params map[string]string) (*Instance, error) {
	inst, err := p.File.Compile(variant, params)
	if err != nil {
		return nil, err
	}
	return &Instance{Instance: inst, Protocol: p}, nil
}

// Doc is the variant's description ("" when it has none).
func (in *Instance) Doc() string {
	if v := in.Protocol.File.Variant(in.Variant); v != nil {
		return v.Doc
	}
	return ""
}

// ParamMap returns the instance's parameters by name.
func (in *Instance) ParamMap() map[string]string {
	out := map[string]string{}
	for _, b := range in.Params {
		out[b.Param] = b.Value.Text
	}
	return out
}

// Check judges every property of the protocol in every execution of the
// instance under m.
func (in *Instance) Check(m *model.Model, opt explore.Options) (*Report, error) {
	return Check(in.Prog, m, in.Protocol.Properties(), opt)
}

// HasProp returns nil when the protocol has a property of each of the
// names, else an error that names the first it lacks and lists those it
// has.
func (p *Protocol) HasProp(names ...string) error {
	have := p.PropNames()
	for _, name := range names {
		if !slices.Contains(have, name) {
			return fmt.Errorf("protocol %s has no property %s%s (it has: %s)", p.File.Name, name, model.DidYouMean(name, have), strings.Join(have, ", "))
		}
	}
	return nil
}

// Expectations resolves the protocol's expect clauses over every
// registered model: one configuration per set of parameter overrides, each
// with the expected verdicts of its cells (variant × model).
func (p *Protocol) Expectations() ([]lang.Config, error) {
	return p.File.Expectations(model.Names())
}
