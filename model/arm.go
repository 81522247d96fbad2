package model

// ARM is the ARMv8 AArch64 memory model of herd7's aarch64.cat (as of
// herd7 7.58: "ordered-before" built from observed-by, dependency-,
// atomic- and barrier-ordered-before; dependencies through registers and
// through a store and the next load of its location), restricted to the
// explicit memory accesses and barriers a C program compiles to. C events
// map by the standard C11-to-AArch64 mapping (ARMv8.1 LSE atomics):
//
//	load na, rlx, con        LDR     (consume is ordered by the dependencies)
//	load acq, sc             LDAR    (A)
//	store na, rlx            STR
//	store rel, sc            STLR    (L)
//	RMW, compare-exchange    SWP, LDADD, LDCLR, LDSET, LDEOR, CAS with the
//	                         suffix A when the ordering (or a CAS's failure
//	                         ordering) is con, acq, acq_rel or sc, and L when
//	                         it is rel, acq_rel or sc; a lock is SWPA, an
//	                         unlock STLR
//	fence acq, con           DMB ISHLD
//	fence rel, acq_rel, sc   DMB ISH (so is creating a thread)
//
// and the C program's address, data and control dependencies are the
// hardware's. With ca = fr | co:
//
//	let obs = rfe | (ca & ext)
//	let dob = addr | data | ctrl; [W] | addr; po; [W]
//	        | (addr | data); lrs; [R]
//	let aob = rmw | rmw; lrs; [A]
//	let bob = po; [DMB.ISH]; po | [R]; po; [DMB.ISHLD]; po
//	        | [range([A]; rmw; [L])]; po | [L]; po; [A] | [A]; po | po; [L]
//	let haz = [R]; po-loc; [R]; (ca & ext); [W]
//	let ob  = (obs | po-loc; [W] | dob | aob | bob | haz)+
//	irreflexive [R]; (po-loc | rmw); [W]; rfi        as coRW1
//	irreflexive [W]; po-loc; [W]; (ca & int)         as coWW
//	irreflexive [W]; po-loc; [R]; (ca & int)         as coWR
//	irreflexive ob                                   as external
//	empty rmw & (fr; co)                             as atomic
//
// Unlike RC11, nothing forbids load buffering: a relaxed load may be
// satisfied by a store its own thread makes later, when no dependency
// orders them. It has no operational form here: it is explored by
// execution graphs.
var ARM = Register(&Model{
	Name: "arm",
	Doc:  "ARMv8 AArch64, through the C11-to-AArch64 mapping",
	Axioms: []Axiom{
		{"coRW1", Irreflexive, Let("[R]; (po-loc | rmw); [W]; rfi", func(x *Exec) Relation {
			poLoc := x.Po.Inter(x.SameLoc)
			return poLoc.Union(x.Rmw).Dom(x.R).Rng(x.W).Seq(x.Internal(x.Rf))
		})},
		{"coWW", Irreflexive, Let("[W]; po-loc; [W]; (ca & int)", func(x *Exec) Relation {
			return x.Po.Inter(x.SameLoc).Dom(x.W).Rng(x.W).Seq(x.Internal(x.Co.Union(x.Fr)))
		})},
		{"coWR", Irreflexive, Let("[W]; po-loc; [R]; (ca & int)", func(x *Exec) Relation {
			return x.Po.Inter(x.SameLoc).Dom(x.W).Rng(x.R).Seq(x.Internal(x.Co.Union(x.Fr)))
		})},
		{"external", Acyclic, armOB},
		{"atomic", Empty, rmwBroken},
	},
	HB:            HB,
	LoadBuffering: true,
	Ordered:       armLOB,
	Strength:      3,
	Unordered:     unorderedC11,
	Stale:         hwStale("ARM", armLocal),
	Parts: func(x *Exec, axiom string) []Part {
		if axiom == "external" {
			return armParts(x)
		}
		return nil
	},
})

