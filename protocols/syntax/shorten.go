package syntax

import (
	"regexp"
	"strings"
)

// Message length limits: a word (a name, a string, a number) longer than
// maxWord runes is cut in the middle, a message longer than maxMessage
// runes at its end, each with an ellipsis, so that a hostile input of a
// megabyte makes a message of a line. A location (FILE:LINE:COL) is never
// cut: an editor or a CI annotation must be able to follow it.
const (
	maxWord    = 64
	maxMessage = 400
)

// location matches a word that holds a source location.
var location = regexp.MustCompile(`:[0-9]+:[0-9]+`)

// Shorten returns msg with every overlong word and the whole cut down to
// a readable size, locations left whole.
func Shorten(msg string) string {
	if len(msg) <= maxWord && len(msg) <= maxMessage {
		return msg
	}
	words := strings.Split(msg, " ")
	for i, w := range words {
		if r := []rune(w); len(r) > maxWord && !location.MatchString(w) {
			words[i] = string(r[:maxWord/2]) + "…" + string(r[len(r)-maxWord/4:])
		}
	}
	// Locations do not count; past the limit, only the locations still to
	// come are kept.
	var b strings.Builder
	n, cut := 0, false
	for i, w := range words {
		r := []rune(w)
		switch {
		case location.MatchString(w):
			r = nil
		case cut:
			continue
		case n+len(r) > maxMessage:
			r = append(r[:max(maxMessage-n, 0)], '…')
			w, cut = string(r), true
		}
		if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(r)
	}
	return b.String()
}
