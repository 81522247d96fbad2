package model

// What the hardware models share: how a C event's instruction is compiled
// (its ordering annotations and the fences the mapping puts around it) and
// the syntactic dependencies of the compiled code, as herd7 computes them.

// instrOf returns the instruction that made memory event i of x, or nil for
// an initial write.
func (x *Exec) instrOf(i int) *Instr {
	r := x.Refs[i]
	if r.IsInit() {
		return nil
	}
	return &x.G.Prog.Threads[r.T].Code[x.Evs[i].Instr]
}

// acquiring reports whether an RMW-like instruction's read gets an acquire
// annotation under the ARM and RISC-V mappings: when its ordering, or a
// compare-exchange's failure ordering, is consume or stronger than relaxed
// on the acquire side. A lock is an acquire RMW.
func acquiring(in *Instr) bool {
	if in.Op == OpLock {
		return true
	}
	acq := func(o Ordering) bool { return o == Con || o.IsAcquire() }
	return acq(in.Ord) || in.Op == OpCAS && acq(in.FailOrd)
}

// rmwLike reports whether in compiles to an atomic read-modify-write
// instruction (LSE atomic on ARM, AMO or LR/SC on RISC-V).
func rmwLike(in *Instr) bool {
	return in != nil && (in.Op == OpRMW || in.Op == OpCAS || in.Op == OpLock)
}

// hwDeps are the address, data and control dependencies of x as herd7
// computes them for the compiled code: from a read to a later event of its
// thread, through registers (arithmetic, and a load's address into the
// value it loads) and, when throughMemory, through a store and the thread's
// next load of the same location (ARM's "local memory read successor").
type hwDeps struct{ addr, data, ctrl Relation }

// dependencies computes x's hardware dependencies.
func dependencies(x *Exec, throughMemory bool) hwDeps {
	d := hwDeps{NewRelation(x.N), NewRelation(x.N), NewRelation(x.N)}
	for t, evs := range x.G.Threads {
		code := x.G.Prog.Threads[t].Code
		// flow[i]: for read i, the reads (exec indices) its loaded value
		// carries, itself included.
		flow := make([]Set, len(evs))
		of := func(s DepSet) Set {
			out := NewSet(x.N)
			for _, k := range s.Members() {
				if flow[k] != nil {
					out = out.Union(flow[k])
				}
			}
			return out
		}
		last := map[Loc]Set{} // by location: what flows into the thread's last write to it
		for i := range evs {
			e := &evs[i]
			j := x.idx[t][i]
			if j < 0 {
				continue
			}
			addr, data := of(e.Addr), of(e.Data)
			switch e.Kind {
			case KRead:
				f := addr.Union(single(x.N, j))
				if w, ok := last[e.Loc]; ok && throughMemory {
					f = f.Union(w)
				}
				flow[i] = f
			case KWrite:
				w := addr.Union(data)
				if in := &code[e.Instr]; e.RMW && in.Op == OpRMW && in.RMW != Xchg {
					w = w.Union(flow[i-1]) // the value written is computed from the value read
				}
				last[e.Loc] = w
				data.Each(func(k int) { d.data.Add(k, j) })
			}
			if e.Kind == KRead || e.Kind == KWrite {
				addr.Each(func(k int) { d.addr.Add(k, j) })
			}
			of(e.Ctrl).Each(func(k int) { d.ctrl.Add(k, j) })
		}
	}
	return d
}

// single returns the set {i} over n events.
func single(n, i int) Set {
	s := NewSet(n)
	s.Add(i)
	return s
}

// hwEvents are the sets and relations both hardware models start from.
type hwEvents struct {
	M      Set      // memory events: reads and writes, initial writes included
	poLoc  Relation // po & loc
	lrs    Relation // [W]; po & loc, with no write to the location between; [R]
	cas    Set      // reads of compare-exchanges
	rmwW   Set      // writes of read-modify-write instructions
	deps   hwDeps
	before func(j int) Set // the events po-before j
	after  func(j int) Set // the events po-after j
}

// hwBase computes x's hwEvents.
func hwBase(x *Exec, throughMemory bool) *hwEvents {
	h := &hwEvents{M: x.R.Union(x.W), poLoc: x.Po.Inter(x.SameLoc), cas: NewSet(x.N), rmwW: NewSet(x.N)}
	ww := h.poLoc.Dom(x.W).Rng(x.W)
	h.lrs = h.poLoc.Dom(x.W).Rng(x.R).Minus(ww.Seq(h.poLoc))
	for i := len(x.G.Prog.Locs); i < x.N; i++ {
		in := x.instrOf(i)
		if in.Op == OpCAS && x.R.Has(i) {
			h.cas.Add(i)
		}
		if rmwLike(in) && x.W.Has(i) {
			h.rmwW.Add(i)
		}
	}
	h.deps = dependencies(x, throughMemory)
	inv := x.Po.Inverse()
	h.before = func(j int) Set { return Set(inv.row(j)) }
	h.after = func(j int) Set { return Set(x.Po.row(j)) }
	return h
}

// fenced returns the pairs a fence orders, [pre]; po; [f]; po; [post],
// for the fences at the events of fs.
func (h *hwEvents) fenced(x *Exec, fs, pre, post Set) Relation {
	out := NewRelation(x.N)
	fs.Each(func(j int) { out = out.Union(Cross(x.N, h.before(j).Inter(pre), h.after(j).Inter(post))) })
	return out
}
