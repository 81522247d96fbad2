package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestUnifiedDiff(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	b := "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\n"
	want := `--- old
+++ new
@@ -1,6 +1,6 @@
 a
 b
-c
+C
 d
 e
 f
@@ -8,3 +8,4 @@
 h
 i
 j
+k
`
	if got := UnifiedDiff("old", "new", a, b); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if UnifiedDiff("old", "new", a, a) != "" {
		t.Error("equal texts have a diff")
	}
}

// TestUnifiedDiffRebuilds checks on random texts that each hunk's lines
// rebuild both sides where its header says they are.
func TestUnifiedDiffRebuilds(t *testing.T) {
	header := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.SampledFrom([]string{"x", "y", "z", "w"})
		a := rapid.SliceOfN(line, 0, 20).Draw(t, "a")
		b := rapid.SliceOfN(line, 0, 20).Draw(t, "b")
		text := func(ls []string) string {
			if len(ls) == 0 {
				return ""
			}
			return strings.Join(ls, "\n") + "\n"
		}
		d := UnifiedDiff("a", "b", text(a), text(b))
		if (d == "") != (text(a) == text(b)) {
			t.Fatalf("diff %q for %q and %q", d, a, b)
		}
		lines := splitLines(d)
		for i := 2; i < len(lines); {
			m := header.FindStringSubmatch(lines[i])
			if m == nil {
				t.Fatalf("line %d is not a hunk header: %q\n%s", i, lines[i], d)
			}
			num := func(s string, def int) int {
				if s == "" {
					return def
				}
				n, _ := strconv.Atoi(s)
				return n
			}
			as, an, bs, bn := num(m[1], 0), num(m[2], 1), num(m[3], 0), num(m[4], 1)
			var oldSide, newSide []string
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
				l := lines[i]
				if l[0] != '+' {
					oldSide = append(oldSide, l[1:])
				}
				if l[0] != '-' {
					newSide = append(newSide, l[1:])
				}
			}
			check := func(side []string, start, n int, whole []string, name string) {
				if n == 0 {
					start++ // "s,0" names the line before
				}
				if len(side) != n || start < 1 && n > 0 || start-1+n > len(whole) || fmt.Sprint(whole[start-1:start-1+n]) != fmt.Sprint(side) {
					t.Fatalf("hunk %s side %v does not match lines %d,%d of %v\n%s", name, side, start, n, whole, d)
				}
			}
			check(oldSide, as, an, a, "old")
			check(newSide, bs, bn, b, "new")
		}
	})
}