// armLocal is ARM's ordering within a thread: ordered-before's own pairs
// without the observations between threads.
var armLocal = Let("lob", func(x *Exec) Relation { return x.Of(armOB).Inter(x.Po) })

// armOB is the union whose closure is ARM's ordered-before: its parts
// within a thread, which depend on the events alone, and those between.
var armOB = Let("ob", func(x *Exec) Relation {
	return x.Of(armLOB).Union(union(x, armObserved(x)))
})

// armLOB is the union of ARM's ordering parts within a thread.
var armLOB = LetStatic("lob parts", func(x *Exec) Relation { return union(x, armLocalParts(x)) })

// armParts are the relations ordered-before is the closure of, named for
// explanations.
func armParts(x *Exec) []Part { return append(armObserved(x), armLocalParts(x)...) }

// armObserved are the parts of ordered-before that rf, co and fr make.
func armObserved(x *Exec) []Part {
	h := hwBase(x, true)
	return []Part{
		{"is read by another thread (rfe)", x.External(x.Rf)},
		{"reads what another thread overwrites (fre)", x.External(x.Fr)},
		{"is overwritten by another thread (coe)", x.External(x.Co)},
		{"reads of one location, the later one reading what another thread overwrites", h.poLoc.Dom(x.R).Rng(x.R).Seq(x.External(x.Fr.Union(x.Co))).Rng(x.W)},
	}
}

// armLocalParts are the parts of ordered-before within a thread.
func armLocalParts(x *Exec) []Part {
	h := hwBase(x, true)
	acq, rel, full, ld := armTags(x)
	d := h.deps
	alRMW := x.Rmw.Dom(acq).Rng(rel)
	afterAL := NewSet(x.N)
	x.Rmw.Each(func(r, w int) {
		if alRMW.Has(r, w) {
			afterAL.Add(w)
		}
	})
	return []Part{
		{"address dependency", d.addr},
		{"data dependency", d.data},
		{"control dependency to a write", d.ctrl.Rng(x.W)},
		{"address dependency, then a later write", d.addr.Seq(x.Po).Rng(x.W)},
		{"dependency through a store and the next load of its location", d.addr.Union(d.data).Seq(h.lrs).Rng(x.R)},
		{"read-modify-write", x.Rmw},
		{"read-modify-write, then its thread's load-acquire of the location", x.Rmw.Seq(h.lrs).Rng(acq)},
		{"DMB ISH between them", h.fences(x, full, h.M, h.M)},
		{"DMB ISHLD after the read", h.fences(x, ld, x.R, h.M)},
		{"acquire-release read-modify-write before", x.Po.Dom(afterAL).Rng(h.M)},
		{"store-release (STLR) then load-acquire (LDAR)", x.Po.Dom(rel).Rng(acq)},
		{"load-acquire (LDAR) before", x.Po.Dom(acq).Rng(h.M)},
		{"store-release (STLR) after", x.Po.Dom(h.M).Rng(rel)},
		{"a write to the same location after", h.poLoc.Rng(x.W)},
	}
}

// armTags returns the acquire reads (A), release writes (L) and the
// events that compile to DMB ISH and DMB ISHLD.
func armTags(x *Exec) (acq, rel, full, ld Set) {
	acq, rel, full, ld = NewSet(x.N), NewSet(x.N), x.Spawn.Union(NewSet(x.N)), NewSet(x.N)
	for i := len(x.InitLocs); i < x.N; i++ {
		in, e := x.instrOf(i), x.Evs[i]
		switch {
		case e.Kind == KFence && (in.Ord == Acq || in.Ord == Con):
			ld.Add(i)
		case e.Kind == KFence && in.Ord.IsRelease():
			full.Add(i)
		case e.Kind == KRead && rmwLike(in) && acquiring(in),
			e.Kind == KRead && in.Op == OpLoad && in.Ord.IsAcquire():
			acq.Add(i)
		case e.Kind == KWrite && (in.Op == OpUnlock || in.Op != OpLock && in.Ord.IsRelease()):
			rel.Add(i)
		}
	}
	return
}
