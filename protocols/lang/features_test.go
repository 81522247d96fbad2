package lang

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/model"
)

// compileOne parses and compiles a protocol with the default variant.
func compileOne(t *testing.T, src string) *model.Program {
	t.Helper()
	pr, err := Parse("f.oc", src)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := pr.Compile("", nil)
	if err != nil {
		t.Fatal(err)
	}
	return inst.Prog
}

// run replays thread 0 of p, giving its reads the values vals in turn
// (the location's initial value when they run out), and returns the
// locations it reads and how it ends.
func run(t *testing.T, p *model.Program, vals ...int64) ([]string, model.Status) {
	t.Helper()
	var reads []string
	var evs []model.Event
	for {
		st, a, err := p.Replay(0, evs)
		if err != nil {
			t.Fatal(err)
		}
		switch a.Kind {
		case model.ActNone:
			return reads, st.Status
		case model.ActFail:
			return reads, model.Failed
		case model.ActRead, model.ActRMW, model.ActCAS:
			v := p.Locs[a.Loc].Init
			if len(vals) > 0 {
				v, vals = vals[0], vals[1:]
			}
			reads = append(reads, p.Locs[a.Loc].Name)
			r, writes, w := a.ReadEvent(model.EventRef{}, v, false)
			evs = append(evs, r)
			if writes {
				evs = append(evs, a.WriteHalf(w))
			}
		case model.ActWrite, model.ActFence:
			evs = append(evs, a.SimpleEvent())
		default:
			t.Fatalf("unexpected action %v", a.Kind)
		}
	}
}

// build parses src as f.oc and compiles its default variant.
func build(src string) error {
	pr, err := Parse("f.oc", src)
	if err == nil {
		_, err = pr.Compile("", nil)
	}
	return err
}

// wantError checks that err is a located error of f.oc containing want.
func wantError(t *testing.T, err error, want string) {
	t.Helper()
	var le *Error
	switch {
	case err == nil:
		t.Fatalf("no error, want %q", want)
	case !errors.As(err, &le) || le.Pos.File != "f.oc" || le.Pos.Line == 0:
		t.Errorf("error %q is not located in f.oc", err)
	case !strings.Contains(err.Error(), want):
		t.Errorf("error %q, want it to contain %q", err, want)
	}
}

const shortHead = "protocol s\nshared flag = 0\nshared data = 0\nproperty p\nthread t {\n"

// TestShortCircuit checks that the right operand of && and ||, and the arm
// of ?: that the condition does not select, make no access.
func TestShortCircuit(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		vals       []int64
		reads      string
		status     model.Status
	}{
		{"and decided", "if flag == 1 && data == 42 { }", []int64{0}, "flag", model.Done},
		{"and undecided", "if flag == 1 && data == 42 { }", []int64{1, 42}, "flag data", model.Done},
		{"or decided", "if flag == 1 || data == 42 { }", []int64{1}, "flag", model.Done},
		{"or undecided", "if flag == 1 || data == 42 { }", []int64{0, 0}, "flag data", model.Done},
		{"nested", "if flag == 1 && (data == 1 || data == 2) { }", []int64{1, 1}, "flag data", model.Done},
		{"nested undecided", "if flag == 1 && (data == 1 || data == 2) { }", []int64{1, 0, 2}, "flag data data", model.Done},
		{"assign", "r = flag && data\n assert p: r == 0", []int64{0}, "flag", model.Done},
		{"assign value", "r = flag && data\n assert p: r == 1", []int64{3, 5}, "flag data", model.Done},
		{"assert", "assert p: flag == 0 || data == 1", []int64{0}, "flag", model.Done},
		{"assert fails", "assert p: flag == 0 || data == 1", []int64{1, 0}, "flag data", model.Failed},
		{"assume", "assume flag == 1 && data == 1", []int64{0}, "flag", model.Blocked},
		{"while", "while flag == 1 && data == 0 max 2 { }", []int64{0}, "flag", model.Done},
		{"load call", "if flag == 1 && load(data, acq) == 1 { }", []int64{0}, "flag", model.Done},
		{"pointer", "q = &data\n if flag == 1 && *q == 1 { }", []int64{0}, "flag", model.Done},
		{"conditional then", "r = flag == 1 ? data : 7\n assert p: r == 5", []int64{1, 5}, "flag data", model.Done},
		{"conditional else", "r = flag == 1 ? data : 7\n assert p: r == 7", []int64{0}, "flag", model.Done},
		{"registers only", "r = 0\n if r == 1 && 10 / r == 1 { }", nil, "", model.Done},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compileOne(t, shortHead+tc.body+"\n}\n")
			reads, status := run(t, p, tc.vals...)
			if got := strings.Join(reads, " "); got != tc.reads || status != tc.status {
				t.Errorf("reads %q and ends %v, want %q and %v\n%s", got, status, tc.reads, tc.status, p)
			}
		})
	}
}

