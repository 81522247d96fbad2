package states

import (
	"math/bits"
	"slices"

	"github.com/ordercheck/ordercheck/model"
)

// union adds g to f and reports whether f changed.
func union(f, g *model.Future) bool {
	old := *f
	f.PlainR |= g.PlainR
	f.PlainW |= g.PlainW
	f.AtomR |= g.AtomR
	f.AtomW |= g.AtomW
	f.AcqFence = f.AcqFence || g.AcqFence
	f.Marks = f.Marks || g.Marks
	return *f != old
}

// allLocs returns the set of p's locations, which must be at most 64.
func allLocs(p *model.Program) uint64 {
	if len(p.Locs) == 64 {
		return ^uint64(0)
	}
	return uint64(1)<<len(p.Locs) - 1
}

// programTargets returns accessTargets for every location of p, or nil
// when the program has too many locations for the bit sets.
func programTargets(p *model.Program) [][]uint64 {
	if len(p.Locs) > 64 {
		return nil
	}
	return accessTargets(p, allLocs(p))
}

// futures computes every thread's future at every instruction (index
// len(Code) is the thread's end) from the locations each may access
// (targets, programTargets'), leaving out the instructions skip names
// (nil: none), or nil without targets (the explorer then keeps every
// clock).
func futures(p *model.Program, targets [][]uint64, skip func(t, pc int) bool) [][]model.Future {
	if targets == nil {
		return nil
	}
	all := allLocs(p)
	out := make([][]model.Future, len(p.Threads))
	for t := range p.Threads {
		code := p.Threads[t].Code
		fs := make([]model.Future, len(code)+1)
		own := make([]model.Future, len(code))
		for pc := range code {
			in := &code[pc]
			locs := targets[t][pc]
			f := &own[pc]
			if skip != nil && skip(t, pc) {
				continue
			}
			switch in.Op {
			case model.OpLoad:
				if in.Ord.Atomic() {
					f.AtomR = locs
				} else {
					f.PlainR = locs
				}
			case model.OpStore:
				if in.Ord.Atomic() {
					f.AtomW = locs
				} else {
					f.PlainW = locs
				}
			case model.OpRMW, model.OpCAS, model.OpLock, model.OpUnlock:
				f.AtomR, f.AtomW = locs, locs
			case model.OpSpawn: // the new thread starts with the spawner's views
				f.AtomW, f.AcqFence = all, true
			case model.OpFence:
				f.AcqFence = in.Ord.IsAcquire()
			case model.OpCall, model.OpRet:
				f.Marks = true
			}
		}
		for changed := true; changed; {
			changed = false
			for pc := len(code) - 1; pc >= 0; pc-- {
				f := own[pc]
				in := &code[pc]
				switch in.Op {
				case model.OpJump:
					union(&f, &fs[in.Target])
				case model.OpBranch:
					union(&f, &fs[in.Target])
					union(&f, &fs[pc+1])
				case model.OpBound:
				default:
					union(&f, &fs[pc+1])
				}
				if union(&fs[pc], &f) {
					changed = true
				}
			}
		}
		out[t] = fs
	}
	return out
}

// The kinds of access the race clocks record per thread and location
// (clocks.acc): its last write, plain write, read and plain read.
const (
	recWrite = iota
	recPlainWrite
	recRead
	recPlainRead
	recKinds
)

// conflicts reports whether f may make an access to location l that
// conflicts with a record of kind: one of the two a write, one plain.
func conflicts(f *model.Future, l, kind int) bool {
	var m uint64
	switch kind {
	case recWrite:
		m = f.PlainR | f.PlainW
	case recPlainWrite:
		m = f.PlainR | f.PlainW | f.AtomR | f.AtomW
	case recRead:
		m = f.PlainW
	case recPlainRead:
		m = f.PlainW | f.AtomW
	}
	return model.InSet(m, l)
}

// maxValues bounds the value sets of accessTargets' analysis.
const maxValues = 32

// vset is a set of values, or every value (nil).
type vset map[int64]bool

func (s vset) add(v int64) vset {
	if s == nil || s[v] {
		return s
	}
	if len(s) >= maxValues {
		return nil
	}
	s[v] = true
	return s
}

func (s vset) union(o vset) vset {
	if o == nil {
		return nil
	}
	for v := range o {
		if s = s.add(v); s == nil {
			return nil
		}
	}
	return s
}

func sameSet(a, b vset) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for v := range a {
		if !b[v] {
			return false
		}
	}
	return true
}

