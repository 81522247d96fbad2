package lang

import (
	"fmt"
	"strings"

	"github.com/ordercheck/ordercheck/protocols/syntax"
)

// FormatFile reads the protocol file at path and returns its text and
// the text in the canonical layout (FormatSource).
func FormatFile(path string) (src, out string, err error) {
	if src, err = syntax.ReadFile(path); err != nil {
		return "", "", err
	}
	out, err = FormatSource(path, src)
	return src, out, err
}

// FormatSource returns a protocol file in the canonical layout: two spaces
// of indentation per open brace or parenthesis, one space around binary
// operators and after commas, none inside calls and indices, the trailing
// comments of consecutive lines aligned, at most one blank line in a row.
// Tokens, their order, the line breaks between them and every comment
// stay as written, so the file parses to the same protocol; the result is
// checked to, and an error returned if not. src must parse.
func FormatSource(file, src string) (string, error) {
	orig, err := Parse(file, src)
	if err != nil {
		return "", err
	}
	var comments []syntax.Token
	lx := syntax.NewLexer(file, src, 0, 1, 1)
	lx.Comments = &comments
	toks, err := lx.All()
	if err != nil {
		return "", err
	}
	out := layout(toks[:len(toks)-1], comments)
	again, err := Parse(file, out)
	if err != nil {
		return "", fmt.Errorf("%s: formatting gave text that does not parse (a bug of ordercheck fmt): %v", file, err)
	}
	if again.Format() != orig.Format() {
		return "", fmt.Errorf("%s: formatting changed the protocol (a bug of ordercheck fmt)", file)
	}
	return out, nil
}

// line is one source line being laid out: its tokens, a comment ending
// it, and the open brackets before it.
type line struct {
	toks    []syntax.Token
	comment string // trailing, or the whole line when toks is empty
	depth   int
}

// layout lays out tokens and comments line by line.
func layout(toks, comments []syntax.Token) string {
	byLine := map[int]*line{}
	var order []int
	get := func(n int) *line {
		l := byLine[n]
		if l == nil {
			l = &line{}
			byLine[n] = l
			order = append(order, n)
		}
		return l
	}
	// A comment after the tokens of its line ends that line; a comment
	// before any token of its line is a line of its own (with the tokens
	// that follow a block comment kept on their line).
	ci := 0
	addComment := func(c syntax.Token) {
		l := get(c.Pos.Line)
		if l.comment != "" {
			l.comment += " " + c.Text
		} else {
			l.comment = c.Text
		}
	}
	for _, t := range toks {
		for ci < len(comments) && before(comments[ci], t) {
			addComment(comments[ci])
			ci++
		}
		l := get(t.Pos.Line)
		if l.comment != "" && len(l.toks) == 0 {
			// a block comment before the line's first token: keep it first
			l.toks = append(l.toks, syntax.Token{Kind: syntax.Comment, Text: l.comment})
			l.comment = ""
		}
		l.toks = append(l.toks, t)
	}
	for ; ci < len(comments); ci++ {
		addComment(comments[ci])
	}
	// Depth: the brackets open before each line, less the closers it
	// starts with. Tokens and comments came in source order, so the lines
	// did too.
	lines := order
	depth := 0
	for _, n := range lines {
		l := byLine[n]
		lead := 0
		for _, t := range l.toks {
			if t.Kind != syntax.Punct || t.Text != "}" && t.Text != ")" {
				break
			}
			lead++
		}
		l.depth = max(depth-lead, 0)
		for _, t := range l.toks {
			if t.Kind == syntax.Punct {
				switch t.Text {
				case "{", "(":
					depth++
				case "}", ")":
					depth--
				}
			}
		}
	}
	// Lines, then blank lines and comment alignment.
	var b strings.Builder
	prev := 0
	var run []string // code of consecutive lines with trailing comments
	var runComments []string
	flush := func() {
		width := 0
		for _, c := range run {
			width = max(width, len(c))
		}
		for i, c := range run {
			b.WriteString(c + strings.Repeat(" ", width-len(c)+1) + runComments[i] + "\n")
		}
		run, runComments = nil, nil
	}
	for i, n := range lines {
		l := byLine[n]
		if i > 0 && n > prev+1 {
			flush()
			b.WriteString("\n")
		}
		prev = n + strings.Count(l.comment, "\n")
		for _, t := range l.toks {
			prev = max(prev, t.Pos.Line+strings.Count(t.Text, "\n"))
		}
		indent := strings.Repeat("  ", l.depth)
		code := ""
		if len(l.toks) > 0 {
			code = indent + joinTokens(l.toks)
		}
		switch {
		case code != "" && l.comment != "":
			run, runComments = append(run, code), append(runComments, l.comment)
		case code != "":
			flush()
			b.WriteString(code + "\n")
		default:
			flush()
			b.WriteString(indent + l.comment + "\n")
		}
	}
	flush()
	return b.String()
}