// TestShortCircuitIR checks the shape of the code: a right operand that
// reads memory is guarded by a branch on the left one; one over registers
// stays one expression of the IR.
func TestShortCircuitIR(t *testing.T) {
	p := compileOne(t, shortHead+"if flag == 1 && data == 42 { }\n}\n")
	code := p.Threads[0].Code
	data := model.AddrOf(p.LocIndex("data"))
	k := slices.IndexFunc(code, func(in model.Instr) bool { return in.Op == model.OpLoad && in.Addr.Val == data })
	b := slices.IndexFunc(code, func(in model.Instr) bool { return in.Op == model.OpBranch })
	if k < 0 || b < 0 || b > k || code[b].Target <= k {
		t.Errorf("the read of data is not skipped by a branch before it:\n%s", p)
	}
	p = compileOne(t, shortHead+"r = 1\n s = 2\n if r == 1 && s == 2 { }\n}\n")
	var ops []string
	for _, in := range p.Threads[0].Code {
		ops = append(ops, in.Op.String())
	}
	if got := strings.Join(ops, " "); got != "assign assign branch" {
		t.Errorf("a condition over registers compiles to %s, want one branch\n%s", got, p)
	}
}

// TestUnreadRegister checks that an assignment to a name that is neither
// shared nor read afterwards is an error, suggesting the shared variable
// meant, and that registers that are read, or filled by an operation, are
// not.
func TestUnreadRegister(t *testing.T) {
	const head = "protocol u\nshared data = 0\nshared x = 0\nproperty p\n"
	for _, tc := range []struct{ name, src, want string }{
		{"misspelt", "thread t {\n  dtaa = 1\n}\n", "6:3: dtaa is assigned but never read: not a shared variable; did you mean data?"},
		{"no suggestion", "thread t {\n  counter = x + 1\n  counter = 2\n}\n", ""},
		{"nothing close", "thread t {\n  counter = 2\n}\n", "6:3: counter is assigned but never read: not a shared variable"},
		{"own update only", "thread t {\n  n = 0\n  n = n + 1\n}\n", "6:3: n is assigned but never read"},
		{"read later", "thread t {\n  r = 1\n  x = r\n}\n", ""},
		{"read in a loop before", "thread t {\n  r = 0\n  for i in 0..2 {\n    x = r\n    r = i\n  }\n}\n", ""},
		{"load", "thread t {\n  r = load(x, acq)\n}\n", ""},
		{"plain read", "thread t {\n  r = data\n}\n", ""},
		{"rmw", "thread t {\n  r = fetch_add(x, 1, rlx)\n}\n", ""},
		{"cas", "thread t {\n  ok = cas(x, 0, 1, acq)\n}\n", ""},
		{"return", "thread t {\n  op get {\n    v = 3\n    return v\n  }\n}\n", ""},
		{"final", "thread t {\n  r = 3\n}\nfinal p: t.r == 3\n", ""},
		{"in a procedure", "proc f() {\n  dtaa = 2\n}\nthread t {\n  f()\n}\n", "6:3: dtaa is assigned but never read"},
		{"unknown read", "thread t {\n  r = dat\n  x = r\n}\n", "6:7: unknown variable dat; did you mean data?"},
		{"mutex", "mutex m\nthread t {\n  m = 1\n}\n", "7:3: m is a mutex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := build(head + tc.src)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, tc.want)
		})
	}
}