// accessTargets returns, per thread and instruction, the locations the
// instruction may access (bit l for location l): a flow-insensitive
// analysis of the values registers and memory may hold (sets of at most
// maxValues values, else any value), so that an access through a pointer
// is known to touch only the locations whose address may reach it.
func accessTargets(p *model.Program, all uint64) [][]uint64 {
	mem := vset{}
	for _, l := range p.Locs {
		mem = mem.add(l.Init)
	}
	regs := make([][]vset, len(p.Threads))
	for t, th := range p.Threads {
		regs[t] = make([]vset, len(th.Regs))
		for r := range th.Regs {
			v := int64(0)
			if r < len(th.Init) {
				v = th.Init[r]
			}
			regs[t][r] = vset{v: true}
		}
	}
	for changed := true; changed; {
		changed = false
		set := func(t int, r model.Reg, v vset) {
			if r == model.NoReg {
				return
			}
			if n := cloneSet(regs[t][r]).union(v); !sameSet(n, regs[t][r]) {
				regs[t][r], changed = n, true
			}
		}
		store := func(v vset) {
			if n := cloneSet(mem).union(v); !sameSet(n, mem) {
				mem, changed = n, true
			}
		}
		for t, th := range p.Threads {
			for i := range th.Code {
				in := &th.Code[i]
				switch in.Op {
				case model.OpAssign:
					set(t, in.Dst, values(in.Val, regs[t]))
				case model.OpLoad:
					set(t, in.Dst, mem)
				case model.OpStore:
					store(values(in.Val, regs[t]))
				case model.OpRMW:
					set(t, in.Dst, mem)
					out := vset{}
					operand := values(in.Val, regs[t])
					if mem == nil || operand == nil {
						out = nil
					}
					for o := range mem {
						for v := range operand {
							out = out.add(in.RMW.Apply(o, v))
						}
					}
					store(out)
				case model.OpCAS:
					set(t, in.Dst, mem)
					set(t, in.Dst2, vset{0: true, 1: true})
					store(values(in.Val, regs[t]))
				case model.OpLock, model.OpUnlock:
					store(vset{0: true, 1: true})
				case model.OpChoose:
					c := vset{}
					for v := range in.N {
						c = c.add(int64(v))
					}
					set(t, in.Dst, c)
				}
			}
		}
	}
	out := make([][]uint64, len(p.Threads))
	for t, th := range p.Threads {
		out[t] = make([]uint64, len(th.Code))
		for i := range th.Code {
			if th.Code[i].Addr == nil {
				continue
			}
			vs := values(th.Code[i].Addr, regs[t])
			if vs == nil {
				out[t][i] = all
				continue
			}
			for v := range vs {
				if l, ok := p.LocOf(v); ok {
					out[t][i] |= 1 << uint(l)
				}
			}
		}
	}
	return out
}

func cloneSet(s vset) vset {
	if s == nil {
		return nil
	}
	c := make(vset, len(s))
	for v := range s {
		c[v] = true
	}
	return c
}

// values returns the values e may take when its registers hold values of
// regs, or nil (any value).
func values(e *model.Expr, regs []vset) vset {
	var used []model.Reg
	var walk func(e *model.Expr)
	walk = func(e *model.Expr) {
		if e == nil {
			return
		}
		if e.Kind == model.EReg && !slices.Contains(used, e.Reg) {
			used = append(used, e.Reg)
		}
		walk(e.X)
		walk(e.Y)
	}
	walk(e)
	combos := 1
	for _, r := range used {
		if regs[r] == nil {
			return nil
		}
		combos *= max(len(regs[r]), 1)
		if combos > 1024 {
			return nil
		}
	}
	out := vset{}
	env := make([]int64, len(regs))
	var each func(i int) bool
	each = func(i int) bool {
		if i == len(used) {
			if v, err := model.EvalExpr(e, env); err == nil {
				out = out.add(v)
			}
			return out != nil
		}
		for v := range regs[used[i]] {
			env[used[i]] = v
			if !each(i + 1) {
				return false
			}
		}
		return true
	}
	each(0)
	return out
}

// finalRegisters returns, per thread, the registers final states
// observe: named by a final condition or check, or shown.
func finalRegisters(p *model.Program) []model.DepSet {
	out := make([]model.DepSet, len(p.Threads))
	add := func(o model.Observable) {
		if !o.IsMem() {
			out[o.Thread] = out[o.Thread].With(int(o.Reg))
		}
	}
	var cond func(c *model.Cond)
	cond = func(c *model.Cond) {
		if c == nil {
			return
		}
		if c.Kind == model.CEq || c.Kind == model.CNe {
			add(c.Obs)
		}
		cond(c.X)
		cond(c.Y)
	}
	for _, c := range p.Checks {
		cond(c.Cond)
	}
	if p.Final != nil {
		cond(p.Final.Cond)
		for _, o := range p.Final.Show {
			add(o)
		}
	}
	return out
}

