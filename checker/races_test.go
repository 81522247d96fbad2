package checker_test

import (
	"context"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
)

// TestRacesAreC11Races checks that data races are the C program's: the
// same verdict under every model, judged under C11. In each shape a plain
// access is reached only through an outcome that sequential consistency
// forbids (both threads of a store buffering read 0), so judging races in
// the SC or TSO executions, as ordercheck once did, misses them.
func TestRacesAreC11Races(t *testing.T) {
	dekker := func(fenceA, fenceB string) string {
		return `
shared flag0 = 0
shared flag1 = 0
shared data = 0
property data-race
thread a {
  store(flag0, 1, rlx)
  ` + fenceA + `
  f = load(flag1, rlx)
  if f == 0 {
    data = 1
  }
}
thread b {
  store(flag1, 1, rlx)
  ` + fenceB + `
  f = load(flag0, rlx)
  if f == 0 {
    data = 2
  }
}`
	}
	peterson := func(st, ld string) string {
		return `
shared flag0 = 0
shared flag1 = 0
shared turn = 0
shared data = 0
property data-race
thread a {
  store(flag0, 1, ` + st + `)
  store(turn, 1, ` + st + `)
  f = load(flag1, ` + ld + `)
  t = load(turn, ` + ld + `)
  await f == 0 || t == 0
  data = 1
  store(flag0, 0, ` + st + `)
}
thread b {
  store(flag1, 1, ` + st + `)
  store(turn, 0, ` + st + `)
  f = load(flag0, ` + ld + `)
  t = load(turn, ` + ld + `)
  await f == 0 || t == 1
  data = 2
  store(flag1, 0, ` + st + `)
}`
	}
	for _, tc := range []struct {
		name, src string
		race      bool
	}{
		{"dekker", dekker("", ""), true},
		{"dekker-one-sc-fence", dekker("fence(sc)", ""), true},
		{"dekker-sc-fences", dekker("fence(sc)", "fence(sc)"), false},
		{"dekker-acq-rel-fences", dekker("fence(acq_rel)", "fence(acq_rel)"), true},
		{"peterson-relaxed", peterson("rlx", "rlx"), true},
		{"peterson-release-acquire", peterson("rel", "acq"), true},
		{"peterson-seq-cst", peterson("sc", "sc"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := compileProtocol(t, tc.name, tc.src)
			for _, m := range model.All() {
				rep, err := checker.Check(p, m, []checker.Property{checker.DataRace}, explore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				pr := rep.Props[0]
				if got := pr.Status == checker.Violated; got != tc.race {
					t.Errorf("%s: data-race %s, want violated=%v (%s)", m.Name, pr.Status, tc.race, pr.Message)
				}
				if rm := m.RaceModel(p); rm != m && pr.Model != rm {
					t.Errorf("%s: judged under %v, want %s", m.Name, pr.Model, rm.Name)
				}
				if pr.Witness != nil && pr.Witness.Model != m.RaceModel(p) {
					t.Errorf("%s: the witness is an execution under %s", m.Name, pr.Witness.Model.Name)
				}
			}
		})
	}
}

// TestRaceVerdictsAgree checks, on random programs without consume loads,
// that every model gives the same data-race verdict: a race is the C
// program's, whatever the machine. Half the programs are guarded (see
// progtest.Guarded), where a weak outcome alone reaches the plain accesses.
func TestRaceVerdictsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var p *model.Program
		if rapid.Bool().Draw(t, "guarded") {
			p = progtest.Guarded(t)
		} else {
			p = progtest.Program(t, progtest.ProtocolSized)
		}
		if rapid.Bool().Draw(t, "seq_cst atomics") {
			// Where DRF-SC decides: races may be judged in SC executions.
			for ti := range p.Threads {
				code := slices.Clone(p.Threads[ti].Code)
				for i := range code {
					if code[i].Op != model.OpLock && code[i].Op != model.OpUnlock && code[i].Ord.Atomic() {
						code[i].Ord = model.SeqCst
					}
					if code[i].Op == model.OpCAS {
						code[i].FailOrd = model.SeqCst
					}
				}
				p.Threads[ti].Code = code
			}
		}
		for _, th := range p.Threads {
			for _, in := range th.Code {
				if in.Ord == model.Con || in.FailOrd == model.Con {
					t.Skip("consume loads: the consume model judges their races")
				}
			}
		}
		var first *checker.PropResult
		var firstModel string
		for _, m := range model.All() {
			rep, err := checker.Check(p, m, []checker.Property{checker.DataRace}, explore.Options{MaxGraphs: 50000})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Stats.Exhaustive() {
				t.Skip("exploration exceeds the budget")
			}
			pr := &rep.Props[0]
			if first == nil {
				first, firstModel = pr, m.Name
				continue
			}
			if pr.Status != first.Status {
				t.Fatalf("data-race %s under %s, %s under %s:\n%s", pr.Status, m.Name, first.Status, firstModel, p)
			}
		}
	})
}