// TestLoopJumps checks break and continue, and that a for loop is never
// cut: its variable may not be assigned, its count is fixed at entry.
func TestLoopJumps(t *testing.T) {
	const head = "protocol l\nshared x = 0\nproperty p\n"
	for _, tc := range []struct {
		name, src string
		vals      []int64
		reads     int
		status    model.Status
		want      string // an error
	}{
		{name: "for break", src: "thread t {\n  for i in 0..5 {\n    r = x\n    if r == 1 { break }\n  }\n}\n", vals: []int64{0, 1}, reads: 2, status: model.Done},
		{name: "for continue", src: "thread t {\n  for i in 0..4 {\n    if i % 2 == 1 { continue }\n    r = x\n  }\n}\n", reads: 2, status: model.Done},
		{name: "while break before the bound", src: "thread t {\n  while 1 max 2 {\n    r = x\n    if r == 0 { break }\n  }\n}\n", reads: 1, status: model.Done},
		{name: "while bound", src: "thread t {\n  while 1 max 2 {\n    r = x\n    x = r\n  }\n}\n", reads: 2, status: model.Cut},
		{name: "while ends at the bound", src: "thread t {\n  n = 0\n  while n < 2 max 2 {\n    r = x\n    n = n + 1\n  }\n}\n", reads: 2, status: model.Done},
		{name: "while continue counts", src: "thread t {\n  while 1 max 3 {\n    r = x\n    continue\n  }\n}\n", reads: 3, status: model.Cut},
		{name: "inner loop", src: "thread t {\n  for i in 0..3 {\n    while 1 max 5 {\n      break\n    }\n    r = x\n    if r == 1 { break }\n  }\n}\n", vals: []int64{0, 1}, reads: 2, status: model.Done},
		{name: "while reentered", src: "thread t {\n  for i in 0..3 {\n    n = 0\n    while n < 2 max 2 {\n      n = n + 1\n    }\n    r = x\n  }\n}\n", reads: 3, status: model.Done},
		{name: "count fixed at entry", src: "thread t {\n  n = 2\n  for i in 0..n {\n    n = n + 1\n    r = x\n  }\n}\n", reads: 2, status: model.Done},
		{name: "break outside", src: "thread t {\n  break\n}\n", want: "5:3: break outside a loop"},
		{name: "continue in a procedure", src: "proc f() {\n  continue\n}\nthread t {\n  while 1 max 2 { f() }\n}\n", want: "5:3: continue outside a loop"},
		{name: "break out of an operation", src: "thread t {\n  for i in 0..2 {\n    op o {\n      break\n    }\n  }\n}\n", want: "7:7: break would leave operation o without its return"},
		{name: "loop variable assigned", src: "thread t {\n  for i in 0..2 {\n    i = 5\n  }\n}\n", want: "6:5: i counts the for loop at f.oc:5:3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := Parse("f.oc", head+tc.src)
			var inst *Instance
			if err == nil {
				inst, err = pr.Compile("", nil)
			}
			if tc.want != "" {
				wantError(t, err, tc.want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			reads, status := run(t, inst.Prog, tc.vals...)
			if len(reads) != tc.reads || status != tc.status {
				t.Errorf("%d reads, ends %v; want %d, %v\n%s", len(reads), status, tc.reads, tc.status, inst.Prog)
			}
		})
	}
}

// TestSpinLoops checks which while loops are spin loops, explored as a
// wait (an await with the body run before each evaluation) rather than
// unrolled: those whose rounds only read memory and assign registers that
// the next round does not read first, or whose condition is a
// compare-exchange's failure.
func TestSpinLoops(t *testing.T) {
	const head = "protocol s\nshared x = 0\nshared l = 0\nproperty p\nthread t {\n  n = 0\n  e = 0\n"
	for _, tc := range []struct {
		name, loop string
		spin       bool
	}{
		{"load only", "while load(x, acq) == 0 max 3 { }", true},
		{"body reads", "while r != 1 max 3 {\n    r = load(x, acq)\n  }", true},
		{"body reads in an if", "while r != 1 max 3 {\n    if load(l, rlx) == 0 { r = x } else { r = 1 }\n  }", true},
		{"cas failure", "while cas(l, 0, 1, acq) == 0 max 3 { }", true},
		{"not cas", "while !cas(l, 0, 1, acq) max 3 { }", true},
		{"cas success loops", "while cas(l, 0, 1, acq) == 1 max 3 { }", false},
		{"counter", "while n < 2 max 3 {\n    n = n + 1\n  }", false},
		{"carried through an if", "while n < 2 max 3 {\n    if x == 0 { n = n + 1 } else { n = 5 }\n  }", false},
		{"assigned in one arm", "while n < 2 max 3 {\n    if x == 0 { n = 1 }\n  }", false},
		{"write", "while load(x, acq) == 0 max 3 {\n    store(l, 1, rlx)\n  }", false},
		{"rmw", "while fetch_add(x, 1, rlx) == 0 max 3 { }", false},
		{"break", "while 1 max 3 {\n    r = x\n    if r == 1 { break }\n  }", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compileOne(t, head+"  r = 0\n  "+tc.loop+"\n  x = r + n + e\n}\n")
			awaits, bounds := 0, 0
			for _, in := range p.Threads[0].Code {
				if in.Op == model.OpAssume && in.Await {
					awaits++
				}
				if in.Op == model.OpBound {
					bounds++
				}
			}
			if spin := awaits == 1 && bounds == 0; spin != tc.spin {
				t.Errorf("spin loop: %v, want %v\n%s", spin, tc.spin, p)
			}
		})
	}
}

