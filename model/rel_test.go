package model

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// big is a size spanning three bitset words, so that the pairs below sit
// on either side of the word boundaries 63|64 and 127|128.
const big = 130

// TestSetOps checks Set's operations, across word boundaries.
func TestSetOps(t *testing.T) {
	s, u := set(big, 0, 63, 64, 129), set(big, 63, 64, 100)
	cases := []struct {
		name string
		got  Set
		want []int
	}{
		{"union", s.Union(u), []int{0, 63, 64, 100, 129}},
		{"inter", s.Inter(u), []int{63, 64}},
		{"minus", s.Minus(u), []int{0, 129}},
		{"minus self", s.Minus(s), []int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := members(c.got, big); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	if got := members(s, big); !slices.Equal(got, []int{0, 63, 64, 129}) {
		t.Errorf("an operation changed its operand: %v", got)
	}
	for _, c := range []struct {
		name string
		s    Set
		want bool
	}{{"new", NewSet(big), true}, {"no events", NewSet(0), true}, {"last bit", set(big, 129), false}, {"minus self", s.Minus(s), true}} {
		if got := c.s.Empty(); got != c.want {
			t.Errorf("Empty(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRelationOps checks Relation's operations against the pairs expected,
// on four events and on big ones, and that operands are left unchanged.
func TestRelationOps(t *testing.T) {
	// a small chain, and a big relation with a cycle 64 → 129 → 64
	chain := [][2]int{{0, 1}, {1, 2}}
	wide := [][2]int{{0, 63}, {63, 64}, {64, 129}, {129, 64}}
	other := [][2]int{{63, 64}, {64, 127}, {127, 128}, {128, 1}}
	cases := []struct {
		name string
		n    int
		a, b [][2]int // operands (b unused by unary operations)
		op   func(a, b Relation) Relation
		want [][2]int
	}{
		{"union", 4, chain, [][2]int{{1, 2}, {2, 3}}, func(a, b Relation) Relation { return a.Union(b) }, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		{"union of none", 4, chain, nil, func(a, _ Relation) Relation { return a.Union() }, chain},
		{"union of three", big, wide, other, func(a, b Relation) Relation { return a.Union(b, rel(big, [2]int{5, 5})) },
			[][2]int{{0, 63}, {5, 5}, {63, 64}, {64, 127}, {64, 129}, {127, 128}, {128, 1}, {129, 64}}},
		{"inter", big, wide, other, func(a, b Relation) Relation { return a.Inter(b) }, [][2]int{{63, 64}}},
		{"minus", big, wide, other, func(a, b Relation) Relation { return a.Minus(b) }, [][2]int{{0, 63}, {64, 129}, {129, 64}}},
		{"seq small", 4, chain, [][2]int{{1, 2}, {2, 3}}, func(a, b Relation) Relation { return a.Seq(b) }, [][2]int{{0, 2}, {1, 3}}},
		{"seq big", big, wide, other, func(a, b Relation) Relation { return a.Seq(b) }, [][2]int{{0, 64}, {63, 127}, {129, 127}}},
		{"seq with empty", big, wide, nil, func(a, b Relation) Relation { return a.Seq(b) }, [][2]int{}},
		{"inverse", big, wide, nil, func(a, _ Relation) Relation { return a.Inverse() }, [][2]int{{63, 0}, {64, 63}, {64, 129}, {129, 64}}},
		{"plus small", 4, chain, nil, func(a, _ Relation) Relation { return a.Plus() }, [][2]int{{0, 1}, {0, 2}, {1, 2}}},
		{"plus big", big, wide, nil, func(a, _ Relation) Relation { return a.Plus() },
			[][2]int{{0, 63}, {0, 64}, {0, 129}, {63, 64}, {63, 129}, {64, 64}, {64, 129}, {129, 64}, {129, 129}}},
		{"star", 4, chain, nil, func(a, _ Relation) Relation { return a.Star() }, [][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}, {3, 3}}},
		{"opt", 4, chain, nil, func(a, _ Relation) Relation { return a.Opt() }, [][2]int{{0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}, {3, 3}}},
		{"dom", big, wide, nil, func(a, _ Relation) Relation { return a.Dom(set(big, 0, 64, 100)) }, [][2]int{{0, 63}, {64, 129}}},
		{"rng", big, wide, nil, func(a, _ Relation) Relation { return a.Rng(set(big, 64, 129)) }, [][2]int{{63, 64}, {64, 129}, {129, 64}}},
		{"cross", big, nil, nil, func(_, _ Relation) Relation { return Cross(big, set(big, 1, 127), set(big, 0, 128)) },
			[][2]int{{1, 0}, {1, 128}, {127, 0}, {127, 128}}},
		{"clone; each is row-major", big, [][2]int{{129, 0}, {64, 65}, {0, 129}, {64, 63}}, nil, func(a, _ Relation) Relation { return a.Clone() },
			[][2]int{{0, 129}, {64, 63}, {64, 65}, {129, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := rel(c.n, c.a...), rel(c.n, c.b...)
			got := c.op(a, b)
			if got := pairs(got); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			got.Add(c.n-1, c.n-1) // the result shares nothing with a nor b
			if !slices.Equal(pairs(a), pairs(rel(c.n, c.a...))) || !slices.Equal(pairs(b), pairs(rel(c.n, c.b...))) {
				t.Errorf("an operand changed: a = %v, b = %v", pairs(a), pairs(b))
			}
		})
	}
}

// TestRelationTests checks the predicates Irreflexive (with its witness),
// Empty and Acyclic.
func TestRelationTests(t *testing.T) {
	cases := []struct {
		name           string
		r              Relation
		irreflexive    bool
		witness        int
		empty, acyclic bool
	}{
		{"no events", NewRelation(0), true, -1, true, true},
		{"no pairs", NewRelation(big), true, -1, true, true},
		{"noPairs", noPairs, true, -1, true, true},
		{"chain across words", rel(big, [2]int{0, 63}, [2]int{63, 64}, [2]int{64, 129}), true, -1, false, true},
		{"cycle across words", rel(big, [2]int{63, 64}, [2]int{64, 129}, [2]int{129, 63}), true, -1, false, false},
		{"self loop", rel(big, [2]int{100, 100}), false, 100, false, false},
		{"first self loop is the witness", rel(big, [2]int{129, 129}, [2]int{64, 64}, [2]int{1, 2}), false, 64, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if ok, w := c.r.Irreflexive(); ok != c.irreflexive || w != c.witness {
				t.Errorf("Irreflexive = %v, %d; want %v, %d", ok, w, c.irreflexive, c.witness)
			}
			if got := c.r.Empty(); got != c.empty {
				t.Errorf("Empty = %v, want %v", got, c.empty)
			}
			if got := c.r.Acyclic(); got != c.acyclic {
				t.Errorf("Acyclic = %v, want %v", got, c.acyclic)
			}
			for test, want := range map[Test]bool{Acyclic: c.acyclic, Irreflexive: c.irreflexive, Empty: c.empty} {
				if got := test.Holds(c.r); got != want {
					t.Errorf("%v.Holds = %v, want %v", test, got, want)
				}
			}
		})
	}
}

// TestRelationsAgainstNaive compares Plus, Seq and Acyclic with naive
// implementations over pair lists, on random relations of up to 140
// events: sparse ones, likely cyclic, and forward ones (i < j, acyclic)
// with perhaps one backward pair.
func TestRelationsAgainstNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 140).Draw(t, "n")
		a, b := drawPairs(t, n, "a"), drawPairs(t, n, "b")
		ra, rb := rel(n, a...), rel(n, b...)

		plus := naivePlus(n, a)
		if got := pairs(ra.Plus()); !slices.Equal(got, plus) {
			t.Fatalf("Plus = %v, want %v", got, plus)
		}
		if got, want := pairs(ra.Seq(rb)), naiveSeq(a, b); !slices.Equal(got, want) {
			t.Fatalf("Seq = %v, want %v", got, want)
		}
		cyclic := slices.ContainsFunc(plus, func(p [2]int) bool { return p[0] == p[1] })
		if got := ra.Acyclic(); got == cyclic {
			t.Fatalf("Acyclic = %v, but the transitive closure has a self loop: %v", got, cyclic)
		}
	})
}

// drawPairs draws a relation over n events as a list of pairs.
func drawPairs(t *rapid.T, n int, label string) [][2]int {
	codes := rapid.SliceOfN(rapid.IntRange(0, n*n-1), 0, 2*n).Draw(t, label)
	forward := rapid.Bool().Draw(t, label+" forward")
	var out [][2]int
	for _, c := range codes {
		i, j := c/n, c%n
		if forward && i >= j {
			i, j = j, i
			if i == j {
				continue
			}
		}
		out = append(out, [2]int{i, j})
	}
	if forward && n > 1 && rapid.Bool().Draw(t, label+" back") {
		j := rapid.IntRange(1, n-1).Draw(t, label+" back from")
		out = append(out, [2]int{j, rapid.IntRange(0, j-1).Draw(t, label+" back to")})
	}
	return out
}

// naivePlus is the transitive closure by a search from every event.
func naivePlus(n int, ps [][2]int) [][2]int {
	succ := make([][]int, n)
	for _, p := range ps {
		succ[p[0]] = append(succ[p[0]], p[1])
	}
	out := [][2]int{}
	for i := range n {
		seen := make([]bool, n)
		stack := slices.Clone(succ[i])
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !seen[j] {
				seen[j] = true
				stack = append(stack, succ[j]...)
			}
		}
		for j := range n {
			if seen[j] {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

// naiveSeq composes two pair lists, sorted and without duplicates.
func naiveSeq(a, b [][2]int) [][2]int {
	out := [][2]int{}
	for _, p := range a {
		for _, q := range b {
			if p[1] == q[0] {
				out = append(out, [2]int{p[0], q[1]})
			}
		}
	}
	slices.SortFunc(out, func(x, y [2]int) int {
		if x[0] != y[0] {
			return x[0] - y[0]
		}
		return x[1] - y[1]
	})
	return slices.Compact(out)
}
