package litmus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordercheck/ordercheck/model"
)

// Print writes a program read from a C litmus test back as a C litmus test;
// parsing the text gives the same program, up to the names of the
// registers the front end introduces.
func Print(p *model.Program) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "C %s\n\n{", p.Name)
	for _, l := range p.Locs {
		fmt.Fprintf(&b, " [%s] = %s;", l.Name, printValue(p, l.Init))
	}
	for ti, th := range p.Threads {
		for r, v := range th.Init {
			if v != 0 {
				fmt.Fprintf(&b, " %d:%s = %s;", ti, regName(th.Regs[r]), printValue(p, v))
			}
		}
	}
	b.WriteString(" }\n")
	for ti := range p.Threads {
		th := &p.Threads[ti]
		var params []string
		for _, l := range p.Locs {
			params = append(params, "atomic_int* "+l.Name)
		}
		fmt.Fprintf(&b, "\nP%d (%s) {\n", ti, strings.Join(params, ", "))
		pr := &printer{p: p, th: th, declared: map[model.Reg]bool{}}
		if err := pr.block(&b, 0, len(th.Code), 1); err != nil {
			return "", fmt.Errorf("thread %s: %w", th.Name, err)
		}
		b.WriteString("}\n")
	}
	if f := p.Final; f != nil {
		var locs []string
		for _, o := range f.Show {
			if !f.Cond.Mentions(o) {
				locs = append(locs, printObs(p, o))
			}
		}
		if len(locs) > 0 {
			fmt.Fprintf(&b, "\nlocations [%s;]\n", strings.Join(locs, "; "))
		}
		fmt.Fprintf(&b, "\n%s (%s)\n", f.Quant, printCond(p, f.Cond))
	}
	return b.String(), nil
}

func printObs(p *model.Program, o model.Observable) string {
	if o.IsMem() {
		return p.Locs[o.Loc].Name
	}
	return fmt.Sprintf("%d:%s", o.Thread, regName(p.Threads[o.Thread].Regs[o.Reg]))
}

func printCond(p *model.Program, c *model.Cond) string {
	switch c.Kind {
	case model.CTrue:
		return "true"
	case model.CFalse:
		return "false"
	case model.CEq:
		return fmt.Sprintf("%s=%s", printObs(p, c.Obs), printValue(p, c.Val))
	case model.CNe:
		return fmt.Sprintf("%s!=%s", printObs(p, c.Obs), printValue(p, c.Val))
	case model.CAnd:
		return "(" + printCond(p, c.X) + " /\\ " + printCond(p, c.Y) + ")"
	case model.COr:
		return "(" + printCond(p, c.X) + " \\/ " + printCond(p, c.Y) + ")"
	}
	return "~(" + printCond(p, c.X) + ")"
}

// regName makes a register name a C identifier: the front end's temporaries
// (%t1) become t__1.
func regName(n string) string { return strings.Replace(n, "%t", "t__", 1) }

func printValue(p *model.Program, v int64) string {
	if l, ok := p.LocOf(v); ok {
		return p.Locs[l].Name
	}
	return fmt.Sprint(v)
}

var cOrder = map[model.Ordering]string{model.Rlx: "memory_order_relaxed", model.Con: "memory_order_consume", model.Acq: "memory_order_acquire",
	model.Rel: "memory_order_release", model.AcqRel: "memory_order_acq_rel", model.SeqCst: "memory_order_seq_cst"}

var cRMW = map[model.RMWOp]string{model.Xchg: "exchange", model.FetchAdd: "fetch_add", model.FetchSub: "fetch_sub",
	model.FetchOr: "fetch_or", model.FetchAnd: "fetch_and", model.FetchXor: "fetch_xor"}

type printer struct {
	p        *model.Program
	th       *model.Thread
	declared map[model.Reg]bool
}

func (pr *printer) expr(e *model.Expr) string {
	switch e.Kind {
	case model.EConst:
		return printValue(pr.p, e.Val)
	case model.EReg:
		return regName(pr.th.Regs[e.Reg])
	case model.ENot:
		return "!(" + pr.expr(e.X) + ")"
	case model.ENeg:
		return "-(" + pr.expr(e.X) + ")"
	}
	return "(" + pr.expr(e.X) + " " + e.Op.String() + " " + pr.expr(e.Y) + ")"
}

// assign returns "int r = " the first time r is set, "r = " after.
func (pr *printer) assign(r model.Reg) string {
	if r == model.NoReg {
		return ""
	}
	if pr.declared[r] {
		return regName(pr.th.Regs[r]) + " = "
	}
	pr.declared[r] = true
	return "int " + regName(pr.th.Regs[r]) + " = "
}

