package litmus

import (
	"errors"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/model"
)

const mp = `C MP
"a comment"
Prefetch=0:x=F
(* an OCaml comment *)
{ x = 0; [y] = 0; int z = 3; 1:r9 = 7; }
P0 (int* x, atomic_int* y) {
  *x = 1;
  atomic_store_explicit(y, 1, memory_order_release);
}
P1 (int* x, atomic_int* y, volatile int* z) {
  int r0 = atomic_load_explicit(y, memory_order_acquire);
  int r1;
  if (r0 == 1) { r1 = *x; } else r1 = -1;
  int r2 = (r1 ^ r1) + r1;
  int ok = atomic_compare_exchange_weak_explicit(y, z, 2, memory_order_acq_rel, memory_order_relaxed);
  atomic_thread_fence(memory_order_seq_cst);
}
locations [x; 1:r2;]
exists (1:r0=1 /\ (1:r1=0 \/ ~[y]=1) /\ 1:r9 != 0)
`

func TestParse(t *testing.T) {
	p, err := Parse("mp.litmus", mp)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "MP" || len(p.Threads) != 2 {
		t.Fatalf("name %q, %d threads", p.Name, len(p.Threads))
	}
	if z := p.LocIndex("z"); z == model.NoLoc || p.Locs[z].Init != 3 {
		t.Errorf("z: %v", p.Locs)
	}
	th := &p.Threads[1]
	if r := th.RegIndex("r9"); r == model.NoReg || th.Init[r] != 7 {
		t.Errorf("register init 1:r9 = 7 lost: %v %v", th.Regs, th.Init)
	}
	var ops []string
	for _, in := range th.Code {
		ops = append(ops, in.Op.String())
	}
	if got, want := strings.Join(ops, " "), "load branch load jump assign assign load cas branch store assign fence"; got != want {
		t.Errorf("P1 compiles to\n %s\nwant\n %s\n%s", got, want, p)
	}
	if p.Final.Quant != model.Exists {
		t.Errorf("quantifier %v", p.Final.Quant)
	}
	if got, want := p.Final.Cond.Format(p), "1:r0=1 /\\ (1:r1=0 \\/ ~y=1) /\\ 1:r9!=0"; got != want {
		t.Errorf("condition %q, want %q", got, want)
	}
	var shown []string
	for _, o := range p.Final.Show {
		shown = append(shown, o.Name(p))
	}
	if got, want := strings.Join(shown, " "), "1:r0 1:r1 1:r2 1:r9 x y"; got != want {
		t.Errorf("shown %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"empty", "", "1:1: empty file"},
		{"not C", "AArch64 MP\n{}\n", "1:1: architecture \"AArch64\""},
		{"no init", "C T\n", "expected the initial state"},
		{"truncated thread", "C T\n{}\nP0(atomic_int* x) {\n  atomic_store_explicit(x, 1,", "4:30: expected an expression, found end of file"},
		{"truncated init", "C T\n{ x = 0;", "unterminated initial state"},
		{"unknown call", "C T\n{}\nP0(atomic_int* x) {\n  atomic_frobnicate(x);\n}\n", "4:3: unknown call atomic_frobnicate"},
		{"non-explicit store", "C T\n{}\nP0(atomic_int* x) {\n  foo(x);\n}\n", "4:3: unknown call foo"},
		{"bad order", "C T\n{}\nP0(atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_fast);\n}\n", "4:31: expected a memory order"},
		{"missing order", "C T\n{}\nP0(atomic_int* x) {\n  int r = atomic_load_explicit(x);\n}\n", "4:11: atomic_load_explicit takes 2 arguments, found 1"},
		{"undeclared location", "C T\n{}\nP0(atomic_int* x) {\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n}\n", "4:25: unknown identifier y"},
		{"condition on unknown location", "C T\n{}\nP0(atomic_int* x) {\n}\nexists (q=1)\n", "5:9: unknown location q"},
		{"condition on unknown thread", "C T\n{}\nP0(atomic_int* x) {\n}\nexists (3:r0=1)\n", "5:9: no thread 3"},
		{"malformed condition", "C T\n{}\nP0(atomic_int* x) {\n}\nexists (x=1 /\\ )\n", "5:16: expected a location"},
		{"condition without value", "C T\n{}\nP0(atomic_int* x) {\n}\nexists (x)\n", "5:10: expected = or !="},
		{"trailing junk", "C T\n{}\nP0(atomic_int* x) {\n}\nexists (x=1) foo\n", "5:14: unexpected \"foo\""},
		{"huge integer", "C T\n{ x = 99999999999999999999; }\nP0(atomic_int* x) {\n}\n", "2:7: bad integer 99999999999999999999: value out of range"},
		{"random bytes", "C T\n{}\n\x00\x01\x02", "3:1: unexpected character"},
		{"thread order", "C T\n{}\nP1(atomic_int* x) {\n}\n", "3:1: expected thread P0, found P1"},
		{"plain param", "C T\n{}\nP0(int x) {\n}\n", "3:8: a thread parameter must be a pointer"},
		{"loop", "C T\n{}\nP0(atomic_int* x) {\n while (1) {}\n}\n", "4:2: loops are not supported"},
		{"unterminated comment", "C T\n(* oops\n{}\n", "2:1: unterminated comment"},
		{"store returns nothing", "C T\n{}\nP0(atomic_int* x) {\n int r = atomic_store_explicit(x, 1, memory_order_relaxed);\n}\n", "4:10: atomic_store_explicit returns no value"},
		{"assign to location", "C T\n{}\nP0(atomic_int* x) {\n x = 1;\n}\n", "4:2: cannot assign to the location x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.litmus", tc.src)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not located", err)
			}
			if !strings.HasPrefix(err.Error(), "t.litmus:") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// FuzzParse checks that no input makes the parser panic or hang.
func FuzzParse(f *testing.F) {
	f.Add(mp)
	f.Add("C T\n{}\nP0(atomic_int* x) {\n  int r = atomic_fetch_add_explicit(x, 1, memory_order_relaxed);\n}\nforall x=1\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse("f.litmus", src)
		if err == nil && p == nil {
			t.Fatal("nil program without an error")
		}
	})
}
