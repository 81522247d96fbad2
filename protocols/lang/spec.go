package lang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/syntax"
)

// Spec is a sequential specification: the state of the object the
// protocol's operations implement, and what each operation may return
// and how it changes the state, executed one operation at a time. It is
// what the linearizability property checks histories against.
type Spec struct {
	State []*SpecVar
	Ops   []*SpecOp
	Pos   model.Pos
}

// SpecVar is an integer of the specification's state.
type SpecVar struct {
	Name string
	Init int64
	Pos  model.Pos
}

// SpecOp is an operation of the specification: the results it may
// return (none declared: any), and a body of assignments to the state,
// ifs, and requires over the state and "result".
type SpecOp struct {
	Name    string
	Results []SpecResult
	Body    *Block
	Pos     model.Pos

	step func(st []int64, result int64) bool // compiled by checkSpec
}

// SpecResult is a result an operation may return, with the words that
// describe it in messages ("" for the number).
type SpecResult struct {
	Val   int64
	Label string
}

// RequireStmt is "require cond" in a specification's operation: the
// operation may return its result only where cond holds.
type RequireStmt struct {
	Cond Expr
	At   model.Pos
}

func (s *RequireStmt) pos() model.Pos { return s.At }

// resultName is the name a specification's operation reads its result by.
const resultName = "result"

// spec reads "spec { state NAME = INT, ... ; op NAME [returns INT
// ["label"], ...] { ... } ... }".
func (p *parser) spec(pr *Protocol, pos model.Pos) error {
	if pr.Spec != nil {
		return errAt(pos, "a second spec section (the first is at %s)", pr.Spec.Pos)
	}
	s := &Spec{Pos: pos}
	pr.Spec = s
	if _, err := p.Expect("{"); err != nil {
		return err
	}
	for !p.Accept("}") {
		t := p.Peek()
		switch {
		case t.Kind == syntax.EOF:
			return errAt(pos, "unterminated spec: expected \"}\"")
		case p.Accept(";"):
		case p.Accept("state"):
			for {
				n, at, err := p.name("a state variable")
				if err != nil {
					return err
				}
				if _, err := p.Expect("="); err != nil {
					return err
				}
				v, err := p.int64Lit()
				if err != nil {
					return err
				}
				s.State = append(s.State, &SpecVar{Name: n, Init: v, Pos: at})
				if !p.Accept(",") {
					break
				}
			}
		case p.Accept("op"):
			n, at, err := p.name("an operation name")
			if err != nil {
				return err
			}
			op := &SpecOp{Name: n, Pos: at}
			if p.Accept("returns") {
				for {
					v, err := p.int64Lit()
					if err != nil {
						return err
					}
					label, _ := p.str()
					op.Results = append(op.Results, SpecResult{Val: v, Label: label})
					if !p.Accept(",") {
						break
					}
				}
			}
			if op.Body, err = p.block(); err != nil {
				return err
			}
			s.Ops = append(s.Ops, op)
		default:
			return errAt(t.Pos, "expected state or op in a spec, found %v", t)
		}
	}
	return nil
}

