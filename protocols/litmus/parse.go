// Package litmus reads C litmus tests in herd7's format into programs.
package litmus

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/syntax"
)

// Error is a located error in a litmus file.
type Error = syntax.Error

type token = syntax.Token

const (
	tEOF    = syntax.EOF
	tIdent  = syntax.Ident
	tInt    = syntax.Int
	tString = syntax.String
	tPunct  = syntax.Punct
)

// ParseFile reads and parses the litmus test at path.
func ParseFile(path string) (*model.Program, error) {
	src, err := syntax.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

var threadName = regexp.MustCompile(`^P[0-9]+$`)

// Parse parses a C litmus test. Errors are *Error values naming file:line:col.
func Parse(file, src string) (*model.Program, error) {
	p := &parser{file: file, prog: &model.Program{}}
	if err := p.header(src); err != nil {
		return nil, err
	}
	if err := p.body(); err != nil {
		return nil, err
	}
	return p.prog, nil
}

type parser struct {
	syntax.Stream
	file    string
	prog    *model.Program
	regInit []regInit
	// the thread being parsed
	th    *model.Thread
	tid   int
	ntemp int
	// outcome marks the parse of an outcome of a parsed test (see
	// ParseCondition): it names registers the test has, and adds none.
	outcome bool
	depth   int // how deep statements, expressions and conditions nest here
}

// nest enters one more level of nesting at t; the caller leaves it with
// p.depth--.
func (p *parser) nest(t token) error {
	if p.depth++; p.depth > syntax.MaxNesting {
		return p.errf(t, "nested more than %d deep", syntax.MaxNesting)
	}
	return nil
}

type regInit struct {
	thread int
	reg    string
	val    int64
	pos    model.Pos
}

// header reads "C NAME" and skips the metadata up to the initial state.
func (p *parser) header(src string) error {
	line, off := 1, 0
	for off < len(src) {
		end := strings.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src) - off
		}
		text := strings.TrimSpace(src[off : off+end])
		if text != "" {
			f := strings.Fields(text)
			if len(f) < 2 {
				return &Error{Pos: model.Pos{File: p.file, Line: line, Col: 1}, Msg: "expected a header \"C NAME\""}
			}
			if f[0] != "C" {
				return &Error{Pos: model.Pos{File: p.file, Line: line, Col: 1}, Msg: fmt.Sprintf("architecture %q is not supported: only C litmus tests", f[0])}
			}
			p.prog.Name = f[1]
			off += end
			break
		}
		off += end + 1
		line++
	}
	if p.prog.Name == "" {
		return &Error{Pos: model.Pos{File: p.file, Line: line, Col: 1}, Msg: "empty file: expected a header \"C NAME\""}
	}
	// Skip metadata (quoted comments, Key=Value lines, OCaml comments) up to
	// the first '{' that opens the initial state.
	lx := syntax.NewLexer(p.file, src, off, line, 1)
	lx.OCaml = true
	for {
		if err := lx.SkipSpace(); err != nil {
			return err
		}
		if lx.AtEnd() {
			return &Error{Pos: lx.Pos(), Msg: "expected the initial state { ... }"}
		}
		c := lx.Peek()
		if c == '{' {
			break
		}
		if c == '"' {
			if _, err := lx.Next(); err != nil {
				return err
			}
			continue
		}
		lx.Advance(1)
	}
	toks, err := lx.All()
	p.Toks = toks
	return err
}

func (p *parser) errf(t token, format string, args ...any) error {
	return &Error{Pos: t.Pos, Msg: fmt.Sprintf(format, args...)}
}
func (p *parser) ident(what string) (token, error) {
	t := p.Next()
	if t.Kind != tIdent {
		return t, p.errf(t, "expected %s, found %v", what, t)
	}
	return t, nil
}

