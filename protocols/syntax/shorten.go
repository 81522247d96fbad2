package syntax

import "strings"

// Message length limits: a word (a name, a string, a number) longer than
// maxWord runes is cut in the middle, a message longer than maxMessage
// runes at its end, each with an ellipsis, so that a hostile input of a
// megabyte makes a message of a line.
const (
	maxWord    = 64
	maxMessage = 400
)

// Shorten returns msg with every overlong word and the whole cut down to
// a readable size.
func Shorten(msg string) string {
	if len(msg) <= maxWord && len(msg) <= maxMessage {
		return msg
	}
	words := strings.Split(msg, " ")
	for i, w := range words {
		if r := []rune(w); len(r) > maxWord {
			words[i] = string(r[:maxWord/2]) + "…" + string(r[len(r)-maxWord/4:])
		}
	}
	msg = strings.Join(words, " ")
	if r := []rune(msg); len(r) > maxMessage {
		msg = string(r[:maxMessage]) + "…"
	}
	return msg
}
