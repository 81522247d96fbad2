package states

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/ordercheck/ordercheck/model"
)

// key returns the canonical form of s: interchangeable threads sorted by
// local state, clock values by rank. The slice is reused by the next call.
func (x *states) key(s *sstate) []byte { return x.keyIn(s, x.order(s)) }

// keyIn returns the form of s with its threads in the order perm (see
// order). The slice is reused by the next call.
func (x *states) keyIn(s *sstate, perm []int) []byte {
	b := x.buf[:0]
	for _, t := range perm {
		if x.keyed == s && x.local[t] > 0 { // order encoded it
			b = append(b, x.keys[t][:x.local[t]]...)
			continue
		}
		b = x.appendLocal(b, t, s.th[t])
		b = s.mem.AppendThreadKey(b, t)
	}
	b = s.mem.AppendKey(b, perm)
	if s.clk != nil {
		b = x.appendClocks(b, s.clk, s.locks, perm)
	}
	if x.wholeHistories() {
		b = appendHistory(b, s, perm)
	}
	x.buf = b
	return b
}

// appendLocal encodes what thread t's future depends on: where it is,
// whether it is inside an operation judged alone (and its arguments), and
// its live registers.
func (x *states) appendLocal(b []byte, t int, th *sthread) []byte {
	b = append(b, byte(th.st.Status))
	if th.open {
		b = appendVals(append(b, 1), th.args)
	} else {
		b = append(b, 0)
	}
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
// sorted by local state, then by what their clocks and their operations
// say (see appendSignature). The slice is reused by the next call. The
// sort keys begin with what keyIn encodes of each thread, which it takes
// from them while s is the state last sorted.
func (x *states) order(s *sstate) []int {
	perm := x.perm[:0]
	for t := range s.th {
		perm = append(perm, t)
	}
	x.perm = perm
	x.keyed = s
	if len(x.local) < len(s.th) {
		x.local = make([]int, len(s.th))
	}
	clear(x.local)
	for _, g := range x.groups {
		for _, t := range g {
			x.keys[t] = x.appendLocal(x.keys[t][:0], t, s.th[t])
			x.keys[t] = s.mem.AppendThreadKey(x.keys[t], t)
			x.local[t] = len(x.keys[t])
			if s.clk != nil {
				x.keys[t] = x.appendSignature(x.keys[t], s.clk, t)
			}
			for _, op := range s.th[t].ops {
				x.keys[t] = appendOp(x.keys[t], &op)
			}
		}
		sorted := append(x.sorted[:0], g...)
		x.sorted = sorted
		slices.SortStableFunc(sorted, func(a, b int) int { return bytes.Compare(x.keys[a], x.keys[b]) })
		for i, t := range g {
			perm[t] = sorted[i]
		}
	}
	return perm
}

// appendSignature encodes what thread t's clocks say that does not
// depend on the other threads' names: its own records and release views
// by location, and the values it knows of others and others know of it,
// as a multiset (the count of zeros, most of them, then the others
// sorted). Sorting interchangeable threads by it as well as by local
// state merges more of the states that differ only by their names.
func (x *states) appendSignature(b []byte, clk []uint32, t int) []byte {
	k := x.lay
	n := k.n
	for l := range k.nl {
		for kind := range recKinds {
			b = binary.AppendUvarint(b, uint64(clk[k.acc(model.Loc(l), kind)*n+t]))
		}
	}
	row := x.scratch[:0]
	zeros := 0
	for u := range n {
		if u == t {
			continue
		}
		for _, v := range [2]uint32{clk[k.c(t)*n+u], clk[k.c(u)*n+t] << 16} {
			if v == 0 {
				zeros++
			} else {
				row = append(row, v)
			}
		}
	}
	slices.Sort(row)
	b = binary.AppendUvarint(b, uint64(zeros))
	for _, v := range row {
		b = binary.AppendUvarint(b, uint64(v))
	}
	x.scratch = row
	return b
}

// appendClocks encodes the clocks of a state (normalized: see
// normalize), threads in the order perm: its entries that are not zero
// (most are), vector by vector — each thread's (c, f, a, then rel by
// location) in the order perm, then the access records — and in each
// vector in the order perm, each entry as the count of zero entries
// before it, its value and, for an access record, the mutexes held at the
// access; then two zeros.
func (x *states) appendClocks(b []byte, clk []uint32, locks []uint64, perm []int) []byte {
	k := x.lay
	n, acc := k.n, k.acc(0, 0) // acc: the first access record's vector
	gap := uint64(0)           // zero entries since the last one encoded
	vector := func(v int, lock bool) {
		row := clk[v*n : (v+1)*n]
		if !nonzero(row) {
			gap += uint64(n) // most vectors are zero: no need of perm
			return
		}
		for _, u := range perm {
			e := row[u]
			if e == 0 {
				gap++
				continue
			}
			b = binary.AppendUvarint(b, gap)
			b = binary.AppendUvarint(b, uint64(e))
			if lock {
				b = binary.AppendUvarint(b, locks[(v-acc)*n+u])
			}
			gap = 0
		}
	}
	for _, t := range perm {
		vector(k.c(t), false)
		vector(k.f(t), false)
		vector(k.a(t), false)
		for l := range k.nl {
			vector(k.rel(t, model.Loc(l)), false)
		}
	}
	for v := acc; v < k.vectors(); v++ {
		vector(v, true)
	}
	return append(b, 0, 0)
}

// appendHistory encodes the operations of s's threads, threads in the
// order perm: each with what it knows of the others' operations.
func appendHistory(b []byte, s *sstate, perm []int) []byte {
	for _, t := range perm {
		ops := s.th[t].ops
		b = binary.AppendUvarint(b, uint64(len(ops)))
		for k := range ops {
			op := &ops[k]
			b = appendOp(b, op)
			b = binary.AppendUvarint(b, uint64(op.call))
			b = binary.AppendUvarint(b, uint64(op.ret))
			for _, counts := range [2][]uint16{op.before, op.sync} {
				b = binary.AppendUvarint(b, uint64(len(counts)))
				if counts == nil {
					continue
				}
				for _, u := range perm {
					b = binary.AppendUvarint(b, uint64(counts[u]))
				}
			}
		}
	}
	return b
}

// appendOp encodes what an operation is, apart from its place in the
// history: its instruction, arguments, results and whether it returned.
func appendOp(b []byte, op *opRec) []byte {
	b = binary.AppendUvarint(b, uint64(op.instr))
	b = appendVals(b, op.args)
	b = appendVals(append(b, byte(min(op.ret, 1))), op.results)
	return b
}

// appendVals encodes a list of values.
func appendVals(b []byte, vs []int64) []byte {
	b = binary.AppendUvarint(b, uint64(len(vs)))
	for _, v := range vs {
		b = binary.AppendVarint(b, v)
	}
	return b
}
