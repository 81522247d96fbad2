package checker

import (
	"context"
	"sync"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// Cell is one check of a comparison or a test run: an instance under a
// model, judging every property of the instance's protocol.
type Cell struct {
	Instance *Instance
	Model    *model.Model
}

// Name names the cell as "VARIANT under MODEL" (MODEL alone without
// variants).
func (c Cell) Name() string {
	if c.Instance.Variant == "" {
		return c.Model.Name
	}
	return c.Instance.Variant + " under " + c.Model.Name
}

// A Runner checks cells: Local in this process, package dist's Runner on
// worker processes. Compare and expect.RunCases hand their cells to one.
type Runner interface {
	// Run checks cells, each bounded by opt, and calls got with each
	// cell's index and its report, or the error its check met, as each is
	// done: in any order, one call at a time. An error of got's ends the
	// run, and Run returns it.
	Run(cells []Cell, opt explore.Options, got func(i int, rep *Report, err error) error) error
}

// Local checks cells in this process on Jobs goroutines (at least one).
// Consecutive cells of one instance run in turn on one goroutine and share
// their data-race verdicts: the cells of a comparison's row, or of a test
// run's configuration, judge races under C11 once.
type Local struct {
	Jobs int
}

// Run implements Runner.
func (l Local) Run(cells []Cell, opt explore.Options, got func(i int, rep *Report, err error) error) error {
	type group struct{ from, to int }
	var groups []group
	for i := range cells {
		if i == 0 || cells[i-1].Instance != cells[i].Instance {
			groups = append(groups, group{i, i})
		}
		groups[len(groups)-1].to = i + 1
	}
	// An error of got's interrupts the checks under way.
	parent := opt.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	opt.Context = ctx
	var mu sync.Mutex
	var failed error
	stopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return failed != nil
	}
	next := make(chan group)
	var wg sync.WaitGroup
	for range max(l.Jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				var races RaceVerdicts
				for i := g.from; i < g.to && !stopped(); i++ {
					c := cells[i]
					rep, err := races.Check(c.Instance.Prog, c.Model, c.Instance.Protocol.Properties(), opt)
					mu.Lock()
					if failed == nil {
						if failed = got(i, rep, err); failed != nil {
							cancel()
						}
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, g := range groups {
		if stopped() {
			break
		}
		next <- g
	}
	close(next)
	wg.Wait()
	return failed
}