const arrayHead = `protocol a
param K = 1
shared x = 0
shared slots[2] = {7, 8}
shared zero[3]
shared ring[2] { seq = 0, val = 5 }
shared p = &ring[1]
property q
`

// TestArrays checks the layout of arrays, accesses by constant and
// register indices, and the errors of bad indices.
func TestArrays(t *testing.T) {
	p := compileOne(t, arrayHead+"thread t {\n  slots[1] = 1\n}\n")
	var locs []string
	for _, l := range p.Locs {
		locs = append(locs, l.Name+"="+p.FormatValue(l.Init))
	}
	if got, want := strings.Join(locs, " "), "x=0 slots[0]=7 slots[1]=8 zero[0]=0 zero[1]=0 zero[2]=0 ring[0].seq=0 ring[0].val=5 ring[1].seq=0 ring[1].val=5 p=&ring[1]"; got != want {
		t.Errorf("locations %s, want %s", got, want)
	}
	for _, tc := range []struct {
		name, body string
		vals       []int64
		reads      string
		status     model.Status
		bounds     bool // the protocol has property bounds
	}{
		{"constant", "r = slots[1] + ring[K].val\n x = r", nil, "slots[1] ring[1].val", model.Done, false},
		{"self", "r = slots[self]\n x = r", nil, "slots[0]", model.Done, false},
		{"register", "i = load(x, acq)\n r = slots[i]\n x = r", []int64{1}, "x slots[1]", model.Done, true},
		{"register out of range", "i = load(x, acq)\n r = slots[i]\n x = r", []int64{2}, "x", model.Failed, true},
		{"negative", "i = load(x, acq)\n r = slots[i - 1]\n x = r", []int64{0}, "x", model.Failed, true},
		{"struct element", "i = load(x, acq)\n r = ring[i].val\n x = r", []int64{1}, "x ring[1].val", model.Done, true},
		{"atomic", "i = load(x, acq)\n r = load(slots[i], acq) + fetch_add(ring[i].seq, 1, rlx)\n store(zero[i], r, rel)\n ok = cas(slots[i], 0, 1, acq)", []int64{1}, "x slots[1] ring[1].seq slots[1]", model.Done, true},
		{"address", "i = load(x, acq)\n q = &ring[i]\n r = q->val + *(&slots[i])\n x = r", []int64{0}, "x ring[0].val slots[0]", model.Done, true},
		{"pointer in memory", "q = p\n r = q->val\n x = r", nil, "p ring[1].val", model.Done, false},
		{"write", "i = load(x, acq)\n slots[i] = 3\n ring[i].seq = 4", []int64{1}, "x", model.Done, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := Parse("f.oc", arrayHead+"thread t {\n"+tc.body+"\n}\n")
			if err != nil {
				t.Fatal(err)
			}
			if got := pr.Props[len(pr.Props)-1].Name == PropBounds; got != tc.bounds {
				t.Errorf("property bounds declared: %v, want %v", got, tc.bounds)
			}
			inst, err := pr.Compile("", nil)
			if err != nil {
				t.Fatal(err)
			}
			reads, status := run(t, inst.Prog, tc.vals...)
			if got := strings.Join(reads, " "); got != tc.reads || status != tc.status {
				t.Errorf("reads %q and ends %v, want %q and %v\n%s", got, status, tc.reads, tc.status, inst.Prog)
			}
		})
	}
	for _, tc := range []struct{ name, body, want string }{
		{"constant out of range", "r = slots[2]\n x = r", "10:11: index 2 is out of range: array slots has 2 elements"},
		{"parameter out of range", "r = ring[K + 1].val\n x = r", "10:12: index 2 is out of range: array ring has 2 elements"},
		{"self out of range", "r = zero[self + 3]\n x = r", "10:15: index 3 is out of range"},
		{"struct element as a value", "r = ring[0]\n x = r", "10:5: the elements of ring are structs: name a field (ring[i].seq)"},
		{"no such field", "r = ring[0].next\n x = r", "10:5: the elements of ring have no field next"},
		{"field of a scalar", "r = slots[0].val\n x = r", "10:5: slots is an array of scalars"},
		{"array as a value", "r = slots\n x = r", "10:5: slots is an array: read an element"},
		{"unknown array", "r = slts[0]\n x = r", "10:5: unknown shared array slts; did you mean slots?"},
		{"misspelt array", "slot = 1", "10:1: slot is assigned but never read: not a shared variable; did you mean slots?"},
		{"assign an array", "slots = 1", "10:1: slots is an array: assign its elements"},
		{"too many values", "", "4:26: array slots has 2 elements, not 3 initial values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := arrayHead + "thread t {\n" + tc.body + "\n}\n"
			if tc.body == "" {
				src = strings.Replace(src, "{7, 8}", "{7, 8, 9}", 1)
			}
			wantError(t, build(src), tc.want)
		})
	}
}

