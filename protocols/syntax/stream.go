package syntax

import "fmt"

// Stream is a parser's position in a list of tokens ending with EOF.
type Stream struct {
	Toks []Token
	I    int
}

// Peek returns the next token.
func (s *Stream) Peek() Token { return s.Toks[s.I] }

// PeekN returns the token n places ahead (EOF past the end).
func (s *Stream) PeekN(n int) Token {
	if s.I+n < len(s.Toks) {
		return s.Toks[s.I+n]
	}
	return s.Toks[len(s.Toks)-1]
}

// Prev returns the token just consumed.
func (s *Stream) Prev() Token { return s.Toks[s.I-1] }

// Next consumes and returns the next token (EOF stays).
func (s *Stream) Next() Token {
	t := s.Toks[s.I]
	if t.Kind != EOF {
		s.I++
	}
	return t
}

// Is reports whether the next token is the word or punctuation text.
func (s *Stream) Is(text string) bool {
	t := s.Peek()
	return (t.Kind == Punct || t.Kind == Ident) && t.Text == text
}

// Accept consumes the next token if it is text.
func (s *Stream) Accept(text string) bool {
	if s.Is(text) {
		s.I++
		return true
	}
	return false
}

// Expect consumes text, or fails with a located error.
func (s *Stream) Expect(text string) (Token, error) {
	t := s.Peek()
	if !s.Accept(text) {
		return t, &Error{Pos: t.Pos, Msg: fmt.Sprintf("expected %q, found %v", text, t)}
	}
	return t, nil
}
