// Package syntax holds the lexer shared by ordercheck's front ends: C-like
// tokens with file:line:col positions.
package syntax

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/ordercheck/ordercheck/model"
)

// Kind is the kind of a token.
type Kind uint8

// Token kinds.
const (
	EOF Kind = iota
	Ident
	Int
	String
	Punct
	Comment // kept only when the lexer's Comments is set
)

// Token is one lexical token.
type Token struct {
	Kind Kind
	Text string
	Pos  model.Pos
}

func (t Token) String() string {
	switch t.Kind {
	case EOF:
		return "end of file"
	case String:
		return fmt.Sprintf("string %q", t.Text)
	}
	return fmt.Sprintf("%q", t.Text)
}

// Error is a located error in a source file; Err, when set, is the error
// it stands for (a bound reached while reading: model.ErrMemoryBound).
type Error struct {
	Pos model.Pos
	Msg string
	Err error
}

func (e *Error) Error() string { return Shorten(e.Pos.String() + ": " + e.Msg) }

// Unwrap returns the error it stands for, if any.
func (e *Error) Unwrap() error { return e.Err }

// puncts lists the multi-character punctuation first, so that the longest match wins.
var puncts = []string{"/\\", "\\/", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "->",
	"{", "}", "(", ")", "[", "]", ";", ",", ":", "=", "<", ">", "+", "-", "*", "/", "%", "^", "&", "|", "!", "~", ".", "?"}

// Lexer splits a source into tokens.
type Lexer struct {
	src       string
	file      string
	off       int
	line, col int
	// OCaml enables herd7's (* ... *) comments beside C's.
	OCaml bool
	// Comments, when not nil, collects the C comments skipped, in order,
	// their text whole ("// ..." or "/* ... */"), for a formatter.
	Comments *[]Token
}

// NewLexer returns a lexer of src from byte offset off, which is at line and col.
func NewLexer(file, src string, off, line, col int) *Lexer {
	return &Lexer{src: src, file: file, off: off, line: line, col: col}
}

// Pos is the position of the next character.
func (lx *Lexer) Pos() model.Pos { return model.Pos{File: lx.file, Line: lx.line, Col: lx.col} }

// Advance skips n bytes.
func (lx *Lexer) Advance(n int) {
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

// SkipSpace skips blanks and comments: /* C */, // C and, with OCaml set, (* OCaml *).
func (lx *Lexer) SkipSpace() error {
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		rest := lx.src[lx.off:]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			lx.Advance(1)
		case lx.OCaml && isOCamlComment(rest):
			start := lx.Pos()
			depth := 0
			for {
				if lx.off >= len(lx.src) {
					return &Error{Pos: start, Msg: "unterminated comment (* ... *)"}
				}
				if strings.HasPrefix(lx.src[lx.off:], "(*") {
					depth++
					lx.Advance(2)
				} else if strings.HasPrefix(lx.src[lx.off:], "*)") {
					depth--
					lx.Advance(2)
					if depth == 0 {
						break
					}
				} else {
					lx.Advance(1)
				}
			}
		case strings.HasPrefix(rest, "/*"):
			start := lx.Pos()
			end := strings.Index(rest[2:], "*/")
			if end < 0 {
				return &Error{Pos: start, Msg: "unterminated comment /* ... */"}
			}
			lx.comment(rest[:end+4], start)
			lx.Advance(end + 4)
		case strings.HasPrefix(rest, "//"):
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			lx.comment(strings.TrimRight(rest[:end], " \t\r"), lx.Pos())
			lx.Advance(end)
		default:
			return nil
		}
	}
	return nil
}

// Next returns the next token.
func (lx *Lexer) Next() (Token, error) {
	if err := lx.SkipSpace(); err != nil {
		return Token{}, err
	}
	p := lx.Pos()
	if lx.off >= len(lx.src) {
		return Token{Kind: EOF, Pos: p}, nil
	}
	c := rune(lx.src[lx.off])
	switch {
	case c == '_' || c < 128 && unicode.IsLetter(c):
		end := lx.off
		for end < len(lx.src) && (lx.src[end] == '_' || isAlnum(lx.src[end])) {
			end++
		}
		text := lx.src[lx.off:end]
		lx.Advance(end - lx.off)
		return Token{Ident, text, p}, nil
	case c >= '0' && c <= '9':
		end := lx.off
		for end < len(lx.src) && (isAlnum(lx.src[end])) {
			end++
		}
		text := lx.src[lx.off:end]
		lx.Advance(end - lx.off)
		return Token{Int, text, p}, nil
	case c == '"':
		end := strings.IndexByte(lx.src[lx.off+1:], '"')
		if end < 0 {
			return Token{}, &Error{Pos: p, Msg: "unterminated string"}
		}
		text := lx.src[lx.off+1 : lx.off+1+end]
		lx.Advance(end + 2)
		return Token{String, text, p}, nil
	}
	for _, pu := range puncts {
		if strings.HasPrefix(lx.src[lx.off:], pu) {
			lx.Advance(len(pu))
			return Token{Punct, pu, p}, nil
		}
	}
	return Token{}, &Error{Pos: p, Msg: fmt.Sprintf("unexpected character %q", c)}
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

// comment keeps a comment when the lexer collects them.
func (lx *Lexer) comment(text string, at model.Pos) {
	if lx.Comments != nil {
		*lx.Comments = append(*lx.Comments, Token{Comment, text, at})
	}
}

// All returns the remaining tokens, ending with EOF; it stops with a
// located error when the tokens would take more memory than the process
// may hold (model.CheckMemory).
func (lx *Lexer) All() ([]Token, error) {
	var out []Token
	for {
		t, err := lx.Next()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if t.Kind == EOF {
			return out, nil
		}
		if len(out)%(1<<15) == 0 {
			if err := model.CheckMemory("reading the source"); err != nil {
				return nil, &Error{Pos: t.Pos, Msg: err.Error(), Err: err}
			}
		}
	}
}

// AtEnd reports whether the lexer has consumed all input.
func (lx *Lexer) AtEnd() bool { return lx.off >= len(lx.src) }

// Peek returns the next byte without consuming it.
func (lx *Lexer) Peek() byte { return lx.src[lx.off] }
