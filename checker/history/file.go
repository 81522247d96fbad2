// Package history checks the histories of operations that protocols' Go
// implementations make, with porcupine, against their sequential
// specifications: a stress run of a catalogue protocol's implementation
// (Linearize), or a history recorded elsewhere (File, docs/history-format.md;
// Check, CheckFile, CheckRecorded).
package history

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// File is a recorded history: the operations of a protocol, as
// docs/history-format.md describes.
type File struct {
	Format     string   `json:"format"` // "ordercheck-history/1"
	Protocol   string   `json:"protocol"`
	Source     string   `json:"source"` // how it was recorded
	Operations []Record `json:"operations"`
}

// Record is one operation: who called what on which object, when,
// and what it returned.
type Record struct {
	Client int    `json:"client"`
	Object int    `json:"object,omitempty"` // the stress round's object; 0 (left out) for a model execution's one object
	Input  string `json:"input"`
	Output int64  `json:"output"`
	Call   int64  `json:"call"`
	Return int64  `json:"return"`
}

// Format names the history format version.
const Format = "ordercheck-history/1"

// NewFile records ops of protocol.
func NewFile(protocol, source string, ops []porcupine.Operation) *File {
	h := &File{Format: Format, Protocol: protocol, Source: source}
	for _, op := range ops {
		out, _ := op.Output.(int64)
		obj, in := lang.Split(op.Input)
		h.Operations = append(h.Operations, Record{Client: op.ClientId, Object: obj, Input: in, Output: out, Call: op.Call, Return: op.Return})
	}
	return h
}

// History returns the operations for porcupine: inputs are lang.Op
// when the record names an object, else the bare operation name, as in the
// model's histories.
func (h *File) History() []porcupine.Operation {
	var out []porcupine.Operation
	for _, r := range h.Operations {
		var in interface{} = r.Input
		if r.Object != 0 {
			in = lang.Op{Object: r.Object, Name: r.Input}
		}
		out = append(out, porcupine.Operation{ClientId: r.Client, Input: in, Output: r.Output, Call: r.Call, Return: r.Return})
	}
	return out
}

// Read reads a history file and checks what it says of itself:
// every record has its client, input, output, call and return (a missing
// field is not taken for zero); objects count from 1 (leave the field out
// for a model execution's one object); no id is negative; no operation
// returns before it is called; one client's operations do not overlap.
// Errors name the record: operations[i].
func Read(r io.Reader) (*File, error) {
	var raw struct {
		Format     string `json:"format"`
		Protocol   string `json:"protocol"`
		Source     string `json:"source"`
		Operations []struct {
			Client *int    `json:"client"`
			Object *int    `json:"object"`
			Input  *string `json:"input"`
			Output *int64  `json:"output"`
			Call   *int64  `json:"call"`
			Return *int64  `json:"return"`
		} `json:"operations"`
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not an ordercheck history: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not an ordercheck history: data after the history's object")
	}
	if raw.Format != Format {
		return nil, fmt.Errorf("history format %q, expected %q", raw.Format, Format)
	}
	if raw.Protocol == "" {
		return nil, fmt.Errorf("protocol: missing")
	}
	h := &File{Format: raw.Format, Protocol: raw.Protocol, Source: raw.Source}
	for i, o := range raw.Operations {
		at := fmt.Sprintf("operations[%d]", i)
		for _, f := range []struct {
			name    string
			missing bool
		}{{"client", o.Client == nil}, {"input", o.Input == nil}, {"output", o.Output == nil}, {"call", o.Call == nil}, {"return", o.Return == nil}} {
			if f.missing {
				return nil, fmt.Errorf("%s.%s: missing", at, f.name)
			}
		}
		rec := Record{Client: *o.Client, Input: *o.Input, Output: *o.Output, Call: *o.Call, Return: *o.Return}
		if o.Object != nil {
			if *o.Object < 1 {
				return nil, fmt.Errorf("%s.object: %d; objects count from 1 (leave the field out for a model execution's one object)", at, *o.Object)
			}
			rec.Object = *o.Object
		}
		switch {
		case rec.Client < 0:
			return nil, fmt.Errorf("%s.client: %d is negative", at, rec.Client)
		case rec.Input == "":
			return nil, fmt.Errorf("%s.input: empty", at)
		case rec.Return < rec.Call:
			return nil, fmt.Errorf("%s: returns (%d) before it is called (%d)", at, rec.Return, rec.Call)
		}
		h.Operations = append(h.Operations, rec)
	}
	// One object (no object field) or each operation's own.
	if named := slices.IndexFunc(h.Operations, func(r Record) bool { return r.Object != 0 }); named >= 0 {
		if i := slices.IndexFunc(h.Operations, func(r Record) bool { return r.Object == 0 }); i >= 0 {
			return nil, fmt.Errorf("operations[%d].object: missing, while operations[%d] names its object: a history is one object's (no operation names one) or each operation names its own", i, named)
		}
	}
	// One client's operations one after the other.
	byClient := map[int][]int{}
	for i, r := range h.Operations {
		byClient[r.Client] = append(byClient[r.Client], i)
	}
	for _, ops := range byClient {
		sort.Slice(ops, func(a, b int) bool { return h.Operations[ops[a]].Call < h.Operations[ops[b]].Call })
		for k := 1; k < len(ops); k++ {
			prev, cur := h.Operations[ops[k-1]], h.Operations[ops[k]]
			if cur.Call < prev.Return {
				return nil, fmt.Errorf("operations[%d]: client %d calls it (%d) before its operations[%d] returns (%d)", ops[k], cur.Client, cur.Call, ops[k-1], prev.Return)
			}
		}
	}
	return h, nil
}

// Validate checks the history's operations against a specification: each
// an operation the specification has, each output one it may return.
func (h *File) Validate(spec *lang.Spec) error {
	ops := map[string]*lang.SpecOp{}
	var names []string
	for _, op := range spec.Ops {
		ops[op.Name] = op
		names = append(names, op.Name)
	}
	for i, r := range h.Operations {
		op := ops[r.Input]
		if op == nil {
			return fmt.Errorf("operations[%d].input: %s is not an operation of %s%s (it has %s)", i, r.Input, h.Protocol, model.DidYouMean(r.Input, names), strings.Join(names, ", "))
		}
		if len(op.Results) == 0 || op.Open {
			continue
		}
		var results []string
		ok := false
		for _, res := range op.Results {
			results = append(results, fmt.Sprint(res.Val))
			ok = ok || res.Val == r.Output
		}
		if !ok {
			return fmt.Errorf("operations[%d].output: %d is not a result of %s (it returns %s)", i, r.Output, r.Input, strings.Join(results, ", "))
		}
	}
	return nil
}

// Write writes the history as JSON.
func (h *File) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(h)
}
