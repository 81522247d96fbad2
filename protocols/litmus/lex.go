package litmus

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/ordercheck/ordercheck/model"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tString
	tPunct
)

type token struct {
	kind tokKind
	text string
	pos  model.Pos
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// Error is a located error in a litmus file.
type Error struct {
	Pos model.Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// puncts lists the multi-character punctuation first, so that the longest match wins.
var puncts = []string{"/\\", "\\/", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "->",
	"{", "}", "(", ")", "[", "]", ";", ",", ":", "=", "<", ">", "+", "-", "*", "/", "%", "^", "&", "|", "!", "~", "."}

type lexer struct {
	src       string
	file      string
	off       int
	line, col int
}

func (lx *lexer) pos() model.Pos { return model.Pos{File: lx.file, Line: lx.line, Col: lx.col} }

func (lx *lexer) advance(n int) {
	for i := 0; i < n && lx.off < len(lx.src); i++ {
		if lx.src[lx.off] == '\n' {
			lx.line++
			lx.col = 1
		} else {
			lx.col++
		}
		lx.off++
	}
}

// skipSpace skips blanks and comments: (* OCaml *), /* C */ and // C.
func (lx *lexer) skipSpace() error {
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		rest := lx.src[lx.off:]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			lx.advance(1)
		case isOCamlComment(rest):
			start := lx.pos()
			depth := 0
			for {
				if lx.off >= len(lx.src) {
					return &Error{start, "unterminated comment (* ... *)"}
				}
				if strings.HasPrefix(lx.src[lx.off:], "(*") {
					depth++
					lx.advance(2)
				} else if strings.HasPrefix(lx.src[lx.off:], "*)") {
					depth--
					lx.advance(2)
					if depth == 0 {
						break
					}
				} else {
					lx.advance(1)
				}
			}
		case strings.HasPrefix(rest, "/*"):
			start := lx.pos()
			end := strings.Index(rest[2:], "*/")
			if end < 0 {
				return &Error{start, "unterminated comment /* ... */"}
			}
			lx.advance(end + 4)
		case strings.HasPrefix(rest, "//"):
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			lx.advance(end)
		default:
			return nil
		}
	}
	return nil
}

func (lx *lexer) next() (token, error) {
	if err := lx.skipSpace(); err != nil {
		return token{}, err
	}
	p := lx.pos()
	if lx.off >= len(lx.src) {
		return token{kind: tEOF, pos: p}, nil
	}
	c := rune(lx.src[lx.off])
	switch {
	case c == '_' || c < 128 && unicode.IsLetter(c):
		end := lx.off
		for end < len(lx.src) && (lx.src[end] == '_' || isAlnum(lx.src[end])) {
			end++
		}
		text := lx.src[lx.off:end]
		lx.advance(end - lx.off)
		return token{tIdent, text, p}, nil
	case c >= '0' && c <= '9':
		end := lx.off
		for end < len(lx.src) && (isAlnum(lx.src[end])) {
			end++
		}
		text := lx.src[lx.off:end]
		lx.advance(end - lx.off)
		return token{tInt, text, p}, nil
	case c == '"':
		end := strings.IndexByte(lx.src[lx.off+1:], '"')
		if end < 0 {
			return token{}, &Error{p, "unterminated string"}
		}
		text := lx.src[lx.off+1 : lx.off+1+end]
		lx.advance(end + 2)
		return token{tString, text, p}, nil
	}
	for _, pu := range puncts {
		if strings.HasPrefix(lx.src[lx.off:], pu) {
			lx.advance(len(pu))
			return token{tPunct, pu, p}, nil
		}
	}
	return token{}, &Error{p, fmt.Sprintf("unexpected character %q", c)}
}

// isOCamlComment tells an OCaml comment "(* ...", which herd7 allows around
// a test, from a C parenthesised dereference "(*p)" in thread code: the
// comment opener is followed by a blank or another star.
func isOCamlComment(s string) bool {
	if !strings.HasPrefix(s, "(*") {
		return false
	}
	if len(s) == 2 {
		return true
	}
	switch s[2] {
	case ' ', '\t', '\n', '\r', '*':
		return true
	}
	return false
}

func isAlnum(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tokenize splits src into tokens.
func tokenize(file, src string, line, col, off int) ([]token, error) {
	lx := &lexer{src: src, file: file, off: off, line: line, col: col}
	var out []token
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if t.kind == tEOF {
			return out, nil
		}
	}
}