// before reports whether comment c comes before token t.
func before(c, t syntax.Token) bool {
	return c.Pos.Line < t.Pos.Line || c.Pos.Line == t.Pos.Line && c.Pos.Col < t.Pos.Col
}

// keywords are the words after which "(" or "[" is not a call or index.
var keywords = map[string]bool{
	"if": true, "while": true, "for": true, "in": true, "max": true, "return": true, "assert": true,
	"assume": true, "await": true, "require": true, "spawn": true, "either": true, "or": true,
	"else": true, "op": true, "block": true, "replace": true, "thread": true, "proc": true,
	"shared": true, "param": true, "variant": true, "expect": true, "under": true, "with": true,
	"final": true, "property": true, "mutex": true, "spec": true, "state": true, "returns": true,
	"protocol": true, "violates": true, "holds": true, "extends": true, "default": true, "shipped": true, "spawned": true,
}

// joinTokens writes one line's tokens with canonical spacing.
func joinTokens(toks []syntax.Token) string {
	var b strings.Builder
	// tight "=" on variant lines and after "with" (NAME=VALUE bindings)
	tightEq := len(toks) > 0 && toks[0].Kind == syntax.Ident && toks[0].Text == "variant"
	expectLine := len(toks) > 0 && toks[0].Kind == syntax.Ident && toks[0].Text == "expect"
	ternary := 0     // "?" waiting for their ":"
	var brace []bool // for each open "{" on this line: an array literal
	operand := func(t syntax.Token) bool {
		switch t.Kind {
		case syntax.Ident:
			return !keywords[t.Text]
		case syntax.Int, syntax.String:
			return true
		case syntax.Punct:
			return t.Text == ")" || t.Text == "]" || t.Text == "}"
		}
		return false
	}
	for i, t := range toks {
		text := t.Text
		switch t.Kind {
		case syntax.String:
			text = `"` + t.Text + `"`
		}
		if i == 0 {
			b.WriteString(text)
			if t.Kind == syntax.Punct && t.Text == "{" {
				brace = append(brace, false)
			}
			continue
		}
		p := toks[i-1]
		if p.Kind == syntax.Ident && p.Text == "with" {
			tightEq = true
		}
		space := true
		unaryPrev := p.Kind == syntax.Punct && isUnary(toks, i-1, operand)
		switch {
		case t.Kind == syntax.Comment || p.Kind == syntax.Comment:
			space = true
		case t.Kind == syntax.Punct && (t.Text == "," || t.Text == ";" || t.Text == ")" || t.Text == "]" || t.Text == "." || t.Text == "->" || t.Text == ".."):
			space = false
		case p.Kind == syntax.Punct && (p.Text == "(" || p.Text == "[" || p.Text == "." || p.Text == "->" || p.Text == ".." || p.Text == "!"):
			space = false
		case unaryPrev:
			space = false
		case t.Kind == syntax.Punct && t.Text == "(" && expectLine:
			space = true // "(every execution)"
		case t.Kind == syntax.Punct && (t.Text == "(" || t.Text == "["):
			space = !(p.Kind == syntax.Ident && !keywords[p.Text] || p.Kind == syntax.Punct && (p.Text == ")" || p.Text == "]"))
		case t.Kind == syntax.Punct && t.Text == ":":
			space = ternary > 0
		case t.Kind == syntax.Punct && t.Text == "=" && tightEq && len(brace) == 0:
			space = false
		case p.Kind == syntax.Punct && p.Text == "=" && tightEq && len(brace) == 0:
			space = false
		case dashed(toks, i) || dashed(toks, i-1):
			space = false
		case t.Kind == syntax.Punct && t.Text == "}" && len(brace) > 0 && brace[len(brace)-1]:
			space = false
		case p.Kind == syntax.Punct && p.Text == "{" && len(brace) > 0 && brace[len(brace)-1]:
			space = false
		}
		if t.Kind == syntax.Punct {
			switch t.Text {
			case "?":
				ternary++
			case ":":
				if ternary > 0 {
					ternary--
				}
			}
		}
		if space {
			b.WriteByte(' ')
		}
		b.WriteString(text)
		if t.Kind == syntax.Punct {
			switch {
			case t.Text == "{":
				brace = append(brace, p.Kind == syntax.Punct && p.Text == "=")
			case t.Text == "}" && len(brace) > 0:
				brace = brace[:len(brace)-1]
			}
		}
	}
	return b.String()
}

