package model

import "math"

// The values a heap cell holds when no program value is in it, and a
// heap block's status. Front ends that allocate lay each block out as a
// status location followed by its cells, all starting Unallocated; an
// allocation writes Allocated to the status and Uninitialised to the
// cells, a free writes Freed to both (plain stores, so that an access
// the allocation or the free does not happen before races with it).
// A retire (GenMC's __VERIFIER_hp_retire: a free deferred while a hazard
// pointer protects the block) writes Retired to the status only.
// Reading one of the first three values is a memory error the front
// end asserts against.
const (
	Unallocated int64 = math.MinInt64 + 1 + iota
	Uninitialised
	Freed
	Allocated
	Retired
)

// heapValue names the heap's values.
func heapValue(v int64) (string, bool) {
	switch v {
	case Unallocated:
		return "unallocated", true
	case Uninitialised:
		return "uninitialised", true
	case Freed:
		return "freed", true
	case Allocated:
		return "allocated", true
	case Retired:
		return "retired", true
	}
	return "", false
}
