package history

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// Options configure a stress run of a protocol's Go
// implementation.
type Options struct {
	// Variant is the implementation's variant ("": original); Params its
	// parameters.
	Variant string
	Params  map[string]string
	// Clients goroutines each call one operation per round, for Rounds
	// rounds (each round a fresh object), the schedule perturbed from Seed.
	Clients, Rounds int
	Seed            uint64
	// Timeout is porcupine's time limit; past it the verdict is unknown
	// (0: none).
	Timeout time.Duration
}

// Linearization is porcupine's verdict on a history of operations.
type Linearization struct {
	// Source says where the history came from.
	Source  string
	History []porcupine.Operation
	Result  porcupine.CheckResult
	// Info is porcupine's account of the check, for its visualisation.
	Info porcupine.LinearizationInfo
	// Deadlock is set when a round of the implementation made no progress;
	// History then holds the operations that returned before it.
	Deadlock error
}

// Linearize runs the protocol's Go implementation with concurrent clients,
// records the history of their operations, and checks it with porcupine
// against the protocol's sequential specification.
func Linearize(p *checker.Protocol, opt Options) (*Linearization, error) {
	if p.File.Spec == nil {
		return nil, fmt.Errorf("protocol %q has no sequential specification", p.File.Name)
	}
	if p.Impl == nil {
		return nil, fmt.Errorf("protocol %q has no Go implementation", p.File.Name)
	}
	if opt.Variant == "" {
		opt.Variant = "original"
	}
	if !slices.Contains(p.Impl.Variants, opt.Variant) {
		return nil, fmt.Errorf("the Go implementation of %s has no variant %q (it has %v)", p.File.Name, opt.Variant, p.Impl.Variants)
	}
	h, err := p.Impl.Stress(harness.Config{Variant: opt.Variant, Params: opt.Params, Clients: opt.Clients, Rounds: opt.Rounds, Seed: opt.Seed})
	if err != nil && !errors.Is(err, harness.ErrDeadlock) {
		return nil, err
	}
	l := CheckRecorded(p.File.Spec, h, opt.Timeout)
	l.Deadlock = err
	l.Source = fmt.Sprintf("variant %s%s, %d clients × %d rounds, seed %d", opt.Variant, paramSuffix(opt.Params), opt.Clients, opt.Rounds, opt.Seed)
	return l, nil
}

// Check checks a recorded history of protocol p's operations
// against its sequential specification, within timeout (0: none); source
// says where the history came from. Operations the specification lacks,
// and outputs it never gives, are refused before porcupine runs.
func Check(p *checker.Protocol, h *File, source string, timeout time.Duration) (*Linearization, error) {
	if p.File.Spec == nil {
		return nil, fmt.Errorf("protocol %q has no sequential specification", p.File.Name)
	}
	if h.Protocol != p.File.Name {
		return nil, fmt.Errorf("%s records protocol %s, not %s", source, h.Protocol, p.File.Name)
	}
	if err := h.Validate(p.File.Spec); err != nil {
		return nil, err
	}
	l := CheckRecorded(p.File.Spec, h.History(), timeout)
	l.Source = source
	return l, nil
}

// CheckRecorded checks a history recorded from a Go implementation (by
// harness.Stress, or one's own recorder of porcupine operations) against a
// specification, in real time, with porcupine, within timeout (0: none).
// The specification may be a protocol's spec section or one parsed alone
// (lang.ParseSpec): for a Go type of one's own.
func CheckRecorded(spec *lang.Spec, h []porcupine.Operation, timeout time.Duration) *Linearization {
	res, info := porcupine.CheckOperationsVerbose(*spec.Model(), h, timeout)
	return &Linearization{History: h, Result: res, Info: info}
}

// paramSuffix writes parameters as " K=V ..." in sorted order.
func paramSuffix(params map[string]string) string {
	var parts []string
	for k, v := range params {
		parts = append(parts, " "+k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, "")
}

// Verdict sums up the check: violated when the history is not
// linearizable or the implementation deadlocked, verified when it is
// linearizable, timeout when porcupine gave no verdict in time.
func (l *Linearization) Verdict() checker.Verdict {
	switch {
	case l.Result == porcupine.Illegal, l.Result == porcupine.Ok && l.Deadlock != nil:
		return checker.VerdictViolated
	case l.Result == porcupine.Ok:
		return checker.VerdictVerified
	}
	return checker.VerdictTimeout
}

// CheckFile reads the history recorded in the file at path (Read) and
// checks it as Check does.
func CheckFile(p *checker.Protocol, path string, timeout time.Duration) (*Linearization, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	l, err := Check(p, h, path, timeout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}
