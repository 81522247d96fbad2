package render

import (
	"fmt"
	"io"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker/history"
	"github.com/ordercheck/ordercheck/checker/trace"
)

// Replayed writes the outcome of replaying a trace of property prop: the
// counterexample again, or why it no longer reproduces.
func Replayed(w io.Writer, r *trace.Replayed, prop string) {
	Header(w, r.Instance, r.Model)
	if r.Witness == nil {
		fmt.Fprintf(w, "the violation of %s no longer reproduces: %s\n", prop, r.Reason)
		return
	}
	fmt.Fprintf(w, "  %s  violated  %s\n\ncounterexample for %s:\n%s", prop, r.Witness.Violation.Msg, prop, Witness(r.Witness))
}

// Linearization writes porcupine's verdict on a protocol's history.
func Linearization(w io.Writer, protocol string, l *history.Linearization, timeout string) {
	fmt.Fprintf(w, "protocol %s: %s: %d operations\n", protocol, l.Source, len(l.History))
	if l.Deadlock != nil {
		fmt.Fprintf(w, "%v; the operations that returned before it:\n", l.Deadlock)
	}
	switch l.Result {
	case porcupine.Ok:
		fmt.Fprintln(w, "linearizable")
	case porcupine.Illegal:
		fmt.Fprintln(w, "not linearizable: no sequential order of the operations satisfies the specification")
	default:
		fmt.Fprintf(w, "unknown: porcupine gave no verdict within %s\n", timeout)
	}
}

// LinearizationHTML writes porcupine's visualisation of a checked
// history, a web page.
func LinearizationHTML(w io.Writer, spec *porcupine.Model, l *history.Linearization) error {
	return porcupine.Visualize(*spec, l.Info, w)
}
