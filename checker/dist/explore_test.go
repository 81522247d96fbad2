package dist_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// reportJSON is a report as explore --json prints it, timings aside.
func reportJSON(t *testing.T, rep *checker.Report, in *checker.Instance) string {
	t.Helper()
	var b bytes.Buffer
	if err := render.JSON(&b, render.ReportJSON(rep, in, true)); err != nil {
		t.Fatal(err)
	}
	return seconds.ReplaceAllString(b.String(), "")
}

// exploreBoth explores a variant of dlsym with N callers under a model in
// this process and on parts partitions (or subtrees) of the workers at
// url, and fails unless the two reports print the same; progress sees
// each level of a partitioned search.
func exploreBoth(t *testing.T, url, variant, model, n string, parts int, opt dist.Options, progress func(explore.Stats)) dist.ExploreStats {
	t.Helper()
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance(variant, map[string]string{"N": n})
	if err != nil {
		t.Fatal(err)
	}
	m := mustModel(t, model)
	local, err := in.Check(m, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nc, err := dist.Dial(url, dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := dist.NewCluster(ctx, nc, in, parts, opt)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := in.Check(m, explore.Options{Cluster: cl, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := reportJSON(t, local, in), reportJSON(t, remote, in); a != b {
		t.Errorf("the partitioned search differs from one process's:\n%s\n---\n%s", a, b)
	}
	st := cl.Stats()
	if (st.Searches != 1 || st.Levels == 0) && st.Subtrees == 0 {
		t.Errorf("the search did not go to the workers: %s", st)
	}
	return st
}

// TestExploreMatchesOneProcess splits dlsym's fixed variant with six
// callers under rc11 into three partitions on three worker processes:
// explore --json prints the same as in one process, and each worker
// holds a share of the visited set. So does a graph search split into
// subtrees (rc11-consume).
func TestExploreMatchesOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	s := startServer(t)
	for _, name := range []string{"w1", "w2", "w3"} {
		startProcess(t, s.URL(), name)
	}
	st := exploreBoth(t, s.URL(), "fixed", "rc11", "6", 3, dist.Options{}, nil)
	if len(st.Memory) != 3 || st.TakenOver != 0 {
		t.Errorf("want three workers, none taken over: %s", st)
	}
	t.Logf("%s", st)
	// A check the graph explorer makes: its subtrees are the jobs.
	st = exploreBoth(t, s.URL(), "consume", "rc11-consume", "3", 3, dist.Options{}, nil)
	if st.Subtrees == 0 {
		t.Errorf("the graph search was not split: %s", st)
	}
	t.Logf("%s", st)
}

// TestExploreWorkerKilled kills a worker process (SIGKILL) that holds a
// partition in the middle of a partitioned search; a worker started after
// the kill takes the partition over, rebuilding its visited set from the
// candidates stored, and the report is one process's.
func TestExploreWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	s := startServer(t)
	victim, lines := startProcess(t, s.URL(), "victim")
	took := make(chan struct{})
	go func() {
		once := false
		for lines.Scan() { // to the end: a full pipe would stall the victim
			if !once && strings.Contains(lines.Text(), "take partition") {
				close(took)
				once = true
			}
		}
	}()
	for _, name := range []string{"w1", "w2"} {
		startProcess(t, s.URL(), name)
	}
	levels, killedAt := 0, -1
	progress := func(explore.Stats) {
		levels++
		if levels == 12 {
			<-took
			victim.Process.Kill()
			killedAt = levels
			startProcess(t, s.URL(), "survivor")
		}
	}
	st := exploreBoth(t, s.URL(), "fixed", "rc11", "5", 3, dist.Options{AckWait: time.Second}, progress)
	if killedAt < 0 || killedAt >= st.Levels {
		t.Fatalf("the kill was not mid-search: at level %d of %d", killedAt, st.Levels)
	}
	if st.TakenOver != 1 || st.Memory["survivor"] == 0 {
		t.Errorf("the survivor did not take the victim's partition over: %s", st)
	}
	t.Logf("killed after level %d of %d: %s", killedAt, st.Levels, st)
}

// BenchmarkPartitioned explores dlsym's fixed variant under rc11 with
// -callers callers on 1 and 2 partitions, each held by a worker of this
// process, and reports states per second and what the partitions sent
// per state. docs/distributed.md has the figures with worker processes.
func BenchmarkPartitioned(b *testing.B) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		b.Fatal(err)
	}
	in, err := pr.Instance("fixed", map[string]string{"N": "5"})
	if err != nil {
		b.Fatal(err)
	}
	m := mustModel(b, "rc11")
	for _, parts := range []int{1, 2} {
		b.Run(fmt.Sprintf("parts=%d", parts), func(b *testing.B) {
			s, err := dist.StartServer()
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for i := range parts {
				nc, err := dist.Dial(s.URL(), dist.DialOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer nc.Close()
				go dist.Work(ctx, nc, dist.WorkerOptions{Catalogue: protocols.Lookup, Name: fmt.Sprint("w", i)})
			}
			nc, err := dist.Dial(s.URL(), dist.DialOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			var states int64
			var st dist.ExploreStats
			for b.Loop() {
				cl, err := dist.NewCluster(ctx, nc, in, parts, dist.Options{})
				if err != nil {
					b.Fatal(err)
				}
				rep, err := in.Check(m, explore.Options{Cluster: cl})
				if err != nil {
					b.Fatal(err)
				}
				states += rep.Stats.States
				s := cl.Stats()
				st.Msgs += s.Msgs
				st.Bytes += s.Bytes
			}
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(st.Msgs)/float64(states), "msgs/state")
			b.ReportMetric(float64(st.Bytes)/float64(states), "bytes/state")
		})
	}
}

// TestCoordinatorGone begins a partitioned search whose coordinator then
// vanishes (its connection closes, without ending the search): the
// worker holding the partition stops hearing from it, lets the partition
// go, and serves the next job.
func TestCoordinatorGone(t *testing.T) {
	s := startServer(t)
	wnc, err := dist.Dial(s.URL(), dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer wnc.Close()
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go dist.Work(ctx, wnc, dist.WorkerOptions{Catalogue: protocols.Lookup, Name: "w", Log: &log, Orphaned: time.Second})
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("fixed", nil)
	if err != nil {
		t.Fatal(err)
	}
	cnc, err := dist.Dial(s.URL(), dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := dist.NewCluster(ctx, cnc, in, 1, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Begin([]byte(`{"Model":"sc","Props":["deadlock"]}`), false); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(log.String(), "take partition") {
		time.Sleep(10 * time.Millisecond)
	}
	cnc.Close()
	nc, err := dist.Dial(s.URL(), dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cctx, ccancel := context.WithTimeout(ctx, time.Minute)
	defer ccancel()
	if _, _, err := dist.Compare(cctx, nc, pr, checker.CompareOptions{Models: []*model.Model{mustModel(t, "sc")}}, dist.Options{}); err != nil {
		t.Fatalf("the worker did not come back to serve jobs: %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "is gone") {
		t.Errorf("the worker did not say the coordinator is gone:\n%s", log.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a worker's log and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCompareInterrupted cancels a distributed comparison after its first
// report: it returns every cell, those not done with no verdict
// (interrupted), as a comparison interrupted in one process does.
func TestCompareInterrupted(t *testing.T) {
	s := startServer(t)
	startWorkers(t, s.URL(), 1)
	nc, err := dist.Dial(s.URL(), dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := dist.Options{Progress: func(p dist.Progress) {
		if p.Done == 1 {
			cancel()
		}
	}}
	c, _, err := dist.Compare(ctx, nc, pr, checker.CompareOptions{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	interrupted := 0
	for i, row := range c.Reports {
		for k, rep := range row {
			if rep == nil {
				t.Fatalf("%s under %s has no report", c.Cases[i].Variant, c.Models[k].Name)
			}
			if rep.Stats.Limit == explore.Interrupted {
				interrupted++
				if rep.Verdict() != checker.VerdictTimeout {
					t.Errorf("%s under %s: interrupted, verdict %s", c.Cases[i].Variant, c.Models[k].Name, rep.Verdict())
				}
			}
		}
	}
	if interrupted == 0 {
		t.Error("no cell was interrupted")
	}
	if _, complete := c.Violated(); complete {
		t.Error("an interrupted comparison says it is complete")
	}
}