// TestSpawnSynchronises pins the happens-before a spawn passes on beyond
// the spawner's view (po runs from the spawner's events before the spawn
// into the spawned thread), under both engines: a release fence or a
// release store to x before the spawn heads a release sequence the
// child's relaxed store to x continues, so a reader that acquires that
// store sees the plain write before the spawn, without a race; and a
// relaxed read before the spawn, with an acquire fence in the child,
// synchronises with the release store it read, so the child's plain read
// does not race and its relaxed read sees the writer's earlier store.
func TestSpawnSynchronises(t *testing.T) {
	releases := func(before string) string {
		return `protocol spawnsync
shared x = 0
shared y = 0
property data-race
thread main {
  y = 1
  ` + before + `
  spawn child
}
thread child spawned {
  store(x, 1, rlx)
}
thread reader {
  r = load(x, acq)
  if r == 1 {
    v = y
  }
}
`
	}
	for _, tc := range []struct{ name, src string }{
		{"release fence before the spawn", releases("fence(rel)")},
		{"release store before the spawn", releases("store(x, 2, rel)")},
		{"acquire fence in the child", `protocol spawnacq
shared y = 0
shared w = 0
shared z = 0
property data-race
property seen
thread writer {
  y = 1
  store(w, 1, rlx)
  store(z, 1, rel)
}
thread main {
  r = load(z, rlx)
  if r == 1 {
    spawn child
  }
}
thread child spawned {
  fence(acq)
  v = y
  u = load(w, rlx)
  assert seen: u == 1
}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := checkertest.Instance(t, tc.src)
			for _, m := range []string{"rc11", "rc11-consume"} {
				for _, eng := range []explore.Engine{explore.EngineAuto, explore.EngineDPOR} {
					rep, err := checker.Check(in.Prog, progtest.MustModel(t, m), in.Protocol.Properties(), explore.Options{Engine: eng})
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range rep.Props {
						if p.Status != checker.Holds {
							t.Errorf("%s by %s: %s %s: %s", m, rep.Engine, p.Name, p.Status, p.Message)
						}
					}
				}
			}
		})
	}
}

// TestRaceVerdictsForgetInterrupted checks that a race verdict a
// cancellation cut short is not shared: the next model's check judges
// races for itself (dlsym unordered races under C11).
func TestRaceVerdictsForgetInterrupted(t *testing.T) {
	in := catalogueInstance(t, "dlsym", "unordered", nil)
	props := in.Protocol.Properties()
	var rv checker.RaceVerdicts
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := rv.Check(in.Prog, model.SC, props, explore.Options{Context: ctx}); err != nil || rep.Props[0].Status != checker.Unknown {
		t.Fatalf("interrupted: %v, %v", err, rep.Props[0].Status)
	}
	rep, err := rv.Check(in.Prog, model.TSO, props, explore.Options{})
	if err != nil || rep.Props[0].Name != checker.PropDataRace || rep.Props[0].Status != checker.Violated {
		t.Errorf("after an interrupted check, %s is %v (%v), want violated", rep.Props[0].Name, rep.Props[0].Status, err)
	}
}
