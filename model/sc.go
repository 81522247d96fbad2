package model

// The sc model: sequential consistency (Lamport 1979), as herd7's sc.cat
// reads it, with the atomicity of read-modify-writes made explicit because
// their read and write are separate events here.
//
//	acyclic po | rf | co | fr    as sc
//	empty rmw & (fr; co)         as atomicity
type scModel struct{}

func init() { register(scModel{}) }

func (scModel) Name() string         { return "sc" }
func (scModel) RacesUndefined() bool { return false }

func (scModel) Check(x *Exec) string {
	if !x.Rmw.Inter(x.Fr.Seq(x.Co)).Empty() {
		return "atomicity"
	}
	if !x.Po.Union(x.Rf, x.Co, x.Fr).Acyclic() {
		return "sc"
	}
	return ""
}
