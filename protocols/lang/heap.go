package lang

import (
	"fmt"

	"github.com/ordercheck/ordercheck/model"
)

// A heap is laid out when the program is compiled: each allocation site
// of each thread gets a pool of as many blocks as the site can run
// (the product of its loops' rounds), and its k-th allocation takes the
// pool's k-th block. A block's name says what made it: the struct, the
// thread, the site's line and the allocation's number
// (node@pusher[0]:12#0), never an address, so that equal heaps are
// equal states, as GenMC names allocations by their events.

// pool is the blocks of one allocation site of one thread.
type pool struct {
	first model.Loc // the status location of block 0
	size  int64     // cells per block
	n     int64     // blocks
}

// stride is the number of locations of a block: its status and cells.
func (p *pool) stride() int64 { return p.size + 1 }

// lo and hi are the addresses of the first cell of the pool's first and
// last blocks.
func (p *pool) lo() int64 { return model.AddrOf(p.first) + 1 }
func (p *pool) hi() int64 { return p.lo() + (p.n-1)*p.stride() }

// maxHeap bounds the locations the heap's pools take.
const maxHeap = maxLocs

// rounds is how often the code being compiled can run: the product of
// the rounds of the loops around it, 0 when one has no constant bound.
func (t *threadComp) rounds() int64 {
	n := int64(1)
	for _, l := range t.loops {
		if l.rounds <= 0 {
			return 0
		}
		n *= l.rounds
		if n > maxHeap {
			return n
		}
	}
	return n
}

// alloc compiles alloc(T) (a block of struct T's fields) or alloc(N) (a
// block of N cells): the next block of the site's pool, its status set
// Allocated and its cells Uninitialised by plain stores.
func (t *threadComp) alloc(e *CallExpr) (*model.Expr, error) {
	if len(e.Args) != 1 || len(e.Ords) != 0 {
		return nil, errAt(e.At, "alloc takes a struct declared with \"struct\" or a number of cells: alloc(node), alloc(4)")
	}
	kind, typ := "block", (*shape)(nil)
	var size int64
	if n, ok := e.Args[0].(*Name); ok && t.c.types[n.Name] != nil {
		kind, typ = n.Name, t.c.types[n.Name]
		size = typ.size
	} else {
		v, err := t.c.constant(e.Args[0])
		if err != nil {
			return nil, errAt(e.Args[0].pos(), "alloc takes a struct declared with \"struct\" or a constant number of cells: %v", err)
		}
		if v < 1 || v > maxArray {
			return nil, errAt(e.Args[0].pos(), "alloc(%d): a block has 1 to %d cells", v, maxArray)
		}
		size = v
	}
	n := t.rounds()
	if n <= 0 {
		return nil, errAt(e.At, "alloc in a loop whose rounds are not constant: each allocation site has a block per round, so its loops need constant bounds")
	}
	pl := &pool{first: model.Loc(len(t.c.prog.Locs)), size: size, n: n}
	if n > maxHeap || t.c.heapLocs+int(n*pl.stride()) > maxHeap {
		return nil, errAt(e.At, "the heap would need more than %d locations: allocation sites in loops take a block per round", maxHeap)
	}
	site := fmt.Sprintf("%s:%d", t.th.Name, e.At.Line)
	for range n {
		name := fmt.Sprintf("%s@%s#%d", kind, site, t.c.allocs[site])
		t.c.allocs[site]++
		t.c.prog.Locs = append(t.c.prog.Locs, model.Location{Name: name, Init: model.Unallocated})
		cell := func(cell string, _ Expr) {
			t.c.prog.Locs = append(t.c.prog.Locs, model.Location{Name: cell, Init: model.Unallocated})
		}
		if typ != nil {
			typ.cells(name, cell)
			continue
		}
		for i := range size {
			cell(fmt.Sprintf("%s[%d]", name, i), nil)
		}
	}
	t.c.heapLocs += int(n * pl.stride())
	t.c.pools = append(t.c.pools, pl)
	// if k >= n: cut; p = lo + k*stride; k++. The loops around the site
	// bound k (and an await's condition may not allocate); should one
	// not, the execution is cut rather than reach another pool's blocks.
	k := t.newReg(fmt.Sprintf("%%alloc%d", len(t.c.pools)))
	t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Lt, model.RegExpr(k), model.Const(n)), Target: t.pc() + 2, Pos: e.At})
	t.emit(model.Instr{Op: model.OpBound, Pos: e.At, Text: fmt.Sprintf("alloc used its %d blocks", n)})
	p := t.temp()
	t.emit(model.Instr{Op: model.OpAssign, Dst: p, Val: model.Bin(model.Add, model.Const(pl.lo()), model.Bin(model.Mul, model.RegExpr(k), model.Const(pl.stride()))), Pos: e.At, Text: "alloc"})
	t.markFresh(p)
	t.emit(model.Instr{Op: model.OpAssign, Dst: k, Val: model.Bin(model.Add, model.RegExpr(k), model.Const(1)), Pos: e.At})
	t.emit(model.Instr{Op: model.OpStore, Addr: model.Bin(model.Sub, model.RegExpr(p), model.Const(1)), Val: model.Const(model.Allocated), Ord: model.NA, Pos: e.At, Text: "alloc"})
	for i := range size {
		t.emit(model.Instr{Op: model.OpStore, Addr: offset(model.RegExpr(p), i), Val: model.Const(model.Uninitialised), Ord: model.NA, Pos: e.At, Text: "alloc"})
	}
	return model.RegExpr(p), nil
}

