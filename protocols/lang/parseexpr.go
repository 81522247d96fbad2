package lang

import (
	"strconv"

	"github.com/ordercheck/ordercheck/protocols/syntax"
)

// expr reads an expression: C's operators, "c ? x : y" lowest.
func (p *parser) expr() (Expr, error) {
	c, err := p.binary()
	if err != nil {
		return nil, err
	}
	t := p.Peek()
	if !p.Accept("?") {
		return c, nil
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if _, err := p.Expect(":"); err != nil {
		return nil, err
	}
	y, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &CondExpr{Cond: c, Then: x, Else: y, At: t.Pos}, nil
}

// binary reads a chain of binary operators over unary expressions.
func (p *parser) binary() (Expr, error) {
	return syntax.Binary(&p.Stream, 1, syntax.Chain[Expr]{
		Operand: p.unary,
		Join:    func(op syntax.Token, x, y Expr) Expr { return &BinExpr{Op: op.Text, X: x, Y: y, At: op.Pos} },
		// A "*" that begins a line begins a statement (*p = v), as no
		// expression statement goes on to multiply.
		Stop:  func(op syntax.Token) bool { return op.Text == "*" && op.Pos.Line > p.Prev().Pos.Line },
		Depth: p.depth,
	})
}

func (p *parser) unary() (Expr, error) {
	t := p.Peek()
	defer func() { p.depth-- }()
	if err := p.nest(t.Pos); err != nil {
		return nil, err
	}
	switch {
	case p.Accept("!"), p.Accept("-"):
		x, err := p.unary()
		return &UnExpr{Op: t.Text, X: x, At: t.Pos}, err
	case p.Accept("*"):
		x, err := p.unary()
		return &DerefExpr{Ptr: x, At: t.Pos}, err
	case p.Accept("&"):
		var x Expr
		var err error
		if p.Is("*") {
			x, err = p.unary() // &*p
		} else {
			x, err = p.postfix()
		}
		switch x.(type) {
		case *Name, *FieldExpr, *IndexExpr, *ArrowExpr, *DerefExpr:
		default:
			if err == nil {
				err = errAt(t.Pos, "& takes a shared variable, field or array element")
			}
		}
		return &AddrExpr{Of: x, At: t.Pos}, err
	}
	return p.postfix()
}

func (p *parser) postfix() (Expr, error) {
	x, err := p.primary()
	for err == nil {
		t := p.Peek()
		switch {
		case p.Accept("->"):
			f := p.Next()
			if f.Kind != syntax.Ident {
				return nil, errAt(f.Pos, "expected a field name, found %v", f)
			}
			x = &ArrowExpr{Ptr: x, Field: f.Text, At: t.Pos}
		case p.Accept("["):
			i, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, err := p.Expect("]"); err != nil {
				return nil, err
			}
			switch b := x.(type) {
			case *Name:
				x = &IndexExpr{Array: b.Name, Index: i, At: b.At}
			case *FieldExpr:
				if b.Sub != nil {
					return nil, errAt(t.Pos, "%s is not an array: fields hold scalars or arrays of scalars", formatExpr(b))
				}
				b.Sub = i
			case *ArrowExpr:
				if b.Sub != nil {
					return nil, errAt(t.Pos, "%s is not an array: fields hold scalars or arrays of scalars", formatExpr(b))
				}
				b.Sub = i
			default:
				return nil, errAt(t.Pos, "an index is taken of a shared array or an array field by name (a[i], s.f[i], p->f[i])")
			}
		case p.Is(".") && p.PeekN(1).Kind == syntax.Ident:
			var f *FieldExpr
			switch b := x.(type) {
			case *Name:
				f = &FieldExpr{Struct: b.Name, At: b.At}
			case *IndexExpr:
				f = &FieldExpr{Struct: b.Array, Index: b.Index, At: b.At}
			case *FieldExpr:
				return nil, errAt(t.Pos, "%s is a scalar or an array of scalars: it has no fields", formatExpr(b))
			default:
				return nil, errAt(t.Pos, "a field is taken of a shared struct by name (s.f, a[i].f), or through a pointer (p->f)")
			}
			p.Next()
			f.Field = p.Next().Text
			x = f
		default:
			return x, nil
		}
	}
	return nil, err
}

// memory-order arguments of the built-in calls, by position from the end.
var callOrds = map[string]int{"load": 1, "xchg": 1, "fetch_add": 1, "fetch_sub": 1, "fetch_or": 1, "fetch_and": 1, "fetch_xor": 1, "cas": 2, "cas_weak": 2}

// usage shows how each memory operation is written, for messages.
var usage = map[string]string{
	"load":      "load(x, rlx|acq|sc)",
	"store":     "store(x, v, rlx|rel|sc)",
	"fence":     "fence(acq|rel|acq_rel|sc)",
	"xchg":      "xchg(x, v, rlx|acq|rel|acq_rel|sc)",
	"fetch_add": "fetch_add(x, v, rlx|acq|rel|acq_rel|sc)",
	"fetch_sub": "fetch_sub(x, v, rlx|acq|rel|acq_rel|sc)",
	"fetch_or":  "fetch_or(x, v, rlx|acq|rel|acq_rel|sc)",
	"fetch_and": "fetch_and(x, v, rlx|acq|rel|acq_rel|sc)",
	"fetch_xor": "fetch_xor(x, v, rlx|acq|rel|acq_rel|sc)",
	"cas":       "cas(x, expected, new, ORD[, FAILORD])",
	"cas_weak":  "cas_weak(x, expected, new, ORD[, FAILORD])",
}

func (p *parser) primary() (Expr, error) {
	t := p.Peek()
	switch {
	case t.Kind == syntax.Int:
		p.Next()
		v, err := strconv.ParseInt(t.Text, 0, 64)
		if err != nil {
			return nil, errAt(t.Pos, "bad integer %s", t.Text)
		}
		return &Num{Val: v, At: t.Pos}, nil
	case p.Accept("("):
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		_, err = p.Expect(")")
		return x, err
	case t.Kind == syntax.Ident:
		// In expressions a dash is a minus: "N-1" is N minus 1.
		p.Next()
		n, pos := t.Text, t.Pos
		if !p.Is("(") {
			return &Name{Name: n, At: pos}, nil
		}
		p.Next()
		c := &CallExpr{Func: n, At: pos}
		nords := callOrds[n]
		var args []syntax.Token
		for !p.Accept(")") {
			if len(args) > 0 {
				if _, err := p.Expect(","); err != nil {
					return nil, err
				}
			}
			args = append(args, p.Peek())
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, x)
		}
		// The trailing arguments of memory operations are orderings.
		if nords > 0 {
			k := len(c.Args) - nords
			if n == "cas" || n == "cas_weak" {
				// cas(x, expected, new, ord[, failord])
				k = min(len(c.Args), 3)
			}
			for j := max(k, 0); j < len(c.Args); j++ {
				nm, ok := c.Args[j].(*Name)
				if !ok {
					return nil, errAt(args[j].Pos, "%s needs an ordering last: %s (found %v)", n, usage[n], args[j])
				}
				c.Ords = append(c.Ords, Value{Text: nm.Name, Pos: nm.At})
			}
			if k >= 0 {
				c.Args = c.Args[:k]
			}
		}
		return c, nil
	}
	return nil, errAt(t.Pos, "expected an expression, found %v", t)
}