// int64Lit reads an integer, possibly negative.
func (p *parser) int64Lit() (int64, error) {
	t := p.Peek()
	neg := p.Accept("-")
	n := p.Next()
	if n.Kind != syntax.Int {
		return 0, errAt(n.Pos, "expected an integer, found %v", n)
	}
	v, err := strconv.ParseInt(n.Text, 0, 64)
	if err != nil {
		return 0, errAt(t.Pos, "bad integer %s", n.Text)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// checkSpec validates the specification and compiles its operations: no
// name declared twice, bodies of assignments to the state, ifs and
// requires over the state and result, and every operation a thread
// performs specified. A protocol that checks linearizability without a
// spec is left to the checker, which may know one from its catalogue.
func (pr *Protocol) checkSpec() error {
	s := pr.Spec
	if s == nil {
		return nil
	}
	vars := map[string]int{}
	for i, v := range s.State {
		if v.Name == resultName {
			return errAt(v.Pos, "%s names an operation's result: call the state variable something else", resultName)
		}
		if j, ok := vars[v.Name]; ok {
			return errAt(v.Pos, "state variable %s is already declared at %s", v.Name, s.State[j].Pos)
		}
		vars[v.Name] = i
	}
	ops := map[string]*SpecOp{}
	for _, op := range s.Ops {
		if prev, ok := ops[op.Name]; ok {
			return errAt(op.Pos, "operation %s is already specified at %s", op.Name, prev.Pos)
		}
		ops[op.Name] = op
		seen := map[int64]bool{}
		for _, r := range op.Results {
			if seen[r.Val] {
				return errAt(op.Pos, "operation %s lists the result %d twice", op.Name, r.Val)
			}
			seen[r.Val] = true
		}
		c := &specComp{vars: vars}
		body, err := c.block(op.Body)
		if err != nil {
			return err
		}
		op.step = func(st []int64, result int64) bool {
			regs := append(st, result)
			return body(regs)
		}
	}
	var names []string
	for _, op := range s.Ops {
		names = append(names, op.Name)
	}
	var err error
	for _, b := range pr.codeBlocks() {
		walkStmts(b, func(st Stmt, _ stmtPlace) {
			if o, ok := st.(*OpStmt); ok && err == nil && ops[o.Name] == nil {
				err = errAt(o.At, "operation %s is not in the spec at %s (it specifies %s)%s", o.Name, s.Pos, strings.Join(names, ", "), model.DidYouMean(o.Name, names))
			}
		})
	}
	return err
}

// specComp compiles a specification's operation to a function over the
// state (registers 0..n-1) and the result (register n): it changes the
// state in place and reports whether every require held.
type specComp struct{ vars map[string]int }

func (c *specComp) block(b *Block) (func([]int64) bool, error) {
	var steps []func([]int64) bool
	for _, s := range b.Stmts {
		f, err := c.stmt(s)
		if err != nil {
			return nil, err
		}
		steps = append(steps, f)
	}
	return func(regs []int64) bool {
		for _, f := range steps {
			if !f(regs) {
				return false
			}
		}
		return true
	}, nil
}

func (c *specComp) stmt(s Stmt) (func([]int64) bool, error) {
	switch s := s.(type) {
	case *AssignStmt:
		n, ok := s.LHS.(*Name)
		if !ok {
			return nil, errAt(s.At, "a spec assigns only its state variables")
		}
		i, ok := c.vars[n.Name]
		if !ok {
			return nil, errAt(n.At, "%s is not a state variable of the spec%s", n.Name, model.DidYouMean(n.Name, c.names()))
		}
		x, err := c.expr(s.RHS)
		if err != nil {
			return nil, err
		}
		return func(regs []int64) bool {
			v, err := model.EvalExpr(x, regs)
			regs[i] = v
			return err == nil
		}, nil
	case *RequireStmt:
		x, err := c.expr(s.Cond)
		if err != nil {
			return nil, err
		}
		return func(regs []int64) bool {
			v, err := model.EvalExpr(x, regs)
			return err == nil && v != 0
		}, nil
	case *IfStmt:
		cond, err := c.expr(s.Cond)
		if err != nil {
			return nil, err
		}
		then, err := c.block(s.Then)
		if err != nil {
			return nil, err
		}
		els := func([]int64) bool { return true }
		if s.Else != nil {
			if els, err = c.block(s.Else); err != nil {
				return nil, err
			}
		}
		return func(regs []int64) bool {
			v, err := model.EvalExpr(cond, regs)
			if err != nil {
				return false
			}
			if v != 0 {
				return then(regs)
			}
			return els(regs)
		}, nil
	}
	return nil, errAt(s.pos(), "a spec's operation may only assign its state, branch with if and require conditions")
}

func (c *specComp) names() []string {
	out := []string{resultName}
	for n := range c.vars {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// expr compiles an expression over the state and the result.
func (c *specComp) expr(e Expr) (*model.Expr, error) {
	switch e := e.(type) {
	case *Num:
		return model.Const(e.Val), nil
	case *Name:
		if e.Name == resultName {
			return model.RegExpr(model.Reg(len(c.vars))), nil
		}
		if i, ok := c.vars[e.Name]; ok {
			return model.RegExpr(model.Reg(i)), nil
		}
		return nil, errAt(e.At, "%s is neither a state variable of the spec nor %s%s", e.Name, resultName, model.DidYouMean(e.Name, c.names()))
	case *BinExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return nil, err
		}
		y, err := c.expr(e.Y)
		if err != nil {
			return nil, err
		}
		return model.Bin(binOps[e.Op], x, y), nil
	case *UnExpr:
		x, err := c.expr(e.X)
		if err != nil {
			return nil, err
		}
		if e.Op == "!" {
			return model.Not(x), nil
		}
		return model.Neg(x), nil
	case *CondExpr:
		// c ? x : y as c*x + !c*y keeps to the evaluator's operators; both
		// arms are pure, so evaluating both is harmless.
		cond, err := c.expr(e.Cond)
		if err != nil {
			return nil, err
		}
		x, err := c.expr(e.Then)
		if err != nil {
			return nil, err
		}
		y, err := c.expr(e.Else)
		if err != nil {
			return nil, err
		}
		isTrue := model.Bin(model.Ne, cond, model.Const(0))
		return model.Bin(model.Add, model.Bin(model.Mul, isTrue, x), model.Bin(model.Mul, model.Not(isTrue), y)), nil
	}
	return nil, errAt(e.pos(), "a spec's expressions use integers, its state variables and %s only", resultName)
}

// specState is the specification's state as porcupine holds it: the
// state variables' values, encoded in a comparable string.
type specState string

func encodeState(vals []int64) specState {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	return specState(b.String())
}

func decodeState(s specState, n int) []int64 {
	vals := make([]int64, 0, n+1)
	if n == 0 {
		return vals
	}
	for _, f := range strings.Split(string(s), " ") {
		v, _ := strconv.ParseInt(f, 10, 64)
		vals = append(vals, v)
	}
	return vals
}

// Model returns the specification as the porcupine model that the
// linearizability property checks histories against. An operation's
// input is its name (harness.Op with its object for a recorded history,
// whose objects are independent), its output the int64 it returned.
func (s *Spec) Model() *porcupine.Model {
	ops := map[string]*SpecOp{}
	for _, op := range s.Ops {
		ops[op.Name] = op
	}
	init := make([]int64, len(s.State))
	for i, v := range s.State {
		init[i] = v.Init
	}
	n := len(s.State)
	var partition func([]porcupine.Operation) [][]porcupine.Operation
	if n > 0 {
		// Objects are independent. A spec without state judges each
		// operation alone anyway, and the state explorer then judges them
		// one at a time, which it does only for specs without partitions.
		partition = harness.PartitionByObject
	}
	return &porcupine.Model{
		Partition: partition,
		Init:      func() interface{} { return encodeState(init) },
		Step: func(st, input, output interface{}) (bool, interface{}) {
			_, name := harness.Split(input)
			op := ops[name]
			res, ok := output.(int64)
			if op == nil || !ok || op.Results != nil && !slices.ContainsFunc(op.Results, func(r SpecResult) bool { return r.Val == res }) {
				return false, st
			}
			vals := decodeState(st.(specState), n)
			if !op.step(vals, res) {
				return false, st
			}
			return true, encodeState(vals[:n])
		},
		Equal: func(a, b interface{}) bool { return a == b },
		DescribeOperation: func(input, output interface{}) string {
			obj, name := harness.Split(input)
			res := fmt.Sprint(output)
			if op := ops[name]; op != nil {
				if v, ok := output.(int64); ok {
					if i := slices.IndexFunc(op.Results, func(r SpecResult) bool { return r.Val == v }); i >= 0 && op.Results[i].Label != "" {
						res = op.Results[i].Label
					}
				}
			}
			if obj != 0 {
				return fmt.Sprintf("#%d %s() -> %s", obj, name, res)
			}
			return fmt.Sprintf("%s() -> %s", name, res)
		},
		DescribeState: func(st interface{}) string {
			vals := decodeState(st.(specState), n)
			var parts []string
			for i, v := range s.State {
				parts = append(parts, fmt.Sprintf("%s=%d", v.Name, vals[i]))
			}
			if len(parts) == 0 {
				return "(no state)"
			}
			return strings.Join(parts, " ")
		},
	}
}
