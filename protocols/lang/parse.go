package lang

import (
	"fmt"
	"os"
	"slices"

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
	p := &parser{Stream: syntax.Stream{Toks: toks}}
	pr, err := p.protocol()
	if err != nil {
		return nil, err
	}
	pr.File = file
	if err := pr.check(); err != nil {
		return nil, err
	}
	return pr, pr.build()
}

// Build checks a protocol and compiles each of its variants, as Parse
// does after reading a file; a front end that builds a Protocol from
// another language (C) calls it. Errors are *Error values.
func Build(pr *Protocol) error {
	if err := pr.check(); err != nil {
		return err
	}
	return pr.build()
}

// ParseExpect reads one expect clause written as in a protocol file,
// "expect VARIANTS ... : VERDICT", whose text src starts at at (a front
// end finds them in comments), and adds it to the protocol; Build checks
// it with the others.
func (pr *Protocol) ParseExpect(src string, at model.Pos) error {
	toks, err := syntax.NewLexer(at.File, src, 0, at.Line, at.Col).All()
	if err != nil {
		return err
	}
	p := &parser{Stream: syntax.Stream{Toks: toks}}
	if t := p.Next(); t.Text != "expect" {
		return errAt(t.Pos, "expected expect, found %v", t)
	}
	if err := p.expect(pr, at); err != nil {
		return err
	}
	if t := p.Peek(); t.Kind != syntax.EOF {
		return errAt(t.Pos, "unexpected %v after the expect clause", t)
	}
	return nil
}

// build compiles each variant of a checked protocol.
func (pr *Protocol) build() error {
	if err := pr.compileAll(); err != nil {
		return err
	}
	return pr.lockingExpected()
}

type parser struct {
	syntax.Stream
	depth int // blocks and expressions open around the current token
}

// MaxNesting bounds how deeply blocks and expressions nest, so that no
// input exhausts the parser's stack.
const MaxNesting = syntax.MaxNesting

// nest enters a nested block or expression at pos, or fails when that
// goes deeper than MaxNesting; leave with p.depth--.
func (p *parser) nest(pos model.Pos) error {
	p.depth++
	if p.depth > MaxNesting {
		return errAt(pos, "nested more than %d deep (blocks and expressions)", MaxNesting)
	}
	return nil
}

