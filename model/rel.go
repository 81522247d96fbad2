package model

import "math/bits"

// Set is a set of event indices of an Exec (a bitset).
type Set []uint64

// NewSet returns an empty set over n events.
func NewSet(n int) Set { return make(Set, (n+63)/64) }

// Add puts i in s.
func (s Set) Add(i int) { s[i/64] |= 1 << (uint(i) % 64) }

// Has reports whether i is in s.
func (s Set) Has(i int) bool { return s[i/64]&(1<<(uint(i)%64)) != 0 }

// Union returns s ∪ t.
func (s Set) Union(t Set) Set {
	out := make(Set, len(s))
	for i := range s {
		out[i] = s[i] | t[i]
	}
	return out
}

// Inter returns s ∩ t.
func (s Set) Inter(t Set) Set {
	out := make(Set, len(s))
	for i := range s {
		out[i] = s[i] & t[i]
	}
	return out
}

// Minus returns s \ t.
func (s Set) Minus(t Set) Set {
	out := make(Set, len(s))
	for i := range s {
		out[i] = s[i] &^ t[i]
	}
	return out
}

// Each calls f for every member of s, in increasing order.
func (s Set) Each(f func(i int)) {
	for w, b := range s {
		for b != 0 {
			k := bits.TrailingZeros64(b)
			f(w*64 + k)
			b &^= 1 << uint(k)
		}
	}
}

// Empty reports whether s has no members.
func (s Set) Empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// Relation is a binary relation over the n events of an Exec, as a bit matrix.
type Relation struct {
	n, w int
	b    []uint64
}

// NewRelation returns the empty relation over n events.
func NewRelation(n int) Relation {
	w := (n + 63) / 64
	return Relation{n: n, w: w, b: make([]uint64, n*w)}
}

func (r Relation) row(i int) []uint64 { return r.b[i*r.w : (i+1)*r.w] }

// Add puts (i, j) in r.
func (r Relation) Add(i, j int) { r.b[i*r.w+j/64] |= 1 << (uint(j) % 64) }

// Has reports whether (i, j) is in r.
func (r Relation) Has(i, j int) bool { return r.b[i*r.w+j/64]&(1<<(uint(j)%64)) != 0 }

// Clone returns a copy of r.
func (r Relation) Clone() Relation {
	out := Relation{n: r.n, w: r.w, b: make([]uint64, len(r.b))}
	copy(out.b, r.b)
	return out
}

// Union returns the union of r and the others.
func (r Relation) Union(others ...Relation) Relation {
	out := r.Clone()
	for _, o := range others {
		for i := range out.b {
			out.b[i] |= o.b[i]
		}
	}
	return out
}

// Inter returns r ∩ o.
func (r Relation) Inter(o Relation) Relation {
	out := r.Clone()
	for i := range out.b {
		out.b[i] &= o.b[i]
	}
	return out
}

// Minus returns r \ o.
func (r Relation) Minus(o Relation) Relation {
	out := r.Clone()
	for i := range out.b {
		out.b[i] &^= o.b[i]
	}
	return out
}

// Seq returns the composition r;o: pairs (i, k) with (i, j) in r and (j, k) in o.
func (r Relation) Seq(o Relation) Relation {
	out := NewRelation(r.n)
	for i := 0; i < r.n; i++ {
		dst := out.row(i)
		for wi, x := range r.row(i) {
			for x != 0 {
				b := bits.TrailingZeros64(x)
				x &^= 1 << uint(b)
				src := o.row(wi*64 + b)
				for k := range dst {
					dst[k] |= src[k]
				}
			}
		}
	}
	return out
}

// Inverse returns r⁻¹.
func (r Relation) Inverse() Relation {
	out := NewRelation(r.n)
	r.Each(func(i, j int) { out.Add(j, i) })
	return out
}

// Each calls f for every pair of r, in order.
func (r Relation) Each(f func(i, j int)) {
	for i := 0; i < r.n; i++ {
		for wi, x := range r.row(i) {
			for x != 0 {
				b := bits.TrailingZeros64(x)
				x &^= 1 << uint(b)
				f(i, wi*64+b)
			}
		}
	}
}

// Plus returns the transitive closure r⁺.
func (r Relation) Plus() Relation {
	out := r.Clone()
	for k := 0; k < r.n; k++ {
		kw, kb := k/64, uint64(1)<<(uint(k)%64)
		src := out.row(k)
		for i := 0; i < r.n; i++ {
			if out.b[i*r.w+kw]&kb != 0 {
				dst := out.row(i)
				for x := range dst {
					dst[x] |= src[x]
				}
			}
		}
	}
	return out
}

// Opt returns r? = r ∪ id.
func (r Relation) Opt() Relation {
	out := r.Clone()
	for i := 0; i < r.n; i++ {
		out.Add(i, i)
	}
	return out
}

// Star returns r* = r⁺ ∪ id.
func (r Relation) Star() Relation { return r.Plus().Opt() }

// Dom restricts r to pairs whose first element is in s: [s];r.
func (r Relation) Dom(s Set) Relation {
	out := NewRelation(r.n)
	for i := 0; i < r.n; i++ {
		if s.Has(i) {
			copy(out.row(i), r.row(i))
		}
	}
	return out
}

// Rng restricts r to pairs whose second element is in s: r;[s].
func (r Relation) Rng(s Set) Relation {
	out := r.Clone()
	for i := 0; i < r.n; i++ {
		row := out.row(i)
		for k := range row {
			row[k] &= s[k]
		}
	}
	return out
}

// Irreflexive reports whether r has no pair (i, i); if it has, it returns such an i.
func (r Relation) Irreflexive() (bool, int) {
	for i := 0; i < r.n; i++ {
		if r.Has(i, i) {
			return false, i
		}
	}
	return true, -1
}

// Empty reports whether r has no pairs.
func (r Relation) Empty() bool {
	for _, x := range r.b {
		if x != 0 {
			return false
		}
	}
	return true
}

// Acyclic reports whether r has no cycle.
func (r Relation) Acyclic() bool {
	// Kahn's algorithm on the bit matrix.
	indeg := make([]int, r.n)
	r.Each(func(_, j int) { indeg[j]++ })
	queue := make([]int, 0, r.n)
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, i)
		}
	}
	seen := 0
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		seen++
		for wi, x := range r.row(i) {
			for x != 0 {
				b := bits.TrailingZeros64(x)
				x &^= 1 << uint(b)
				j := wi*64 + b
				indeg[j]--
				if indeg[j] == 0 {
					queue = append(queue, j)
				}
			}
		}
	}
	return seen == r.n
}

// Cross returns s × t.
func Cross(n int, s, t Set) Relation {
	out := NewRelation(n)
	for i := 0; i < n; i++ {
		if s.Has(i) {
			copy(out.row(i), t)
		}
	}
	return out
}