// offset is p + i, folded when p is constant.
func offset(p *model.Expr, i int64) *model.Expr { return plus(p, model.Const(i)) }

// free compiles free(p): nothing for a null p; else p must be a block's
// first cell and the block allocated (not freed or retired, its
// allocation seen), and its status and cells become Freed. retire(p)
// checks the same and makes the status Retired, leaving the cells to
// the accesses hazard pointers protect.
func (t *threadComp) free(s *MemStmt) error {
	if len(s.Args) != 1 {
		return errAt(s.At, "%s takes one pointer: %s(p)", s.Kind, s.Kind)
	}
	v, err := t.expr(s.Args[0])
	if err != nil {
		return err
	}
	p := t.temp()
	t.emit(model.Instr{Op: model.OpAssign, Dst: p, Val: v, Pos: s.At})
	ptr := model.RegExpr(p)
	null := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Eq, ptr, model.Const(0)), Pos: s.At, Text: "free(NULL)"})
	isBlock, size := &model.Expr{}, &model.Expr{}
	t.c.patches = append(t.c.patches, func() {
		b := t.c.blockOf(ptr)
		*isBlock, *size = b[0], b[1]
	})
	text := s.Kind + "(" + formatExpr(s.Args[0]) + ")"
	t.memAssert(isBlock, s.Kind+" of a pointer that is not the start of a heap block", s.At, text)
	st := t.temp()
	t.emit(model.Instr{Op: model.OpLoad, Dst: st, Addr: model.Bin(model.Sub, ptr, model.Const(1)), Ord: model.NA, Pos: s.At, Text: "free"})
	t.memAssert(model.Bin(model.Ne, model.RegExpr(st), model.Const(model.Freed)), "double free", s.At, text)
	if t.c.retires {
		t.memAssert(model.Bin(model.Ne, model.RegExpr(st), model.Const(model.Retired)), "double free (the block was retired)", s.At, text)
	}
	t.memAssert(model.Bin(model.Ne, model.RegExpr(st), model.Const(model.Unallocated)), s.Kind+" of a block whose allocation does not happen before it", s.At, text)
	if s.Kind == "retire" {
		t.emit(model.Instr{Op: model.OpStore, Addr: model.Bin(model.Sub, ptr, model.Const(1)), Val: model.Const(model.Retired), Ord: model.NA, Pos: s.At, Text: "retire"})
		t.th.Code[null].Target = t.pc()
		return nil
	}
	t.emit(model.Instr{Op: model.OpStore, Addr: model.Bin(model.Sub, ptr, model.Const(1)), Val: model.Const(model.Freed), Ord: model.NA, Pos: s.At, Text: "free"})
	// i = 0; top: if i >= size goto end; p[i] = Freed; i++; goto top
	i := t.temp()
	t.emit(model.Instr{Op: model.OpAssign, Dst: i, Val: model.Const(0), Pos: s.At})
	top := t.emit(model.Instr{Op: model.OpBranch, Cond: model.Bin(model.Ge, model.RegExpr(i), size), Pos: s.At})
	t.emit(model.Instr{Op: model.OpStore, Addr: model.Bin(model.Add, ptr, model.RegExpr(i)), Val: model.Const(model.Freed), Ord: model.NA, Pos: s.At, Text: "free"})
	t.emit(model.Instr{Op: model.OpAssign, Dst: i, Val: model.Bin(model.Add, model.RegExpr(i), model.Const(1)), Pos: s.At})
	t.emit(model.Instr{Op: model.OpJump, Target: top, Pos: s.At})
	t.th.Code[top].Target = t.pc()
	t.th.Code[null].Target = t.pc()
	return nil
}

