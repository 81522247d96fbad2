package lang

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFormatSourceCatalogue formats the catalogue's protocol files: each
// is already in the canonical layout, and formatting is idempotent.
func TestFormatSourceCatalogue(t *testing.T) {
	files, err := filepath.Glob("../*/*.oc")
	if err != nil || len(files) == 0 {
		t.Fatalf("no protocol files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out, err := FormatSource(f, string(src))
			if err != nil {
				t.Fatal(err)
			}
			again, err := FormatSource(f, out)
			if err != nil {
				t.Fatal(err)
			}
			if again != out {
				t.Errorf("formatting twice differs from once")
			}
			if out != string(src) {
				os.WriteFile(filepath.Join(t.TempDir(), "x"), nil, 0o644)
				t.Errorf("%s is not in the canonical layout (ordercheck fmt -d %s)", f, f)
			}
		})
	}
}

func TestFormatSource(t *testing.T) {
	in := `protocol  f "formatting"
param N=2 "callers"
variant  a N = 3 "" default   // a comment
variant b extends a "" {
replace body {  x=1 }
}
shared x=0
shared s {a=0,b = 1}
shared arr[ 2 ] = { 1,2 }
property lib-init
property  data-race
property race-2-b


thread t [N] {
    // a comment line
  r=load( x ,acq )   // trailing
      if r==-1&&!r { assert lib-init : r  ==  0 , "m" }
  v = r>0 ? -r : r*2   /* block */
block body { x = 2 }
  q = &s.a
  w = *q + arr[r-1]
  for k in 0 .. N { op get { return k } }
x= v+w
}
spec { op get { require result>=0 } }
expect *:holds
expect a with N=2 under sc,rc11 : violates lib-init ( every execution )
expect b: violates lib-init,race-2-b
`
	want := `protocol f "formatting"
param N = 2 "callers"
variant a N=3 "" default // a comment
variant b extends a "" {
  replace body { x = 1 }
}
shared x = 0
shared s { a = 0, b = 1 }
shared arr[2] = {1, 2}
property lib-init
property data-race
property race-2-b

thread t[N] {
  // a comment line
  r = load(x, acq) // trailing
  if r == -1 && !r { assert lib-init: r == 0, "m" }
  v = r > 0 ? -r : r * 2 /* block */
  block body { x = 2 }
  q = &s.a
  w = *q + arr[r - 1]
  for k in 0..N { op get { return k } }
  x = v + w
}
spec { op get { require result >= 0 } }
expect *: holds
expect a with N=2 under sc, rc11: violates lib-init (every execution)
expect b: violates lib-init, race-2-b
`
	got, err := FormatSource("f.oc", in)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestFormatFile reads a file and formats it, and says when it cannot
// read it.
func TestFormatFile(t *testing.T) {
	src, out, err := FormatFile("../dlsym/dlsym.oc")
	if err != nil || src == "" || out != src {
		t.Errorf("FormatFile(dlsym.oc): %v; the catalogue's file is in the canonical layout: %v", err, out == src)
	}
	if _, _, err := FormatFile(filepath.Join(t.TempDir(), "none.oc")); err == nil {
		t.Error("FormatFile of no file: no error")
	}
}
