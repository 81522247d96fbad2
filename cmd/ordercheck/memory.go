package main

import (
	"fmt"
	"runtime/debug"

	"github.com/ordercheck/ordercheck/model"
)

// memoryShare is the share of the machine's memory an exploration may
// use by default: an exploration without a bound then ends with a bounded
// verdict rather than in the out-of-memory killer.
const memoryShare = 0.5

// defaultMemory returns the default bound of --max-memory: a share of the
// machine's memory (of the cgroup's limit, when it has a lower one); 0
// when neither is known.
func defaultMemory() uint64 {
	total := model.MachineMemory()
	return uint64(float64(total) * memoryShare)
}

// defaultMemoryText describes the default bound for --help.
func defaultMemoryText() string {
	if m := defaultMemory(); m > 0 {
		return fmt.Sprintf("half the machine's memory, %.1f GB here", float64(m)/1e9)
	}
	return "half the machine's memory"
}

// limitMemory makes the garbage collector keep the heap under the bound
// an exploration stops at, so that the process's memory follows it.
func limitMemory(bound uint64) {
	if bound > 0 {
		debug.SetMemoryLimit(int64(bound))
	}
}