// dashed reports whether toks[i] is the dash inside a dashed name
// ("lib-init"): a "-" touching the words on both sides. A name may go on
// with a number ("race-1"), which an expression would not tell from a
// subtraction ("arr[r-1]", laid out "arr[r - 1]"): a number joins the
// name when the name starts after a word or a comma, where names stand.
func dashed(toks []syntax.Token, i int) bool {
	isDash := func(t syntax.Token) bool { return t.Kind == syntax.Punct && t.Text == "-" }
	if i <= 0 || i+1 >= len(toks) || !isDash(toks[i]) || !dashedPair(toks, i) {
		return false
	}
	if toks[i-1].Kind == syntax.Ident && toks[i+1].Kind == syntax.Ident {
		return true
	}
	s := i - 1 // back to the name's first word
	for s >= 2 && isDash(toks[s-1]) && dashedPair(toks, s-1) {
		s -= 2
	}
	return toks[s].Kind == syntax.Ident && s > 0 &&
		(toks[s-1].Kind == syntax.Ident || toks[s-1].Kind == syntax.Punct && toks[s-1].Text == ",")
}

// dashedPair reports whether the dash toks[i] touches the words on both
// sides.
func dashedPair(toks []syntax.Token, i int) bool {
	a, d, c := toks[i-1], toks[i], toks[i+1]
	return (a.Kind == syntax.Ident || a.Kind == syntax.Int) && (c.Kind == syntax.Ident || c.Kind == syntax.Int) &&
		a.Pos.Line == d.Pos.Line && d.Pos.Line == c.Pos.Line &&
		a.Pos.Col+len(a.Text) == d.Pos.Col && d.Pos.Col+1 == c.Pos.Col
}

// isUnary reports whether the operator toks[i] is a prefix operator: "!",
// or "-", "*", "&" where no operand precedes it.
func isUnary(toks []syntax.Token, i int, operand func(syntax.Token) bool) bool {
	t := toks[i]
	switch t.Text {
	case "!":
		return true
	case "*":
		// "expect *": every variant
		return (i == 0 || !operand(toks[i-1])) && !(i > 0 && toks[i-1].Kind == syntax.Ident && toks[i-1].Text == "expect")
	case "-", "&":
		return i == 0 || !operand(toks[i-1])
	}
	return false
}
