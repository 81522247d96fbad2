package model

import "fmt"

// What the hardware models share: how a C event's instruction is compiled
// (its ordering annotations and the fences the mapping puts around it) and
// the syntactic dependencies of the compiled code, as herd7 computes them.

// instrOf returns the instruction that made memory event i of x, or nil for
// an initial write. A graph built by hand, without code, gets one made
// from the event: a load, store or fence of its ordering, or an RMW.
func (x *Exec) instrOf(i int) *Instr {
	r := x.Refs[i]
	if r.IsInit() {
		return nil
	}
	e := x.Evs[i]
	if code := x.G.Prog.Threads[r.T].Code; int(e.Instr) < len(code) {
		return &code[e.Instr]
	}
	in := &Instr{Op: OpLoad, Ord: e.Ord, FailOrd: e.Ord}
	switch {
	case e.RMW:
		in.Op = OpRMW
	case e.Kind == KWrite:
		in.Op = OpStore
	case e.Kind == KFence:
		in.Op = OpFence
	case e.Kind == KSpawn:
		in.Op = OpSpawn
	}
	return in
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
			addr, data := of(e.Addr()), of(e.Data())
			switch e.Kind {
			case KRead:
				f := addr.Union(single(x.N, j))
				if w, ok := last[e.Loc]; ok && throughMemory {
					f = f.Union(w)
				}
				flow[i] = f
			case KWrite:
				w := addr.Union(data)
				if in := x.instrOf(j); e.RMW && in.Op == OpRMW && in.RMW != Xchg {
					w = w.Union(flow[i-1]) // the value written is computed from the value read
				}
				last[e.Loc] = w
				data.Each(func(k int) { d.data.Add(k, j) })
			}
			if e.Kind == KRead || e.Kind == KWrite {
				addr.Each(func(k int) { d.addr.Add(k, j) })
			}
			of(e.Ctrl()).Each(func(k int) { d.ctrl.Add(k, j) })
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
	M     Set      // memory events: reads and writes, initial writes included
	poLoc Relation // po & loc
	lrs   Relation // [W]; po & loc, with no write to the location between; [R]
	cas   Set      // reads of compare-exchanges
	rmwW  Set      // writes of read-modify-write instructions
	deps  hwDeps
	po    Relation // program order, and its inverse
	poInv Relation
}

// before returns the events po-before j.
func (h *hwEvents) before(j int) Set { return Set(h.poInv.row(j)) }

// after returns the events po-after j.
func (h *hwEvents) after(j int) Set { return Set(h.po.row(j)) }

// hwBase returns x's hwEvents, computing them once.
func hwBase(x *Exec, throughMemory bool) *hwEvents {
	k := 0
	if throughMemory {
		k = 1
	}
	if x.hw[k] == nil {
		x.hw[k] = newHWEvents(x, throughMemory)
	}
	return x.hw[k]
}

// newHWEvents computes x's hwEvents.
func newHWEvents(x *Exec, throughMemory bool) *hwEvents {
	h := &hwEvents{M: x.R.Union(x.W), poLoc: x.Po.Inter(x.SameLoc), cas: NewSet(x.N), rmwW: NewSet(x.N)}
	ww := h.poLoc.Dom(x.W).Rng(x.W)
	h.lrs = h.poLoc.Dom(x.W).Rng(x.R).Minus(ww.Seq(h.poLoc))
	for i := len(x.InitLocs); i < x.N; i++ {
		in := x.instrOf(i)
		if in.Op == OpCAS && x.R.Has(i) {
			h.cas.Add(i)
		}
		if rmwLike(in) && x.W.Has(i) {
			h.rmwW.Add(i)
		}
	}
	h.deps = dependencies(x, throughMemory)
	h.po, h.poInv = x.Po, x.Po.Inverse()
	return h
}

// Where a fence stands with respect to the event that places it.
const (
	atEvent     = iota // the event is the fence
	beforeEvent        // the fence comes just before the event
	afterEvent         // the fence comes just after the event
)

// fence returns the pairs [pre]; po; [f]; po; [post] of a fence f placed
// at event j (side: atEvent, beforeEvent or afterEvent).
func (h *hwEvents) fence(x *Exec, j int, pre, post Set, side int) Relation {
	b, a := h.before(j), h.after(j)
	switch side {
	case afterEvent:
		b = b.Union(single(x.N, j))
	case beforeEvent:
		a = a.Union(single(x.N, j))
	}
	return Cross(x.N, b.Inter(pre), a.Inter(post))
}

// fences returns the pairs that the fences at the events of fs order.
func (h *hwEvents) fences(x *Exec, fs, pre, post Set) Relation {
	out := NewRelation(x.N)
	fs.Each(func(j int) { out = out.Union(h.fence(x, j, pre, post, atEvent)) })
	return out
}

// hwStale explains, in the terms of architecture arch, why a read may
// read a write older than one presented before it: local gives the
// model's ordering within a thread (ARM's locally-ordered-before, RVWMO's
// preserved program order). Either an earlier read of the reader's thread
// is not ordered before the read, or a later write of the writer's thread
// is not ordered after the write.
func hwStale(arch string, local *Derived) func(x *Exec, r, w int, step func(int) string) string {
	return func(x *Exec, r, w int, step func(int) string) string {
		ord := x.Of(local).Plus()
		inv, rfe := x.Po.Inverse(), x.External(x.Rf)
		var why string
		Set(inv.row(r)).Inter(x.R).Each(func(a int) { // the reader's earlier reads, the latest last
			if !ord.Has(a, r) && rfe.Has(x.Index(x.Evs[a].Rf), a) {
				why = fmt.Sprintf("on %s nothing orders %s before %s: no dependency from %s, no barrier between them, and %s is not an acquire load",
					arch, step(a), step(r), step(a), step(a))
			}
		})
		if why != "" {
			return why
		}
		if !x.IW.Has(w) {
			Set(x.Po.row(w)).Inter(x.W).Each(func(b int) {
				if why == "" && !ord.Has(w, b) {
					why = fmt.Sprintf("on %s nothing orders %s before %s: no barrier between them, and %s is not a release store",
						arch, step(w), step(b), step(b))
				}
			})
		}
		if why != "" {
			return why
		}
		return fmt.Sprintf("on %s no ordered-before chain leads from %s to %s", arch, step(w), step(r))
	}
}
