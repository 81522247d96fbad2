package model

// RC11Consume is RC11 in which a consume load orders, after the release
// write it reads from, exactly the events that carry a dependency from it —
// C11's dependency-ordered-before — and nothing else after it.
//
//	let cdep = [R & CON]; (po & deps)      (an address or data dependency
//	                                        through registers, transitively)
//	let dob  = [REL|ACQ_REL|SC]; ([F]; po)?; rs; rf; cdep
//	let sw   = RC11's sw, where a consume read also synchronises through an
//	           acquire fence after it (C11's fence rule)
//	let ithb = (po?; (sw; po? | dob))+
//	let hb   = po | ithb
//
// and RC11's axioms and race definition with this hb. Unlike C11, a
// dependency does not pass through memory (a store and a later load). It
// has no operational form here: it is explored by execution graphs.
var RC11Consume = Register(&Model{
	Name:           "rc11-consume",
	Doc:            "RC11 with consume loads ordered by their dependencies",
	Axioms:         c11Axioms(HBConsume, pscConsume),
	Order:          pscConsume,
	Fast:           func(g *Graph) (bool, bool) { return c11Fast(g, true) },
	Clocks:         true,
	HB:             HBConsume,
	RacesUndefined: true,
	Consume:        true,
	Within:         []*Model{RC11},
	Strength:       4,
	Stale:          c11Stale(HBConsume, pscConsume, unorderedC11),
	Unordered:      unorderedC11,
})

// HBConsume is happens-before with dependency ordering.
var HBConsume = Let("hb", func(x *Exec) Relation {
	con := x.R.Inter(x.Ord[Con])
	sync := sw(x, x.R.Inter(x.Tags(Rlx, Rel, Acq, AcqRel, SeqCst)), con)
	dob := releaseRf(x).Rng(con).Seq(carriesDependency(x))
	step := x.Po.Opt().Seq(sync.Seq(x.Po.Opt()).Union(dob))
	return x.Po.Union(step.Plus())
})

// pscConsume is psc over the consume model's happens-before.
var pscConsume = pscWith(HBConsume)

// carriesDependency relates each read to the later events of its thread
// whose address or stored value depends on it, directly or through the
// values of reads in between (a load through a dependent pointer carries
// the dependency on).
func carriesDependency(x *Exec) Relation {
	out := NewRelation(x.N)
	for t, evs := range x.G.Threads {
		for i := range evs {
			e := &evs[i]
			b := x.idx[t][i]
			if b < 0 {
				continue
			}
			for _, d := range e.Addr().Union(e.Data()).Members() {
				if a := x.idx[t][d]; a >= 0 {
					out.Add(a, b)
				}
			}
		}
	}
	return out.Plus()
}