const fieldHead = `protocol f
shared x = 0
shared q { items[3] = {4, 5}, head = 1 }
shared bins[2] { keys[2] = 9, n }
shared big[5000]
struct node { vals[2], next }
property f
`

// TestArrayFields checks arrays inside structs — shared, in arrays of
// structs and on the heap — their layout, accesses by constant and
// register indices, and the errors of bad ones; and that an array is not
// bounded by a small constant.
func TestArrayFields(t *testing.T) {
	p := compileOne(t, fieldHead+"thread t {\n  x = q.head\n}\n")
	var locs []string
	for _, l := range p.Locs[:11] {
		locs = append(locs, l.Name+"="+p.FormatValue(l.Init))
	}
	if got, want := strings.Join(locs, " "), "x=0 q.items[0]=4 q.items[1]=5 q.items[2]=0 q.head=1 bins[0].keys[0]=9 bins[0].keys[1]=9 bins[0].n=0 bins[1].keys[0]=9 bins[1].keys[1]=9 bins[1].n=0"; got != want {
		t.Errorf("locations %s, want %s", got, want)
	}
	if got := p.Locs[11+4999].Name; got != "big[4999]" {
		t.Errorf("last element of big is %s, want big[4999]", got)
	}
	for _, tc := range []struct {
		name, body string
		vals       []int64
		reads      string
		status     model.Status
	}{
		{"constant", "r = q.items[2] + bins[1].keys[1]\n x = r", nil, "q.items[2] bins[1].keys[1]", model.Done},
		{"register", "i = load(x, acq)\n r = q.items[i] + bins[i].keys[i]\n x = r", []int64{1}, "x q.items[1] bins[1].keys[1]", model.Done},
		{"register out of range", "i = load(x, acq)\n r = q.items[i]\n x = r", []int64{3}, "x", model.Failed},
		{"field index out of range in range of the struct", "i = load(x, acq)\n r = bins[0].keys[i]\n x = r", []int64{2}, "x", model.Failed},
		{"address of a field", "i = load(x, acq)\n a = &q.items\n r = *(a + i)\n x = r", []int64{2}, "x q.items[2]", model.Done},
		{"address of a dereference", "i = load(x, acq)\n a = &q.items\n b = &*(a + i)\n r = *b\n x = r", []int64{1}, "x q.items[1]", model.Done},
		{"atomics", "i = load(x, acq)\n r = fetch_add(q.items[i], 1, rlx)\n store(bins[i].keys[0], r, rel)", []int64{0}, "x q.items[0]", model.Done},
		{"heap", "n = alloc(node)\n n->vals[1] = 3\n n->next = 0\n i = load(x, acq)\n r = n->vals[i]\n x = r", []int64{1, 7}, "x node@t:9#0.vals[1]", model.Done},
		{"big", "i = load(x, acq)\n r = big[i]\n x = r", []int64{4321}, "x big[4321]", model.Done},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := compileOne(t, fieldHead+"thread t {\n"+tc.body+"\n}\n")
			reads, status := run(t, prog, tc.vals...)
			var kept []string
			for _, r := range reads {
				if !strings.HasPrefix(r, "node@") || strings.Contains(r, ".") {
					kept = append(kept, r)
				}
			}
			if got := strings.Join(kept, " "); got != tc.reads || status != tc.status {
				t.Errorf("reads %q and ends %v, want %q and %v\n%s", got, status, tc.reads, tc.status, prog)
			}
		})
	}
	for _, tc := range []struct{ name, body, want string }{
		{"constant out of range", "r = q.items[3]\n x = r", "9:13: index 3 is out of range: field q.items has 3 elements"},
		{"array field as a value", "r = q.items\n x = r", "9:5: q.items is an array field: name an element (q.items[i])"},
		{"index of a scalar field", "r = q.head[0]\n x = r", "9:12: q.head is not an array"},
		{"index of a scalar field by pointer", "n = alloc(node)\n r = n->next[0]\n x = r", "10:14: n->next is not an array"},
		{"field of an element", "r = q.items[0].v\n x = r", "9:15: q.items[0] is a scalar or an array of scalars: it has no fields"},
		{"two indices", "r = q.items[0][1]\n x = r", "9:15: q.items[0] is not an array"},
		{"too many values", "x = 1", "3:33: field items of q has 3 elements, not 4 initial values"},
		{"field too long", "x = 2", "3:18: field items of q: 2000000 elements is out of range (1 to 1048576)"},
		{"array too long", "x = 3", "5:1: array big: 2000000 elements is out of range (1 to 1048576)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fieldHead + "thread t {\n" + tc.body + "\n}\n"
			switch tc.body {
			case "x = 1":
				src = strings.Replace(src, "{4, 5}", "{4, 5, 6, 7}", 1)
			case "x = 2":
				src = strings.Replace(src, "items[3]", "items[2000000]", 1)
			case "x = 3":
				src = strings.Replace(src, "big[5000]", "big[2000000]", 1)
			}
			wantError(t, build(src), tc.want)
		})
	}
}

