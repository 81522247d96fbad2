package syntax

import "fmt"

// Precedence is the binding strength of C's binary operators, from ||
// (1) to * / % (10), as the protocol language and litmus tests write
// them.
var Precedence = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, "<=": 7, ">": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

// Chain says how Binary builds expressions of type E: Operand reads one
// operand (a unary expression), Join makes "x op y", Stop (optional)
// ends a chain before an operator that would continue it, and Depth is
// the nesting already open around the chain.
type Chain[E any] struct {
	Operand func() (E, error)
	Join    func(op Token, x, y E) E
	Stop    func(op Token) bool
	Depth   int
}

// Binary reads operands joined by binary operators of precedence min or
// more, left-associative, by precedence climbing. Each operator of a
// chain (a + b + c ...) nests the tree one deeper, so a chain counts
// against MaxNesting as parentheses do.
func Binary[E any](s *Stream, min int, c Chain[E]) (E, error) {
	x, err := c.Operand()
	if err != nil {
		return x, err
	}
	for n := 1; ; n++ {
		t := s.Peek()
		prec, ok := Precedence[t.Text]
		if t.Kind != Punct || !ok || prec < min || c.Stop != nil && c.Stop(t) {
			return x, nil
		}
		if c.Depth+n > MaxNesting {
			return x, &Error{Pos: t.Pos, Msg: fmt.Sprintf("nested more than %d deep (a chain of operators counts one level per operator)", MaxNesting)}
		}
		s.Next()
		y, err := Binary(s, prec+1, c)
		if err != nil {
			return x, err
		}
		x = c.Join(t, x, y)
	}
}