func (p *parser) integer() (int64, token, error) {
	t := p.Peek()
	neg := p.Accept("-")
	n := p.Next()
	if n.Kind != tInt {
		return 0, n, p.errf(n, "expected an integer, found %v", n)
	}
	v, err := strconv.ParseInt(n.Text, 0, 64)
	if err != nil {
		return 0, n, p.errf(n, "bad integer %s: %v", n.Text, errShort(err))
	}
	if neg {
		v = -v
	}
	return v, t, nil
}

func errShort(err error) string {
	if ne, ok := err.(*strconv.NumError); ok {
		return ne.Err.Error()
	}
	return err.Error()
}

func (p *parser) location(name string, create bool) model.Loc {
	if l := p.prog.LocIndex(name); l != model.NoLoc || !create {
		return l
	}
	p.prog.Locs = append(p.prog.Locs, model.Location{Name: name})
	return model.Loc(len(p.prog.Locs) - 1)
}

var typeWords = map[string]bool{
	"int": true, "long": true, "unsigned": true, "signed": true, "short": true, "char": true,
	"volatile": true, "const": true, "atomic_int": true, "atomic_long": true, "atomic_uint": true,
	"atomic_bool": true, "_Atomic": true, "_Bool": true, "bool": true, "intptr_t": true,
	"int32_t": true, "int64_t": true, "uint32_t": true, "uint64_t": true, "size_t": true,
}

func (p *parser) body() error {
	if err := p.initState(); err != nil {
		return err
	}
	for {
		t := p.Peek()
		if t.Kind != tIdent || !threadName.MatchString(t.Text) {
			break
		}
		if err := p.thread(); err != nil {
			return err
		}
	}
	if len(p.prog.Threads) == 0 {
		return p.errf(p.Peek(), "expected a thread P0(...) { ... }, found %v", p.Peek())
	}
	for _, ri := range p.regInit {
		if ri.thread >= len(p.prog.Threads) {
			return &Error{Pos: ri.pos, Msg: fmt.Sprintf("initial value for %d:%s, but there is no thread P%d", ri.thread, ri.reg, ri.thread)}
		}
		th := &p.prog.Threads[ri.thread]
		r := regOf(th, ri.reg, true)
		th.Init[r] = ri.val
	}
	return p.final()
}

// initState parses "{ item; item; ... }".
func (p *parser) initState() error {
	if _, err := p.Expect("{"); err != nil {
		return err
	}
	for !p.Accept("}") {
		if p.Accept(";") {
			continue
		}
		start := p.Peek()
		if start.Kind == tEOF {
			return p.errf(start, "unterminated initial state: expected \"}\"")
		}
		for p.Peek().Kind == tIdent && typeWords[p.Peek().Text] || p.Is("*") {
			p.Next()
		}
		var name string
		var tid = -1
		switch {
		case p.Accept("["):
			t, err := p.ident("a location name")
			if err != nil {
				return err
			}
			if _, err := p.Expect("]"); err != nil {
				return err
			}
			name = t.Text
		case p.Peek().Kind == tInt && p.PeekN(1).Text == ":":
			n, _ := strconv.Atoi(p.Next().Text)
			p.Next()
			t, err := p.ident("a register name")
			if err != nil {
				return err
			}
			tid, name = n, t.Text
		default:
			t, err := p.ident("a location name")
			if err != nil {
				return err
			}
			name = t.Text
		}
		if _, err := p.Expect("="); err != nil {
			return err
		}
		var v int64
		if p.Accept("&") {
			t, err := p.ident("a location name")
			if err != nil {
				return err
			}
			v = model.AddrOf(p.location(t.Text, true))
		} else if p.Peek().Kind == tIdent {
			t := p.Next()
			v = model.AddrOf(p.location(t.Text, true))
		} else {
			var err error
			if v, _, err = p.integer(); err != nil {
				return err
			}
		}
		if tid >= 0 {
			p.regInit = append(p.regInit, regInit{tid, name, v, start.Pos})
		} else {
			p.prog.Locs[p.location(name, true)].Init = v
		}
		if !p.Is("}") {
			if _, err := p.Expect(";"); err != nil {
				return err
			}
		}
	}
	return nil
}

