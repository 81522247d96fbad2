package render

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// Progress is the line that shows a long run is alive, on a terminal
// only: what was explored, how fast, the memory held and the time so far,
// after which cell of how many when there are several. Each text replaces
// the last; Clear erases it before other output. It is safe for
// concurrent use.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	cell  string // "cell 3 of 12 (fixed under rc11): ", or ""
	shown bool
}

// NewProgress returns the progress line on f, which shows nothing when
// off is set or f is not a terminal.
func NewProgress(f *os.File, off bool) *Progress {
	return &Progress{w: f, on: !off && isTerminal(f)}
}

// isTerminal reports whether f is a terminal, where progress is shown.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// On reports whether the line shows anything.
func (p *Progress) On() bool { return p != nil && p.on }

// Stats shows an exploration's statistics so far: set it as
// explore.Options.Progress.
func (p *Progress) Stats(s explore.Stats) {
	if !p.On() {
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
	p.Show(fmt.Sprintf("%s, %d MB, %s", what, model.ProcessMemory()>>20, s.Elapsed.Round(time.Second)))
}

// Cell names the cell explored next, done of total: set it as
// checker.CompareOptions.Progress.
func (p *Progress) Cell(done, total int, name string) {
	p.mu.Lock()
	p.cell = fmt.Sprintf("cell %d of %d (%s): ", done+1, total, name)
	p.mu.Unlock()
	p.Show("starting")
}

// Runs shows how far a simulation of total runs is: set it as
// simulate.Options.Progress.
func (p *Progress) Runs(total int) func(done int, el time.Duration) {
	return func(done int, el time.Duration) {
		if done == 0 || el <= 0 {
			return // no rate yet
		}
		rate := float64(done) / el.Seconds()
		p.Show(fmt.Sprintf("%d/%d runs, %.0f runs/s, %s elapsed, ETA %s", done, total, rate, el.Round(time.Second),
			(time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second)))
	}
}

// CountCases shows, every second, how many cells of a test run are done,
// and clears the line before each case opt reports. stop ends it.
func (p *Progress) CountCases(opt *expect.Options) (stop func()) {
	if !p.On() {
		return func() {}
	}
	var done atomic.Int64
	report, sum := opt.Case, opt.Suite
	opt.Case = func(s *expect.Suite, r *expect.Result) {
		done.Add(1)
		p.Clear()
		if report != nil {
			report(s, r)
		}
	}
	opt.Suite = func(s *expect.Suite) {
		p.Clear()
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
				p.Clear()
				return
			case <-tick.C:
				p.Show(fmt.Sprintf("%d cells done, %s", done.Load(), time.Since(start).Round(time.Second)))
			}
		}
	}()
	return func() { close(quit) }
}

// Show replaces the line's text, after the cell's name when one is set.
func (p *Progress) Show(text string) {
	if !p.On() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K%s%s", p.cell, text)
	p.shown = true
}

// Clear erases the line, before other output or at the end.
func (p *Progress) Clear() {
	if !p.On() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
