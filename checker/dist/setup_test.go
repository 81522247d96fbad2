package dist_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// line is a progress line that records what it was shown.
type line struct {
	mu      sync.Mutex
	shown   []string
	cleared int
}

func (l *line) Show(text string) { l.mu.Lock(); l.shown = append(l.shown, text); l.mu.Unlock() }
func (l *line) Clear()           { l.mu.Lock(); l.cleared++; l.mu.Unlock() }

// TestSetupUsage: a setup that names no cluster keeps the work in this
// process; contradictory or incomplete ones are refused, by the flags'
// names, before anything is started.
func TestSetupUsage(t *testing.T) {
	r, finish, err := dist.Setup{}.Runner(3, "cells")
	if err != nil || r != (checker.Local{Jobs: 3}) {
		t.Fatalf("no cluster: %v, %v", r, err)
	}
	finish()
	var opt explore.Options
	if finish, err := (dist.Setup{}).Explore(context.Background(), nil, &opt); err != nil || opt.Cluster != nil {
		t.Fatalf("no cluster: %v, %v", opt.Cluster, err)
	} else {
		finish()
	}
	for _, tc := range []struct {
		s       dist.Setup
		explore bool
		want    string
	}{
		{dist.Setup{Procs: -1}, false, "--procs -1: want a number of processes"},
		{dist.Setup{URL: "nats://127.0.0.1:1", Procs: 2}, false, "exclude each other"},
		{dist.Setup{Parts: -1}, true, "--parts -1: want a number of partitions"},
		{dist.Setup{Parts: 2}, true, "give --procs or --cluster too"},
		{dist.Setup{URL: "nats://127.0.0.1:1"}, true, "--cluster needs --parts P"},
		{dist.Setup{URL: "nats://10.1.2.3:4222"}, false, "loopback"},
	} {
		var err error
		if tc.explore {
			_, err = tc.s.Explore(context.Background(), nil, &explore.Options{})
		} else {
			_, _, err = tc.s.Runner(1, "")
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	if got := strings.Join(dist.OrdercheckWorker("nats://127.0.0.1:5", "w1"), " "); got != "worker --cluster nats://127.0.0.1:5 --name w1 --quiet --with-parent" {
		t.Errorf("OrdercheckWorker: %q", got)
	}
	// A worker needs a server, and a job slot at least.
	if err := (dist.Setup{}).Serve(context.Background(), nil, dist.WorkerOptions{Jobs: 1}); err == nil || !strings.Contains(err.Error(), "worker needs --cluster URL") {
		t.Errorf("Serve without a server: %v", err)
	}
	if err := (dist.Setup{URL: "nats://127.0.0.1:1"}).Serve(context.Background(), nil, dist.WorkerOptions{}); err == nil || !strings.Contains(err.Error(), "--jobs 0: want at least 1") {
		t.Errorf("Serve with no job slot: %v", err)
	}
}

// TestSetupRunner checks a comparison's cells on the workers of a
// cluster the setup names: the progress line counts them, and the end
// clears it and says what the workers took.
func TestSetupRunner(t *testing.T) {
	s := startServer(t)
	startWorkers(t, s.URL(), 2)
	var log bytes.Buffer
	var ln line
	r, finish, err := dist.Setup{URL: s.URL(), Log: &log, Line: &ln}.Runner(1, "cells checked")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*dist.Runner); !ok {
		t.Fatalf("runner %T, want *dist.Runner", r)
	}
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := pr.Compare(checker.CompareOptions{Models: []*model.Model{model.SC}, Variants: []string{"fixed", "unordered"}, Runner: r})
	finish()
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Verdict() != checker.VerdictViolated {
		t.Errorf("verdict %s, want violated (unordered races)", cmp.Verdict())
	}
	if !strings.HasPrefix(log.String(), "distributed: 2 jobs") {
		t.Errorf("log %q", log.String())
	}
	if len(ln.shown) == 0 || !strings.Contains(ln.shown[len(ln.shown)-1], "of 2 cells checked; the queue: ") || ln.cleared == 0 {
		t.Errorf("progress %q, cleared %d times", ln.shown, ln.cleared)
	}
}

// TestSetupWork: Compare, RunTests and Check keep the work in this
// process when the setup names no cluster, and send Compare's cells to
// the workers, their queue on the line, when it names one.
func TestSetupWork(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	copt := checker.CompareOptions{Models: []*model.Model{model.SC}, Variants: []string{"fixed", "unordered"}}
	cells := 0
	copt.Progress = func(done, total int, name string) { cells++ }
	cmp, err := dist.Setup{}.Compare(pr, copt)
	if err != nil || cmp.Verdict() != checker.VerdictViolated || cells == 0 {
		t.Fatalf("local Compare: %v, %d cells reported", err, cells)
	}
	suites, err := dist.Setup{}.RunTests([]string{"dlsym"}, protocols.Load, 2, expect.Options{})
	if err != nil || len(suites) != 1 || len(suites[0].Cases) == 0 {
		t.Fatalf("local RunTests: %v, %v", suites, err)
	}
	in, err := pr.Instance("fixed", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ln line
	rep, err := dist.Setup{Line: &ln}.Check(in, model.SC, explore.Options{})
	if err != nil || rep.Verdict() != checker.VerdictVerified || ln.cleared == 0 {
		t.Fatalf("local Check: %v, cleared %d times", err, ln.cleared)
	}
	s := startServer(t)
	startWorkers(t, s.URL(), 2)
	cells = 0
	cmp, err = dist.Setup{URL: s.URL(), Log: &bytes.Buffer{}, Line: &ln}.Compare(pr, copt)
	if err != nil || cmp.Verdict() != checker.VerdictViolated {
		t.Fatalf("Compare on workers: %v", err)
	}
	if cells != 0 || len(ln.shown) == 0 || !strings.Contains(ln.shown[len(ln.shown)-1], "cells checked; the queue: ") {
		t.Errorf("on workers: %d cells reported in this process, line %q: want the queue's line only", cells, ln.shown)
	}
}
