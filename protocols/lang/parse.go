package lang

import (
	"fmt"
	"os"
	"strconv"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/syntax"
)

// Error is a located error in a protocol file.
type Error = syntax.Error

// ParseFile reads and parses the protocol file at path.
func ParseFile(path string) (*Protocol, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, string(src))
}

// Parse parses a protocol. Errors are *Error values naming file:line:col.
func Parse(file, src string) (*Protocol, error) {
	toks, err := syntax.NewLexer(file, src, 0, 1, 1).All()
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	pr, err := p.protocol()
	if err != nil {
		return nil, err
	}
	pr.File = file
	return pr, pr.check()
}

type parser struct {
	toks []syntax.Token
	i    int
}

func (p *parser) peek() syntax.Token { return p.toks[p.i] }
func (p *parser) peekN(n int) syntax.Token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() syntax.Token {
	t := p.toks[p.i]
	if t.Kind != syntax.EOF {
		p.i++
	}
	return t
}
func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.Kind == syntax.Punct || t.Kind == syntax.Ident) && t.Text == text
}
func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.i++
		return true
	}
	return false
}
func errAt(pos model.Pos, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
func (p *parser) expect(text string) (syntax.Token, error) {
	t := p.peek()
	if !p.accept(text) {
		return t, errAt(t.Pos, "expected %q, found %v", text, t)
	}
	return t, nil
}

// name reads an identifier, possibly with dashes inside ("lib-init").
func (p *parser) name(what string) (string, model.Pos, error) {
	t := p.next()
	if t.Kind != syntax.Ident {
		return "", t.Pos, errAt(t.Pos, "expected %s, found %v", what, t)
	}
	s := t.Text
	for {
		d, n := p.peek(), p.peekN(1)
		last := p.toks[p.i-1]
		if d.Text != "-" || n.Kind != syntax.Ident && n.Kind != syntax.Int ||
			d.Pos.Line != last.Pos.Line || d.Pos.Col != last.Pos.Col+len(last.Text) || n.Pos.Line != d.Pos.Line || n.Pos.Col != d.Pos.Col+1 {
			return s, t.Pos, nil
		}
		p.next()
		p.next()
		s += "-" + n.Text
	}
}

func (p *parser) str() (string, bool) {
	if t := p.peek(); t.Kind == syntax.String {
		p.next()
		return t.Text, true
	}
	return "", false
}

func (p *parser) value() (Value, error) {
	t := p.peek()
	if t.Text == "-" && p.peekN(1).Kind == syntax.Int {
		p.next()
		n := p.next()
		return Value{Text: "-" + n.Text, Pos: t.Pos}, nil
	}
	if t.Kind == syntax.Int {
		p.next()
		return Value{Text: t.Text, Pos: t.Pos}, nil
	}
	s, pos, err := p.name("a value")
	return Value{Text: s, Pos: pos}, err
}

func (p *parser) protocol() (*Protocol, error) {
	if _, err := p.expect("protocol"); err != nil {
		return nil, err
	}
	pr := &Protocol{Procs: map[string]*Proc{}}
	var err error
	if pr.Name, _, err = p.name("the protocol's name"); err != nil {
		return nil, err
	}
	pr.Title, _ = p.str()
	for {
		t := p.peek()
		if t.Kind == syntax.EOF {
			return pr, nil
		}
		if p.accept(";") {
			continue
		}
		p.next()
		switch t.Text {
		case "param":
			err = p.param(pr)
		case "variant":
			err = p.variant(pr)
		case "shared":
			err = p.shared(pr, t.Pos)
		case "mutex":
			var n string
			n, _, err = p.name("a mutex name")
			pr.Mutexes = append(pr.Mutexes, &Shared{Name: n, Pos: t.Pos})
		case "property":
			var n string
			n, _, err = p.name("a property name")
			doc, _ := p.str()
			pr.Props = append(pr.Props, &Prop{Name: n, Doc: doc, Pos: t.Pos})
		case "proc":
			err = p.proc(pr, t.Pos)
		case "thread":
			err = p.thread(pr, t.Pos)
		case "final":
			err = p.final(pr, t.Pos)
		default:
			return nil, errAt(t.Pos, "expected param, variant, shared, mutex, property, proc, thread or final, found %v", t)
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) param(pr *Protocol) error {
	n, pos, err := p.name("a parameter name")
	if err != nil {
		return err
	}
	if _, err := p.expect("="); err != nil {
		return err
	}
	v, err := p.value()
	if err != nil {
		return err
	}
	par := &Param{Name: n, Default: v, Pos: pos}
	if p.accept("in") {
		for {
			c, _, err := p.name("a choice")
			if err != nil {
				return err
			}
			par.Choices = append(par.Choices, c)
			if !p.accept("|") && !p.accept(",") {
				break
			}
		}
	}
	par.Doc, _ = p.str()
	pr.Params = append(pr.Params, par)
	return nil
}

func (p *parser) variant(pr *Protocol) error {
	n, pos, err := p.name("a variant name")
	if err != nil {
		return err
	}
	v := &Variant{Name: n, Pos: pos, Replace: map[string]*Block{}}
	if t := p.peek(); p.accept("extends") {
		base, _, err := p.name("a variant name")
		if err != nil {
			return err
		}
		b := pr.Variant(base)
		if b == nil {
			return errAt(t.Pos, "variant %s extends %s, which is not defined before it", n, base)
		}
		v.Binds = append(v.Binds, b.Binds...)
		for k, blk := range b.Replace {
			v.Replace[k] = blk
		}
	}
	for p.peek().Kind == syntax.Ident && p.peekN(1).Text == "=" {
		k, _, _ := p.name("a parameter")
		p.next()
		val, err := p.value()
		if err != nil {
			return err
		}
		v.Binds = append(v.Binds, Bind{Param: k, Value: val})
	}
	v.Doc, _ = p.str()
	v.Default = p.accept("default")
	if p.accept("{") {
		for !p.accept("}") {
			t := p.peek()
			if !p.accept("replace") {
				return errAt(t.Pos, "expected \"replace BLOCK { ... }\" or \"}\", found %v", t)
			}
			b, _, err := p.name("a block name")
			if err != nil {
				return err
			}
			body, err := p.block()
			if err != nil {
				return err
			}
			v.Replace[b] = body
		}
	}
	pr.Variants = append(pr.Variants, v)
	return nil
}

func (p *parser) shared(pr *Protocol, pos model.Pos) error {
	n, _, err := p.name("a variable name")
	if err != nil {
		return err
	}
	s := &Shared{Name: n, Pos: pos}
	if p.accept("{") {
		for !p.accept("}") {
			if p.accept(",") || p.accept(";") {
				continue
			}
			f, _, err := p.name("a field name")
			if err != nil {
				return err
			}
			fd := Field{Name: f, Init: &Num{Val: 0}}
			if p.accept("=") {
				if fd.Init, err = p.expr(); err != nil {
					return err
				}
			}
			s.Fields = append(s.Fields, fd)
		}
		if len(s.Fields) == 0 {
			return errAt(pos, "struct %s has no fields", n)
		}
	} else {
		s.Init = &Num{Val: 0, At: pos}
		if p.accept("=") {
			if s.Init, err = p.expr(); err != nil {
				return err
			}
		}
	}
	pr.Shared = append(pr.Shared, s)
	return nil
}

func (p *parser) proc(pr *Protocol, pos model.Pos) error {
	n, _, err := p.name("a procedure name")
	if err != nil {
		return err
	}
	proc := &Proc{Name: n, Pos: pos}
	if _, err := p.expect("("); err != nil {
		return err
	}
	for !p.accept(")") {
		if len(proc.Params) > 0 {
			if _, err := p.expect(","); err != nil {
				return err
			}
		}
		a, _, err := p.name("a parameter name")
		if err != nil {
			return err
		}
		proc.Params = append(proc.Params, a)
	}
	if proc.Body, err = p.block(); err != nil {
		return err
	}
	if _, dup := pr.Procs[n]; dup {
		return errAt(pos, "procedure %s is defined twice", n)
	}
	pr.Procs[n] = proc
	return nil
}

func (p *parser) thread(pr *Protocol, pos model.Pos) error {
	n, _, err := p.name("a thread name")
	if err != nil {
		return err
	}
	th := &ThreadDecl{Name: n, Pos: pos}
	if p.accept("[") {
		if th.Count, err = p.expr(); err != nil {
			return err
		}
		if _, err := p.expect("]"); err != nil {
			return err
		}
	}
	th.Spawned = p.accept("spawned")
	if th.Body, err = p.block(); err != nil {
		return err
	}
	pr.Threads = append(pr.Threads, th)
	return nil
}

func (p *parser) final(pr *Protocol, pos model.Pos) error {
	n, _, err := p.name("a property name")
	if err != nil {
		return err
	}
	if _, err := p.expect(":"); err != nil {
		return err
	}
	c, err := p.expr()
	if err != nil {
		return err
	}
	f := &Final{Prop: n, Cond: c, Pos: pos}
	if p.accept(",") {
		var ok bool
		if f.Msg, ok = p.str(); !ok {
			return errAt(p.peek().Pos, "expected a message string, found %v", p.peek())
		}
	}
	pr.Finals = append(pr.Finals, f)
	return nil
}

func (p *parser) block() (*Block, error) {
	t, err := p.expect("{")
	if err != nil {
		return nil, err
	}
	b := &Block{Pos: t.Pos}
	for !p.accept("}") {
		if p.peek().Kind == syntax.EOF {
			return nil, errAt(t.Pos, "unterminated block: expected \"}\"")
		}
		if p.accept(";") {
			continue
		}
		s, err := p.stmt()
		if err != nil {
			return nil, err
		}
		b.Stmts = append(b.Stmts, s)
	}
	return b, nil
}

func (p *parser) stmt() (Stmt, error) {
	t := p.peek()
	at := t.Pos
	if t.Kind == syntax.Ident {
		switch t.Text {
		case "if":
			p.next()
			return p.ifStmt(at)
		case "while":
			p.next()
			c, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, err := p.expect("max"); err != nil {
				return nil, err
			}
			m, err := p.expr()
			if err != nil {
				return nil, err
			}
			body, err := p.block()
			return &WhileStmt{Cond: c, Max: m, Body: body, At: at}, err
		case "for":
			p.next()
			v, _, err := p.name("a loop variable")
			if err != nil {
				return nil, err
			}
			if _, err := p.expect("in"); err != nil {
				return nil, err
			}
			from, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, err := p.expect("."); err != nil {
				return nil, err
			}
			if _, err := p.expect("."); err != nil {
				return nil, err
			}
			to, err := p.expr()
			if err != nil {
				return nil, err
			}
			body, err := p.block()
			return &ForStmt{Var: v, From: from, To: to, Body: body, At: at}, err
		case "block", "op":
			p.next()
			n, _, err := p.name("a name")
			if err != nil {
				return nil, err
			}
			body, err := p.block()
			if t.Text == "op" {
				return &OpStmt{Name: n, Body: body, At: at}, err
			}
			return &NamedBlock{Name: n, Body: body, At: at}, err
		case "either":
			p.next()
			e := &EitherStmt{At: at}
			for {
				b, err := p.block()
				if err != nil {
					return nil, err
				}
				e.Arms = append(e.Arms, b)
				if !p.accept("or") {
					return e, nil
				}
			}
		case "assert":
			p.next()
			n, _, err := p.name("a property name")
			if err != nil {
				return nil, err
			}
			if _, err := p.expect(":"); err != nil {
				return nil, err
			}
			c, err := p.expr()
			if err != nil {
				return nil, err
			}
			a := &AssertStmt{Prop: n, Cond: c, At: at}
			if p.accept(",") {
				var ok bool
				if a.Msg, ok = p.str(); !ok {
					return nil, errAt(p.peek().Pos, "expected a message string, found %v", p.peek())
				}
			}
			return a, nil
		case "assume", "await":
			p.next()
			c, err := p.expr()
			return &AssumeStmt{Cond: c, At: at}, err
		case "lock", "unlock", "fence", "store":
			if p.peekN(1).Text != "(" {
				break
			}
			p.next()
			p.next()
			m := &MemStmt{Kind: t.Text, At: at}
			if t.Text == "fence" {
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				m.Ord = &v
			} else {
				x, err := p.expr()
				if err != nil {
					return nil, err
				}
				m.Args = append(m.Args, x)
				if t.Text == "store" {
					if _, err := p.expect(","); err != nil {
						return nil, err
					}
					v, err := p.expr()
					if err != nil {
						return nil, err
					}
					m.Args = append(m.Args, v)
					if _, err := p.expect(","); err != nil {
						return nil, err
					}
					o, err := p.value()
					if err != nil {
						return nil, err
					}
					m.Ord = &o
				}
			}
			_, err := p.expect(")")
			return m, err
		case "spawn":
			p.next()
			n, _, err := p.name("a thread name")
			return &SpawnStmt{Thread: n, At: at}, err
		case "return":
			p.next()
			r := &ReturnStmt{At: at}
			if !p.is("}") && !p.is(";") {
				v, err := p.expr()
				if err != nil {
					return nil, err
				}
				r.Val = v
			}
			return r, nil
		}
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.accept("=") {
		switch x.(type) {
		case *Name, *FieldExpr, *ArrowExpr, *DerefExpr:
		default:
			return nil, errAt(at, "cannot assign to this expression")
		}
		rhs, err := p.expr()
		return &AssignStmt{LHS: x, RHS: rhs, At: at}, err
	}
	if _, ok := x.(*CallExpr); !ok {
		return nil, errAt(at, "expected a statement; an expression alone has no effect")
	}
	return &ExprStmt{X: x, At: at}, nil
}

func (p *parser) ifStmt(at model.Pos) (Stmt, error) {
	c, err := p.expr()
	if err != nil {
		return nil, err
	}
	then, err := p.block()
	if err != nil {
		return nil, err
	}
	s := &IfStmt{Cond: c, Then: then, At: at}
	if p.accept("else") {
		if t := p.peek(); p.accept("if") {
			inner, err := p.ifStmt(t.Pos)
			if err != nil {
				return nil, err
			}
			s.Else = &Block{Stmts: []Stmt{inner}, Pos: t.Pos}
		} else if s.Else, err = p.block(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

var precedence = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, "<=": 7, ">": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

func (p *parser) expr() (Expr, error) { return p.binary(1) }

func (p *parser) binary(min int) (Expr, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		prec, ok := precedence[t.Text]
		if t.Kind != syntax.Punct || !ok || prec < min {
			return x, nil
		}
		p.next()
		y, err := p.binary(prec + 1)
		if err != nil {
			return nil, err
		}
		x = &BinExpr{Op: t.Text, X: x, Y: y, At: t.Pos}
	}
}

func (p *parser) unary() (Expr, error) {
	t := p.peek()
	switch {
	case p.accept("!"), p.accept("-"):
		x, err := p.unary()
		return &UnExpr{Op: t.Text, X: x, At: t.Pos}, err
	case p.accept("*"):
		x, err := p.unary()
		return &DerefExpr{Ptr: x, At: t.Pos}, err
	case p.accept("&"):
		x, err := p.postfix()
		switch x.(type) {
		case *Name, *FieldExpr:
		default:
			if err == nil {
				err = errAt(t.Pos, "& takes a shared variable or field")
			}
		}
		return &AddrExpr{Of: x, At: t.Pos}, err
	}
	return p.postfix()
}

func (p *parser) postfix() (Expr, error) {
	x, err := p.primary()
	for err == nil {
		t := p.peek()
		switch {
		case p.accept("->"):
			f := p.next()
			if f.Kind != syntax.Ident {
				return nil, errAt(f.Pos, "expected a field name, found %v", f)
			}
			x = &ArrowExpr{Ptr: x, Field: f.Text, At: t.Pos}
		case p.is(".") && p.peekN(1).Kind == syntax.Ident:
			n, ok := x.(*Name)
			if !ok {
				return nil, errAt(t.Pos, "a field is taken of a shared struct by name (s.f), or through a pointer (p->f)")
			}
			p.next()
			f := p.next()
			x = &FieldExpr{Struct: n.Name, Field: f.Text, At: n.At}
		default:
			return x, nil
		}
	}
	return nil, err
}

// memory-order arguments of the built-in calls, by position from the end.
var callOrds = map[string]int{"load": 1, "xchg": 1, "fetch_add": 1, "fetch_sub": 1, "fetch_or": 1, "fetch_and": 1, "fetch_xor": 1, "cas": 2, "cas_weak": 2}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch {
	case t.Kind == syntax.Int:
		p.next()
		v, err := strconv.ParseInt(t.Text, 0, 64)
		if err != nil {
			return nil, errAt(t.Pos, "bad integer %s", t.Text)
		}
		return &Num{Val: v, At: t.Pos}, nil
	case p.accept("("):
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		_, err = p.expect(")")
		return x, err
	case t.Kind == syntax.Ident:
		// In expressions a dash is a minus: "N-1" is N minus 1.
		p.next()
		n, pos := t.Text, t.Pos
		if !p.is("(") {
			return &Name{Name: n, At: pos}, nil
		}
		p.next()
		c := &CallExpr{Func: n, At: pos}
		nords := callOrds[n]
		var args []syntax.Token
		for !p.accept(")") {
			if len(args) > 0 {
				if _, err := p.expect(","); err != nil {
					return nil, err
				}
			}
			args = append(args, p.peek())
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
			for j := k; j < len(c.Args); j++ {
				nm, ok := c.Args[j].(*Name)
				if !ok {
					return nil, errAt(args[j].Pos, "expected an ordering (na, rlx, con, acq, rel, acq_rel, sc) or a parameter, found %v", args[j])
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
	props := map[string]bool{}
	for _, pp := range pr.Props {
		props[pp.Name] = true
	}
	for _, f := range pr.Finals {
		if !props[f.Prop] {
			return errAt(f.Pos, "unknown property %s (declare it with \"property %s\")", f.Prop, f.Prop)
		}
	}
	defaults := 0
	vnames := map[string]bool{}
	for _, v := range pr.Variants {
		if vnames[v.Name] {
			return errAt(v.Pos, "variant %s is defined twice", v.Name)
		}
		vnames[v.Name] = true
		if v.Default {
			defaults++
		}
		for _, b := range v.Binds {
			if pr.param(b.Param) == nil {
				return errAt(b.Value.Pos, "unknown parameter %s in variant %s", b.Param, v.Name)
			}
		}
	}
	if len(pr.Variants) > 0 && defaults != 1 {
		return errAt(model.Pos{File: pr.File, Line: 1, Col: 1}, "exactly one variant must be marked default (the code as shipped); found %d", defaults)
	}
	if len(pr.Threads) == 0 {
		return errAt(model.Pos{File: pr.File, Line: 1, Col: 1}, "protocol %s has no thread", pr.Name)
	}
	return nil
}

func (pr *Protocol) param(name string) *Param {
	for _, p := range pr.Params {
		if p.Name == name {
			return p
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

// DefaultVariant returns the variant marked default, or nil when there are none.
func (pr *Protocol) DefaultVariant() *Variant {
	for _, v := range pr.Variants {
		if v.Default {
			return v
		}
	}
	return nil
}
