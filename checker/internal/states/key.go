package states

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/ordercheck/ordercheck/model"
)

// key returns the canonical form of s: interchangeable threads sorted by
// local state, clock values by rank. The slice is reused by the next call.
func (x *states) key(s *sstate) []byte {
	perm := x.order(s)
	b := x.buf[:0]
	for _, t := range perm {
		b = x.appendLocal(b, t, s.th[t])
	}
	b = s.mem.AppendKey(b, perm)
	if s.clk != nil {
		b = x.appendClocks(b, s.clk, s.locks, perm)
	}
	if x.spec != nil {
		b = appendHistory(b, s.hist, perm)
	}
	x.buf = b
	return b
}

// appendLocal encodes what thread t's future depends on: where it is,
// whether its operation's call is still to be placed, and its live
// registers.
func (x *states) appendLocal(b []byte, t int, th *sthread) []byte {
	b = append(b, byte(th.st.Status), byte(b2i(th.call != nil)))
	b = binary.AppendUvarint(b, uint64(th.st.PC))
	live := x.live[t][len(x.live[t])-1] // a stopped thread's: those read at the end
	switch code := x.Prog.Threads[t].Code; {
	case th.st.Status == model.Running:
		live = x.live[t][th.st.PC]
	case th.st.Status == model.Blocked && th.st.PC < len(code) && code[th.st.PC].Await:
		// Whether it waits forever is its await's condition, evaluated again.
		live = live.Union(x.live[t][code[th.st.PC].Target])
	}
	for r, v := range th.st.Regs {
		if live.Has(r) {
			b = binary.AppendVarint(b, v)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

// order returns the canonical order of s's threads: position i holds
// thread perm[i]; the members of a group of interchangeable threads are
// sorted by local state, then by what their clocks and their marks in
// the history say (see appendSignature).
func (x *states) order(s *sstate) []int {
	perm := make([]int, len(s.th))
	for i := range perm {
		perm[i] = i
	}
	// A mark's run: its place among the maximal runs of calls and of
	// returns, which do not depend on the order within a run.
	runs := make([]int, len(s.hist))
	for i := 1; i < len(s.hist); i++ {
		runs[i] = runs[i-1] + b2i(s.hist[i].ret != s.hist[i-1].ret)
	}
	for _, g := range x.groups {
		for _, t := range g {
			x.keys[t] = x.appendLocal(x.keys[t][:0], t, s.th[t])
			x.keys[t] = s.mem.AppendThreadKey(x.keys[t], t)
			if s.clk != nil {
				x.keys[t] = x.appendSignature(x.keys[t], s.clk, t)
			}
			for i, m := range s.hist {
				if int(m.t) == t {
					x.keys[t] = binary.AppendUvarint(x.keys[t], uint64(runs[i]))
				}
			}
		}
		sorted := slices.Clone(g)
		slices.SortStableFunc(sorted, func(a, b int) int { return bytes.Compare(x.keys[a], x.keys[b]) })
		for i, t := range g {
			perm[t] = sorted[i]
		}
	}
	return perm
}

// appendSignature encodes what thread t's clocks say that does not
// depend on the other threads' names: its own records and release views
// by location, and the sorted values it knows of others and others know
// of it. Sorting interchangeable threads by it as well as by local state
// merges more of the states that differ only by their names.
func (x *states) appendSignature(b []byte, clk []uint32, t int) []byte {
	k := x.lay
	n := k.n
	for l := range k.nl {
		for kind := range recKinds {
			b = binary.AppendUvarint(b, uint64(clk[k.acc(model.Loc(l), kind)*n+t]))
		}
	}
	row := x.scratch[:0]
	for u := range n {
		if u != t {
			row = append(row, clk[k.c(t)*n+u], clk[k.c(u)*n+t]<<16)
		}
	}
	slices.Sort(row)
	for _, v := range row {
		b = binary.AppendUvarint(b, uint64(v))
	}
	x.scratch = row
	return b
}

// appendClocks encodes the clocks of a state (normalized: see
// normalize), threads in the order perm.
func (x *states) appendClocks(b []byte, clk []uint32, locks []uint64, perm []int) []byte {
	k := x.lay
	n := k.n
	vec := func(v int) { b = model.AppendSparse(b, clk[v*n:(v+1)*n], perm) }
	for _, t := range perm {
		vec(k.c(t))
		vec(k.f(t))
		vec(k.a(t))
		for l := range k.nl {
			vec(k.rel(t, model.Loc(l)))
		}
	}
	for l := range k.nl {
		for a := range recKinds {
			vec(k.acc(model.Loc(l), a))
		}
	}
	for l := range k.nl {
		for a := range recKinds {
			for _, u := range perm {
				if clk[k.acc(model.Loc(l), a)*n+u] != 0 {
					b = binary.AppendUvarint(b, locks[k.record(model.Loc(l), a, u)])
				}
			}
		}
	}
	return b
}

// appendHistory encodes a history of marks, threads renamed by perm; the
// order of consecutive calls (or returns) does not matter to
// linearizability, so each such run is sorted.
func appendHistory(b []byte, h []mark, perm []int) []byte {
	pos := make([]int32, len(perm))
	for i, t := range perm {
		pos[t] = int32(i)
	}
	hs := make([]mark, len(h))
	for i, m := range h {
		m.t = pos[m.t]
		hs[i] = m
	}
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j].ret == hs[i].ret {
			j++
		}
		slices.SortFunc(hs[i:j], func(a, b mark) int { return int(a.t - b.t) })
		i = j
	}
	for _, m := range hs {
		b = binary.AppendUvarint(b, uint64(m.t)<<1|uint64(b2i(m.ret)))
		b = binary.AppendUvarint(b, uint64(m.instr))
		b = binary.AppendVarint(b, m.val)
	}
	return b
}
