package explore

import (
	"errors"
	"fmt"
	"time"
)

// Bounds are an exploration's bounds as a command line gives them: its
// fields are the ordercheck command's flags of the same names, and the
// errors of Options name them. NewBounds gives their defaults; the zero
// value is not one (a depth of 0 events is refused). A Go program that
// sets Options itself needs no Bounds.
type Bounds struct {
	MaxExecutions int64         // --max-executions (0: no bound)
	MaxStates     int64         // --max-states (0: no bound)
	Timeout       time.Duration // --timeout (0: no bound)
	// MaxMemory is a size (ParseSize) (--max-memory; "":
	// DefaultMaxMemory).
	MaxMemory       string
	PreemptionBound int    // --preemption-bound (-1: no bound)
	MaxDepth        int    // --max-depth: events per thread
	Workers         int    // --workers (AllCores: every core)
	Engine          string // --engine: auto, dpor or states
}

// NewBounds returns the bounds of a command that gives none: no bound
// but DefaultMaxMemory and DefaultMaxEvents, every core, the engine that
// applies.
func NewBounds() Bounds {
	return Bounds{PreemptionBound: -1, MaxDepth: DefaultMaxEvents, Workers: AllCores, Engine: EngineAuto.String()}
}

// Options returns the exploration options b gives, or an error naming
// the first flag out of its range. A bound on executions, which only
// execution graphs count, chooses the graph explorer (EngineDPOR), and
// with EngineStates is an error.
func (b Bounds) Options() (Options, error) {
	var fail error
	check := func(ok bool, format string, args ...any) {
		if !ok && fail == nil {
			fail = fmt.Errorf(format, args...)
		}
	}
	check(b.MaxExecutions >= 0, "--max-executions %d: must not be negative (0: no bound)", b.MaxExecutions)
	check(b.MaxStates >= 0, "--max-states %d: must not be negative (0: no bound)", b.MaxStates)
	check(b.Timeout >= 0, "--timeout %v: must not be negative (0: no bound)", b.Timeout)
	check(b.PreemptionBound >= -1, "--preemption-bound %d: must be -1 (no bound) or more", b.PreemptionBound)
	check(b.MaxDepth >= 1, "--max-depth %d: must be at least 1", b.MaxDepth)
	check(b.Workers >= 1 || b.Workers == AllCores, "--workers %d: must be at least 1", b.Workers)
	mem, err := ParseSize(b.MaxMemory)
	check(err == nil, "--max-memory: %v", err)
	eng, err := ParseEngine(b.Engine)
	check(err == nil, "%v", err)
	if fail != nil {
		return Options{}, fail
	}
	if mem == 0 {
		mem = DefaultMaxMemory()
	}
	if b.MaxExecutions > 0 {
		if eng == EngineStates {
			return Options{}, errors.New("--max-executions counts executions, which the states engine does not explore one by one: bound it with --max-states, or use --engine dpor")
		}
		eng = EngineDPOR
	}
	opt := Options{MaxExecutions: b.MaxExecutions, MaxGraphs: b.MaxStates, Timeout: b.Timeout, MaxMemory: mem, MaxEvents: b.MaxDepth, Workers: b.Workers, Engine: eng}
	if b.PreemptionBound >= 0 {
		opt.Preemptions, opt.PreemptionBound = true, b.PreemptionBound
	}
	return opt, nil
}
