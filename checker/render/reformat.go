package render

import (
	"errors"
	"fmt"
	"io"
)

// Reformat is what ordercheck fmt does with each file it lays out: its
// fields are the command's flags of the same names, and its errors name
// them. With none set it prints the file in its new layout.
type Reformat struct {
	List  bool // -l: name the files whose layout differs
	Diff  bool // -d: print a unified diff of the changes
	Write bool // -w: rewrite the files whose layout differs
}

// Check refuses flags that contradict each other.
func (r Reformat) Check() error {
	if r.Write && r.Diff {
		return errors.New("-w and -d: choose one")
	}
	return nil
}

// File does it with file, whose text src is out in the new layout: on w,
// or, with Write, to the file itself, refused when the file changed since
// src was read (WriteFileUnchanged).
func (r Reformat) File(w io.Writer, file, src, out string) error {
	changed := out != src
	switch {
	case r.List:
		if changed {
			fmt.Fprintln(w, file)
		}
	case r.Diff:
		fmt.Fprint(w, UnifiedDiff(file+".orig", file, src, out))
	case r.Write:
		if changed {
			return WriteFileUnchanged(file, []byte(src), func(w io.Writer) error {
				_, err := io.WriteString(w, out)
				return err
			})
		}
	default:
		fmt.Fprint(w, out)
	}
	return nil
}
