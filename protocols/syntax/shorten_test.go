package syntax

import (
	"strings"
	"testing"
)

// TestShorten checks that overlong names and messages are cut, and that
// locations never are, however long their paths.
func TestShorten(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	deep := "/home/runner/work/" + strings.Repeat("project-name/", 30) + "protocols/locking/mp.oc:28:16:"
	for _, tc := range []struct {
		name, msg string
		keep      []string // substrings the result must have
		max       int      // its longest length in runes
	}{
		{"a megabyte name", "unknown variable " + long + " here", []string{"unknown variable", "…", "here"}, 200},
		{"a long location", deep + " unknown variable x", []string{deep, "unknown variable x"}, len(deep) + 40},
		{"a long location after a long message", strings.Repeat("word ", 100) + deep, []string{deep}, maxMessage + len(deep) + 10},
		{"short", "a.oc:1:2: fine", []string{"a.oc:1:2: fine"}, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Shorten(tc.msg)
			for _, k := range tc.keep {
				if !strings.Contains(got, k) {
					t.Errorf("%.100q lacks %.100q", got, k)
				}
			}
			if n := len([]rune(got)); n > tc.max {
				t.Errorf("%d runes, want at most %d", n, tc.max)
			}
		})
	}
}
