package lang

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ordercheck/ordercheck/model"
)

// Finding is something suspicious in a protocol file that is not an
// error: a parameter nothing reads, a variant that changes nothing, a
// property nothing checks, a loop that can only end at its bound.
type Finding struct {
	Pos model.Pos
	Msg string
}

func (f Finding) String() string { return f.Pos.String() + ": " + f.Msg }

// builtinProps are the properties the checker judges without an assert
// or final condition naming them.
var builtinProps = []string{"data-race", "deadlock", "linearizability", PropBounds, PropMemory, PropLeak, PropLocking}

// BuiltinProp reports whether name is a property the checker judges
// without an assert or final condition naming it (data-race, deadlock,
// memory-safety, ...).
func BuiltinProp(name string) bool { return slices.Contains(builtinProps, name) }

// Vet reports what in the protocol is legal but likely a mistake, in the
// order of the file:
//   - a parameter that no code, count, bound or ordering uses;
//   - a variant that compiles to the same program as an earlier one (or
//     as the protocol without variants would), with the default
//     parameters;
//   - a property that no assert or final condition names (the built-in
//     ones aside), and linearizability with no op block to record;
//   - a while loop whose condition is a nonzero constant and whose body
//     neither breaks nor returns: it always runs to its bound, which makes
//     every verdict "no verdict".
func (pr *Protocol) Vet() []Finding {
	var out []Finding
	add := func(pos model.Pos, format string, args ...any) {
		out = append(out, Finding{pos, fmt.Sprintf(format, args...)})
	}
	blocks := pr.codeBlocks()
	// Parameters.
	used := map[string]bool{}
	mark := func(e Expr) {
		if n, ok := e.(*Name); ok {
			used[n.Name] = true
		}
	}
	for _, b := range blocks {
		inspectBlock(b, mark)
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			if m, ok := s.(*MemStmt); ok && m.Ord != nil {
				used[m.Ord.Text] = true
			}
		})
		inspectBlock(b, func(e Expr) {
			if c, ok := e.(*CallExpr); ok {
				for _, o := range c.Ords {
					used[o.Text] = true
				}
			}
		})
	}
	for _, s := range pr.Shared {
		inspectExpr(s.Init, mark)
		inspectExpr(s.Len, mark)
		for _, e := range s.Elems {
			inspectExpr(e, mark)
		}
		for _, f := range s.Fields {
			inspectExpr(f.Init, mark)
			inspectExpr(f.Len, mark)
			for _, e := range f.Elems {
				inspectExpr(e, mark)
			}
		}
	}
	for _, th := range pr.Threads {
		inspectExpr(th.Count, mark)
	}
	for _, f := range pr.Finals {
		inspectExpr(f.Cond, mark)
	}
	for _, p := range pr.Params {
		if !used[p.Name] {
			add(p.Pos, "parameter %s is never used: no code, count, bound or ordering reads it", p.Name)
		}
	}
	// Variants.
	programs := map[string]string{}
	for _, v := range pr.Variants {
		inst, err := pr.Compile(v.Name, nil)
		if err != nil {
			continue // Parse compiled every variant; nothing to say here
		}
		text := inst.Prog.String()
		if prev, ok := programs[text]; ok {
			add(v.Pos, "variant %s compiles to the same program as variant %s (with the default parameters)", v.Name, prev)
			continue
		}
		programs[text] = v.Name
	}
	// Properties.
	named := map[string]bool{}
	for _, b := range blocks {
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			if a, ok := s.(*AssertStmt); ok {
				named[a.Prop] = true
			}
		})
	}
	for _, f := range pr.Finals {
		named[f.Prop] = true
	}
	hasOps := false
	for _, proc := range pr.Procs {
		hasOps = hasOps || proc.Op
	}
	for _, b := range blocks {
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			if _, ok := s.(*OpStmt); ok {
				hasOps = true
			}
		})
	}
	for _, p := range pr.Props {
		switch {
		case p.Name == "linearizability" && !hasOps:
			add(p.Pos, "property linearizability has no operation to check: no thread has an op block or calls an op")
		case !slices.Contains(builtinProps, p.Name) && !named[p.Name]:
			add(p.Pos, "property %s is never checked: no assert or final condition names it, so it always holds", p.Name)
		}
	}
	// Loops.
	for _, b := range blocks {
		walkStmts(b, func(s Stmt, _ stmtPlace) {
			w, ok := s.(*WhileStmt)
			if !ok {
				return
			}
			if n, ok := w.Cond.(*Num); ok && n.Val != 0 && !exits(w.Body) {
				add(w.At, "this loop's condition is always true and its body neither breaks nor returns: every execution runs it to its bound, so no verdict is possible")
			}
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return out
}

// codeBlocks returns the protocol's code: threads, procedures (in name
// order) and the variants' replacement blocks.
func (pr *Protocol) codeBlocks() []*Block {
	var out []*Block
	for _, th := range pr.Threads {
		out = append(out, th.Body)
	}
	var procs []string
	for n := range pr.Procs {
		procs = append(procs, n)
	}
	sort.Strings(procs)
	for _, n := range procs {
		out = append(out, pr.Procs[n].Body)
	}
	for _, v := range pr.Variants {
		var names []string
		for n := range v.Replace {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, v.Replace[n])
		}
	}
	return out
}

// exits reports whether a loop body may leave the loop other than by its
// condition: a break of this loop (not of a loop inside it), or a return.
func exits(b *Block) bool {
	found := false
	walkStmts(b, func(s Stmt, at stmtPlace) {
		switch s := s.(type) {
		case *BranchStmt:
			found = found || s.Tok == "break" && at.loops == 0
		case *ReturnStmt:
			found = true
		}
	})
	return found
}
