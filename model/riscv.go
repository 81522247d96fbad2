package model

// RISCV is RVWMO, the RISC-V memory model, as herd7's riscv.cat
// (7.58) states it, restricted to the memory accesses and fences a C
// program compiles to. C events map by the RISC-V specification's
// compilation table (A.6):
//
//	load na, rlx, con        ld                  (consume: by its dependencies)
//	load acq                 ld; fence r,rw
//	load sc                  fence rw,rw; ld; fence r,rw
//	store na, rlx            sd
//	store rel, sc            fence rw,w; sd
//	RMW                      amo<op>.d with .aq (acq, con), .rl (rel), .aqrl
//	                         (acq_rel, sc) on both its read and write; a
//	                         lock is amoswap.d.aq, an unlock a release store
//	compare-exchange         lr.d; bne; sc.d: lr.aq when the ordering or the
//	                         failure ordering acquires, lr.aqrl for sc, sc.rl
//	                         when the ordering releases; the branch gives the
//	                         read a control dependency to all that follows
//	fence acq, con           fence r,rw
//	fence rel                fence rw,w
//	fence acq_rel            fence.tso
//	fence sc                 fence rw,rw (so is creating a thread)
//
// and the C program's address, data and control dependencies are the
// hardware's (through registers, not through memory). Its preserved
// program order:
//
//	let r1  = [M]; po-loc; [W]
//	let r2  = ([R]; po-loc-no-w; [R]) \ rf⁻¹; rf
//	let r3  = [AMO | SC]; rfi; [R]
//	let r4  = fence
//	let r5  = [AQ]; po | r6 = po; [RL] | r7 = [RCsc]; po; [RCsc]
//	let r8  = rmw
//	let r9  = addr | r10 = data | r11 = ctrl; [W]
//	let r12 = (addr | data); [W]; rfi; [R]
//	let r13 = addr; po; [W]
//	acyclic co | rf | fr | po-loc     as Coherence
//	acyclic co | rfe | fr | ppo       as Model
//	empty rmw & (fre; coe)            as Atomic
//
// As on ARM, load buffering is allowed. It has no operational form here:
// it is explored by execution graphs.
var RISCV = Register(&Model{
	Name: "riscv",
	Doc:  "RISC-V RVWMO, through the specification's C11 mapping",
	Axioms: []Axiom{
		{"Coherence", Acyclic, Let("co | rf | fr | po-loc", func(x *Exec) Relation {
			return x.Co.Union(x.Rf, x.Fr, x.Po.Inter(x.SameLoc))
		})},
		{"Model", Acyclic, Let("co | rfe | fr | ppo", func(x *Exec) Relation {
			return x.Co.Union(x.External(x.Rf), x.Fr, x.Of(riscvPPO))
		})},
		{"Atomic", Empty, Let("rmw & (fre; coe)", func(x *Exec) Relation {
			return x.Rmw.Inter(x.External(x.Fr).Seq(x.External(x.Co)))
		})},
	},
	HB:            HB,
	LoadBuffering: true,
	Ordered:       riscvStaticPPO,
	Strength:      3,
	Unordered:     unorderedC11,
	Stale:         hwStale("RISC-V", riscvPPO),
	Parts: func(x *Exec, axiom string) []Part {
		if axiom != "Model" {
			return nil
		}
		return append([]Part{
			{"is overwritten by (co)", x.Co},
			{"is read by another thread (rfe)", x.External(x.Rf)},
			{"reads what is overwritten by (fr)", x.Fr},
		}, riscvPPOParts(x)...)
	},
})

// riscvPPO is RVWMO's preserved program order: its rules that depend on
// the events alone, and those that read rf.
var riscvPPO = Let("ppo", func(x *Exec) Relation {
	return x.Of(riscvStaticPPO).Union(union(x, riscvReadingParts(x)))
})

// riscvStaticPPO is the union of the rules that depend on the events alone.
var riscvStaticPPO = LetStatic("ppo of the events", func(x *Exec) Relation { return union(x, riscvStaticParts(x)) })

// riscvPPOParts are the rules of preserved program order, named for
// explanations.
func riscvPPOParts(x *Exec) []Part { return append(riscvStaticParts(x), riscvReadingParts(x)...) }

