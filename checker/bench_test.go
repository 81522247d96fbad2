package checker_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
)

// shapes builds the benchmark programs.
type shape func(n int) *model.Program

// sbN: thread i stores x_i and loads x_{i+1 mod n} (store buffering).
func sbN(n int) *model.Program {
	p := &model.Program{Name: fmt.Sprintf("SB-%d", n), Locs: progtest.Locs(n)}
	for i := 0; i < n; i++ {
		p.Threads = append(p.Threads, model.Thread{Name: fmt.Sprint(i), Regs: []string{"r0"}, Init: []int64{0},
			Code: []model.Instr{progtest.Store(i, 1, model.Rlx), progtest.Load(0, (i+1)%n, model.Rlx)}})
	}
	return p
}

// iriwN: n writers of distinct locations and two readers reading them in
// opposite orders.
func iriwN(n int) *model.Program {
	p := &model.Program{Name: fmt.Sprintf("IRIW-%d", n), Locs: progtest.Locs(n)}
	for i := 0; i < n; i++ {
		p.Threads = append(p.Threads, model.Thread{Name: fmt.Sprint(i), Code: []model.Instr{progtest.Store(i, 1, model.Rlx)}})
	}
	for _, rev := range []bool{false, true} {
		th := model.Thread{Name: "reader"}
		for k := 0; k < n; k++ {
			l := k
			if rev {
				l = n - 1 - k
			}
			th.Regs = append(th.Regs, fmt.Sprintf("r%d", k))
			th.Init = append(th.Init, 0)
			th.Code = append(th.Code, progtest.Load(model.Reg(k), l, model.Rlx))
		}
		p.Threads = append(p.Threads, th)
	}
	return p
}

// writersN: n threads each store to one location and read it back
// (herd7's 5-thread example takes it 76 s).
func writersN(n int) *model.Program {
	p := &model.Program{Name: fmt.Sprintf("W-%d", n), Locs: progtest.Locs(1)}
	for i := 0; i < n; i++ {
		p.Threads = append(p.Threads, model.Thread{Name: fmt.Sprint(i), Regs: []string{"r0"}, Init: []int64{0},
			Code: []model.Instr{progtest.Store(0, int64(i+1), model.Rlx), progtest.Load(0, 0, model.Rlx)}})
	}
	return p
}

// counterN: n threads each fetch-and-add one counter.
func counterN(n int) *model.Program {
	p := &model.Program{Name: fmt.Sprintf("Counter-%d", n), Locs: progtest.Locs(1)}
	for i := 0; i < n; i++ {
		p.Threads = append(p.Threads, model.Thread{Name: fmt.Sprint(i), Regs: []string{"r0"}, Init: []int64{0},
			Code: []model.Instr{{Op: model.OpRMW, RMW: model.FetchAdd, Dst: 0, Dst2: model.NoReg, Addr: model.Const(model.AddrOf(0)), Val: model.Const(1), Ord: model.Rlx}}})
	}
	return p
}

// benchWorkers is the number of workers the benchmarks explore with: set
// it with -workers to compare sequential and parallel exploration.
var benchWorkers = flag.Int("workers", 1, "workers for the exploration benchmarks")

func benchExplore(b *testing.B, p *model.Program, modelName string) {
	m := progtest.MustModel(b, modelName)
	var execs int64
	b.ReportAllocs()
	for b.Loop() {
		st, err := checker.Explore(p, m, explore.Options{Workers: *benchWorkers}, nil)
		if err != nil {
			b.Fatal(err)
		}
		execs = st.Executions
	}
	b.ReportMetric(float64(execs), "executions")
	b.ReportMetric(float64(execs)*float64(b.N)/b.Elapsed().Seconds(), "executions/s")
}

func BenchmarkExplore(b *testing.B) {
	for _, c := range []struct {
		shape shape
		ns    []int
	}{
		{sbN, []int{4, 8, 16}},
		{iriwN, []int{2, 3}},
		{writersN, []int{3, 4, 5}},
		{counterN, []int{4, 5}},
	} {
		for _, n := range c.ns {
			p := c.shape(n)
			for _, m := range []string{"sc", "rc11"} {
				b.Run(p.Name+"/"+m, func(b *testing.B) { benchExplore(b, p, m) })
			}
		}
	}
}

func TestBenchmarkShapes(t *testing.T) {
	// The shapes' execution counts, derived by hand: SB-n has 2^n under
	// rc11; n fetch-and-adds have n! orders; IRIW-2 has 2^4 rf choices.
	for _, c := range []struct {
		p     *model.Program
		model string
		want  int64
	}{
		{sbN(4), "rc11", 16},
		{sbN(4), "sc", 15},
		{counterN(4), "rc11", 24},
		{iriwN(2), "rc11", 16},
	} {
		st, err := checker.Explore(c.p, progtest.MustModel(t, c.model), explore.Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Executions != c.want {
			t.Errorf("%s under %s: %d executions, want %d", c.p.Name, c.model, st.Executions, c.want)
		}
	}
}
