package states

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// keySet is the set of the keys of the states seen. It keeps the keys
// whole (the search is exact), each after its length, end to end in
// blocks, and finds them through an open-addressing table of their hashes
// and places. A map of strings spends a header, an allocation and a slot
// on each key, and the collector follows each; the set holds no pointer
// but its blocks'.
type keySet struct {
	seed   maphash.Seed
	slots  []uint64 // 0: empty; else the hash's top bits above placeBits, and the key's place + 1
	blocks [][]byte
	n      int
}

const (
	blockBits = 20 // a block holds 1 MiB of keys, or one longer key
	placeBits = 44 // a place: its block << blockBits | its offset there
	placeMask = 1<<placeBits - 1
)

func newKeySet() *keySet {
	return &keySet{seed: maphash.MakeSeed(), slots: make([]uint64, 1<<10)}
}

// Len returns the number of keys in s.
func (s *keySet) Len() int { return s.n }

// Has reports whether s holds k.
func (s *keySet) Has(k []byte) bool {
	_, ok := s.find(k, maphash.Bytes(s.seed, k))
	return ok
}

// Add adds k to s and reports whether it was new.
func (s *keySet) Add(k []byte) bool {
	h := maphash.Bytes(s.seed, k)
	i, ok := s.find(k, h)
	if ok {
		return false
	}
	s.slots[i] = h&^placeMask | (s.store(k) + 1)
	s.n++
	if 4*s.n > 3*len(s.slots) {
		s.grow()
	}
	return true
}

// find returns the slot of k, whose hash is h, and whether it holds k;
// when not, the slot is the empty one where k goes.
func (s *keySet) find(k []byte, h uint64) (int, bool) {
	mask := len(s.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		sl := s.slots[i]
		if sl == 0 {
			return i, false
		}
		if sl&^placeMask == h&^placeMask && bytes.Equal(s.key(sl&placeMask-1), k) {
			return i, true
		}
	}
}

// key returns the key at place p.
func (s *keySet) key(p uint64) []byte {
	b := s.blocks[p>>blockBits][p&(1<<blockBits-1):]
	n, w := binary.Uvarint(b)
	return b[w : w+int(n)]
}

// store appends k to the last block, or to a new one when it has no room,
// and returns its place.
func (s *keySet) store(k []byte) uint64 {
	need := binary.MaxVarintLen64 + len(k)
	last := len(s.blocks) - 1
	if last < 0 || cap(s.blocks[last])-len(s.blocks[last]) < need {
		s.blocks = append(s.blocks, make([]byte, 0, max(1<<blockBits, need)))
		last++
	}
	b := s.blocks[last]
	p := uint64(last)<<blockBits | uint64(len(b))
	b = binary.AppendUvarint(b, uint64(len(k)))
	s.blocks[last] = append(b, k...)
	if cap(s.blocks[last]) > 1<<blockBits { // a key of its own: no other after it
		s.blocks[last] = s.blocks[last][:cap(s.blocks[last])]
	}
	return p
}

// grow doubles the table.
func (s *keySet) grow() {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	mask := len(s.slots) - 1
	for _, sl := range old {
		if sl == 0 {
			continue
		}
		i := int(maphash.Bytes(s.seed, s.key(sl&placeMask-1))) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = sl
	}
}