func regOf(th *model.Thread, name string, create bool) model.Reg {
	if r := th.RegIndex(name); r != model.NoReg || !create {
		return r
	}
	th.Regs = append(th.Regs, name)
	th.Init = append(th.Init, 0)
	return model.Reg(len(th.Regs) - 1)
}

func (p *parser) thread() error {
	nameTok := p.Next()
	n, _ := strconv.Atoi(nameTok.Text[1:])
	if n != len(p.prog.Threads) {
		return p.errf(nameTok, "expected thread P%d, found %s", len(p.prog.Threads), nameTok.Text)
	}
	p.prog.Threads = append(p.prog.Threads, model.Thread{Name: nameTok.Text})
	p.th, p.tid, p.ntemp = &p.prog.Threads[n], n, 0
	if _, err := p.Expect("("); err != nil {
		return err
	}
	for !p.Accept(")") {
		if p.Accept(",") {
			continue
		}
		var last token
		stars := 0
		for !p.Is(",") && !p.Is(")") {
			t := p.Next()
			switch {
			case t.Kind == tEOF:
				return p.errf(t, "unterminated parameter list")
			case t.Text == "*":
				stars++
			case t.Kind == tIdent:
				last = t
			default:
				return p.errf(t, "unexpected %v in a parameter list", t)
			}
		}
		if last.Kind != tIdent || stars == 0 {
			return p.errf(last, "a thread parameter must be a pointer to a location, like \"atomic_int* x\"")
		}
		p.location(last.Text, true)
	}
	if _, err := p.Expect("{"); err != nil {
		return err
	}
	for !p.Accept("}") {
		if p.Peek().Kind == tEOF {
			return p.errf(p.Peek(), "unterminated thread %s: expected \"}\"", nameTok.Text)
		}
		if err := p.stmt(); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) emit(in model.Instr) int {
	p.th.Code = append(p.th.Code, in)
	return len(p.th.Code) - 1
}

func (p *parser) temp() model.Reg {
	p.ntemp++
	return regOf(p.th, fmt.Sprintf("%%t%d", p.ntemp), true)
}

func (p *parser) stmt() error {
	t := p.Peek()
	if err := p.nest(t); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	switch {
	case p.Accept(";"):
		return nil
	case p.Accept("{"):
		for !p.Accept("}") {
			if p.Peek().Kind == tEOF {
				return p.errf(t, "unterminated block")
			}
			if err := p.stmt(); err != nil {
				return err
			}
		}
		return nil
	case p.Accept("if"):
		if _, err := p.Expect("("); err != nil {
			return err
		}
		c, err := p.expr()
		if err != nil {
			return err
		}
		if _, err := p.Expect(")"); err != nil {
			return err
		}
		br := p.emit(model.Instr{Op: model.OpBranch, Cond: model.Not(c), Pos: t.Pos, Text: "if"})
		if err := p.stmt(); err != nil {
			return err
		}
		if p.Accept("else") {
			j := p.emit(model.Instr{Op: model.OpJump, Pos: t.Pos})
			p.th.Code[br].Target = len(p.th.Code)
			if err := p.stmt(); err != nil {
				return err
			}
			p.th.Code[j].Target = len(p.th.Code)
		} else {
			p.th.Code[br].Target = len(p.th.Code)
		}
		return nil
	case t.Kind == tIdent && (t.Text == "while" || t.Text == "for" || t.Text == "do"):
		return p.errf(t, "loops are not supported in litmus tests")
	case t.Kind == tIdent && typeWords[t.Text]:
		for p.Peek().Kind == tIdent && typeWords[p.Peek().Text] || p.Is("*") {
			p.Next()
		}
		for {
			nt, err := p.ident("a register name")
			if err != nil {
				return err
			}
			if p.prog.LocIndex(nt.Text) != model.NoLoc {
				return p.errf(nt, "%s is a shared location; a register needs another name", nt.Text)
			}
			r := regOf(p.th, nt.Text, true)
			if p.Accept("=") {
				if err := p.assign(r, nt); err != nil {
					return err
				}
			}
			if !p.Accept(",") {
				break
			}
		}
		_, err := p.Expect(";")
		return err
	case p.Accept("*"):
		addr, err := p.unary()
		if err != nil {
			return err
		}
		if _, err := p.Expect("="); err != nil {
			return err
		}
		v, err := p.expr()
		if err != nil {
			return err
		}
		p.emit(model.Instr{Op: model.OpStore, Dst: model.NoReg, Dst2: model.NoReg, Addr: addr, Val: v, Ord: model.NA, Pos: t.Pos, Text: "*" + addr.Format(p.prog, p.th.Regs) + " = " + v.Format(p.prog, p.th.Regs)})
		_, err = p.Expect(";")
		return err
	case t.Kind == tIdent && p.PeekN(1).Text == "=":
		p.Next()
		p.Next()
		if p.prog.LocIndex(t.Text) != model.NoLoc && p.th.RegIndex(t.Text) == model.NoReg {
			return p.errf(t, "cannot assign to the location %s; write *%s = ... to store to it", t.Text, t.Text)
		}
		if err := p.assign(regOf(p.th, t.Text, true), t); err != nil {
			return err
		}
		_, err := p.Expect(";")
		return err
	}
	if _, err := p.callOrExpr(true); err != nil {
		return err
	}
	_, err := p.Expect(";")
	return err
}

// assign parses the right-hand side of "r = ..." and stores it in r.
func (p *parser) assign(r model.Reg, at token) error {
	n := len(p.th.Code)
	v, err := p.expr()
	if err != nil {
		return err
	}
	// Load straight into r when the value is the result of the last instruction.
	if v.Kind == model.EReg && len(p.th.Code) > n {
		last := &p.th.Code[len(p.th.Code)-1]
		if (last.Op == model.OpLoad || last.Op == model.OpRMW) && last.Dst == v.Reg && strings.HasPrefix(p.th.Regs[v.Reg], "%") {
			last.Dst = r
			return nil
		}
	}
	p.emit(model.Instr{Op: model.OpAssign, Dst: r, Dst2: model.NoReg, Val: v, Pos: at.Pos, Text: p.th.Regs[r] + " = " + v.Format(p.prog, p.th.Regs)})
	return nil
}

// final parses "locations [...]" and the final condition.
func (p *parser) final() error {
	var shown []model.Observable
	if p.Accept("locations") {
		if _, err := p.Expect("["); err != nil {
			return err
		}
		for !p.Accept("]") {
			if p.Accept(";") {
				continue
			}
			o, err := p.observable()
			if err != nil {
				return err
			}
			shown = append(shown, o)
		}
	}
	f := &model.Final{Quant: model.Forall, Cond: &model.Cond{Kind: model.CTrue}}
	t := p.Peek()
	switch {
	case p.Accept("exists"):
		f.Quant = model.Exists
	case p.Accept("forall"):
		f.Quant = model.Forall
	case p.Is("~") && p.PeekN(1).Text == "exists":
		p.Next()
		p.Next()
		f.Quant = model.NotExists
	case t.Kind == tEOF:
		p.prog.Final = f
		f.Show = sortObs(p.prog, shown)
		return nil
	default:
		return p.errf(t, "expected exists, ~exists, forall or locations, found %v", t)
	}
	c, err := p.cond()
	if err != nil {
		return err
	}
	if t := p.Peek(); t.Kind != tEOF {
		return p.errf(t, "unexpected %v after the final condition", t)
	}
	f.Cond = c
	f.Show = sortObs(p.prog, c.Observables(shown))
	p.prog.Final = f
	return nil
}

func sortObs(p *model.Program, obs []model.Observable) []model.Observable {
	var out []model.Observable
	seen := map[model.Observable]bool{}
	for _, o := range obs {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.IsMem() != b.IsMem() {
			return !a.IsMem()
		}
		if !a.IsMem() && a.Thread != b.Thread {
			return a.Thread < b.Thread
		}
		return a.Name(p) < b.Name(p)
	})
	return out
}

