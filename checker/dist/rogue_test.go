package dist_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestRogueClient treats the queue as a network service: a client that
// publishes malformed and malicious jobs, and malformed results into a
// comparison's run, neither kills the worker nor changes the comparison
// (it equals one process's); each refused job is said in the worker's
// log; a job naming a path never has the worker read it.
func TestRogueClient(t *testing.T) {
	s := startServer(t)
	var log syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	worker := dial(t, s.URL())
	workerDone := make(chan error, 1)
	go func() {
		workerDone <- dist.Work(ctx, worker, dist.WorkerOptions{Catalogue: protocols.Lookup, Name: "w", Log: &log})
	}()
	defer func() { cancel(); <-workerDone }()
	coord, rogue := dial(t, s.URL()), dial(t, s.URL())
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	copt := checker.CompareOptions{Variants: []string{"fixed"}, Models: []*model.Model{mustModel(t, "rc11")}}
	// A first comparison makes the queue.
	if _, _, err := dist.Compare(ctx, coord, pr, copt, dist.Options{}); err != nil {
		t.Fatal(err)
	}
	jobs := []string{
		`not json`,
		`null`,
		`{"Run":"a b","Name":"dlsym","Model":"rc11"}`,
		`{"Run":"x","Name":"/etc/passwd","Model":"rc11"}`,
		`{"Run":"x","Name":"dlsym","Path":"/etc/passwd","Model":"rc11"}`,
		`{"Run":"x","Path":"/etc/passwd","Model":"rc11"}`,
		`{"Run":"x","Name":"dlsym","Search":{"ID":"s","Part":0,"Parts":0}}`,
		`{"Run":"x","Name":"dlsym","Search":{"ID":"s.t","Part":0,"Parts":2}}`,
		`{"Run":"x","Name":"dlsym","Model":"power"}`,
		`{"Run":"x","Cell":-3,"Name":"dlsym","Model":"rc11"}`,
	}
	for _, j := range jobs {
		if err := rogue.Publish("ordercheck.jobs.rogue", []byte(j)); err != nil {
			t.Fatal(err)
		}
	}
	// Into every run the rogue sees, results that are not results: for the
	// job's own cell and the two after it. The worker checks one job at a
	// time, so the later cells' jobs are still queued when their fakes
	// arrive and the coordinator must judge the fakes, not count them as
	// duplicates of answers it already has.
	sub, err := rogue.Subscribe("ordercheck.jobs.*", func(m *nats.Msg) {
		var j struct {
			Run  string
			Cell int
		}
		if json.Unmarshal(m.Data, &j) != nil || j.Run == "" || j.Run == "x" {
			return
		}
		rogue.Publish("ordercheck.results."+j.Run, []byte(`not json`))
		rogue.Publish("ordercheck.results."+j.Run, []byte(`{"Run":"`+j.Run+`","Cell":200,"Worker":"rogue"}`))
		for c := j.Cell; c <= j.Cell+2; c++ {
			head := `{"Run":"` + j.Run + `","Cell":` + strconv.Itoa(c) + `,"Worker":"rogue","Report":`
			for _, rep := range []string{
				`{"Model":"rc11","Props":[{"Name":"nonsense"}]}`,
				`{"Model":"rc11","Stats":{"Limit":200},"Props":[]}`,
				`"not a report"`,
			} {
				rogue.Publish("ordercheck.results."+j.Run, []byte(head+rep+`}`))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	rogue.Flush()
	compareBoth(t, "dlsym", copt, func(pr *checker.Protocol) (*checker.Comparison, dist.Stats, error) {
		return dist.Compare(ctx, coord, pr, copt, dist.Options{Log: &log})
	})
	// A graph search split into subtrees gets the same results.
	if st := exploreBoth(t, s.URL(), "consume", "rc11-consume", "3", 1, dist.Options{Log: &log}, nil); st.Subtrees == 0 {
		t.Errorf("the graph search was not split: %s", st)
	}
	if !strings.Contains(log.String(), ": subtree [") {
		t.Errorf("no rogue result reached the split graph search:\n%s", log.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(log.String(), "refused a message") < 8 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	text := log.String()
	if !strings.Contains(text, "set aside") {
		t.Errorf("no rogue result reached the comparison (the test tested nothing of the coordinator):\n%s", text)
	}
	if n := strings.Count(text, "refused a message"); n < 8 {
		t.Errorf("%d jobs refused, want at least 8 (a valid one names an unknown protocol):\n%s", n, text)
	}
	if strings.Contains(text, "root:") {
		t.Errorf("the worker read a file a job named:\n%s", text)
	}
	select {
	case err := <-workerDone:
		t.Fatalf("the worker stopped: %v", err)
	default:
	}
}

// TestNoWorkerTimeout sends a comparison with a timeout to a server no
// worker serves: it ends soon after the timeout and its grace, every
// cell with no verdict, rather than wait for ever.
func TestNoWorkerTimeout(t *testing.T) {
	s := startServer(t)
	nc := dial(t, s.URL())
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	copt := checker.CompareOptions{Variants: []string{"fixed"}, Models: []*model.Model{mustModel(t, "rc11"), mustModel(t, "sc")}}
	copt.Options.Timeout = time.Second
	start := time.Now()
	grace := 200 * time.Millisecond
	c, _, err := dist.Compare(context.Background(), nc, pr, copt, dist.Options{Grace: grace})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < copt.Options.Timeout+grace || took > copt.Options.Timeout+grace+3*time.Second {
		t.Errorf("took %v, want the timeout and the grace, %v", took, copt.Options.Timeout+grace)
	}
	for _, row := range c.Reports {
		for _, r := range row {
			if r.Stats.Limit != explore.Timeout {
				t.Errorf("a cell bounded by %s, want the timeout", r.Stats.Limit)
			}
		}
	}
}

// dial connects to the server at url until the test ends.
func dial(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := dist.Dial(url, dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
