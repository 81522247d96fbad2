package states

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker/internal/progtest"
)

// TestSymmetryKeepsOneStatePerOrbit checks the canonical order of
// interchangeable threads (order: by local state and what the memory holds
// of each, its views or its store buffer) against brute force: without
// data races the explorer keeps exactly as many states as the states it
// reaches without symmetry fall into classes, two states being in one
// class when a renaming of interchangeable threads makes one the other.
func TestSymmetryKeepsOneStatePerOrbit(t *testing.T) {
	for _, m := range progtest.Machines() {
		t.Run(m.Name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p := progtest.WithTwins(t, progtest.Program(t, progtest.ProtocolSized))
				progtest.Explorable(p, m)
				x := newStates(p, m, Config{})
				if len(x.groups) == 0 {
					t.Skip("no interchangeable threads")
				}
				orbits, ok := orbits(t, newStates(p, m, Config{}), 2000)
				if !ok {
					t.Skip("too many states")
				}
				if _, err := x.explore(); err != nil {
					t.Fatal(err)
				}
				if got := x.seen.Len(); got != orbits {
					t.Fatalf("%d states kept, %d classes of states under renaming", got, orbits)
				}
			})
		})
	}
}

// orbits explores p by states without symmetry, at most limit states,
// and returns the number of classes the states reached fall into under
// renamings of x's interchangeable threads.
func orbits(t *rapid.T, x *states, limit int) (int, bool) {
	groups := x.groups
	x.groups = nil // order is the identity
	s, _, err := x.initial(nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{string(x.key(s)): true}
	classes := map[string]bool{}
	for todo := []*sstate{s}; len(todo) > 0; {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		classes[smallestKey(x, s, groups)] = true
		x.moves(s, func(u int, o option) bool {
			n, _, err := x.apply(s, u, o, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if k := string(x.key(n)); !seen[k] {
				seen[k] = true
				todo = append(todo, n)
			}
			return true
		})
		if len(seen) > limit {
			return 0, false
		}
	}
	return len(classes), true
}

// smallestKey returns the least of s's keys over every renaming of the
// threads within each of groups.
func smallestKey(x *states, s *sstate, groups [][]int) string {
	perm := make([]int, len(s.th))
	for t := range perm {
		perm[t] = t
	}
	best := ""
	var try func(g int)
	try = func(g int) {
		if g == len(groups) {
			if k := string(x.keyIn(s, perm)); best == "" || k < best {
				best = k
			}
			return
		}
		permute(perm, groups[g], 0, func() { try(g + 1) })
	}
	try(0)
	return best
}

// permute calls f with perm holding, at the places members, every order
// of the threads it holds there from member k on.
func permute(perm, members []int, k int, f func()) {
	if k == len(members) {
		f()
		return
	}
	for i := k; i < len(members); i++ {
		a, b := members[k], members[i]
		perm[a], perm[b] = perm[b], perm[a]
		permute(perm, members, k+1, f)
		perm[a], perm[b] = perm[b], perm[a]
	}
}
