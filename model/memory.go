package model

import (
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
	return fmt.Errorf("%s needs more memory than the bound allows (%d MB; raise --max-memory)", what, limit>>20)
}

// OverMemory reports whether the process holds more than nine tenths of
// limit bytes once the collector has run and returned what it freed to
// the system: memory an earlier exploration held and dropped does not
// count against the next one.
func OverMemory(limit uint64) bool {
	if ProcessMemory() <= limit/10*9 {
		return false
	}
	debug.FreeOSMemory()
	return ProcessMemory() > limit/10*9
}
