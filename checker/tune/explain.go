package tune

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Site returns the index of the site arg names: its whole position
// (FILE:LINE:COL), its path relative to the current folder ("./" or
// not), or its LINE:COL. An arg that names none is an error that lists
// the sites.
func (t *Tuning) Site(arg string) (int, error) {
	var at []string
	for i, s := range t.Sites {
		if siteMatches(s.Pos.String(), arg) {
			return i, nil
		}
		at = append(at, s.Pos.String())
	}
	return -1, fmt.Errorf("%s: not a site (the sites are %s)", arg, strings.Join(at, ", "))
}

// siteMatches reports whether arg, as Site takes it, names the site at
// pos (FILE:LINE:COL).
func siteMatches(pos, arg string) bool {
	if pos == arg {
		return true
	}
	file, _, ok := strings.Cut(arg, ":")
	if !ok {
		return false // no line: not a site
	}
	if file != "" && !strings.ContainsAny(file[:1], "0123456789") {
		arg = filepath.Clean(file) + arg[len(file):]
		return pos == arg || strings.HasSuffix(pos, "/"+arg)
	}
	return strings.Count(arg, ":") == 1 && strings.HasSuffix(pos, ":"+arg)
}
