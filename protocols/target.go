package protocols

import (
	"fmt"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/c"
)

// Target is what a command line picks to check: a variant of a protocol
// under a model, with parameters, and a C program's options. Its fields
// are the ordercheck command's flags of the same names, and its errors
// name them.
type Target struct {
	Variant string // --variant ("": the protocol's default)
	// Model is the model's name (--model; "": checker.DefaultModel).
	Model  string
	Params []string  // --param NAME=VALUE
	C      c.Options // -D, -I, --unroll: for a .c file only
}

// Protocol reads the protocol ref names, as Load does; C options given
// for a protocol that is not a C program are an error.
func (t Target) Protocol(ref string) (*checker.Protocol, error) {
	if err := checkUnroll(t.C); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(ref, ".c") && (len(t.C.Defines) > 0 || len(t.C.Includes) > 0 || t.C.Unroll != 0) {
		return nil, fmt.Errorf("-D, -I and --unroll are for C programs (.c files), not %s", ref)
	}
	return t.Load(ref)
}

// Instance reads the protocol ref names (Protocol), compiles t.Variant
// with t.Params and looks up t.Model.
func (t Target) Instance(ref string) (*checker.Instance, *model.Model, error) {
	pr, err := t.Protocol(ref)
	if err != nil {
		return nil, nil, err
	}
	m := checker.DefaultModel
	if t.Model != "" {
		if m, err = model.Lookup(t.Model); err != nil {
			return nil, nil, err
		}
	}
	params, err := ParseParams(t.Params)
	if err != nil {
		return nil, nil, err
	}
	inst, err := pr.Instance(t.Variant, params)
	return inst, m, err
}

// Against returns what --against names to compare t's instance in
// (under m) with, and a label that says it: "model=NAME" is in under that
// model, another name another variant of in's protocol, with t.Params,
// under m.
func (t Target) Against(against string, in *checker.Instance, m *model.Model) (*checker.Instance, *model.Model, string, error) {
	if name, ok := strings.CutPrefix(against, "model="); ok {
		om, err := model.Lookup(name)
		return in, om, "model " + name, err
	}
	params, err := ParseParams(t.Params)
	if err != nil {
		return nil, nil, "", err
	}
	other, err := in.Protocol.Instance(against, params)
	return other, m, "variant " + against, err
}

// Load reads the protocol ref names as package Load does, a C program (a
// .c file) with t.C: as a test run reads each of its protocols
// (expect.Run), where the C options are the C files'. Protocol
// reads the one protocol a command checks.
func (t Target) Load(ref string) (*checker.Protocol, error) {
	if !strings.HasSuffix(ref, ".c") {
		return Load(ref)
	}
	if err := checkUnroll(t.C); err != nil {
		return nil, err
	}
	return checker.LoadC(ref, t.C)
}

// checkUnroll refuses a negative --unroll.
func checkUnroll(opt c.Options) error {
	if opt.Unroll < 0 {
		return fmt.Errorf("--unroll %d: expected a number of rounds, 1 or more", opt.Unroll)
	}
	return nil
}

// ParseParams reads parameters given as NAME=VALUE (--param).
func ParseParams(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--param %q: expected NAME=VALUE", kv)
		}
		out[k] = v
	}
	return out, nil
}