// blockOf is two expressions of p, laid out once every pool is: whether
// p is the first cell of a heap block, and the block's size (0 if not).
func (c *compiler) blockOf(p *model.Expr) [2]model.Expr {
	is, size := model.Const(0), model.Const(0)
	for _, pl := range c.pools {
		in := model.Bin(model.LAnd, model.Bin(model.Ge, p, model.Const(pl.lo())), model.Bin(model.Le, p, model.Const(pl.hi())))
		first := model.Bin(model.LAnd, in, model.Bin(model.Eq, model.Bin(model.Mod, model.Bin(model.Sub, p, model.Const(pl.lo())), model.Const(pl.stride())), model.Const(0)))
		is = model.Bin(model.LOr, is, first)
		size = model.Bin(model.Add, size, model.Bin(model.Mul, in, model.Const(pl.size)))
	}
	return [2]model.Expr{*is, *size}
}

// statusOf is the address of the status of the block p points into, 0
// when p points into none, laid out once every pool is.
func (c *compiler) statusOf(p *model.Expr) *model.Expr {
	st := model.Const(0)
	for _, pl := range c.pools {
		last := pl.hi() + pl.size - 1
		in := model.Bin(model.LAnd, model.Bin(model.Ge, p, model.Const(pl.lo())), model.Bin(model.Le, p, model.Const(last)))
		first := model.Bin(model.Sub, p, model.Bin(model.Mod, model.Bin(model.Sub, p, model.Const(pl.lo())), model.Const(pl.stride())))
		st = model.Bin(model.Add, st, model.Bin(model.Mul, in, model.Bin(model.Sub, first, model.Const(1))))
	}
	return st
}

// hazard compiles a HazardStmt: the hazard pointer whose handle h is
// takes p (0 to clear it), hp_k += (h == k) * (p - hp_k) for each k when
// h is not known.
func (t *threadComp) hazard(s *HazardStmt) error {
	h, err := t.expr(s.Handle)
	if err != nil {
		return err
	}
	p := model.Const(0)
	if s.Ptr != nil {
		if p, err = t.expr(s.Ptr); err != nil {
			return err
		}
	}
	known, isConst := constValue(h)
	for k, r := range t.hazards {
		handle := int64(k + 1)
		switch {
		case isConst && known == handle:
			t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: p, Pos: s.At, Text: "hazard pointer"})
		case !isConst:
			pick := model.Bin(model.Mul, model.Bin(model.Eq, h, model.Const(handle)), model.Bin(model.Sub, p, model.RegExpr(r)))
			t.emit(model.Instr{Op: model.OpAssign, Dst: r, Val: model.Bin(model.Add, model.RegExpr(r), pick), Pos: s.At, Text: "hazard pointer"})
		}
	}
	return nil
}

