package lang_test

import (
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// TestVerdicts checks the new constructs end to end, by the checker's
// verdicts: each protocol's expect clauses under every model, by both
// engines, and no bound may cut a search.
func TestVerdicts(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		// The data is read only once the flag is seen: with acquire
		// and release there is no race, which reading both operands
		// first would invent.
		{"and", `
param LOAD = acq
variant acq-rel "" default
variant relaxed LOAD=rlx ""
shared flag = 0
shared data = 0
property data-race
property seen "a reader that sees the flag sees the data"
thread writer {
  data = 42
  store(flag, 1, rel)
}
thread reader {
  if load(flag, LOAD) == 1 && data != 42 {
    assert seen: 0, "read the flag, not the data"
  }
}
expect *: holds
expect relaxed under sc, tso: violates data-race
expect relaxed under arm, riscv, rc11, rc11-consume: violates data-race, seen`},
		{"or", `
shared flag = 0
shared data = 0
property data-race
property seen "a reader that sees the flag sees the data"
thread writer {
  data = 42
  store(flag, 1, rel)
}
thread reader {
  assert seen: load(flag, acq) == 0 || data == 42
}
expect *: holds`},
		{"conditional", `
shared flag = 0
shared data = 0
property data-race
property seen "a reader that sees the flag sees the data"
thread writer {
  data = 42
  store(flag, 1, rel)
}
thread reader {
  v = load(flag, acq) == 1 ? data : 42
  assert seen: v == 42
}
expect *: holds`},
		// A bounded retry, then a fallback: the for loop is counted,
		// never cut, and the fallback runs when every try fails.
		{"retry", `
shared lockv = 0
shared fallbacks = 0
property fallback "no caller falls back"
property data-race
thread caller[2] {
  for i in 0..2 {
    ok = cas_weak(lockv, 0, 1, acq)
    if ok { break }
  }
  if !ok {
    n = fetch_add(fallbacks, 1, rlx)
    assert fallback: 0, "fell back"
  }
}
expect *: violates fallback`},
		// A while loop left by break before its bound is not cut.
		{"while-break", `
shared x = 0
property p
thread t {
  while 1 max 1 {
    r = load(x, rlx)
    if r == 0 { break }
  }
  assert p: r == 0
}
expect *: holds`},
		// A ring of two slots whose sequence numbers publish them.
		{"ring", `
param LOAD = acq
param STORE = rel
variant acq-rel "" default
variant relaxed LOAD=rlx STORE=rlx ""
shared ring[2] { seq = 0, val = 0 }
property data-race
property fifo "the consumer reads what the producer put in each slot"
thread producer {
  for i in 0..2 {
    ring[i].val = 10 + i
    store(ring[i].seq, 1, STORE)
  }
}
thread consumer {
  for i in 0..2 {
    if load(ring[i].seq, LOAD) == 1 {
      v = ring[i].val
      assert fifo: v == 10 + i, "read a slot before its value"
    }
  }
}
expect *: holds
expect relaxed under sc, tso: violates data-race
expect relaxed under arm, riscv, rc11, rc11-consume: violates data-race, fifo`},
		// A spin loop is a wait: never cut by its bound, however many
		// rounds another thread makes it wait.
		{"spin", `
shared flag = 0
shared data = 0
property data-race
property seen "the reader sees the data"
thread writer {
  data = 42
  store(flag, 1, rel)
}
thread reader {
  while load(flag, acq) == 0 max 1 { }
  assert seen: data == 42
}
expect *: holds`},
		// A compare-exchange spin on a lock nobody releases waits for
		// ever.
		{"spin-deadlock", `
shared l = 1
property deadlock
thread t {
  while cas(l, 0, 1, acq, acq) == 0 max 1 { }
}
expect *: violates deadlock`},
		// Arrays inside structs, published slot by slot.
		{"array-fields", `
param STORE = rel
variant rel "" default
variant relaxed STORE=rlx ""
shared q { items[2], ready[2] }
property data-race
property fifo "the consumer reads what the producer put in each slot"
thread producer {
  for i in 0..2 {
    q.items[i] = 10 + i
    store(q.ready[i], 1, STORE)
  }
}
thread consumer {
  for i in 0..2 {
    if load(q.ready[i], acq) == 1 {
      v = q.items[i]
      assert fifo: v == 10 + i, "read a slot before its value"
    }
  }
}
expect *: holds
expect relaxed under sc, tso: violates data-race
expect relaxed under arm, riscv, rc11, rc11-consume: violates data-race, fifo`},
		// An index read from memory may be out of range.
		{"bounds", `
shared head = 0
shared slots[2] = {1, 2}
property data-race
thread writer {
  store(head, 2, rlx)
}
thread reader {
  i = load(head, rlx)
  r = slots[i]
}
expect *: violates bounds`},
		// A final condition over registers: both loads see 0 only
		// without sequential consistency.
		{"final-registers", `
shared x = 0
shared y = 0
property sb "some thread sees the other's store"
thread a {
  store(x, 1, rlx)
  r = load(y, rlx)
}
thread b[1] {
  store(y, 1, rlx)
  r = load(x, rlx)
}
final sb: a.r == 1 || b[0].r == 1
expect *: holds
expect * under tso, arm, riscv, rc11, rc11-consume: violates sb`},
	} {
		pr, err := checker.Parse(tc.name+".oc", "protocol "+tc.name+"\n"+tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		configs, err := pr.Expectations()
		if err != nil {
			t.Fatal(err)
		}
		for _, cell := range configs[0].Cells {
			for _, eng := range []explore.Engine{explore.EngineDPOR, explore.EngineStates} {
				name := strings.Join([]string{tc.name, cell.Variant, cell.Model, eng.String()}, "/")
				t.Run(name, func(t *testing.T) {
					m, err := model.Lookup(cell.Model)
					if err != nil {
						t.Fatal(err)
					}
					inst, err := pr.Instance(cell.Variant, nil)
					if err != nil {
						t.Fatal(err)
					}
					if eng == explore.EngineStates && checker.StatesUnsupported(inst.Prog, m) != "" {
						t.Skip(checker.StatesUnsupported(inst.Prog, m))
					}
					rep, err := inst.Check(m, explore.Options{Engine: eng})
					if err != nil {
						t.Fatal(err)
					}
					if !rep.Stats.Exhaustive() {
						t.Errorf("bounded by %s", rep.Stats.LimitText())
					}
					if d := expect.Differences(rep, &cell); len(d) > 0 {
						t.Errorf("%s\n%s", expect.Join(d, "; "), inst.Prog)
					}
				})
			}
		}
	}
}
