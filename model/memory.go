package model

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
)

// ProcessMemory returns the memory the Go runtime holds from the system
// and has not released: what the process's resident size follows.
func ProcessMemory() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys - ms.HeapReleased
}

// ErrMemoryBound is the error of work the memory bound cut short: no
// verdict, as an exploration that reaches the bound gives none.
var ErrMemoryBound = errors.New("no verdict")

// memoryError is an ErrMemoryBound that says what the bound cut short.
type memoryError string

func (e memoryError) Error() string        { return string(e) }
func (e memoryError) Is(target error) bool { return target == ErrMemoryBound }

// CheckMemory fails once the process holds nine tenths of the runtime's
// memory limit (which the command sets to --max-memory), so that reading
// and compiling a huge input stop within the bound as exploring does; it
// does nothing when no limit is set. what names the work ("reading the
// source").
func CheckMemory(what string) error {
	limit := debug.SetMemoryLimit(-1)
	if limit <= 0 || limit == math.MaxInt64 {
		return nil
	}
	if !OverMemory(uint64(limit)) {
		return nil
	}
	return memoryError(fmt.Sprintf("%s needs more memory than the bound allows (%d MB; raise --max-memory)", what, limit>>20))
}

// OverMemory reports whether the process holds more than nine tenths of
// limit bytes, once the collector has run.
func OverMemory(limit uint64) bool {
	if ProcessMemory() <= limit/10*9 {
		return false
	}
	runtime.GC()
	return ProcessMemory() > limit/10*9
}

// ReleaseMemory returns to the system the memory the process holds
// beyond what it uses, so that an exploration starting now is not charged
// with what an earlier one held and dropped.
func ReleaseMemory() { debug.FreeOSMemory() }
