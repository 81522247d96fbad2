package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// memoryShare is the share of the machine's memory an exploration may
// use by default: an exploration without a bound then ends with a bounded
// verdict rather than in the out-of-memory killer.
const memoryShare = 0.5

// defaultMemory returns the default bound of --max-memory: a share of the
// machine's memory (of the cgroup's limit, when it has a lower one); 0
// when neither is known.
func defaultMemory() uint64 {
	total := machineMemory()
	return uint64(float64(total) * memoryShare)
}

// defaultMemoryText describes the default bound for --help.
func defaultMemoryText() string {
	if m := defaultMemory(); m > 0 {
		return fmt.Sprintf("half the machine's memory, %.1f GB here", float64(m)/1e9)
	}
	return "half the machine's memory"
}

// machineMemory returns the memory this process may use: the machine's,
// or its cgroup's limit or its address-space limit (ulimit -v) when that
// is lower; 0 when unknown.
func machineMemory() uint64 {
	var total uint64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					total = kb << 10
				}
			}
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if lim, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && (total == 0 || lim < total) {
			total = lim
		}
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur != ^uint64(0) && (total == 0 || rl.Cur < total) {
		total = rl.Cur
	}
	return total
}

// limitMemory makes the garbage collector keep the heap under the bound
// an exploration stops at, so that the process's memory follows it.
func limitMemory(bound uint64) {
	if bound > 0 {
		debug.SetMemoryLimit(int64(bound))
	}
}
