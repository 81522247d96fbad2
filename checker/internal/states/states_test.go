package states_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/checker/internal/states"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/litmus"
)

// sharedLitmus is the herd7 corpus (progtest.Corpus).
var sharedLitmus = progtest.Corpus()

// TestStatesMatchExecutions checks the state-merging explorer against the
// execution-graph explorer, under SC, TSO and RC11 without seq_cst: the
// same final states (registers, memory, and which threads block), and the
// same verdicts on data races and deadlocks, with a witness that shows
// each violation. Half the programs are critical sections over shared and
// private locations, the shapes the reduction (reduce.go) tells apart.
func TestStatesMatchExecutions(t *testing.T) {
	for _, m := range progtest.Machines() {
		t.Run(m.Name, func(t *testing.T) { statesMatchExecutions(t, m) })
	}
}

func statesMatchExecutions(t *testing.T, sc *model.Model) {
	rapid.Check(t, func(t *rapid.T) {
		var p *model.Program
		if rapid.Bool().Draw(t, "sections") {
			p = progtest.CriticalSections(t) // where the reduction applies or narrowly does not
		} else {
			p = progtest.Program(t, progtest.ProtocolSized)
		}
		p = progtest.WithTwins(t, p)
		progtest.Explorable(p, sc)
		want, got := map[string]bool{}, map[string]bool{}
		st, err := checker.Explore(p, sc, explore.Options{MaxGraphs: 50000}, func(e *explore.Execution) {
			var status []model.Status
			for _, s := range e.States {
				status = append(status, s.Status)
			}
			want[upToTwins(p, e.Final, status)] = true
		})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Exhaustive() {
			t.Skip("exploration exceeds the budget")
		}
		_, err = states.FinalStates(p, sc, states.Config{}, func(f model.FinalState, status []model.Status) {
			got[upToTwins(p, f, status)] = true
		})
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := progtest.Subset(want, got); !ok {
			t.Fatalf("states miss the final state %s of\n%s", k, p)
		}
		if k, ok := progtest.Subset(got, want); !ok {
			t.Fatalf("states find the final state %s no execution has:\n%s", k, p)
		}
		props := checker.Properties(nil, checker.PropDataRace, checker.PropDeadlock)
		byGraphs, err := checker.Check(p, sc, props, explore.Options{Engine: explore.EngineDPOR})
		if err != nil {
			t.Fatal(err)
		}
		byStates, err := checker.Check(p, sc, props, explore.Options{Engine: explore.EngineStates})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range byGraphs.Props {
			got := byStates.Props[i]
			if got.Status != want.Status {
				t.Fatalf("%s: states say %s, executions %s (%s) in\n%s", want.Name, got.Status, want.Status, want.Message, p)
			}
			if got.Status == checker.Violated && got.Witness == nil {
				t.Fatalf("%s: no witness", want.Name)
			}
		}
	})
}

// upToTwins renders a final state (the registers shown, the memory and
// the threads' statuses) with the states of threads of equal code and
// initial registers, none shown, sorted: the state explorer finds one final
// state of each class of states that differ by such threads' names.
func upToTwins(p *model.Program, f model.FinalState, status []model.Status) string {
	var groups [][]string
	var reps []int
	for t, th := range p.Threads {
		s := fmt.Sprint(status[t])
		for _, o := range p.Final.Show {
			if o.Thread == t {
				s += fmt.Sprintf(" %s=%d", th.Regs[o.Reg], f.Regs[t][o.Reg])
			}
		}
		shown := slices.ContainsFunc(p.Final.Show, func(o model.Observable) bool { return o.Thread == t })
		k := slices.IndexFunc(reps, func(r int) bool {
			return !shown && reflect.DeepEqual(p.Threads[r].Code, th.Code) && slices.Equal(p.Threads[r].Init, th.Init) &&
				!slices.ContainsFunc(p.Final.Show, func(o model.Observable) bool { return o.Thread == r })
		})
		if k < 0 {
			reps = append(reps, t)
			groups = append(groups, nil)
			k = len(reps) - 1
		}
		groups[k] = append(groups[k], s)
	}
	var out []string
	for _, g := range groups {
		slices.Sort(g)
		out = append(out, strings.Join(g, " "))
	}
	return fmt.Sprint(out, f.Mem)
}

// TestHerdConformanceStates checks the state explorer's final states on
// every test of the shared corpus it can explore (under rc11, those
// without seq_cst) against herd7's.
func TestHerdConformanceStates(t *testing.T) {
	for _, tc := range []struct{ model, file string }{{"rc11", "expected-rc11.tsv"}, {"sc", "expected-sc.tsv"}, {"tso", "expected-tso.tsv"}} {
		t.Run(tc.model, func(t *testing.T) {
			m := progtest.MustModel(t, tc.model)
			checked := 0
			for _, row := range progtest.ReadExpected(t, tc.file) {
				p, err := litmus.ParseFile(filepath.Join(sharedLitmus, row.Test))
				if err != nil {
					t.Fatal(err)
				}
				if states.Unsupported(p, m) != "" {
					continue
				}
				checked++
				got := slices.Sorted(maps.Keys(finalsByStates(t, p, m)))
				if g, w := strings.Join(got, " | "), strings.Join(row.States, " | "); g != w {
					t.Errorf("%s: states:\n got  %s\n want %s", row.Test, g, w)
				}
			}
			t.Logf("%s: %d tests explored by states", tc.model, checked)
		})
	}
}

