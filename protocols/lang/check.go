package lang

import (
	"maps"
	"slices"

	"github.com/ordercheck/ordercheck/model"
)

// check validates names across the file.
func (pr *Protocol) check() error {
	seen := map[string]model.Pos{}
	dup := func(kind, n string, pos model.Pos) error {
		if prev, ok := seen[n]; ok {
			return errAt(pos, "%s %s is already defined at %s", kind, n, prev)
		}
		seen[n] = pos
		return nil
	}
	for _, s := range pr.Shared {
		if err := dup("name", s.Name, s.Pos); err != nil {
			return err
		}
	}
	for _, s := range pr.Types {
		if err := dup("name", s.Name, s.Pos); err != nil {
			return err
		}
	}
	for _, s := range pr.Mutexes {
		if err := dup("name", s.Name, s.Pos); err != nil {
			return err
		}
	}
	for _, par := range pr.Params {
		if err := dup("name", par.Name, par.Pos); err != nil {
			return err
		}
	}
	for _, th := range pr.Threads {
		if err := dup("name", th.Name, th.Pos); err != nil {
			return err
		}
	}
	props := map[string]bool{}
	for _, pp := range pr.Props {
		props[pp.Name] = true
	}
	if at, ok := pr.varIndex(); ok && !props[PropBounds] {
		pr.Props = append(pr.Props, &Prop{Name: PropBounds, Doc: "every array index is in range", Pos: at})
		props[PropBounds] = true
	}
	if at, ok := pr.usesHeap(); ok {
		// An access that races with an allocation or a free is a data
		// race: the heap brings both properties.
		for _, p := range []*Prop{
			{Name: PropMemory, Doc: "no access to memory not allocated, uninitialised or freed; no bad free", Pos: at},
			{Name: "data-race", Doc: "no data race (an access racing with an allocation or a free is one)", Pos: at},
		} {
			if !props[p.Name] {
				pr.Props = append(pr.Props, p)
				props[p.Name] = true
			}
		}
	}
	for _, m := range pr.Mutexes {
		// A destroy racing with a use of the mutex is a data race on its
		// destroyed flag.
		if at, ok := pr.destroys(m.Name); ok && !props["data-race"] {
			pr.Props = append(pr.Props, &Prop{Name: "data-race", Doc: "no data race (a destroy of a mutex racing with its use is one)", Pos: at})
			props["data-race"] = true
		}
	}
	for _, f := range pr.Finals {
		if !props[f.Prop] {
			return errAt(f.Pos, "unknown property %s (declare it with \"property %s\")", f.Prop, f.Prop)
		}
	}
	defaults := 0
	var shipped *Variant
	vnames := map[string]bool{}
	for _, v := range pr.Variants {
		if vnames[v.Name] {
			return errAt(v.Pos, "variant %s is defined twice", v.Name)
		}
		vnames[v.Name] = true
		if v.Default {
			defaults++
		}
		if v.Shipped {
			if shipped != nil {
				return errAt(v.Pos, "variant %s is marked shipped, as %s is: at most one variant is the code as shipped", v.Name, shipped.Name)
			}
			shipped = v
		}
		for _, b := range v.Binds {
			if pr.param(b.Param) == nil {
				return errAt(b.Value.Pos, "unknown parameter %s in variant %s", b.Param, v.Name)
			}
		}
	}
	if len(pr.Variants) > 0 && defaults != 1 {
		return errAt(model.Pos{File: pr.File, Line: 1, Col: 1}, "exactly one variant must be marked default (the one explored when none is named); found %d", defaults)
	}
	if len(pr.Threads) == 0 {
		return errAt(model.Pos{File: pr.File, Line: 1, Col: 1}, "protocol %s has no thread", pr.Name)
	}
	if err := pr.checkSpec(); err != nil {
		return err
	}
	if err := pr.checkSpawns(); err != nil {
		return err
	}
	return pr.checkExpects()
}

func (pr *Protocol) param(name string) *Param {
	for _, p := range pr.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// thread returns the thread declared as name.
func (pr *Protocol) thread(name string) *ThreadDecl {
	for _, t := range pr.Threads {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Variant returns the variant called name.
func (pr *Protocol) Variant(name string) *Variant {
	for _, v := range pr.Variants {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// ShippedVariant returns the variant marked shipped (the code as it ships
// today), or nil when none is.
func (pr *Protocol) ShippedVariant() *Variant {
	for _, v := range pr.Variants {
		if v.Shipped {
			return v
		}
	}
	return nil
}

// DefaultVariant returns the variant marked default, or nil when there are none.
func (pr *Protocol) DefaultVariant() *Variant {
	for _, v := range pr.Variants {
		if v.Default {
			return v
		}
	}
	return nil
}

// usesHeap reports whether the protocol allocates or frees, and where
// first.
func (pr *Protocol) usesHeap() (at model.Pos, found bool) {
	for _, b := range pr.blocks() {
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			if m, ok := s.(*MemStmt); ok && m.Kind == "free" && !found {
				at, found = m.At, true
			}
			inspectStmt(s, func(e Expr) {
				if c, ok := e.(*CallExpr); ok && c.Func == "alloc" && !found {
					at, found = c.At, true
				}
			})
		})
	}
	return at, found
}

// blocks lists the protocol's code: threads, procedures and the blocks
// variants put in.
func (pr *Protocol) blocks() []*Block {
	var blocks []*Block
	for _, t := range pr.Threads {
		blocks = append(blocks, t.Body)
	}
	for _, name := range slices.Sorted(maps.Keys(pr.Procs)) {
		blocks = append(blocks, pr.Procs[name].Body)
	}
	for _, v := range pr.Variants {
		for _, b := range v.Replace {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// varIndex returns the first array index that is not a constant (of
// numbers, parameters, choices and self), which its bounds check makes
// property bounds necessary.
func (pr *Protocol) varIndex() (model.Pos, bool) {
	var at model.Pos
	found := false
	for _, b := range pr.blocks() {
		inspectBlock(b, func(e Expr) {
			var is []Expr
			switch e := e.(type) {
			case *IndexExpr:
				is = []Expr{e.Index}
			case *FieldExpr:
				is = []Expr{e.Index, e.Sub}
			case *ArrowExpr:
				is = []Expr{e.Sub}
			}
			for _, i := range is {
				if i != nil && !found && !pr.constSyntax(i) {
					at, found = i.pos(), true
				}
			}
		})
	}
	return at, found
}

// constSyntax reports whether e is a constant of every thread instance:
// numbers, parameters, choices, self and ThreadIndex, with operators.
func (pr *Protocol) constSyntax(e Expr) bool {
	switch e := e.(type) {
	case *Num:
		return true
	case *Name:
		if e.Name == "self" || e.Name == ThreadIndex || pr.param(e.Name) != nil {
			return true
		}
		for _, p := range pr.Params {
			if slices.Contains(p.Choices, e.Name) {
				return true
			}
		}
	case *UnExpr:
		return pr.constSyntax(e.X)
	case *BinExpr:
		return pr.constSyntax(e.X) && pr.constSyntax(e.Y)
	case *CondExpr:
		return pr.constSyntax(e.Cond) && pr.constSyntax(e.Then) && pr.constSyntax(e.Else)
	}
	return false
}
