package model

// The rc11 model: repaired C11 (Lahav, Vafeiadis, Kang, Hur, Dreyer,
// "Repairing Sequential Consistency in C/C++11", PLDI 2017), following
// herd7's rc11.cat. A read-modify-write is a read and a write related by
// rmw; a consume load is atomic but never synchronises (herd7's reading).
//
//	let rs  = [W]; (po & loc)?; [W & (RLX|REL|ACQ_REL|ACQ|SC)]; (rf; rmw)*
//	let sw  = [REL|ACQ_REL|SC]; ([F]; po)?; rs; rf;
//	          [R & (RLX|REL|ACQ|ACQ_REL|SC)]; (po; [F])?; [ACQ|ACQ_REL|SC]
//	let hb  = (po | sw)+
//	let eco = (rf | co | fr)+
//	let scb = po | (po\loc); hb; (po\loc) | hb & loc | co | fr
//	let psc = ([SC] | [F&SC]; hb?); scb; ([SC] | hb?; [F&SC])
//	        | [F&SC]; (hb | hb; eco; hb); [F&SC]
//	irreflexive hb; eco?       as coherence
//	irreflexive rmw; eco       as coherence-rmw
//	empty rmw & (fr; co)       as atomicity
//	acyclic psc                as sc
//	acyclic po | rf            as no-thin-air
//	undefined_unless empty dr  as data-race
type rc11Model struct{}

func init() { register(rc11Model{}) }

func (rc11Model) Name() string         { return "rc11" }
func (rc11Model) RacesUndefined() bool { return true }

func (rc11Model) Check(x *Exec) string { return checkRC11(x, HappensBefore(x)) }

// HappensBefore returns RC11's happens-before: (po | sw)+.
func (rc11Model) HappensBefore(x *Exec) Relation { return HappensBefore(x) }

// checkRC11 checks RC11's axioms with the given happens-before.
func checkRC11(x *Exec, hb Relation) string {
	if !x.Po.Union(x.Rf).Acyclic() {
		return "no-thin-air"
	}
	if !x.Rmw.Inter(x.Fr.Seq(x.Co)).Empty() {
		return "atomicity"
	}
	eco := x.Rf.Union(x.Co, x.Fr).Plus()
	if ok, _ := hb.Union(hb.Seq(eco)).Irreflexive(); !ok {
		return "coherence"
	}
	if ok, _ := x.Rmw.Seq(eco).Irreflexive(); !ok {
		return "coherence-rmw"
	}
	if !x.Tags(SC).Empty() && !psc(x, hb, eco).Acyclic() {
		return "sc"
	}
	return ""
}

// HappensBefore returns RC11's happens-before: (po | sw)+.
func HappensBefore(x *Exec) Relation {
	return x.Po.Union(SynchronizesWith(x)).Plus()
}

// SynchronizesWith returns RC11's synchronises-with relation.
func SynchronizesWith(x *Exec) Relation {
	return sw(x, x.R.Inter(x.Tags(Rlx, Rel, Acq, AcqRel, SC)), nil)
}

// sw is RC11's synchronises-with, with the reads that may end it and,
// when fenceReaders is not nil, further reads that end it only through an
// acquire fence after them.
func sw(x *Exec, readers, fenceReaders Set) Relation {
	atomicW := x.W.Inter(x.Tags(Rlx, Rel, AcqRel, Acq, SC))
	rfrmw := x.Rf.Seq(x.Rmw).Star()
	rs := x.Id(x.W).Seq(x.Po.Inter(x.SameLoc).Opt()).Rng(atomicW).Seq(rfrmw)
	fpo := x.Id(x.F).Seq(x.Po).Opt()
	pof := x.Po.Rng(x.F).Opt()
	rel := x.Tags(Rel, AcqRel, SC)
	acq := x.Tags(Acq, AcqRel, SC)
	out := fpo.Dom(rel).Seq(rs).Seq(x.Rf.Rng(readers)).Seq(pof).Rng(acq)
	if fenceReaders != nil {
		out = out.Union(fpo.Dom(rel).Seq(rs).Seq(x.Rf.Rng(fenceReaders)).Seq(x.Po.Rng(x.F.Inter(acq))))
	}
	return out
}

// releaseRf relates a release write (or a release fence before a write) to
// the reads that read from its release sequence.
func releaseRf(x *Exec) Relation {
	atomicW := x.W.Inter(x.Tags(Rlx, Rel, AcqRel, Acq, SC))
	rs := x.Id(x.W).Seq(x.Po.Inter(x.SameLoc).Opt()).Rng(atomicW).Seq(x.Rf.Seq(x.Rmw).Star())
	fpo := x.Id(x.F).Seq(x.Po).Opt()
	return fpo.Dom(x.Tags(Rel, AcqRel, SC)).Seq(rs).Seq(x.Rf)
}

func psc(x *Exec, hb, eco Relation) Relation {
	sc := x.Tags(SC)
	fsc := x.F.Inter(sc)
	sbl := x.Po.Minus(x.SameLoc)
	scb := x.Po.Union(sbl.Seq(hb).Seq(sbl), hb.Inter(x.SameLoc), x.Co, x.Fr)
	left := x.Id(sc).Union(x.Id(fsc).Seq(hb))
	right := x.Id(sc).Union(hb.Rng(fsc))
	pscb := left.Seq(scb).Seq(right)
	pscf := hb.Union(hb.Seq(eco).Seq(hb)).Dom(fsc).Rng(fsc)
	return pscb.Union(pscf)
}

// DataRaces returns the data races of x, as pairs of event indices: two
// accesses to one location from different threads, at least one a write and
// at least one plain, initial writes excepted, unordered by hb.
func DataRaces(x *Exec, hb Relation) [][2]int {
	var out [][2]int
	for i := len(x.G.Prog.Locs); i < x.N; i++ {
		for j := i + 1; j < x.N; j++ {
			if !x.SameLoc.Has(i, j) || !x.Ext.Has(i, j) {
				continue
			}
			if !x.W.Has(i) && !x.W.Has(j) {
				continue
			}
			if x.A.Has(i) && x.A.Has(j) {
				continue
			}
			if hb.Has(i, j) || hb.Has(j, i) {
				continue
			}
			out = append(out, [2]int{i, j})
		}
	}
	return out
}