// finalsByStates returns p's final states under m, as p shows them,
// found by the state explorer.
func finalsByStates(t *testing.T, p *model.Program, m *model.Model) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	if _, err := states.FinalStates(p, m, states.Config{}, func(f model.FinalState, _ []model.Status) {
		got[p.FormatState(p.Final.Show, &f)] = true
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// finalsByGraphs returns them found by the graph explorer.
func finalsByGraphs(t *testing.T, p *model.Program, m *model.Model) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	if _, err := checker.Explore(p, m, explore.Options{}, func(e *explore.Execution) {
		got[p.FormatState(p.Final.Show, &e.Final)] = true
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestStatesManyLocations checks the state explorer on a program of more
// than 64 locations, where what threads may still do is not computed per
// location (the bit sets stop at 64): message passing through locations 64
// and 65 must keep its weak outcome, as the graph explorer finds it.
func TestStatesManyLocations(t *testing.T) {
	p := &model.Program{Name: "MP-far", Locs: make([]model.Location, 66)}
	for l := range p.Locs {
		p.Locs[l].Name = fmt.Sprintf("x%d", l)
	}
	x, y := model.Loc(64), model.Loc(65)
	p.Threads = []model.Thread{
		{Name: "writer", Code: []model.Instr{progtest.Store(int(x), 1, model.Rlx), progtest.Store(int(y), 1, model.Rlx)}},
		{Name: "reader", Regs: []string{"r0", "r1"}, Init: []int64{0, 0}, Code: []model.Instr{progtest.Load(0, int(y), model.Rlx), progtest.Load(1, int(x), model.Rlx)}},
	}
	p.Final = &model.Final{Quant: model.Forall, Cond: &model.Cond{Kind: model.CTrue},
		Show: []model.Observable{{Thread: 1, Reg: 0, Loc: model.NoLoc}, {Thread: 1, Reg: 1, Loc: model.NoLoc}}}
	for _, m := range progtest.Machines() {
		want, got := finalsByGraphs(t, p, m), finalsByStates(t, p, m)
		if !maps.Equal(want, got) {
			t.Errorf("%s: states find %v, graphs %v", m.Name, got, want)
		}
	}
}

// TestStatesMatchGraphsOnShapes checks the state explorer's final states
// against the graph explorer's on the classic shapes of the litmus test
// data, under every machine that runs them.
func TestStatesMatchGraphsOnShapes(t *testing.T) {
	files, _ := filepath.Glob("../../../protocols/litmus/testdata/*.litmus")
	if len(files) == 0 {
		t.Fatal("no litmus tests in protocols/litmus/testdata")
	}
	for _, f := range files {
		p, err := litmus.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range progtest.Machines() {
			if m.Machine.Unsupported(p) != "" {
				continue
			}
			want, got := finalsByGraphs(t, p, m), finalsByStates(t, p, m)
			if !maps.Equal(want, got) {
				t.Errorf("%s under %s: states find %v, graphs %v", filepath.Base(f), m.Name, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
		}
	}
}

// TestReductionRunsCriticalSectionsAtOnce checks the partial-order
// reduction on N threads that each increment a counter under a mutex: the
// read, the write and the unlock run at once after the lock (no other
// thread touches the counter but holding the mutex), so with the threads
// interchangeable the search keeps one state per number of increments
// done, N+1, where interleaving the critical sections' steps would keep
// more. (Under tso the stores and the unlock are buffered, and the
// flushes' interleavings with the other threads keep more states.)
func TestReductionRunsCriticalSectionsAtOnce(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		for _, m := range []*model.Model{model.SC, model.RC11} {
			t.Run(fmt.Sprintf("N=%d/%s", n, m.Name), func(t *testing.T) {
				src := fmt.Sprintf(`protocol cs "lock-protected increments"
shared x = 0
mutex m
property total "every increment counts"
thread inc[%d] {
  lock(m)
  r = x
  x = r + 1
  unlock(m)
}
final total: x == %d, "an increment was lost"
`, n, n)
				rep, err := checkertest.Instance(t, src).Check(m, explore.Options{Engine: explore.EngineStates})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Verdict() != checker.VerdictVerified {
					t.Fatalf("verdict %s", rep.Verdict())
				}
				if got := rep.Stats.States; got != int64(n+1) {
					t.Errorf("%d states, want %d", got, n+1)
				}
			})
		}
	}
}
