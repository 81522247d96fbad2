package protocols_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ordercheck/ordercheck/protocols"
)

// TestFindVetAll: Find says which special files it passed over, Vet
// reports what it found before a protocol that does not load, and All is
// the catalogue in the order of its names.
func TestFindVetAll(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("dlsym/dlsym.oc")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.oc"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "b.oc"), 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	var warn strings.Builder
	refs, err := protocols.Find([]string{dir}, false, &warn)
	if err != nil || len(refs) != 1 || refs[0] != filepath.Join(dir, "a.oc") {
		t.Fatalf("Find = %q, %v", refs, err)
	}
	if want := "ordercheck: skipped " + filepath.Join(dir, "b.oc") + ": not a regular file\n"; warn.String() != want {
		t.Errorf("Find warned %q, want %q", warn.String(), want)
	}
	if quiet, err := protocols.Find([]string{dir}, false, nil); err != nil || len(quiet) != 1 {
		t.Errorf("Find with no warnings wanted = %q, %v", quiet, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.oc"), []byte("protocol c {\n  x := 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := protocols.Vet([]string{"dlsym", filepath.Join(dir, "c.oc")})
	if err == nil {
		t.Fatal("Vet of a broken file: no error")
	}
	want, err := protocols.Vet([]string{"dlsym"})
	if err != nil || len(all) != len(want) {
		t.Errorf("Vet before a broken file found %d, want %d (%v)", len(all), len(want), err)
	}
	prs, err := protocols.All()
	if err != nil || len(prs) != len(protocols.Names()) {
		t.Fatalf("All: %d protocols, %v", len(prs), err)
	}
	for i, name := range protocols.Names() {
		if prs[i].File.Name != name {
			t.Errorf("All()[%d] is %s, want %s", i, prs[i].File.Name, name)
		}
	}
}

// TestFindHere: no paths are the current folder.
func TestFindHere(t *testing.T) {
	here, err := protocols.Find(nil, false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	dot, err := protocols.Find([]string{"."}, false, io.Discard)
	if err != nil || len(here) == 0 || strings.Join(here, " ") != strings.Join(dot, " ") {
		t.Errorf("Find(nil) = %q, Find(.) = %q, %v", here, dot, err)
	}
}
