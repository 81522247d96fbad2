package litmus

import (
	"strings"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/syntax"
)

var binOps = map[string]model.BinOp{
	"||": model.LOr, "&&": model.LAnd, "|": model.Or, "^": model.Xor, "&": model.And,
	"==": model.Eq, "!=": model.Ne, "<": model.Lt, "<=": model.Le, ">": model.Gt, ">=": model.Ge,
	"<<": model.Shl, ">>": model.Shr, "+": model.Add, "-": model.Sub, "*": model.Mul, "/": model.Div, "%": model.Mod,
}

// expr parses an expression, emitting the loads it contains (left to right)
// and returning the pure expression over registers that computes its value.
func (p *parser) expr() (*model.Expr, error) {
	return syntax.Binary(&p.Stream, 1, syntax.Chain[*model.Expr]{
		Operand: p.unary,
		Join:    func(op syntax.Token, x, y *model.Expr) *model.Expr { return model.Bin(binOps[op.Text], x, y) },
		Depth:   p.depth,
	})
}

func (p *parser) unary() (*model.Expr, error) {
	t := p.Peek()
	if err := p.nest(t); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	switch {
	case p.Accept("!"):
		x, err := p.unary()
		return model.Not(x), err
	case p.Accept("-"):
		x, err := p.unary()
		if err == nil && x.Kind == model.EConst {
			return model.Const(-x.Val), nil
		}
		return model.Neg(x), err
	case p.Accept("~"):
		x, err := p.unary()
		return model.Bin(model.Xor, x, model.Const(-1)), err
	case p.Accept("*"):
		addr, err := p.unary()
		if err != nil {
			return nil, err
		}
		r := p.temp()
		p.emit(model.Instr{Op: model.OpLoad, Dst: r, Dst2: model.NoReg, Addr: addr, Ord: model.NA, Pos: t.Pos, Text: "*" + addr.Format(p.prog, p.th.Regs)})
		return model.RegExpr(r), nil
	case p.Accept("&"):
		n, err := p.ident("a location name")
		if err != nil {
			return nil, err
		}
		l := p.prog.LocIndex(n.Text)
		if l == model.NoLoc {
			return nil, p.errf(n, "unknown location %s", n.Text)
		}
		return model.Const(model.AddrOf(l)), nil
	case p.Accept("("):
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		_, err = p.Expect(")")
		return x, err
	case t.Kind == tInt:
		v, _, err := p.integer()
		return model.Const(v), err
	case t.Kind == tIdent:
		if p.PeekN(1).Text == "(" {
			x, err := p.callOrExpr(false)
			if err == nil && x == nil {
				err = p.errf(t, "%s returns no value", t.Text)
			}
			return x, err
		}
		p.Next()
		if r := p.th.RegIndex(t.Text); r != model.NoReg {
			return model.RegExpr(r), nil
		}
		if l := p.prog.LocIndex(t.Text); l != model.NoLoc {
			return model.Const(model.AddrOf(l)), nil
		}
		return nil, p.errf(t, "unknown identifier %s (not a register or location of this thread)", t.Text)
	}
	return nil, p.errf(t, "expected an expression, found %v", t)
}

var fetchOps = map[string]model.RMWOp{
	"exchange": model.Xchg, "fetch_add": model.FetchAdd, "fetch_sub": model.FetchSub,
	"fetch_or": model.FetchOr, "fetch_and": model.FetchAnd, "fetch_xor": model.FetchXor,
}

