package checker_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
)

// genSpawning draws a random program whose last thread is spawned by the
// first, at a random point of the first's code (never inside a branch's
// target range: the spawn is placed before an instruction no jump skips).
func genSpawning(t *rapid.T) *model.Program {
	p := genProgram(t, rapid.SampledFrom([]genSpec{litmusSized, protocolSized}).Draw(t, "size"))
	if len(p.Threads) < 2 {
		t.Skip("one thread")
	}
	child := len(p.Threads) - 1
	code := p.Threads[0].Code
	at := rapid.IntRange(0, len(code)).Draw(t, "spawn at")
	for _, in := range code {
		if (in.Op == model.OpJump || in.Op == model.OpBranch || in.Op == model.OpAssume) && in.Target >= at {
			at = len(code) // keep jump targets where they are
		}
	}
	spawn := model.Instr{Op: model.OpSpawn, N: child, Dst: model.NoReg, Dst2: model.NoReg}
	p.Threads[0].Code = slices.Insert(slices.Clone(code), at, spawn)
	p.Threads[child].Spawned = true
	return p
}

// TestSpawnLaws checks the explorers on programs that spawn a thread: the
// graph explorer finds the reference explorer's executions, and the state
// explorer the graph explorer's final states and race and deadlock
// verdicts, under sc, tso and rc11.
func TestSpawnLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genSpawning(t)
		for _, name := range []string{"sc", "tso", "rc11", "rc11-consume"} {
			m := mustModel(t, name)
			_, fast := outcomes(t, p, m, checker.Explore)
			_, ref := outcomes(t, p, m, checker.ExploreReference)
			same(t, p, name+": the reference", ref, "the explorer", fast)
			if checker.StatesUnsupported(p, m) != "" {
				continue
			}
			props := checker.Properties(nil, checker.PropDataRace, checker.PropDeadlock)
			byGraphs, err := checker.Check(p, m, props, checker.Options{Engine: checker.EngineDPOR, MaxGraphs: 50000})
			if err != nil {
				t.Fatal(err)
			}
			if !byGraphs.Stats.Exhaustive() {
				continue
			}
			byStates, err := checker.Check(p, m, props, checker.Options{Engine: checker.EngineStates})
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, p)
			}
			for i, want := range byGraphs.Props {
				if got := byStates.Props[i]; got.Status != want.Status {
					t.Fatalf("%s: %s: states say %s, graphs %s (%s) in\n%s", name, want.Name, got.Status, want.Status, want.Message, p)
				}
			}
		}
	})
}