// TestFinalRegisters checks final conditions over threads' registers.
func TestFinalRegisters(t *testing.T) {
	const head = "protocol r\nparam N = 2\nshared x = 0\nproperty p\nthread w {\n  r = load(x, rlx)\n}\nthread c[N] {\n  v = load(x, rlx)\n}\nthread s spawned {\n  u = load(x, rlx)\n}\n"
	p := compileOne(t, head+"final p: w.r == 0 && c[1].v != 1 && x == 0 && s.u == 0\n")
	var got []string
	for _, o := range p.Checks[0].Cond.Observables(nil) {
		got = append(got, o.Name(p))
	}
	if strings.Join(got, " ") != "0:r 2:v x 3:u" {
		t.Errorf("observables %v, want 0:r 2:v x 3:u (a spawned thread's too: one never spawned holds its initial registers)", got)
	}
	for _, tc := range []struct{ name, final, want string }{
		{"template without index", "c.v == 0", "14:10: thread c has 2 instances: name one, as in c[0].v"},
		{"index of a single thread", "w[0].r == 0", "14:10: thread w has one instance"},
		{"instance out of range", "c[N].v == 0", "14:12: thread c has instances 0 to 1, not 2"},
		{"no such register", "w.q == 0", "14:10: thread w has no register q"},
		{"not a constant", "w.r == x", "14:17: x is not a constant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.oc", head+"final p: "+tc.final+"\n")
			wantError(t, err, tc.want)
		})
	}
}

