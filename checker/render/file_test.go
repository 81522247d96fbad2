package render

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary a writer of a big file (TestMain), for
// the tests that kill it or limit its file size.
const helperEnv = "ORDERCHECK_WRITEFILE_HELPER"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		err := WriteFile(path, func(w io.Writer) error {
			for i := range 1 << 16 {
				if _, err := fmt.Fprintf(w, "line %d of the new text, long enough to fill a block or two\n", i); err != nil {
					return err
				}
				if i%4096 == 0 {
					time.Sleep(20 * time.Millisecond) // time for a kill mid-write
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const original = "the original text\n"

// setup writes the original file in a fresh folder.
func setup(t *testing.T) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte(original), 0o640); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// intact checks that path holds the original text or all of the new one,
// and that no temporary file is left beside it.
func intact(t *testing.T, dir, path string, newOK bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := strings.HasSuffix(string(b), "line 65535 of the new text, long enough to fill a block or two\n")
	if string(b) != original && !(newOK && whole) {
		t.Errorf("the file holds %d bytes, neither the original nor the new text", len(b))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left beside it: %v", names)
	}
}

func helper(t *testing.T, path string, shell string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", shell+` exec "$0"`, self)
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	return cmd
}

// TestWriteFileKilled kills a writer in the middle of its text: the file
// keeps the original text.
func TestWriteFileKilled(t *testing.T) {
	_, path := setup(t)
	cmd := helper(t, path, "")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The killed writer's temporary file is its only trace: the file
	// itself is whole.
	b, _ := os.ReadFile(path)
	if string(b) != original {
		t.Errorf("the file holds %d bytes after a kill mid-write, not the original", len(b))
	}
}

// TestWriteFileSizeLimit writes under a file-size limit smaller than the
// text: the write fails and the file keeps the original text.
func TestWriteFileSizeLimit(t *testing.T) {
	dir, path := setup(t)
	cmd := helper(t, path, "ulimit -f 8;") // 8 blocks of 512 bytes
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the write succeeded under the limit: %s", out)
	}
	intact(t, dir, path, false)
}

// TestWriteFile checks the writer's contract on one process: a failing
// write leaves the file as it was; a successful one replaces it whole,
// keeping its permissions, through a symbolic link; a file edited since
// it was read is not overwritten.
func TestWriteFile(t *testing.T) {
	t.Run("failing", func(t *testing.T) {
		dir, path := setup(t)
		err := WriteFile(path, func(w io.Writer) error {
			io.WriteString(w, "half of it")
			return errors.New("the renderer failed")
		})
		if err == nil || err.Error() != "the renderer failed" {
			t.Errorf("error %v", err)
		}
		intact(t, dir, path, false)
	})
	t.Run("replaced", func(t *testing.T) {
		dir, path := setup(t)
		if err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		st, _ := os.Stat(path)
		if string(b) != "new\n" || st.Mode().Perm() != 0o640 {
			t.Errorf("%q, mode %v", b, st.Mode())
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%d files in the folder", len(entries))
		}
	})
	t.Run("symbolic link", func(t *testing.T) {
		dir, path := setup(t)
		link := filepath.Join(dir, "link.txt")
		if err := os.Symlink("out.txt", link); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(link, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		st, _ := os.Lstat(link)
		if string(b) != "new\n" || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("target %q, link mode %v", b, st.Mode())
		}
	})
	t.Run("edited meanwhile", func(t *testing.T) {
		_, path := setup(t)
		err := WriteFileUnchanged(path, []byte("what was read\n"), func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err })
		if err == nil || !strings.Contains(err.Error(), "changed since it was read") {
			t.Errorf("error %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != original {
			t.Errorf("overwritten: %q", b)
		}
	})
	t.Run("probe", func(t *testing.T) {
		dir, _ := setup(t)
		for _, tc := range []struct{ path, want string }{
			{filepath.Join(dir, "no/such/out.txt"), "its folder"},
			{dir, "not a regular file"},
			{filepath.Join(dir, "new.txt"), ""},
		} {
			err := ProbeOutput(tc.path)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("the probe left %d files", len(entries))
		}
	})
}