// riscvStaticParts are the rules of preserved program order that depend
// on the events alone.
func riscvStaticParts(x *Exec) []Part {
	h := hwBase(x, false)
	aq, rl := riscvTags(x)
	M := h.M
	rcsc := aq.Union(rl)
	d := h.deps
	// The compare-exchange's branch (bne) on the value it read.
	ctrl := d.ctrl.Union(x.Po.Dom(h.cas))
	return []Part{
		{"a write to the same location after (r1)", h.poLoc.Rng(x.W)},
		{"a fence between them (r4)", riscvFences(x, h)},
		{"acquire annotation (.aq) before (r5)", x.Po.Dom(aq).Rng(M)},
		{"release annotation (.rl) after (r6)", x.Po.Dom(M).Rng(rl)},
		{"RCsc annotations on both (r7)", x.Po.Dom(rcsc).Rng(rcsc)},
		{"AMO or LR/SC pair (r8)", x.Rmw},
		{"address dependency (r9)", d.addr},
		{"data dependency (r10)", d.data.Rng(x.W)},
		{"control dependency to a write (r11)", ctrl.Rng(x.W)},
		{"address dependency, then a later write (r13)", d.addr.Seq(x.Po).Rng(x.W)},
	}
}

// riscvReadingParts are the rules of preserved program order that read rf.
func riscvReadingParts(x *Exec) []Part {
	h := hwBase(x, false)
	d := h.deps
	poLocW := h.poLoc.Opt().Rng(x.W).Seq(h.poLoc)
	sourced := NewSet(x.N) // reads with a source (all, but in a partial graph)
	x.Rf.Each(func(_, r int) { sourced.Add(r) })
	return []Part{
		{"reads of one location reading different writes (r2)", h.poLoc.Minus(poLocW).Dom(sourced).Rng(sourced).Minus(x.Rf.Inverse().Seq(x.Rf))},
		{"an AMO or SC's write read by its own thread (r3)", x.Internal(x.Rf).Dom(h.rmwW).Rng(x.R)},
		{"dependency to a write its thread reads back (r12)", d.addr.Union(d.data).Rng(x.W).Seq(x.Internal(x.Rf)).Rng(x.R)},
	}
}

// riscvTags returns the events with an acquire (.aq or .aqrl) and a
// release (.rl or .aqrl) annotation: those of AMOs and LR/SC pairs.
func riscvTags(x *Exec) (aq, rl Set) {
	aq, rl = NewSet(x.N), NewSet(x.N)
	for i := len(x.InitLocs); i < x.N; i++ {
		in, e := x.instrOf(i), x.Evs[i]
		switch {
		case in.Op == OpLock:
			aq.Add(i)
		case in.Op == OpRMW:
			if in.Ord == Con || in.Ord.IsAcquire() {
				aq.Add(i)
			}
			if in.Ord.IsRelease() {
				rl.Add(i)
			}
		case in.Op == OpCAS && e.Kind == KRead:
			if acquiring(in) {
				aq.Add(i)
			}
			if in.Ord == SeqCst {
				rl.Add(i)
			}
		case in.Op == OpCAS && e.Kind == KWrite:
			if in.Ord.IsRelease() {
				rl.Add(i)
			}
		}
	}
	return
}

// riscvFences returns the pairs the mapping's fences order: those of C
// fences and thread creation, and those it puts around acquire and seq_cst
// loads and release and seq_cst stores.
func riscvFences(x *Exec, h *hwEvents) Relation {
	M := h.M
	out := NewRelation(x.N)
	fence := func(j int, pre, post Set, side int) { out = out.Union(h.fence(x, j, pre, post, side)) }
	for i := len(x.InitLocs); i < x.N; i++ {
		e := x.Evs[i]
		in := x.instrOf(i)
		switch {
		case e.Kind == KSpawn:
			fence(i, M, M, atEvent)
		case e.Kind == KFence:
			switch in.Ord {
			case Acq, Con:
				fence(i, x.R, M, atEvent)
			case Rel:
				fence(i, M, x.W, atEvent)
			case AcqRel: // fence.tso: [W]; f; [W] | [R]; f; [M]
				fence(i, x.W, x.W, atEvent)
				fence(i, x.R, M, atEvent)
			case SeqCst:
				fence(i, M, M, atEvent)
			}
		case e.Kind == KRead && in.Op == OpLoad:
			if in.Ord == SeqCst {
				fence(i, M, M, beforeEvent)
			}
			if in.Ord.IsAcquire() {
				fence(i, x.R, M, afterEvent)
			}
		case e.Kind == KWrite && (in.Op == OpStore && in.Ord.IsRelease() || in.Op == OpUnlock):
			fence(i, M, x.W, beforeEvent)
		}
	}
	return out
}
