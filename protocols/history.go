package protocols

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/harness"
)

// HistoryFile is a recorded history: the operations of a protocol, as
// docs/history-format.md describes.
type HistoryFile struct {
	Format     string          `json:"format"` // "ordercheck-history/1"
	Protocol   string          `json:"protocol"`
	Source     string          `json:"source"` // how it was recorded
	Operations []HistoryRecord `json:"operations"`
}

// HistoryRecord is one operation: who called what on which object, when,
// and what it returned.
type HistoryRecord struct {
	Client int    `json:"client"`
	Object int    `json:"object,omitempty"` // the stress round's object; 0 (left out) for a model execution's one object
	Input  string `json:"input"`
	Output int64  `json:"output"`
	Call   int64  `json:"call"`
	Return int64  `json:"return"`
}

// HistoryFormat names the history format version.
const HistoryFormat = "ordercheck-history/1"

// NewHistoryFile records ops of protocol.
func NewHistoryFile(protocol, source string, ops []porcupine.Operation) *HistoryFile {
	h := &HistoryFile{Format: HistoryFormat, Protocol: protocol, Source: source}
	for _, op := range ops {
		out, _ := op.Output.(int64)
		obj, in := harness.Split(op.Input)
		h.Operations = append(h.Operations, HistoryRecord{Client: op.ClientId, Object: obj, Input: in, Output: out, Call: op.Call, Return: op.Return})
	}
	return h
}

// History returns the operations for porcupine: inputs are harness.Op
// when the record names an object, else the bare operation name, as in the
// model's histories.
func (h *HistoryFile) History() []porcupine.Operation {
	var out []porcupine.Operation
	for _, r := range h.Operations {
		var in interface{} = r.Input
		if r.Object != 0 {
			in = harness.Op{Object: r.Object, Name: r.Input}
		}
		out = append(out, porcupine.Operation{ClientId: r.Client, Input: in, Output: r.Output, Call: r.Call, Return: r.Return})
	}
	return out
}

// ReadHistory reads a history file.
func ReadHistory(r io.Reader) (*HistoryFile, error) {
	var h HistoryFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("not an ordercheck history: %v", err)
	}
	if h.Format != HistoryFormat {
		return nil, fmt.Errorf("history format %q, expected %q", h.Format, HistoryFormat)
	}
	for i, r := range h.Operations {
		if r.Return < r.Call {
			return nil, fmt.Errorf("operation %d returns before it is called", i)
		}
	}
	return &h, nil
}

// Write writes the history as JSON.
func (h *HistoryFile) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(h)
}
