package protocols

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Find returns the protocols paths name, as a command line gives them:
// the *.oc files under each folder (sorted) — with withC also the C files
// that carry an "// ordercheck: expect" comment —, each file named, each
// catalogue protocol named. Folders named testdata, or starting with "."
// or "_", are skipped unless named. It also returns the special files (a
// FIFO, a device) it passed over in the folders; a special file named is
// bad input when it is read.
func Find(paths []string, withC bool) (refs, skipped []string, err error) {
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
			return nil, nil, err
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
			return nil, nil, err
		}
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("%s: no protocol files (*.oc%s)", arg, map[bool]string{true: ", or *.c with an // ordercheck: expect comment"}[withC])
		}
		sort.Strings(files)
		for _, f := range files {
			add(fileRef(f))
		}
	}
	return refs, skipped, nil
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
