package model

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// ProcessMemory returns the memory the Go runtime holds from the system
// and has not released: what the process's resident size follows.
func ProcessMemory() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys - ms.HeapReleased
}

// MachineMemory returns the memory this process may use: the machine's,
// or its cgroup's limit or its address-space limit (ulimit -v) when that
// is lower; 0 when unknown.
func MachineMemory() uint64 {
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
