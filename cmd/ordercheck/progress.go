package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// progress is the line that shows a long run is alive, on a terminal's
// standard error only: what was explored, how fast, the memory held and
// the time so far, after which cell of how many when there are several.
// It is off when standard error is not a terminal, with --quiet, and
// with JSON output.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	cell  string // "cell 3 of 12 (fixed under rc11): ", or ""
	shown bool
}

// newProgress returns the progress line of a command; off makes it
// silent.
func newProgress(off bool) *progress {
	return &progress{w: os.Stderr, on: !off && isTerminal(os.Stderr)}
}

// stats shows an exploration's statistics so far.
func (p *progress) stats(s explore.Stats) {
	if !p.on {
		return
	}
	rate := func(n int64) string {
		if s.Elapsed <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f/s", float64(n)/s.Elapsed.Seconds())
	}
	var what string
	if s.States > 0 {
		what = fmt.Sprintf("%d states (%s), %d final", s.States, rate(s.Graphs), s.Executions)
	} else {
		what = fmt.Sprintf("%d executions, %d graphs (%s)", s.Executions, s.Graphs, rate(s.Graphs))
	}
	p.show(fmt.Sprintf("%s, %d MB, %s", what, model.ProcessMemory()>>20, s.Elapsed.Round(time.Second)))
}

// setCell names the cell explored next, done of total.
func (p *progress) setCell(done, total int, name string) {
	p.mu.Lock()
	p.cell = fmt.Sprintf("cell %d of %d (%s): ", done+1, total, name)
	p.mu.Unlock()
	p.show("starting")
}

// countCases shows, every second, how many cells of a test run are done,
// and clears the line before each case opt reports. stop ends it.
func (p *progress) countCases(opt *checker.TestOptions) (stop func()) {
	if p == nil || !p.on {
		return func() {}
	}
	var done atomic.Int64
	report, sum := opt.Case, opt.Suite
	opt.Case = func(s *checker.Suite, r *checker.CaseResult) {
		done.Add(1)
		p.clear()
		if report != nil {
			report(s, r)
		}
	}
	opt.Suite = func(s *checker.Suite) {
		p.clear()
		if sum != nil {
			sum(s)
		}
	}
	start, quit := time.Now(), make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				p.clear()
				return
			case <-tick.C:
				p.show(fmt.Sprintf("%d cells done, %s", done.Load(), time.Since(start).Round(time.Second)))
			}
		}
	}()
	return func() { close(quit) }
}

func (p *progress) show(text string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K%s%s", p.cell, text)
	p.shown = true
}

// clear erases the line, before other output or at the end.
func (p *progress) clear() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