// block prints instructions [from, to) as statements.
func (pr *printer) block(b *strings.Builder, from, to, depth int) error {
	ind := strings.Repeat("  ", depth)
	code := pr.th.Code
	for i := from; i < to; i++ {
		in := &code[i]
		switch in.Op {
		case model.OpLoad:
			// The front end's compare-exchange: read *e, CAS, on failure write *e.
			if i+3 < len(code) && code[i+1].Op == model.OpCAS && code[i+2].Op == model.OpBranch && code[i+3].Op == model.OpStore &&
				code[i+1].Expected.Kind == model.EReg && code[i+1].Expected.Reg == in.Dst {
				cas := &code[i+1]
				kind := "strong"
				if cas.Weak {
					kind = "weak"
				}
				// Its result goes to the register the next instruction copies it
				// into, or nowhere.
				lhs := ""
				if k := i + 4; k < to && code[k].Op == model.OpAssign && code[k].Val.Kind == model.EReg && code[k].Val.Reg == cas.Dst2 {
					lhs = pr.assign(code[k].Dst)
					i++
				}
				fmt.Fprintf(b, "%s%satomic_compare_exchange_%s_explicit(%s, %s, %s, %s, %s);\n", ind, lhs, kind,
					pr.expr(cas.Addr), pr.expr(in.Addr), pr.expr(cas.Val), cOrder[cas.Ord], cOrder[cas.FailOrd])
				i += 3
				continue
			}
			if in.Ord == model.NA {
				fmt.Fprintf(b, "%s%s*%s;\n", ind, pr.assign(in.Dst), pr.expr(in.Addr))
			} else {
				fmt.Fprintf(b, "%s%satomic_load_explicit(%s, %s);\n", ind, pr.assign(in.Dst), pr.expr(in.Addr), cOrder[in.Ord])
			}
		case model.OpStore:
			if in.Ord == model.NA {
				fmt.Fprintf(b, "%s*%s = %s;\n", ind, pr.expr(in.Addr), pr.expr(in.Val))
			} else {
				fmt.Fprintf(b, "%satomic_store_explicit(%s, %s, %s);\n", ind, pr.expr(in.Addr), pr.expr(in.Val), cOrder[in.Ord])
			}
		case model.OpRMW:
			fmt.Fprintf(b, "%s%satomic_%s_explicit(%s, %s, %s);\n", ind, pr.assign(in.Dst), cRMW[in.RMW], pr.expr(in.Addr), pr.expr(in.Val), cOrder[in.Ord])
		case model.OpFence:
			fmt.Fprintf(b, "%satomic_thread_fence(%s);\n", ind, cOrder[in.Ord])
		case model.OpAssign:
			fmt.Fprintf(b, "%s%s%s;\n", ind, pr.assign(in.Dst), pr.expr(in.Val))
		case model.OpBranch:
			// if (c) { then } [else { else }]: "branch !c to else" ...
			if in.Cond.Kind != model.ENot || in.Target <= i || in.Target > to {
				return fmt.Errorf("instruction %d: a branch that is not an if", i)
			}
			then, end := in.Target, in.Target
			if j := &code[in.Target-1]; in.Target-1 > i && j.Op == model.OpJump && j.Target >= in.Target && j.Target <= to {
				then, end = in.Target-1, j.Target
			}
			fmt.Fprintf(b, "%sif (%s) {\n", ind, pr.expr(in.Cond.X))
			if err := pr.block(b, i+1, then, depth+1); err != nil {
				return err
			}
			if then != in.Target { // an else branch, possibly empty
				fmt.Fprintf(b, "%s} else {\n", ind)
				if err := pr.block(b, in.Target, end, depth+1); err != nil {
					return err
				}
			}
			fmt.Fprintf(b, "%s}\n", ind)
			i = end - 1
		default:
			return fmt.Errorf("instruction %d: %s has no C litmus form", i, in.Op)
		}
	}
	return nil
}

// Canonical renders a program with its registers renamed in order of first
// use and unused registers dropped: two programs that differ only in the
// names the front end gives its temporaries render the same.
func Canonical(p *model.Program) string {
	var b strings.Builder
	for _, l := range p.Locs {
		fmt.Fprintf(&b, "%s=%d ", l.Name, l.Init)
	}
	b.WriteString("\n")
	for ti := range p.Threads {
		th := &p.Threads[ti]
		rename := map[model.Reg]string{}
		name := func(r model.Reg) string {
			if r == model.NoReg {
				return "_"
			}
			if n, ok := rename[r]; ok {
				return n
			}
			n := th.Regs[r]
			if strings.HasPrefix(n, "%t") || strings.HasPrefix(n, "t__") {
				n = fmt.Sprintf("T%d", len(rename))
			}
			rename[r] = n
			return n
		}
		var expr func(e *model.Expr) string
		expr = func(e *model.Expr) string {
			switch e.Kind {
			case model.EConst:
				return fmt.Sprint(e.Val)
			case model.EReg:
				return name(e.Reg)
			case model.ENot:
				return "!" + expr(e.X)
			case model.ENeg:
				return "-" + expr(e.X)
			}
			return "(" + expr(e.X) + e.Op.String() + expr(e.Y) + ")"
		}
		opt := func(e *model.Expr) string {
			if e == nil {
				return ""
			}
			return expr(e)
		}
		fmt.Fprintf(&b, "thread %d\n", ti)
		for _, in := range th.Code {
			dst, dst2 := "", ""
			if in.Op == model.OpLoad || in.Op == model.OpRMW || in.Op == model.OpCAS || in.Op == model.OpAssign || in.Op == model.OpChoose {
				dst = name(in.Dst)
			}
			if in.Op == model.OpCAS {
				dst2 = name(in.Dst2)
			}
			fmt.Fprintf(&b, "  %s %s %s %s %s %s %s %s %v %v %d\n", in.Op, dst, dst2, opt(in.Addr), opt(in.Val), opt(in.Expected), opt(in.Cond), in.Ord, in.FailOrd, in.Weak, in.Target)
		}
		var inits []string
		for r, v := range th.Init {
			if v != 0 {
				inits = append(inits, fmt.Sprintf("%s=%d", name(model.Reg(r)), v))
			}
		}
		sort.Strings(inits)
		fmt.Fprintf(&b, "  init %s\n", strings.Join(inits, " "))
	}
	if f := p.Final; f != nil {
		fmt.Fprintf(&b, "%s %s\n", f.Quant, f.Cond.Format(p))
		for _, o := range f.Show {
			fmt.Fprintf(&b, "show %s\n", o.Name(p))
		}
	}
	return b.String()
}