// callOrExpr parses an expression; at statement level it also accepts the
// calls that return nothing (stores and fences), returning a nil expression.
func (p *parser) callOrExpr(stmt bool) (*model.Expr, error) {
	t := p.Peek()
	if t.Kind != tIdent || p.PeekN(1).Text != "(" {
		return p.expr()
	}
	name := t.Text
	base := strings.TrimSuffix(name, "_explicit")
	explicit := base != name
	if !strings.HasPrefix(base, "atomic_") {
		return nil, p.errf(t, "unknown call %s", name)
	}
	op := strings.TrimPrefix(base, "atomic_")
	p.Next()
	p.Next()
	var args []*model.Expr
	var argToks []token
	for !p.Accept(")") {
		if len(args) > 0 {
			if _, err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		argToks = append(argToks, p.Peek())
		if a := p.Peek(); a.Kind == tIdent && strings.HasPrefix(a.Text, "memory_order_") {
			p.Next()
			args = append(args, nil)
			continue
		}
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	// Like herd7, any memory order is accepted on any call; the event
	// simply carries it (a "release" load is a read tagged rel).
	ord := func(k int) (model.Ordering, error) {
		at := argToks[k]
		o, ok := model.ParseOrdering(at.Text)
		if !ok || !strings.HasPrefix(at.Text, "memory_order_") {
			return 0, p.errf(at, "expected a memory order (memory_order_relaxed, ...), found %v", at)
		}
		return o, nil
	}
	arity := func(nvals, nords int) error {
		if !explicit {
			nords = 0
		}
		if len(args) != nvals+nords {
			return p.errf(t, "%s takes %d arguments, found %d", name, nvals+nords, len(args))
		}
		for k, a := range args {
			isOrd := k >= nvals
			if isOrd && a != nil {
				return p.errf(argToks[k], "expected a memory order, found %v", argToks[k])
			}
			if !isOrd && a == nil {
				return p.errf(argToks[k], "expected a value, found a memory order")
			}
		}
		return nil
	}
	orders := func(n int) ([]model.Ordering, error) {
		if !explicit {
			out := make([]model.Ordering, n)
			for i := range out {
				out[i] = model.SeqCst
			}
			return out, nil
		}
		var out []model.Ordering
		for k := len(args) - n; k < len(args); k++ {
			o, err := ord(k)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
		return out, nil
	}
	text := name + "(...)"
	switch {
	case op == "thread_fence" || op == "signal_fence":
		if len(args) != 1 || args[0] != nil {
			return nil, p.errf(t, "%s takes one memory order", name)
		}
		o, err := ord(0)
		if err != nil {
			return nil, err
		}
		if op == "thread_fence" {
			p.emit(model.Instr{Op: model.OpFence, Dst: model.NoReg, Dst2: model.NoReg, Ord: o, Pos: t.Pos, Text: text})
		}
		return p.noValue(stmt, t)
	case op == "load":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		o, err := orders(1)
		if err != nil {
			return nil, err
		}
		r := p.temp()
		p.emit(model.Instr{Op: model.OpLoad, Dst: r, Dst2: model.NoReg, Addr: args[0], Ord: o[0], Pos: t.Pos, Text: text})
		return model.RegExpr(r), nil
	case op == "store":
		if err := arity(2, 1); err != nil {
			return nil, err
		}
		o, err := orders(1)
		if err != nil {
			return nil, err
		}
		p.emit(model.Instr{Op: model.OpStore, Dst: model.NoReg, Dst2: model.NoReg, Addr: args[0], Val: args[1], Ord: o[0], Pos: t.Pos, Text: text})
		return p.noValue(stmt, t)
	case fetchOps[op] != 0 || op == "exchange":
		if err := arity(2, 1); err != nil {
			return nil, err
		}
		o, err := orders(1)
		if err != nil {
			return nil, err
		}
		r := p.temp()
		p.emit(model.Instr{Op: model.OpRMW, RMW: fetchOps[op], Dst: r, Dst2: model.NoReg, Addr: args[0], Val: args[1], Ord: o[0], Pos: t.Pos, Text: text})
		return model.RegExpr(r), nil
	case op == "compare_exchange_strong" || op == "compare_exchange_weak":
		if err := arity(3, 2); err != nil {
			return nil, err
		}
		o, err := orders(2)
		if err != nil {
			return nil, err
		}
		// As herd7: read the expected value plainly, compare-exchange, and
		// on failure store the value seen into the expected location.
		exp, old, ok := p.temp(), p.temp(), p.temp()
		p.emit(model.Instr{Op: model.OpLoad, Dst: exp, Dst2: model.NoReg, Addr: args[1], Ord: model.NA, Pos: argToks[1].Pos, Text: "*" + args[1].Format(p.prog, p.th.Regs)})
		p.emit(model.Instr{Op: model.OpCAS, Dst: old, Dst2: ok, Addr: args[0], Expected: model.RegExpr(exp), Val: args[2],
			Ord: o[0], FailOrd: o[1], Weak: op == "compare_exchange_weak", Pos: t.Pos, Text: text})
		br := p.emit(model.Instr{Op: model.OpBranch, Cond: model.RegExpr(ok), NoCtrl: true, Pos: t.Pos})
		p.emit(model.Instr{Op: model.OpStore, Dst: model.NoReg, Dst2: model.NoReg, Addr: args[1], Val: model.RegExpr(old), Ord: model.NA, Pos: argToks[1].Pos, Text: "*" + args[1].Format(p.prog, p.th.Regs) + " = (value seen)"})
		p.th.Code[br].Target = len(p.th.Code)
		return model.RegExpr(ok), nil
	}
	return nil, p.errf(t, "unknown call %s", name)
}

func (p *parser) noValue(stmt bool, t token) (*model.Expr, error) {
	if !stmt {
		return nil, p.errf(t, "%s returns no value", t.Text)
	}
	return nil, nil
}