func (p *parser) cond() (*model.Cond, error) {
	x, err := p.conj()
	for err == nil && p.Accept("\\/") {
		var y *model.Cond
		y, err = p.conj()
		x = &model.Cond{Kind: model.COr, X: x, Y: y}
	}
	return x, err
}

func (p *parser) conj() (*model.Cond, error) {
	x, err := p.condUnary()
	for err == nil && p.Accept("/\\") {
		var y *model.Cond
		y, err = p.condUnary()
		x = &model.Cond{Kind: model.CAnd, X: x, Y: y}
	}
	return x, err
}

func (p *parser) condUnary() (*model.Cond, error) {
	if err := p.nest(p.Peek()); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	switch {
	case p.Accept("~") || p.Accept("not"):
		x, err := p.condUnary()
		return &model.Cond{Kind: model.CNot, X: x}, err
	case p.Accept("("):
		x, err := p.cond()
		if err != nil {
			return nil, err
		}
		_, err = p.Expect(")")
		return x, err
	case p.Accept("true"):
		return &model.Cond{Kind: model.CTrue}, nil
	case p.Accept("false"):
		return &model.Cond{Kind: model.CFalse}, nil
	}
	o, err := p.observable()
	if err != nil {
		return nil, err
	}
	kind := model.CEq
	t := p.Peek()
	switch {
	case p.Accept("="), p.Accept("=="):
	case p.Accept("!="):
		kind = model.CNe
	default:
		return nil, p.errf(t, "expected = or != in the condition, found %v", t)
	}
	var v int64
	if p.Peek().Kind == tIdent {
		n := p.Next()
		l := p.prog.LocIndex(n.Text)
		if l == model.NoLoc {
			return nil, p.errf(n, "unknown location %s", n.Text)
		}
		v = model.AddrOf(l)
	} else if v, _, err = p.integer(); err != nil {
		return nil, err
	}
	return &model.Cond{Kind: kind, Obs: o, Val: v}, nil
}

