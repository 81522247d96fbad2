package protocols

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ordercheck/ordercheck/protocols/lang"
)

// Find returns the protocols paths name, as a command line gives them:
// the *.oc files under each folder (sorted) — with withC also the C files
// that carry an "// ordercheck: expect" comment —, each file named, each
// catalogue protocol named; no paths are the current folder. Folders
// named testdata, or starting with "." or "_", are skipped unless named.
// The special files (a FIFO, a device) it passes over in the folders it
// says on warn (nil: nowhere); a special file named is bad input when it
// is read.
func Find(paths []string, withC bool, warn io.Writer) (refs []string, err error) {
	var skipped []string
	if len(paths) == 0 {
		paths = []string{"."}
	}
	seen := map[string]bool{}
	add := func(ref string) {
		if !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
	}
	for _, arg := range paths {
		st, err := os.Stat(arg)
		if err != nil {
			if _, lerr := Lookup(arg); lerr == nil && !strings.ContainsAny(arg, `/\`) {
				add(arg)
				continue
			}
			return nil, err
		}
		if !st.IsDir() {
			add(fileRef(arg))
			continue
		}
		var files []string
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() && path != arg && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if !d.IsDir() && (strings.HasSuffix(name, ".oc") || withC && strings.HasSuffix(name, ".c") && expectsIn(path)) {
				if !d.Type().IsRegular() {
					skipped = append(skipped, path)
					return nil
				}
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no protocol files (*.oc%s)", arg, map[bool]string{true: ", or *.c with an // ordercheck: expect comment"}[withC])
		}
		sort.Strings(files)
		for _, f := range files {
			add(fileRef(f))
		}
	}
	if warn != nil {
		for _, f := range skipped {
			fmt.Fprintf(warn, "ordercheck: skipped %s: not a regular file\n", f)
		}
	}
	return refs, nil
}

// Vet loads the protocols refs names and returns what vet finds in them
// (lang.Protocol.Vet), in order; when one does not load, what it found
// in those before it, and the error.
func Vet(refs []string) ([]lang.Finding, error) {
	var out []lang.Finding
	for _, ref := range refs {
		pr, err := Load(ref)
		if err != nil {
			return out, err
		}
		out = append(out, pr.File.Vet()...)
	}
	return out, nil
}

// expectsIn reports whether the C file at path says what it expects (an
// "// ordercheck: expect" comment): a C file among others opts in so.
func expectsIn(path string) bool {
	src, err := os.ReadFile(path)
	return err == nil && bytes.Contains(src, []byte("// ordercheck: expect"))
}

// fileRef names a file so that Load reads it as a file: ending in .oc or
// .c, or with a slash in it.
func fileRef(path string) string {
	if !strings.HasSuffix(path, ".oc") && !strings.HasSuffix(path, ".c") && !strings.ContainsRune(path, filepath.Separator) {
		return "." + string(filepath.Separator) + path
	}
	return path
}
