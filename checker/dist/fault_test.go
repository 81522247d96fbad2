package dist_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestServerRestart restarts the NATS server (its memory streams lost)
// under a coordinator waiting for reports and under an idle and a busy
// worker: the coordinator fails within a few seconds naming the restart;
// the busy worker says its report is lost; neither worker fails or stops:
// each serves the next coordinator's jobs on the restarted server.
func TestServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a server")
	}
	s := startServer(t)
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	type worker struct {
		log  syncBuffer
		stop context.CancelFunc
		done chan error
	}
	start := func(name string) *worker {
		w := &worker{done: make(chan error, 1)}
		var ctx context.Context
		ctx, w.stop = context.WithCancel(context.Background())
		t.Cleanup(w.stop)
		nc := dial(t, s.URL())
		go func() {
			w.done <- dist.Work(ctx, nc, dist.WorkerOptions{Catalogue: protocols.Lookup, Name: name, Log: &w.log})
		}()
		return w
	}
	// The busy worker takes the one cell, a long one; the idle one waits.
	busy := start("busy")
	coord := make(chan error, 1)
	go func() {
		copt := checker.CompareOptions{Variants: []string{"fixed"}, Models: []*model.Model{mustModel(t, "rc11")}, Params: map[string]string{"N": "6"}}
		_, _, err := dist.Compare(context.Background(), dial(t, s.URL()), pr, copt, dist.Options{})
		coord <- err
	}()
	for !strings.Contains(busy.log.String(), "start ") {
		time.Sleep(10 * time.Millisecond)
	}
	idle := start("idle")
	time.Sleep(200 * time.Millisecond)
	restarted := time.Now()
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-coord:
		if err == nil || !strings.Contains(err.Error(), "restarted") {
			t.Errorf("the coordinator's error: %v, want one naming the restart", err)
		}
		if took := time.Since(restarted); took > 6*time.Second {
			t.Errorf("the coordinator took %v to see the restart", took)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the coordinator still waits 30 s after the restart")
	}
	for !strings.Contains(busy.log.String(), "is lost") {
		select {
		case err := <-busy.done:
			t.Fatalf("the busy worker stopped at the restart: %v\n%s", err, busy.log.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Both serve comparisons sent after the restart: a worker that served
	// one is stopped, so that the other serves the next.
	running := map[string]*worker{"idle": idle, "busy": busy}
	for len(running) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		copt := checker.CompareOptions{Variants: []string{"fixed"}, Models: []*model.Model{mustModel(t, "sc"), mustModel(t, "tso")}}
		_, st, err := dist.Compare(ctx, dial(t, s.URL()), pr, copt, dist.Options{})
		cancel()
		if err != nil {
			t.Fatalf("no worker served after the restart: %v\nbusy:\n%s\nidle:\n%s", err, busy.log.String(), idle.log.String())
		}
		for _, name := range st.Workers {
			w := running[name]
			w.stop()
			if err := <-w.done; err != nil {
				t.Errorf("the %s worker, interrupted after the restart: %v\n%s", name, err, w.log.String())
			}
			delete(running, name)
		}
	}
}

// TestServerGone stops the NATS server for good under a coordinator and
// an idle and a busy worker: the coordinator fails, and both workers,
// their reconnection attempts spent, stop without an error (the worker
// command's exit 0), the busy one abandoning its check.
func TestServerGone(t *testing.T) {
	if testing.Short() {
		t.Skip("stops a server under its clients")
	}
	s, err := dist.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	var busyLog syncBuffer
	work := func(name string, log *syncBuffer) chan error {
		done := make(chan error, 1)
		nc := dial(t, s.URL())
		go func() {
			done <- dist.Work(context.Background(), nc, dist.WorkerOptions{Catalogue: protocols.Lookup, Name: name, Log: log})
		}()
		return done
	}
	busy := work("busy", &busyLog)
	coord := make(chan error, 1)
	go func() {
		copt := checker.CompareOptions{Variants: []string{"fixed"}, Models: []*model.Model{mustModel(t, "rc11")}, Params: map[string]string{"N": "7"}}
		_, _, err := dist.Compare(context.Background(), dial(t, s.URL()), pr, copt, dist.Options{})
		coord <- err
	}()
	for !strings.Contains(busyLog.String(), "start ") {
		time.Sleep(10 * time.Millisecond)
	}
	idle := work("idle", nil)
	time.Sleep(200 * time.Millisecond)
	s.Close()
	gone := time.Now()
	for name, done := range map[string]chan error{"coordinator": coord, "busy worker": busy, "idle worker": idle} {
		select {
		case err := <-done:
			if (err == nil) != (name != "coordinator") {
				t.Errorf("the %s ended with %v", name, err)
			}
		case <-time.After(20*time.Second - time.Since(gone)):
			t.Errorf("the %s still runs 20 s after the server went", name)
		}
	}
	t.Logf("all ended %v after the server went", time.Since(gone))
}

// TestExploreWorkerKilledTimeout kills the only worker of a partitioned
// search with a timeout: nobody takes its partition over, and the search
// ends at its timeout with what it found (no verdict), not after the
// acknowledgement wait or never.
func TestExploreWorkerKilledTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker process")
	}
	s := startServer(t)
	victim, lines := startProcess(t, s.URL(), "victim")
	go func() {
		for lines.Scan() { // to the end: a full pipe would stall the victim
		}
	}()
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("fixed", map[string]string{"N": "6"})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := dist.NewCluster(context.Background(), dial(t, s.URL()), in, 1, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	levels := 0
	progress := func(explore.Stats) {
		if levels++; levels == 3 {
			victim.Process.Kill()
		}
	}
	const timeout = 3 * time.Second
	start := time.Now()
	rep, err := in.Check(mustModel(t, "rc11"), explore.Options{Cluster: cl, Progress: progress, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*timeout {
		t.Errorf("the search took %v with a %v timeout", took, timeout)
	}
	if levels < 3 || rep.Stats.Limit != explore.Timeout {
		t.Errorf("%d levels, bounded by %q: want the kill at level 3 and the timeout", levels, rep.Stats.Limit)
	}
}

// TestCellCoordinatorGone closes the connection of a coordinator whose
// long cell a worker checks: the worker stops hearing from it, drops the
// cell and serves the next coordinator's jobs.
func TestCellCoordinatorGone(t *testing.T) {
	s := startServer(t)
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- dist.Work(ctx, dial(t, s.URL()), dist.WorkerOptions{Catalogue: protocols.Lookup, Name: "w", Log: &log, Orphaned: time.Second})
	}()
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	cnc := dial(t, s.URL())
	go func() {
		copt := checker.CompareOptions{Variants: []string{"fixed"}, Models: []*model.Model{mustModel(t, "rc11")}, Params: map[string]string{"N": "8"}}
		dist.Compare(ctx, cnc, pr, copt, dist.Options{})
	}()
	for !strings.Contains(log.String(), "start ") {
		time.Sleep(10 * time.Millisecond)
	}
	cnc.Close()
	gone := time.Now()
	cctx, ccancel := context.WithTimeout(ctx, time.Minute)
	defer ccancel()
	copt := checker.CompareOptions{Variants: []string{"fixed"}, Models: []*model.Model{mustModel(t, "sc")}}
	if _, _, err := dist.Compare(cctx, dial(t, s.URL()), pr, copt, dist.Options{}); err != nil {
		t.Fatalf("the worker did not come back to serve jobs: %v\n%s", err, log.String())
	}
	if took := time.Since(gone); took > 10*time.Second || !strings.Contains(log.String(), "its coordinator is gone") {
		t.Errorf("the worker served again %v after the coordinator went, saying:\n%s", took, log.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
}
