package main

import (
	"context"
	"os"
	"regexp"
	"sync"
	"testing"

	"github.com/ordercheck/ordercheck/checker/dist"
)

// TestMain makes the test binary the ordercheck command when a test starts
// it as one (compare --procs starts workers of its own executable).
func TestMain(m *testing.M) {
	if os.Getenv("ORDERCHECK_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

var seconds = regexp.MustCompile(`"seconds": [0-9.e+-]+`)

// TestCompareDistributed checks compare through worker processes
// (--procs) and through a cluster's workers (--cluster) against compare
// in one process: the same JSON, timings aside, and the same exit status.
func TestCompareDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	t.Setenv("ORDERCHECK_TEST_MAIN", "1")
	wantCode, want, _ := runCLI("compare", "dlsym", "--format", "json")
	want = seconds.ReplaceAllString(want, `"seconds": 0`)
	srv, err := dist.StartServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, err := dist.Dial(srv.URL(), dist.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := dist.Work(ctx, nc, dist.WorkerOptions{Name: "in-test"}); err != nil {
			t.Error(err)
		}
	}()
	defer func() { cancel(); wg.Wait() }()
	for _, args := range [][]string{
		{"compare", "dlsym", "--format", "json", "--procs", "2"},
		{"compare", "dlsym", "--format", "json", "--cluster", srv.URL()},
	} {
		code, out, errText := runCLI(args...)
		if code != wantCode || seconds.ReplaceAllString(out, `"seconds": 0`) != want {
			t.Errorf("%v: exit %d (want %d), the JSON differs from one process's:\n%s\nstderr: %s", args, code, wantCode, out, errText)
		}
		if !regexp.MustCompile(`distributed: 48 jobs on [12] workers, 0 redelivered`).MatchString(errText) {
			t.Errorf("%v: stderr lacks the distribution's counts: %q (stdout %d bytes)", args, errText, len(out))
		}
	}
}

func TestDistributedUsage(t *testing.T) {
	runCases(t, []cliCase{
		{"unencrypted to another machine", []string{"compare", "dlsym", "--cluster", "nats://10.1.2.3:4222"}, 2, "", "is not loopback: jobs would cross the network unencrypted; use tls://10.1.2.3:4222"},
		{"not a URL", []string{"compare", "dlsym", "--cluster", "somewhere"}, 2, "", `"somewhere" is not a NATS address`},
		{"both", []string{"compare", "dlsym", "--cluster", "nats://127.0.0.1:1", "--procs", "2"}, 2, "", "--cluster and --procs exclude each other"},
		{"negative procs", []string{"compare", "dlsym", "--procs", "-1"}, 2, "", "--procs -1"},
		{"worker without a cluster", []string{"worker"}, 2, "", "worker needs --cluster URL"},
		{"worker, no server", []string{"worker", "--cluster", "nats://127.0.0.1:1"}, 2, "", "cannot reach NATS at nats://127.0.0.1:1"},
	})
}
