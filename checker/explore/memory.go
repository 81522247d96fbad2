package explore

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

// MemoryShare is the share of the memory this process may use
// (model.MachineMemory: the machine's, or its cgroup's limit when lower)
// that an exploration takes when no bound is given: one without a bound
// then ends with a bounded verdict rather than in the out-of-memory
// killer.
const MemoryShare = 0.5

// DefaultMaxMemory returns MemoryShare of the memory this process may
// use, the default of Options.MaxMemory for a command; 0 when unknown.
func DefaultMaxMemory() uint64 {
	return uint64(float64(model.MachineMemory()) * MemoryShare)
}

// LimitMemory sets bound (nothing when 0) as the Go runtime's memory
// limit, so that the collector keeps the heap under the Options.MaxMemory
// an exploration stops at, and reading and compiling a huge input stop
// within it too (model.CheckMemory).
func LimitMemory(bound uint64) {
	if bound > 0 {
		debug.SetMemoryLimit(int64(bound))
	}
}

// ParseSize reads a size such as 512MB, 4GB, 2GiB or 1048576 (bytes; M,
// G and K alone are powers of two); "" is 0.
func ParseSize(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		scale  uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	scale := uint64(1)
	num := s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, scale = strings.TrimSuffix(s, u.suffix), u.scale
			break
		}
	}
	n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q is not a size like 512MB or 4GB", s)
	}
	return n * scale, nil
}
