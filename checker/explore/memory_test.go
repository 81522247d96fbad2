package explore

import (
	"testing"

	"github.com/ordercheck/ordercheck/model"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"": 0, "1048576": 1 << 20, "512MB": 512e6, "4GB": 4e9, "2GiB": 2 << 30, "3M": 3 << 20, "7 K": 7 << 10, "10B": 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"12x", "0MB", "-1", "GB", "1.5GB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
}

// TestDefaultMaxMemory checks the default bound against the memory this
// process may use: MemoryShare of it, never more.
func TestDefaultMaxMemory(t *testing.T) {
	all := model.MachineMemory()
	if all == 0 {
		t.Skip("this machine's memory is unknown")
	}
	if m := DefaultMaxMemory(); m == 0 || m > all || m != uint64(float64(all)*MemoryShare) {
		t.Errorf("DefaultMaxMemory() = %d of %d", m, all)
	}
}
