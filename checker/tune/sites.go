// Package tune searches for the weakest orderings of a protocol's atomic
// accesses and fences that keep its properties under chosen models (Run),
// and writes each minimal assignment into the protocol's source: a
// protocol file's orderings, a C program's memory_order_* arguments
// (Tuning.Rewrite). docs/tune.md describes the search.
package tune

import (
	"slices"
	"sort"

	"github.com/ordercheck/ordercheck/model"
)

// SiteKind is what a tuning site is: the kind of instruction whose
// ordering it sets.
type SiteKind uint8

// The kinds of site.
const (
	SiteLoad SiteKind = iota
	SiteStore
	SiteRMW
	SiteFence
	// SiteFenceSlot is a place where a fence could go: before an access
	// that follows another in its thread. Its weakest level is no fence.
	SiteFenceSlot
)

var siteKindNames = [...]string{"load", "store", "rmw", "fence", "fence slot"}

func (k SiteKind) String() string { return siteKindNames[k] }

// Site is one place of the source whose atomic accesses or fence tune
// orders: every instruction compiled from it (one per thread instance and
// procedure expansion) takes the same ordering.
type Site struct {
	Pos model.Pos
	// OrdPos is where the source writes the site's ordering, when it does
	// (model.Instr.OrdPos).
	OrdPos  model.Pos
	Text    string // the source text of the access
	Kind    SiteKind
	Current model.Ordering
	// Levels are the orderings the site may take, weakest first (a
	// partial order: see Weaker).
	Levels []model.Ordering
	instrs []instrRef
}

type instrRef struct{ thread, index int }

// caps gives an ordering's guarantees as a set: atomicity, consume,
// acquire, release, sequential consistency. One ordering is at most as
// strong as another when its set is contained in the other's.
func caps(o model.Ordering) uint8 {
	const atomic = 16
	switch o {
	case model.NA:
		return 0
	case model.Con:
		return atomic | 1
	case model.Acq:
		return atomic | 1 | 2
	case model.Rel:
		return atomic | 4
	case model.AcqRel:
		return atomic | 1 | 2 | 4
	case model.SeqCst:
		return atomic | 1 | 2 | 4 | 8
	}
	return atomic
}

// Weaker reports whether ordering a is at most as strong as b (na < rlx <
// con < acq; acq and rel incomparable, both below acq_rel, below sc).
func Weaker(a, b model.Ordering) bool { return caps(a)&^caps(b) == 0 }

// Sites returns the sites of a program in source order: its atomic
// loads, stores, read-modify-writes and fences, and the plain loads and
// stores at the positions in plain (locks are never sites), where a run
// may reach them (not in the branch a parameter's value rules out). The
// consume level is offered to loads only when withConsume is set (a model
// that tells consume from relaxed is among those checked); a plain site
// may stay plain.
func Sites(p *model.Program, withConsume bool, plain map[model.Pos]bool) []Site {
	type key struct {
		pos  model.Pos
		slot bool
	}
	byPos := map[key]int{}
	var out []Site
	for t, th := range p.Threads {
		live := p.Reachable(t)
		for i, in := range th.Code {
			if !live[i] {
				continue
			}
			var kind SiteKind
			switch {
			case in.Msg == fenceSlot:
				kind = SiteFenceSlot
			case in.Op == model.OpLoad:
				kind = SiteLoad
			case in.Op == model.OpStore:
				kind = SiteStore
			case in.Op == model.OpRMW || in.Op == model.OpCAS:
				kind = SiteRMW
			case in.Op == model.OpFence:
				kind = SiteFence
			default:
				continue
			}
			if in.Fixed || !in.Ord.Atomic() && kind != SiteFenceSlot && !(plain[in.Pos] && (kind == SiteLoad || kind == SiteStore)) {
				continue
			}
			k, ok := byPos[key{in.Pos, kind == SiteFenceSlot}]
			if !ok {
				k = len(out)
				byPos[key{in.Pos, kind == SiteFenceSlot}] = k
				lv := levels(kind, withConsume)
				if !in.Ord.Atomic() && kind != SiteFenceSlot {
					lv = append([]model.Ordering{model.NA}, lv...)
				}
				cur := in.Ord
				if kind == SiteFenceSlot {
					cur = model.NA
				}
				out = append(out, Site{Pos: in.Pos, OrdPos: in.OrdPos, Text: in.Text, Kind: kind, Current: cur, Levels: lv})
			}
			out[k].instrs = append(out[k].instrs, instrRef{t, i})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		return a.File < b.File || a.File == b.File && (a.Line < b.Line || a.Line == b.Line && a.Col < b.Col)
	})
	return out
}