// retireCheck asserts, in a program that retires blocks, that an access
// through a pointer (addr not constant) is to no retired block unless
// one of the thread's hazard pointers points into the block, as GenMC
// defines __VERIFIER_hp_retire: it reads the block's status, a plain
// read, so that a retire the access does not happen before races with
// it and one it happens after is seen.
func (t *threadComp) retireCheck(addr *model.Expr, at model.Pos, text string) {
	if !t.c.retires || !t.c.hasProp(PropMemory) || addr.Kind == model.EConst {
		return
	}
	skip, status := &model.Expr{}, &model.Expr{}
	t.c.patches = append(t.c.patches, func() {
		st := t.c.statusOf(addr)
		cond := model.Bin(model.Eq, st, model.Const(0))
		for _, r := range t.hazards {
			cond = model.Bin(model.LOr, cond, model.Bin(model.Eq, t.c.statusOf(model.RegExpr(r)), st))
		}
		*skip, *status = *cond, *st
	})
	br := t.emit(model.Instr{Op: model.OpBranch, Cond: skip, Pos: at, Text: "hazard pointers"})
	r := t.temp()
	t.emit(model.Instr{Op: model.OpLoad, Dst: r, Addr: status, Ord: model.NA, Pos: at, Text: "retired?"})
	t.memAssert(model.Bin(model.Ne, model.RegExpr(r), model.Const(model.Retired)), "use after retire (no hazard pointer protects the block)", at, text)
	t.th.Code[br].Target = t.pc()
}

// memAssert asserts cond for property memory-safety.
func (t *threadComp) memAssert(cond *model.Expr, msg string, at model.Pos, text string) {
	t.emit(model.Instr{Op: model.OpAssert, Cond: cond, Prop: PropMemory, Msg: msg + ": " + text, Pos: at, Text: "memory-safety"})
}

// checkRead asserts, in a program with a heap, that a value read through
// a pointer (addr not constant) is not a heap cell's unallocated,
// uninitialised or freed value.
func (t *threadComp) checkRead(v *model.Expr, addr *model.Expr, at model.Pos, text string) {
	if !t.c.hasProp(PropMemory) || addr.Kind == model.EConst {
		return
	}
	for _, bad := range []struct {
		val int64
		msg string
	}{
		{model.Freed, "use after free"},
		{model.Uninitialised, "read of uninitialised memory"},
		{model.Unallocated, "access to memory whose allocation does not happen before it"},
	} {
		t.memAssert(model.Bin(model.Ne, v, model.Const(bad.val)), bad.msg, at, text)
	}
}

// checkPtr asserts, in a program with a heap, that a pointer about to be
// followed is not null.
func (t *threadComp) checkPtr(p *model.Expr, at model.Pos, text string) {
	if !t.c.hasProp(PropMemory) || p.Kind == model.EConst {
		return
	}
	t.memAssert(model.Bin(model.Ne, p, model.Const(0)), "null dereference", at, text)
}

// heapChecks fills in what free needs of the pools and adds the checks
// of every block at the end of an execution: a freed block stays freed
// (a store after the free would change a cell), and, with property
// memory-leak, every allocated block is freed.
func (c *compiler) heapChecks() {
	for _, patch := range c.patches {
		patch()
	}
	leak := c.hasProp(PropLeak)
	for _, pl := range c.pools {
		for b := range pl.n {
			status := pl.first + model.Loc(b*pl.stride())
			name := c.prog.Locs[status].Name
			freed := &model.Cond{Kind: model.CNe, Obs: model.Observable{Thread: -1, Loc: status}, Val: model.Freed}
			cond := freed
			for i := range pl.size {
				cell := &model.Cond{Kind: model.CEq, Obs: model.Observable{Thread: -1, Loc: status + 1 + model.Loc(i)}, Val: model.Freed}
				if i == 0 {
					cond = &model.Cond{Kind: model.COr, X: freed, Y: cell}
				} else {
					cond = &model.Cond{Kind: model.COr, X: freed, Y: &model.Cond{Kind: model.CAnd, X: cond.Y, Y: cell}}
				}
			}
			c.prog.Checks = append(c.prog.Checks, model.Check{Prop: PropMemory, Msg: "use after free: " + name + " is written after it was freed", Cond: cond})
			if leak {
				c.prog.Checks = append(c.prog.Checks, model.Check{Prop: PropLeak, Msg: name + " is never freed", Cond: &model.Cond{Kind: model.CNe, Obs: model.Observable{Thread: -1, Loc: status}, Val: model.Allocated}})
			}
		}
	}
}
