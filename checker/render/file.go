package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/trace"
)

// WriteFile writes what write writes to the file at path so that the file
// holds either what it held or all of the new text, never a part: the text
// goes to a temporary file in the same folder, is synced, and replaces the
// file by a rename. A symbolic link is followed (its target is replaced,
// the link kept); the file keeps its permissions (0644 for a new one). On
// failure the file is as it was and the temporary file is removed.
func WriteFile(path string, write func(io.Writer) error) error {
	return writeFile(path, write, nil)
}

// WriteFileUnchanged is WriteFile for a file rewritten from old, what was
// read from it: it refuses, leaving the file alone, when the file no longer
// holds old (it was edited since it was read).
func WriteFileUnchanged(path string, old []byte, write func(io.Writer) error) error {
	return writeFile(path, write, func(target string) error {
		now, err := os.ReadFile(target)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, old) {
			return fmt.Errorf("%s changed since it was read: not written (run again)", path)
		}
		return nil
	})
}

func writeFile(path string, write func(io.Writer) error, check func(target string) error) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	b := bufio.NewWriter(tmp)
	if err := write(b); err != nil {
		return err
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if check != nil {
		if err := check(target); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	done = true
	return nil
}

// resolve follows path's symbolic links to the file they name (which may
// not exist yet).
func resolve(path string) (string, error) {
	for range 40 {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// ProbeOutput checks, before any work, that a file can be written at
// path: its folder exists and takes a new file, and the path is not a
// folder or another special file. It creates nothing that stays.
func ProbeOutput(path string) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	if st, err := os.Stat(target); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	dir := filepath.Dir(target)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("cannot write %s: its folder %s: %w", path, dir, errors.Unwrap(err))
	} else if !st.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a folder", path, dir)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".probe-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: the folder %s does not take a new file (%w)", path, dir, errors.Unwrap(err))
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// Outputs are the files a counterexample is saved to ("": none): a trace
// for ordercheck replay, its execution graph in Graphviz DOT, and drawn
// as SVG (with Graphviz's dot); Property names the violated property
// whose counterexample a caller saves ("": the first).
type Outputs struct{ Trace, DOT, SVG, Property string }

// Any reports whether some file is asked for.
func (o Outputs) Any() bool { return o.Trace != "" || o.DOT != "" || o.SVG != "" }

// Save writes w, a counterexample of in, to the files asked for, calling
// wrote with each file written.
func (o Outputs) Save(in *checker.Instance, w *explore.Witness, wrote func(path string)) error {
	if o.Trace != "" {
		if err := WriteFile(o.Trace, trace.Of(in, w).WriteJSON); err != nil {
			return err
		}
		wrote(o.Trace)
	}
	if o.DOT == "" && o.SVG == "" {
		return nil
	}
	src, err := DOT(w)
	if err != nil {
		return err
	}
	if o.DOT != "" {
		if err := WriteFile(o.DOT, func(w io.Writer) error { _, err := w.Write(src); return err }); err != nil {
			return err
		}
		wrote(o.DOT)
	}
	if o.SVG != "" {
		if err := SVG(src, o.SVG); err != nil {
			return err
		}
		wrote(o.SVG)
	}
	return nil
}
