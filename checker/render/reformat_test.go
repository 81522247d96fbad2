package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReformat(t *testing.T) {
	const src, out = "a  := 1\n", "a := 1\n"
	for _, tc := range []struct {
		r    Reformat
		src  string
		want string
	}{
		{Reformat{}, src, out},
		{Reformat{List: true}, src, "f.oc\n"},
		{Reformat{List: true}, out, ""},
		{Reformat{Diff: true}, src, "+a := 1"},
	} {
		var w strings.Builder
		if err := tc.r.File(&w, "f.oc", tc.src, out); err != nil || !strings.Contains(w.String(), tc.want) || tc.want == "" && w.Len() > 0 {
			t.Errorf("%+v on %q: %q, %v; want %q", tc.r, tc.src, w.String(), err, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), "f.oc")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	if err := (Reformat{Write: true}).File(&w, path, src, out); err != nil || w.Len() > 0 {
		t.Fatalf("Write: %v, printed %q", err, w.String())
	}
	if b, _ := os.ReadFile(path); string(b) != out {
		t.Errorf("the file holds %q, want %q", b, out)
	}
	// The file changed since it was read: left alone.
	if err := (Reformat{Write: true}).File(&w, path, src, "b := 2\n"); err == nil {
		t.Error("Write over a changed file: no error")
	}
	if err := (Reformat{Write: true, Diff: true}).Check(); err == nil || err.Error() != "-w and -d: choose one" {
		t.Errorf("Check(-w -d) = %v", err)
	}
}
