package states

import (
	"bytes"
	"fmt"
	"testing"
)

// TestKeySet checks that a keySet holds exactly the keys added, across
// its growth and its blocks, keys longer than a block and the empty key
// included.
func TestKeySet(t *testing.T) {
	s := newKeySet()
	key := func(i int) []byte {
		switch i % 1000 {
		case 6:
			return bytes.Repeat([]byte{byte(i)}, 1<<blockBits+i%3)
		case 8:
			return nil
		}
		return fmt.Appendf(nil, "key %d %s", i, bytes.Repeat([]byte{'x'}, i%300))
	}
	const n = 20000
	for i := range n {
		if i%2 == 0 && s.Add(key(i)) != (i%1000 != 8 || i < 1000) {
			t.Fatalf("Add(key %d) wrong", i)
		}
	}
	for i := range n {
		want := i%2 == 0 || i%1000 == 8
		if got := s.Has(key(i)); got != want {
			t.Fatalf("Has(key %d) = %v, want %v", i, got, want)
		}
	}
	if s.Len() != n/2-n/1000+1 {
		t.Errorf("Len() = %d, want %d", s.Len(), n/2-n/1000+1)
	}
}
