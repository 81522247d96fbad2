package model

// SC is sequential consistency (Lamport 1979), as herd7's sc.cat reads
// it, with the atomicity of read-modify-writes made explicit because their
// read and write are separate events here:
//
//	empty rmw & (fr; co)         as atomicity
//	acyclic po | rf | co | fr    as sc
//
// Its machine is one memory whose locations hold their last write.
var SC = Register(&Model{
	Name: "sc",
	Doc:  "sequential consistency",
	Axioms: []Axiom{
		{"atomicity", Empty, rmwBroken},
		{"sc", Acyclic, Let("po | rf | co | fr", func(x *Exec) Relation { return x.Po.Union(x.Rf, x.Co, x.Fr) })},
	},
	HB:        HB,
	Within:    []*Model{TSO, ARM, RISCV},
	Strength:  1,
	Unordered: unorderedC11,
	Machine:   scMachine{},
	Fast:      scFast,
	Stale: func(x *Exec, r, w int, step func(int) string) string {
		return "(sc)"
	},
})

// rmwBroken is rmw & (fr; co): a write between a read-modify-write's read
// and its write in modification order.
var rmwBroken = Let("rmw & (fr; co)", func(x *Exec) Relation { return x.Rmw.Inter(x.Fr.Seq(x.Co)) })

// scMachine is SC's operational form: reads see a location's last write.
type scMachine struct{}

func (scMachine) Unsupported(*Program) string { return "" }

func (scMachine) Start(p *Program) Memory { return &scMemory{newMessages(p)} }

// scMemory is one memory; it keeps each location's last write.
type scMemory struct{ messages }

func (m *scMemory) Clone() Memory { return &scMemory{m.clone()} }

func (m *scMemory) Start(t, parent int) {}

func (m *scMemory) Ways(t int, a *Action, dst []Way) []Way {
	switch a.Kind {
	case ActChoose:
		return chooseWays(a.N, dst)
	case ActRead, ActRMW, ActCAS, ActLock:
		ms := m.msgs[a.Loc]
		return readWays(ms, len(ms)-1, a, dst)
	case ActWrite, ActUnlock:
		return append(dst, Way{Pos: len(m.msgs[a.Loc])})
	}
	return append(dst, Way{})
}

func (m *scMemory) Peek(t int, l Loc, w Way) *Message { return m.msgs[l][w.Pos] }

func (m *scMemory) Read(t int, l Loc, w Way, o Ordering) (*Message, Source) {
	return m.msgs[l][w.Pos], m.source(l, w.Pos)
}

func (m *scMemory) Write(t int, l Loc, w Way, val int64, o Ordering, read *Message, clock []uint32) Source {
	m.insert(l, w.Pos, &Message{Val: val, Clock: clock, att: read != nil})
	return m.source(l, w.Pos)
}

func (m *scMemory) Fence(t int, o Ordering) {}

// Reduce keeps each location's last write: no read can read another.
func (m *scMemory) Reduce(h *Horizon) {
	for l, ms := range m.msgs {
		if len(ms) > 1 {
			m.drop(Loc(l), len(ms)-1)
		}
	}
}

func (m *scMemory) AppendKey(b []byte, perm []int) []byte { return m.appendKey(b, perm) }

func (m *scMemory) AppendThreadKey(b []byte, t int) []byte { return b }