// observable parses "T:reg", "x" or "[x]".
func (p *parser) observable() (model.Observable, error) {
	t := p.Peek()
	if t.Kind == tInt && p.PeekN(1).Text == ":" {
		n, err := strconv.Atoi(t.Text)
		p.Next()
		p.Next()
		if err != nil || n >= len(p.prog.Threads) {
			return model.Observable{}, p.errf(t, "no thread %s", t.Text)
		}
		r, err := p.ident("a register name")
		if err != nil {
			return model.Observable{}, err
		}
		// In a test, a register the thread never assigns reads as 0.
		reg := regOf(&p.prog.Threads[n], r.Text, !p.outcome)
		if reg == model.NoReg {
			return model.Observable{}, p.errf(r, "thread %d has no register %s", n, r.Text)
		}
		return model.Observable{Thread: n, Reg: reg, Loc: model.NoLoc}, nil
	}
	bracket := p.Accept("[")
	n, err := p.ident("a location or T:register")
	if err != nil {
		return model.Observable{}, err
	}
	if bracket {
		if _, err := p.Expect("]"); err != nil {
			return model.Observable{}, err
		}
	}
	l := p.prog.LocIndex(n.Text)
	if l == model.NoLoc {
		return model.Observable{}, p.errf(n, "unknown location %s", n.Text)
	}
	return model.Observable{Thread: -1, Reg: model.NoReg, Loc: l}, nil
}

// ParseCondition parses a proposition over p's final state, in the syntax
// of a test's final condition ("1:r0=1 /\ x=2"), for --why.
func ParseCondition(p *model.Program, src string) (*model.Cond, error) {
	toks, err := syntax.NewLexer("outcome", src, 0, 1, 1).All()
	if err != nil {
		return nil, err
	}
	ps := &parser{Stream: syntax.Stream{Toks: toks}, file: "outcome", prog: p, outcome: true}
	c, err := ps.cond()
	if err != nil {
		return nil, err
	}
	if t := ps.Peek(); t.Kind != tEOF {
		return nil, ps.errf(t, "unexpected %v after the outcome", t)
	}
	return c, nil
}