// liveRegisters computes, per thread and instruction (index len(Code) is
// the thread's end), the registers whose value may still be read: by a
// later instruction, or at the end by a final condition or check.
func liveRegisters(p *model.Program) [][]model.DepSet {
	atEnd := finalRegisters(p)
	out := make([][]model.DepSet, len(p.Threads))
	for t, th := range p.Threads {
		code := th.Code
		live := make([]model.DepSet, len(code)+1)
		live[len(code)] = atEnd[t]
		for changed := true; changed; {
			changed = false
			for pc := len(code) - 1; pc >= 0; pc-- {
				in := &code[pc]
				var after model.DepSet
				switch in.Op {
				case model.OpJump:
					after = live[in.Target]
				case model.OpBranch:
					after = live[in.Target].Union(live[pc+1])
				case model.OpBound:
				default:
					after = live[pc+1]
				}
				var l model.DepSet
				for _, r := range after.Members() {
					if model.Reg(r) != in.Dst && model.Reg(r) != in.Dst2 {
						l = l.With(r)
					}
				}
				for _, e := range in.Reads(nil) {
					l = uses(l, e)
				}
				if !sameBits(l, live[pc]) {
					live[pc], changed = l, true
				}
			}
		}
		out[t] = live
	}
	return out
}

func uses(l model.DepSet, e *model.Expr) model.DepSet {
	if e == nil {
		return l
	}
	if e.Kind == model.EReg {
		l = l.With(int(e.Reg))
	}
	return uses(uses(l, e.X), e.Y)
}

func sameBits(a, b model.DepSet) bool {
	for i := range max(len(a), len(b)) {
		var x, y uint64
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return false
		}
	}
	return true
}

// regularMutexes reports, per location, whether it is a mutex that only
// lock and unlock touch, each unlock by a thread that holds it (on every
// path to the unlock). Such a mutex is only ever read at its last write:
// a lock reads an unlocked value that no other lock has taken, which is
// the last one, and its holder's unlock follows its lock at once, as no
// other write can come after a held mutex's lock. Its earlier writes can
// be forgotten, under weak memory too.
//
// It also returns, per thread and instruction, the regular mutexes held
// on every path to it. targets are programTargets'.
func regularMutexes(p *model.Program, targets [][]uint64) ([]bool, [][]uint64) {
	reg := make([]bool, len(p.Locs))
	for l, loc := range p.Locs {
		reg[l] = loc.Mutex
	}
	heldAt := make([][]uint64, len(p.Threads))
	if targets == nil {
		for t, th := range p.Threads {
			heldAt[t] = make([]uint64, len(th.Code)+1)
		}
		return make([]bool, len(p.Locs)), heldAt
	}
	all := allLocs(p)
	for t, th := range p.Threads {
		code := th.Code
		// held[pc]: the mutexes held on every path to pc.
		held := make([]uint64, len(code)+1)
		for pc := range held {
			held[pc] = all
		}
		held[0] = 0
		for changed := true; changed; {
			changed = false
			for pc := range code {
				in := &code[pc]
				out := held[pc]
				switch in.Op {
				case model.OpLock:
					if bits.OnesCount64(targets[t][pc]) == 1 {
						out |= targets[t][pc]
					}
				case model.OpUnlock:
					out &^= targets[t][pc]
				}
				next := []int{pc + 1}
				switch in.Op {
				case model.OpJump:
					next = []int{in.Target}
				case model.OpBranch:
					next = []int{in.Target, pc + 1}
				case model.OpBound:
					next = nil
				}
				for _, n := range next {
					if h := held[n] & out; h != held[n] {
						held[n], changed = h, true
					}
				}
			}
		}
		heldAt[t] = held
		for pc := range code {
			in := &code[pc]
			for l := range reg {
				if targets[t][pc]>>uint(l)&1 == 0 {
					continue
				}
				exact := targets[t][pc] == 1<<uint(l)
				switch {
				case in.Op == model.OpLock && exact:
				case in.Op == model.OpUnlock && exact && held[pc]>>uint(l)&1 != 0:
				default:
					reg[l] = false
				}
			}
		}
	}
	var regular uint64
	for l, ok := range reg {
		if ok {
			regular |= 1 << uint(l)
		}
	}
	for _, held := range heldAt {
		for pc := range held {
			held[pc] &= regular
		}
	}
	return reg, heldAt
}
