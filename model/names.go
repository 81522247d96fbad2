package model

import "fmt"

// DidYouMean returns " (did you mean X?)" for the name among known
// closest to name, when one is close enough to be a likely typo (an edit
// distance of at most a third of its length, and at least one), else "".
func DidYouMean(name string, known []string) string {
	best, bestD := "", 0
	for _, k := range known {
		if d := editDistance(name, k); best == "" || d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" || bestD > max(1, len(best)/3) {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// editDistance is the Damerau–Levenshtein distance of a and b (optimal
// string alignment): insertions, deletions, substitutions and
// transpositions of neighbours each cost one.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
