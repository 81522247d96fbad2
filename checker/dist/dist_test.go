package dist_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestMain makes the test binary a worker process when the kill test
// starts it as one.
func TestMain(m *testing.M) {
	if url := os.Getenv("ORDERCHECK_TEST_WORKER"); url != "" {
		nc, err := dist.Dial(url, dist.DialOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := dist.Work(context.Background(), nc, dist.WorkerOptions{Catalogue: protocols.Lookup, Name: os.Getenv("ORDERCHECK_TEST_WORKER_NAME"), Log: os.Stdout}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startServer(t *testing.T) *dist.Server {
	t.Helper()
	s, err := dist.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// startWorkers runs n workers in this process until the test ends.
func startWorkers(t *testing.T, url string, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		nc, err := dist.Dial(url, dist.DialOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := dist.Work(ctx, nc, dist.WorkerOptions{Catalogue: protocols.Lookup, Name: fmt.Sprintf("w%d", i)}); err != nil {
				t.Error(err)
			}
		}()
		t.Cleanup(nc.Close)
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}

var seconds = regexp.MustCompile(`"seconds": [0-9.e+-]+`)

// rendered is a comparison in every format, timings aside.
func rendered(t *testing.T, c *checker.Comparison) string {
	t.Helper()
	var b bytes.Buffer
	for _, f := range []render.Format{render.FormatTable, render.FormatMarkdown, render.FormatJSON, render.FormatHTML} {
		if err := render.Comparison(&b, c, f); err != nil {
			t.Fatal(err)
		}
	}
	return seconds.ReplaceAllString(b.String(), `"seconds": 0`)
}

func compareBoth(t *testing.T, name string, copt checker.CompareOptions, distribute func(*checker.Protocol) (*checker.Comparison, dist.Stats, error)) dist.Stats {
	t.Helper()
	pr, err := protocols.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	local, err := pr.Compare(copt)
	if err != nil {
		t.Fatal(err)
	}
	remote, st, err := distribute(pr)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := rendered(t, local), rendered(t, remote); a != b {
		t.Errorf("%s: the distributed comparison differs from one process's:\n%s\n---\n%s", name, a, b)
	}
	return st
}

// TestCompareMatchesOneProcess checks catalogue comparisons through three
// workers against the same comparisons in one process, in every output
// format, counterexamples included.
func TestCompareMatchesOneProcess(t *testing.T) {
	s := startServer(t)
	startWorkers(t, s.URL(), 3)
	nc, err := dist.Dial(s.URL(), dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, tc := range []struct {
		name string
		copt checker.CompareOptions
	}{
		{"dlsym", checker.CompareOptions{}},
		{"cluster", checker.CompareOptions{Models: []*model.Model{mustModel(t, "sc"), mustModel(t, "rc11")}}},
		{"execenv", checker.CompareOptions{Params: map[string]string{"SPAWN": "embedder"}, Models: []*model.Model{mustModel(t, "tso")}}},
	} {
		st := compareBoth(t, tc.name, tc.copt, func(pr *checker.Protocol) (*checker.Comparison, dist.Stats, error) {
			return dist.Compare(context.Background(), nc, pr, tc.copt, dist.Options{})
		})
		if st.Redelivered != 0 || st.Duplicates != 0 || st.Jobs == 0 {
			t.Errorf("%s: %s", tc.name, st)
		}
	}
}

// TestProtocolFile sends a protocol file's text with its jobs: the
// workers need no access to it.
func TestProtocolFile(t *testing.T) {
	s := startServer(t)
	startWorkers(t, s.URL(), 1)
	nc, err := dist.Dial(s.URL(), dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	pr, err := checker.Parse("/nowhere/sb.oc", `protocol sb
variant relaxed ORD=rlx default
variant seq-cst ORD=sc
param ORD = rlx
shared x = 0
shared y = 0
property sb
thread a {
  store(x, 1, ORD)
  r = load(y, ORD)
}
thread b {
  store(y, 1, ORD)
  r = load(x, ORD)
}
final sb: a.r == 1 || b.r == 1
`)
	if err != nil {
		t.Fatal(err)
	}
	local, err := pr.Compare(checker.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var last dist.Progress
	remote, _, err := dist.Compare(context.Background(), nc, pr, checker.CompareOptions{}, dist.Options{Progress: func(p dist.Progress) {
		if p.Done < last.Done || p.Running < 0 || p.Queued < 0 {
			t.Errorf("progress went from %+v to %+v", last, p)
		}
		last = p
	}})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := rendered(t, local), rendered(t, remote); a != b {
		t.Errorf("the distributed comparison differs:\n%s\n---\n%s", a, b)
	}
	if cells := len(local.Cases) * len(local.Models); last.Done != cells || last.Total != cells {
		t.Errorf("the last progress is %+v, want all %d cells done", last, cells)
	}
}

// TestWorkerKilled kills a worker process (SIGKILL) while it checks a
// cell: its job goes to the other worker once its acknowledgement is
// overdue, and the comparison is the same as one process's. A worker
// started late joins and gets work.
func TestWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	s := startServer(t)
	start := func(name string) (*exec.Cmd, *bufio.Scanner) { return startProcess(t, s.URL(), name) }
	victim, lines := start("victim")
	killed := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if strings.Contains(lines.Text(), ": start ") {
				victim.Process.Kill()
				killed <- lines.Text()
				return
			}
		}
		close(killed)
	}()
	nc, err := dist.Dial(s.URL(), dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	copt := checker.CompareOptions{Params: map[string]string{"N": "3"}, Models: []*model.Model{mustModel(t, "rc11-consume")}}
	st := compareBoth(t, "dlsym", copt, func(pr *checker.Protocol) (*checker.Comparison, dist.Stats, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		go func() {
			// The survivor starts once the victim is dead: it joins late.
			if line, ok := <-killed; ok {
				t.Logf("killed during %q", line)
				start("survivor")
			}
		}()
		return dist.Compare(ctx, nc, pr, copt, dist.Options{AckWait: time.Second})
	})
	if st.Redelivered < 1 || len(st.Workers) != 1 || st.Workers[0] != "survivor" {
		t.Errorf("the victim's job was not redelivered to the survivor: %s %v", st, st.Workers)
	}
}

// startProcess starts a worker process (this test binary, which TestMain
// makes one) serving url, until the test ends; its log lines can be read
// from the scanner.
func startProcess(t *testing.T, url, name string) (*exec.Cmd, *bufio.Scanner) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ORDERCHECK_TEST_WORKER="+url, "ORDERCHECK_TEST_WORKER_NAME="+name)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

func mustModel(t testing.TB, name string) *model.Model {
	m, err := model.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
