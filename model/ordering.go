package model

import "fmt"

// Ordering is the memory order of an access or fence, as in C11.
type Ordering uint8

// The orderings, weakest first. NA is a plain (non-atomic) access.
const (
	NA Ordering = iota
	Rlx
	Con
	Acq
	Rel
	AcqRel
	SeqCst
)

var orderingNames = [...]string{"na", "rlx", "con", "acq", "rel", "acq_rel", "sc"}

func (o Ordering) String() string {
	if int(o) < len(orderingNames) {
		return orderingNames[o]
	}
	return fmt.Sprintf("Ordering(%d)", o)
}

// ParseOrdering accepts the short names (na, rlx, con, acq, rel, acq_rel, sc),
// their long forms (plain, relaxed, consume, acquire, release, seq_cst) and
// the C spellings (memory_order_relaxed, ...).
func ParseOrdering(s string) (Ordering, bool) {
	switch s {
	case "na", "plain", "nonatomic", "non_atomic":
		return NA, true
	case "rlx", "relaxed", "memory_order_relaxed", "unordered":
		return Rlx, true
	case "con", "consume", "memory_order_consume":
		return Con, true
	case "acq", "acquire", "memory_order_acquire":
		return Acq, true
	case "rel", "release", "memory_order_release":
		return Rel, true
	case "acq_rel", "acqrel", "memory_order_acq_rel":
		return AcqRel, true
	case "sc", "seq_cst", "memory_order_seq_cst":
		return SeqCst, true
	}
	return 0, false
}

// Atomic reports whether the ordering makes the access atomic.
func (o Ordering) Atomic() bool { return o != NA }

// IsAcquire reports whether o has acquire semantics (acq, acq_rel, sc).
func (o Ordering) IsAcquire() bool { return o == Acq || o == AcqRel || o == SeqCst }

// IsRelease reports whether o has release semantics (rel, acq_rel, sc).
func (o Ordering) IsRelease() bool { return o == Rel || o == AcqRel || o == SeqCst }

// ReadPart is the ordering carried by the read half of a read-modify-write
// with ordering o: release is dropped (rel becomes rlx, acq_rel becomes acq).
func (o Ordering) ReadPart() Ordering {
	switch o {
	case Rel:
		return Rlx
	case AcqRel:
		return Acq
	}
	return o
}

// WritePart is the ordering carried by the write half of a read-modify-write
// with ordering o: acquire is dropped (acq becomes rlx, acq_rel becomes rel).
// A consume RMW keeps con on both halves, so that, as for a single consume
// event, its write never heads a release sequence.
func (o Ordering) WritePart() Ordering {
	switch o {
	case Acq:
		return Rlx
	case AcqRel:
		return Rel
	}
	return o
}

// ValidForLoad reports whether o may order a load.
func (o Ordering) ValidForLoad() bool { return o != Rel && o != AcqRel }

// ValidForStore reports whether o may order a store.
func (o Ordering) ValidForStore() bool { return o == NA || o == Rlx || o == Rel || o == SeqCst }

// ValidForFence reports whether o may order a fence.
func (o Ordering) ValidForFence() bool { return o != NA }