// TestCompiledAtLoad checks that every variant, with the parameters of
// every expect clause, compiles when the file is parsed.
func TestCompiledAtLoad(t *testing.T) {
	const head = "protocol v\nparam ORD = rel\nparam N = 1\nshared x = 0\nproperty p\n"
	for _, tc := range []struct{ name, src, want string }{
		{"misspelt replace", "variant a \"\" default\nvariant b \"\" { replace bodyy { } }\nthread t {\n  block body { x = 1 }\n}\n", "7:30: variant b replaces block bodyy, which no thread has"},
		{"bad ordering in a variant", "variant a \"\" default\nvariant b ORD=acq \"\"\nthread t {\n  store(x, 1, ORD)\n}\n", "9:15: acq (parameter ORD) is not a valid ordering for a store (in variant b)"},
		{"bad replacement", "variant a \"\" default\nvariant b \"\" { replace body { x = zz } }\nthread t {\n  block body { x = 1 }\n}\n", "7:35: unknown variable zz"},
		{"expect parameters", "thread t[N] {\n  x = 1\n}\nexpect * with N=100: holds\n", "6:1: thread t: count 100 is out of range (1 to 64) (in with N=100)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.oc", head+tc.src)
			wantError(t, err, tc.want)
		})
	}
}

// TestHeap checks the heap's syntax and its errors: alloc of a struct or
// of cells, free, and what the compiler refuses.
func TestHeap(t *testing.T) {
	const head = "protocol h\nstruct node { val, next }\nshared top = 0\nparam N = 2\n"
	for _, tc := range []struct{ name, src, want string }{
		{"alloc and free", "thread t {\n  n = alloc(node)\n  n->val = 1\n  store(top, n, rel)\n  free(n)\n}\n", ""},
		{"cells", "thread t {\n  c = alloc(N + 1)\n  *c = 1\n  last = c + 2\n  *last = 2\n  free(c)\n}\n", ""},
		{"in a bounded loop", "thread t {\n  for i in 0..3 {\n    n = alloc(node)\n    while top == 0 max 2 {\n      m = alloc(node)\n    }\n  }\n}\n", ""},
		{"in an unbounded loop", "thread t {\n  k = load(top, rlx)\n  for i in 0..k {\n    n = alloc(node)\n  }\n}\n", "8:9: alloc in a loop whose rounds are not constant"},
		{"a field with a value", "struct bad { a = 1 }\nthread t {\n}\n", "5:16: the fields of a heap struct start uninitialised"},
		{"no fields", "struct bad { }\nthread t {\n}\n", "5:1: struct bad has no fields"},
		{"a name taken", "struct top { a }\nthread t {\n}\n", "name top is already defined"},
		{"unknown struct", "thread t {\n  n = alloc(nod)\n}\n", "6:13: alloc takes a struct declared with \"struct\" or a constant number of cells"},
		{"too many cells", "thread t {\n  n = alloc(5000000)\n}\n", "6:13: alloc(5000000): a block has 1 to 1048576 cells"},
		{"two arguments", "thread t {\n  n = alloc(node, 2)\n}\n", "6:7: alloc takes a struct"},
		{"free of two", "thread t {\n  free(top, top)\n}\n", "6:11: expected \")\", found \",\""},
		{"in an await", "thread t {\n  await alloc(node) == 0\n}\n", "6:9: an await's condition may not write or allocate"},
		{"loop rounds overflow", "thread t {\n  for i in -2..9223372036854775807 {\n    n = alloc(node)\n  }\n}\n", "7:9: alloc in a loop whose rounds are not constant"},
		{"assert the property", "thread t {\n  assert memory-safety: 1 == 1\n}\n", "6:3: memory-safety is a built-in property"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := build(head + tc.src)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, tc.want)
		})
	}
}

