package model

// The tso model: x86-TSO (Owens, Sarkar, Sewell, TPHOLs 2009) in the
// axiomatic form of herd7's x86tso.cat, applied to C programs through the
// standard C11-to-x86 mapping: every load is a MOV, a non-seq_cst store a
// MOV, a seq_cst store MOV;MFENCE, every read-modify-write, compare-exchange
// (failed ones included) and lock a locked instruction, and a seq_cst fence
// an MFENCE; other fences emit nothing.
//
//	acyclic po-loc | rf | co | fr                    as uniproc
//	empty rmw & (fr; co)                             as atomicity
//	let ppo     = (W*W | R*M) & po
//	let implied = po & (W*R) & (Locked*_ | _*Locked)
//	let mfence  = po; [F & SC | Spawn]; po | [W & SC]; po
//	acyclic ppo | implied | mfence | rfe | co | fr   as tso
type tsoModel struct{}

func init() { register(tsoModel{}) }

func (tsoModel) Name() string         { return "tso" }
func (tsoModel) RacesUndefined() bool { return false }

func (tsoModel) Check(x *Exec) string {
	if !x.Po.Inter(x.SameLoc).Union(x.Rf, x.Co, x.Fr).Acyclic() {
		return "uniproc"
	}
	if !x.Rmw.Inter(x.Fr.Seq(x.Co)).Empty() {
		return "atomicity"
	}
	mem := x.R.Union(x.W)
	ppo := x.Po.Inter(Cross(x.N, x.W, x.W).Union(Cross(x.N, x.R, mem)))
	wr := x.Po.Inter(Cross(x.N, x.W, x.R))
	implied := wr.Dom(x.Locked).Union(wr.Rng(x.Locked))
	fsc := x.F.Inter(x.Ord[SC]).Union(x.Spawn) // creating a thread fences
	mfence := x.Po.Rng(fsc).Seq(x.Po).Union(x.Po.Dom(x.W.Inter(x.Ord[SC])))
	ghb := ppo.Union(implied, mfence, x.External(x.Rf), x.Co, x.Fr)
	if !ghb.Acyclic() {
		return "tso"
	}
	return ""
}