// levels are the orderings a site of a kind may take, weakest first.
func levels(k SiteKind, withConsume bool) []model.Ordering {
	switch k {
	case SiteLoad:
		if withConsume {
			return []model.Ordering{model.Rlx, model.Con, model.Acq, model.SeqCst}
		}
		return []model.Ordering{model.Rlx, model.Acq, model.SeqCst}
	case SiteStore:
		return []model.Ordering{model.Rlx, model.Rel, model.SeqCst}
	case SiteRMW:
		return []model.Ordering{model.Rlx, model.Acq, model.Rel, model.AcqRel, model.SeqCst}
	case SiteFenceSlot:
		return []model.Ordering{model.NA, model.Acq, model.Rel, model.AcqRel, model.SeqCst}
	}
	return []model.Ordering{model.Acq, model.Rel, model.AcqRel, model.SeqCst}
}

// WithOrderings returns a copy of p whose sites take the orderings ords
// (one per site). A compare-exchange's failure ordering becomes the
// weaker of its own and the read part of its new ordering.
func WithOrderings(p *model.Program, sites []Site, ords []model.Ordering) *model.Program {
	q := *p
	q.Threads = slices.Clone(p.Threads)
	for i := range q.Threads {
		q.Threads[i].Code = slices.Clone(p.Threads[i].Code)
	}
	for s, site := range sites {
		for _, r := range site.instrs {
			in := &q.Threads[r.thread].Code[r.index]
			if site.Kind == SiteFenceSlot {
				// No fence: a jump to the next instruction.
				in.Op, in.Target = model.OpFence, 0
				if !ords[s].Atomic() {
					in.Op, in.Target = model.OpJump, r.index+1
				}
			}
			in.Ord = ords[s]
			if in.Op == model.OpCAS {
				if f := ords[s].ReadPart(); !Weaker(in.FailOrd, f) {
					in.FailOrd = f
				}
			}
		}
	}
	return &q
}

// fenceSlot marks the fences tune adds (their instruction's Msg).
const fenceSlot = "tune: fence slot"

// withFenceSlots returns a copy of p with a fence slot before every
// shared access that follows another in its thread (in code order):
// branch targets past a slot move by one, and a branch to the access now
// reaches its slot first.
func withFenceSlots(p *model.Program) *model.Program {
	q := *p
	q.Threads = slices.Clone(p.Threads)
	access := func(op model.Op) bool {
		return op == model.OpLoad || op == model.OpStore || op == model.OpRMW || op == model.OpCAS
	}
	for ti, th := range p.Threads {
		var at []int // the instructions that get a slot before them
		seen := false
		for i, in := range th.Code {
			if access(in.Op) {
				if seen {
					at = append(at, i)
				}
				seen = true
			}
		}
		shift := func(target int) int {
			n := 0
			for _, a := range at {
				if a < target {
					n++
				}
			}
			return target + n
		}
		var code []model.Instr
		k := 0
		for i, in := range th.Code {
			if k < len(at) && at[k] == i {
				code = append(code, model.Instr{Op: model.OpJump, Target: len(code) + 1, Dst: model.NoReg, Dst2: model.NoReg, Msg: fenceSlot, Pos: in.Pos, Text: "fence before " + in.Text})
				k++
			}
			if in.Op == model.OpBranch || in.Op == model.OpJump || in.Op == model.OpAssume && in.Await {
				in.Target = shift(in.Target)
			}
			code = append(code, in)
		}
		q.Threads[ti].Code = code
	}
	return &q
}
