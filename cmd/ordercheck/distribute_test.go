package main

import (
	"context"
	"os"
	"regexp"
	"sync"
	"testing"

	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/protocols"
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
		if err := dist.Work(ctx, nc, dist.WorkerOptions{Catalogue: protocols.Lookup, Name: "in-test"}); err != nil {
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

// TestExploreDistributed runs explore --procs 2 as a user would: the JSON
// is one process's, and stderr says how the search was split.
func TestExploreDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	t.Setenv("ORDERCHECK_TEST_MAIN", "1")
	args := []string{"explore", "dlsym", "--variant", "unordered", "--model", "tso", "--param", "N=3", "--json"}
	wantCode, want, _ := runCLI(args...)
	code, out, errText := runCLI(append(args, "--procs", "2")...)
	if code != wantCode || seconds.ReplaceAllString(out, `"seconds": 0`) != seconds.ReplaceAllString(want, `"seconds": 0`) {
		t.Errorf("exit %d (want %d), the JSON differs from one process's:\n%s\nstderr: %s", code, wantCode, out, errText)
	}
	if !regexp.MustCompile(`distributed: 2 partitions, \d+ levels`).MatchString(errText) {
		t.Errorf("stderr lacks the distribution's counts: %q", errText)
	}
}

// TestTestDistributed runs ordercheck test --procs 2 on a passing file
// and a flipped copy of it: the JSON, failing cell and counterexample
// included, is what one process prints, and so is the exit status.
func TestTestDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	t.Setenv("ORDERCHECK_TEST_MAIN", "1")
	args := []string{"test", "--json", "testdata/test/mp.oc", flipped(t, t.TempDir())}
	wantCode, want, _ := runCLI(args...)
	code, out, errText := runCLI(append(args, "--procs", "2")...)
	if code != wantCode || wantCode != 1 || seconds.ReplaceAllString(out, `"seconds": 0`) != seconds.ReplaceAllString(want, `"seconds": 0`) {
		t.Errorf("exit %d (want %d), the JSON differs from one process's:\n%s\n---\n%s\nstderr: %s", code, wantCode, out, want, errText)
	}
	if !regexp.MustCompile(`distributed: 24 jobs on [12] workers`).MatchString(errText) {
		t.Errorf("stderr lacks the distribution's counts: %q", errText)
	}
}

func TestDistributedUsage(t *testing.T) {
	runCases(t, []cliCase{
		{"unencrypted to another machine", []string{"compare", "dlsym", "--cluster", "nats://10.1.2.3:4222"}, 2, "", "is not loopback: jobs would cross the network unencrypted; use tls://10.1.2.3:4222"},
		{"not a URL", []string{"compare", "dlsym", "--cluster", "somewhere"}, 2, "", `"somewhere" is not a NATS address`},
		{"both", []string{"compare", "dlsym", "--cluster", "nats://127.0.0.1:1", "--procs", "2"}, 2, "", "--cluster (or --context) and --procs exclude each other"},
		{"negative procs", []string{"compare", "dlsym", "--procs", "-1"}, 2, "", "--procs -1"},
		{"worker without a cluster", []string{"worker"}, 2, "", "worker needs --cluster URL"},
		{"context and procs", []string{"compare", "dlsym", "--context", "local", "--procs", "2"}, 2, "", "--cluster (or --context) and --procs exclude each other"},
		{"no such context", []string{"worker", "--context", "/nowhere/ctx.json"}, 2, "", `NATS context "/nowhere/ctx.json"`},
		{"explore on a cluster, no partitions", []string{"explore", "dlsym", "--cluster", "nats://127.0.0.1:1"}, 2, "", "--cluster needs --parts P"},
		{"partitions without workers", []string{"explore", "dlsym", "--parts", "2"}, 2, "", "--parts splits a search among workers: give --procs or --cluster too"},
		{"negative partitions", []string{"explore", "dlsym", "--procs", "2", "--parts", "-1"}, 2, "", "--parts -1"},
		{"explore, both", []string{"explore", "dlsym", "--cluster", "nats://127.0.0.1:1", "--parts", "2", "--procs", "2"}, 2, "", "--cluster (or --context) and --procs exclude each other"},
		{"worker, no server", []string{"worker", "--cluster", "nats://127.0.0.1:1"}, 2, "", "cannot reach NATS at nats://127.0.0.1:1"},
	})
}