// TestLocking checks when a protocol gets property locking and where its
// checks stay: none for uses the code's shape proves right, the property
// where one is not proven or a mutex is destroyed, and located errors for
// an expect clause or a parameter that needs it undeclared.
func TestLocking(t *testing.T) {
	const head = "protocol k\nmutex m\nshared x = 0\nparam N = 1\n"
	asserts := func(in *Instance) int {
		n := 0
		for _, th := range in.Prog.Threads {
			for _, i := range th.Code {
				if i.Op == model.OpAssert && i.Prop == PropLocking {
					n++
				}
			}
		}
		return n
	}
	for _, tc := range []struct {
		name, src string
		prop      bool // the protocol has property locking
		checks    int  // its checks in the default variant
	}{
		{"proven", "thread t {\n  lock(m)\n  x = 1\n  unlock(m)\n  lock(m)\n  unlock(m)\n}\n", false, 0},
		{"proven in a loop", "thread t {\n  for i in 0..3 {\n    lock(m)\n    unlock(m)\n  }\n}\n", false, 0},
		{"relock on a branch", "thread t {\n  lock(m)\n  if x == 0 {\n    lock(m)\n  }\n  unlock(m)\n}\n", true, 3},
		{"unlock not held", "thread t {\n  unlock(m)\n}\n", true, 1},
		{"destroy", "thread t {\n  lock(m)\n  unlock(m)\n  destroy(m)\n}\n", true, 3},
		{"only in a variant", "variant a \"\" default\nvariant b N=2 \"\"\nthread t {\n  lock(m)\n  if N == 2 {\n    lock(m)\n  }\n  unlock(m)\n}\n", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := Parse("f.oc", head+tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if got := pr.prop(PropLocking) != nil; got != tc.prop {
				t.Errorf("property locking: %v, want %v", got, tc.prop)
			}
			in, err := pr.Compile("", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := asserts(in); got != tc.checks {
				t.Errorf("%d checks of locking, want %d:\n%s", got, tc.checks, in.Prog)
			}
		})
	}
	t.Run("expect without need", func(t *testing.T) {
		_, err := Parse("f.oc", head+"thread t {\n  lock(m)\n  unlock(m)\n}\nexpect *: violates locking\n")
		wantError(t, err, "9:20: property locking cannot be violated here")
	})
	t.Run("expect without mutexes", func(t *testing.T) {
		_, err := Parse("f.oc", "protocol k\nshared x = 0\nthread t {\n  x = 1\n}\nexpect *: violates locking\n")
		wantError(t, err, "6:20: unknown property locking")
	})
	t.Run("parameter needs it", func(t *testing.T) {
		pr, err := Parse("f.oc", head+"thread t {\n  lock(m)\n  if N == 2 {\n    lock(m)\n  }\n  unlock(m)\n}\n")
		if err != nil {
			t.Fatal(err)
		}
		_, err = pr.Compile("", map[string]string{"N": "2"})
		wantError(t, err, "8:5: with these parameters this use of a mutex is not correct")
	})
}