func errAt(pos model.Pos, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// name reads an identifier, possibly with dashes inside ("lib-init").
func (p *parser) name(what string) (string, model.Pos, error) {
	t := p.Next()
	if t.Kind != syntax.Ident {
		return "", t.Pos, errAt(t.Pos, "expected %s, found %v", what, t)
	}
	s := t.Text
	for {
		d, n := p.Peek(), p.PeekN(1)
		last := p.Prev()
		if d.Text != "-" || n.Kind != syntax.Ident && n.Kind != syntax.Int ||
			d.Pos.Line != last.Pos.Line || d.Pos.Col != last.Pos.Col+len(last.Text) || n.Pos.Line != d.Pos.Line || n.Pos.Col != d.Pos.Col+1 {
			return s, t.Pos, nil
		}
		p.Next()
		p.Next()
		s += "-" + n.Text
	}
}

func (p *parser) str() (string, bool) {
	if t := p.Peek(); t.Kind == syntax.String {
		p.Next()
		return t.Text, true
	}
	return "", false
}

func (p *parser) value() (Value, error) {
	t := p.Peek()
	if t.Text == "-" && p.PeekN(1).Kind == syntax.Int {
		p.Next()
		n := p.Next()
		return Value{Text: "-" + n.Text, Pos: t.Pos}, nil
	}
	if t.Kind == syntax.Int {
		p.Next()
		return Value{Text: t.Text, Pos: t.Pos}, nil
	}
	s, pos, err := p.name("a value")
	return Value{Text: s, Pos: pos}, err
}

func (p *parser) protocol() (*Protocol, error) {
	if _, err := p.Expect("protocol"); err != nil {
		return nil, err
	}
	pr := &Protocol{Procs: map[string]*Proc{}}
	var err error
	if pr.Name, _, err = p.name("the protocol's name"); err != nil {
		return nil, err
	}
	pr.Title, _ = p.str()
	for {
		t := p.Peek()
		if t.Kind == syntax.EOF {
			return pr, nil
		}
		if p.Accept(";") {
			continue
		}
		p.Next()
		switch t.Text {
		case "param":
			err = p.param(pr)
		case "variant":
			err = p.variant(pr)
		case "shared":
			err = p.shared(pr, t.Pos)
		case "struct":
			err = p.heapStruct(pr, t.Pos)
		case "mutex":
			var n string
			n, _, err = p.name("a mutex name")
			pr.Mutexes = append(pr.Mutexes, &Shared{Name: n, Pos: t.Pos})
		case "property":
			var n string
			var at model.Pos
			n, at, err = p.name("a property name")
			doc, _ := p.str()
			for _, prev := range pr.Props {
				if err == nil && prev.Name == n {
					err = errAt(at, "property %s is already declared at %s", n, prev.Pos)
				}
			}
			pr.Props = append(pr.Props, &Prop{Name: n, Doc: doc, Pos: t.Pos})
		case "proc", "op":
			err = p.proc(pr, t.Pos, t.Text == "op")
		case "thread":
			err = p.thread(pr, t.Pos)
		case "final":
			err = p.final(pr, t.Pos)
		case "expect":
			err = p.expect(pr, t.Pos)
		case "spec":
			err = p.spec(pr, t.Pos)
		default:
			return nil, errAt(t.Pos, "expected param, variant, shared, struct, mutex, property, proc, op, thread, final, expect or spec, found %v%s", t,
				model.DidYouMean(t.Text, []string{"param", "variant", "shared", "struct", "mutex", "property", "proc", "op", "thread", "final", "expect", "spec"}))
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
	if _, err := p.Expect("="); err != nil {
		return err
	}
	v, err := p.value()
	if err != nil {
		return err
	}
	par := &Param{Name: n, Default: v, Pos: pos}
	if p.Accept("in") {
		for {
			c, _, err := p.name("a choice")
			if err != nil {
				return err
			}
			par.Choices = append(par.Choices, c)
			if !p.Accept("|") && !p.Accept(",") {
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
	if t := p.Peek(); p.Accept("extends") {
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
	for p.Peek().Kind == syntax.Ident && p.PeekN(1).Text == "=" {
		k, _, _ := p.name("a parameter")
		p.Next()
		val, err := p.value()
		if err != nil {
			return err
		}
		v.Binds = append(v.Binds, Bind{Param: k, Value: val})
	}
	v.Doc, _ = p.str()
	for {
		if t := p.Peek(); p.Accept("default") || p.Accept("shipped") {
			if t.Text == "default" {
				v.Default = true
			} else {
				v.Shipped = true
			}
			continue
		}
		break
	}
	if p.Accept("{") {
		for !p.Accept("}") {
			t := p.Peek()
			if !p.Accept("replace") {
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

// heapStruct parses "struct NAME { f, g }": the cells of a block that
// alloc(NAME) makes, uninitialised until stored.
func (p *parser) heapStruct(pr *Protocol, pos model.Pos) error {
	n, _, err := p.name("a struct name")
	if err != nil {
		return err
	}
	s := &Shared{Name: n, Pos: pos}
	if _, err := p.Expect("{"); err != nil {
		return err
	}
	if err := p.fields(s, false); err != nil {
		return err
	}
	pr.Types = append(pr.Types, s)
	return nil
}

// fields parses a struct's fields after its "{", to the "}": with an
// initial value each (0 unless "= e") for a shared struct, without for a
// heap struct, whose fields start uninitialised.
func (p *parser) fields(s *Shared, inits bool) error {
	for !p.Accept("}") {
		if p.Accept(",") || p.Accept(";") {
			continue
		}
		f, at, err := p.name("a field name")
		if err != nil {
			return err
		}
		for _, prev := range s.Fields {
			if prev.Name == f {
				return errAt(at, "field %s of %s is already declared", f, s.Name)
			}
		}
		fd := Field{Name: f}
		if p.Accept("[") {
			if fd.Len, err = p.expr(); err != nil {
				return err
			}
			if _, err := p.Expect("]"); err != nil {
				return err
			}
		}
		switch {
		case inits:
			fd.Init = &Num{Val: 0}
			if !p.Accept("=") {
				break
			}
			if fd.Len != nil && p.Accept("{") {
				fd.Elems, err = p.elems()
			} else {
				fd.Init, err = p.expr()
			}
			if err != nil {
				return err
			}
		case p.Is("="):
			return errAt(p.Peek().Pos, "the fields of a heap struct start uninitialised: store to them after alloc(%s)", s.Name)
		}
		s.Fields = append(s.Fields, fd)
	}
	if len(s.Fields) == 0 {
		return errAt(s.Pos, "struct %s has no fields", s.Name)
	}
	return nil
}

func (p *parser) shared(pr *Protocol, pos model.Pos) error {
	n, _, err := p.name("a variable name")
	if err != nil {
		return err
	}
	s := &Shared{Name: n, Pos: pos}
	if p.Accept("[") {
		if s.Len, err = p.expr(); err != nil {
			return err
		}
		if _, err := p.Expect("]"); err != nil {
			return err
		}
	}
	if p.Accept("{") {
		if err := p.fields(s, true); err != nil {
			return err
		}
	} else if s.Len != nil {
		if p.Accept("=") {
			if _, err := p.Expect("{"); err != nil {
				return err
			}
			if s.Elems, err = p.elems(); err != nil {
				return err
			}
		}
	} else {
		s.Init = &Num{Val: 0, At: pos}
		if p.Accept("=") {
			if s.Init, err = p.expr(); err != nil {
				return err
			}
		}
	}
	pr.Shared = append(pr.Shared, s)
	return nil
}

// elems parses an array's initial values after its "{", to the "}".
func (p *parser) elems() ([]Expr, error) {
	var es []Expr
	for !p.Accept("}") {
		if len(es) > 0 {
			if _, err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}

func (p *parser) proc(pr *Protocol, pos model.Pos, op bool) error {
	kind := "procedure"
	if op {
		kind = "operation"
	}
	n, _, err := p.name("a " + kind + " name")
	if err != nil {
		return err
	}
	proc := &Proc{Name: n, Pos: pos, Op: op}
	if _, err := p.Expect("("); err != nil {
		return err
	}
	for !p.Accept(")") {
		if len(proc.Params) > 0 {
			if _, err := p.Expect(","); err != nil {
				return err
			}
		}
		a, at, err := p.name("a parameter name")
		if err != nil {
			return err
		}
		if slices.Contains(proc.Params, a) {
			return errAt(at, "%s %s has two parameters called %s", kind, n, a)
		}
		proc.Params = append(proc.Params, a)
	}
	if proc.Body, err = p.block(); err != nil {
		return err
	}
	if prev, dup := pr.Procs[n]; dup {
		return errAt(pos, "%s is already defined at %s", n, prev.Pos)
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
	if p.Accept("[") {
		if th.Count, err = p.expr(); err != nil {
			return err
		}
		if _, err := p.Expect("]"); err != nil {
			return err
		}
	}
	th.Spawned = p.Accept("spawned")
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
	if _, err := p.Expect(":"); err != nil {
		return err
	}
	c, err := p.expr()
	if err != nil {
		return err
	}
	f := &Final{Prop: n, Cond: c, Pos: pos}
	if p.Accept(",") {
		var ok bool
		if f.Msg, ok = p.str(); !ok {
			return errAt(p.Peek().Pos, "expected a message string, found %v", p.Peek())
		}
	}
	pr.Finals = append(pr.Finals, f)
	return nil
}

// expect reads "expect VARIANTS [with K=V ...] [under MODEL, ...] : VERDICT".
func (p *parser) expect(pr *Protocol, pos model.Pos) error {
	e := &Expect{Pos: pos}
	names := func(what string, out *[]string, where *[]model.Pos) error {
		for {
			n, npos, err := p.name(what)
			if err != nil {
				return err
			}
			*out, *where = append(*out, n), append(*where, npos)
			if !p.Accept(",") {
				return nil
			}
		}
	}
	if !p.Accept("*") {
		if err := names("a variant name or \"*\"", &e.Variants, &e.variantAt); err != nil {
			return err
		}
	}
	if p.Accept("with") {
		for {
			k, _, err := p.name("a parameter name")
			if err != nil {
				return err
			}
			if _, err := p.Expect("="); err != nil {
				return err
			}
			v, err := p.value()
			if err != nil {
				return err
			}
			e.Params = append(e.Params, Bind{Param: k, Value: v})
			if p.Peek().Kind != syntax.Ident || p.PeekN(1).Text != "=" {
				break
			}
		}
	}
	if p.Accept("under") {
		if err := names("a model name", &e.Models, &e.modelAt); err != nil {
			return err
		}
	}
	if _, err := p.Expect(":"); err != nil {
		return err
	}
	if !p.Accept("holds") {
		if t := p.Peek(); !p.Accept("violates") {
			return errAt(t.Pos, "expected \"holds\" or \"violates\", found %v", t)
		}
		for {
			n, npos, err := p.name("a property name")
			if err != nil {
				return err
			}
			v := Violation{Prop: n}
			if p.Accept("(") {
				for _, w := range []string{"every", "execution", ")"} {
					if _, err := p.Expect(w); err != nil {
						return err
					}
				}
				v.Every = true
			}
			e.Violated, e.propAt = append(e.Violated, v), append(e.propAt, npos)
			if !p.Accept(",") {
				break
			}
		}
	}
	pr.Expects = append(pr.Expects, e)
	return nil
}

func (p *parser) block() (*Block, error) {
	t, err := p.Expect("{")
	if err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if err := p.nest(t.Pos); err != nil {
		return nil, err
	}
	b := &Block{Pos: t.Pos}
	for !p.Accept("}") {
		if p.Peek().Kind == syntax.EOF {
			return nil, errAt(t.Pos, "unterminated block: expected \"}\"")
		}
		if p.Accept(";") {
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
	t := p.Peek()
	at := t.Pos
	if t.Kind == syntax.Ident {
		switch t.Text {
		case "if":
			p.Next()
			return p.ifStmt(at)
		case "while":
			p.Next()
			c, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.Is("max") {
				return nil, errAt(p.Peek().Pos, "a loop needs a bound: while COND max K { ... }, K the rounds the exploration gives it; to wait until a condition holds, write await COND")
			}
			p.Next()
			m, err := p.expr()
			if err != nil {
				return nil, err
			}
			body, err := p.block()
			return &WhileStmt{Cond: c, Max: m, Body: body, At: at}, err
		case "for":
			p.Next()
			v, _, err := p.name("a loop variable")
			if err != nil {
				return nil, err
			}
			if _, err := p.Expect("in"); err != nil {
				return nil, err
			}
			from, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, err := p.Expect("."); err != nil {
				return nil, err
			}
			if _, err := p.Expect("."); err != nil {
				return nil, err
			}
			to, err := p.expr()
			if err != nil {
				return nil, err
			}
			body, err := p.block()
			return &ForStmt{Var: v, From: from, To: to, Body: body, At: at}, err
		case "block", "op":
			p.Next()
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
			p.Next()
			e := &EitherStmt{At: at}
			for {
				b, err := p.block()
				if err != nil {
					return nil, err
				}
				e.Arms = append(e.Arms, b)
				if !p.Accept("or") {
					return e, nil
				}
			}
		case "assert":
			p.Next()
			n, _, err := p.name("a property name")
			if err != nil || !p.Accept(":") {
				return nil, errAt(at, "assert needs a property name: assert NAME: cond, \"message\" (declare it with property NAME)")
			}
			c, err := p.expr()
			if err != nil {
				return nil, err
			}
			a := &AssertStmt{Prop: n, Cond: c, At: at}
			if p.Accept(",") {
				var ok bool
				if a.Msg, ok = p.str(); !ok {
					return nil, errAt(p.Peek().Pos, "expected a message string, found %v", p.Peek())
				}
			}
			return a, nil
		case "assume", "await":
			p.Next()
			c, err := p.expr()
			return &AssumeStmt{Cond: c, Await: t.Text == "await", At: at}, err
		case "require":
			p.Next()
			c, err := p.expr()
			return &RequireStmt{Cond: c, At: at}, err
		case "lock", "unlock", "destroy", "fence", "store", "free":
			if p.PeekN(1).Text != "(" {
				break
			}
			p.Next()
			p.Next()
			m := &MemStmt{Kind: t.Text, At: at}
			if t.Text == "fence" {
				if p.Is(")") {
					return nil, errAt(at, "fence needs an ordering: %s", usage["fence"])
				}
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
					if _, err := p.Expect(","); err != nil {
						return nil, err
					}
					v, err := p.expr()
					if err != nil {
						return nil, err
					}
					m.Args = append(m.Args, v)
					if p.Is(")") {
						return nil, errAt(at, "store needs an ordering: %s", usage["store"])
					}
					if _, err := p.Expect(","); err != nil {
						return nil, err
					}
					o, err := p.value()
					if err != nil {
						return nil, err
					}
					m.Ord = &o
				}
			}
			_, err := p.Expect(")")
			return m, err
		case "break", "continue":
			p.Next()
			return &BranchStmt{Tok: t.Text, At: at}, nil
		case "spawn":
			p.Next()
			n, _, err := p.name("a thread name")
			return &SpawnStmt{Thread: n, At: at}, err
		case "return":
			p.Next()
			r := &ReturnStmt{At: at}
			for !p.Is("}") && !p.Is(";") {
				if len(r.Vals) > 0 {
					if _, err := p.Expect(","); err != nil {
						return nil, err
					}
				}
				v, err := p.expr()
				if err != nil {
					return nil, err
				}
				r.Vals = append(r.Vals, v)
			}
			return r, nil
		}
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.Accept("=") {
		switch x.(type) {
		case *Name, *FieldExpr, *IndexExpr, *ArrowExpr, *DerefExpr:
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
	if p.Accept("else") {
		if t := p.Peek(); p.Accept("if") {
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
