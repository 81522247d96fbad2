package dist

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/expect"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// Setup says where a command's work goes: to the workers of a cluster the
// user runs (URL or Context), to Procs worker processes of this machine
// around an embedded server, or, with neither, nowhere but this process.
// The fields that are flags of the ordercheck command say which, and the
// errors name those flags.
type Setup struct {
	URL, Creds, Context string // --cluster, --creds, --context
	Insecure            bool   // --insecure
	Procs               int    // --procs
	// Parts splits a state search into partitions (--parts; default one
	// per Procs process; required with URL or Context).
	Parts int
	// WorkerArgs returns the arguments that make this process's
	// executable a worker of the server at url, named name (Procs);
	// nil: ordercheck's, the worker command (OrdercheckWorker).
	WorkerArgs func(url, name string) []string
	// Name names the connection in the server's monitoring.
	Name string
	// Log, when set, gets what the work took when it ends, and the notes
	// of a partitioned search.
	Log io.Writer
	// Line, when set, shows how far the work is.
	Line Line
}

// Line is a progress line (render.Progress): Show replaces its text,
// Clear erases it.
type Line interface {
	Show(text string)
	Clear()
}

// Runner returns where cells are checked: on the workers when the setup
// names some (showing, when what is not "", how many of what are done on
// s.Line), else on jobs goroutines of this process. finish reports on
// s.Log what the workers took and lets the cluster go.
func (s Setup) Runner(jobs int, what string) (r checker.Runner, finish func(), err error) {
	nc, release, err := s.connect()
	if err != nil || nc == nil {
		return checker.Local{Jobs: jobs}, func() {}, err
	}
	s.Log = cmp.Or(s.Log, io.Discard)
	dr := &Runner{Conn: nc}
	if what != "" {
		dr.Options.Progress = s.queue(what)
	}
	return dr, func() {
		s.clear()
		release()
		fmt.Fprintf(s.Log, "distributed: %s\n", dr.Stats())
	}, nil
}

// Compare compares the variants of pr under the models (Protocol.Compare)
// on the Runner the setup gives: on its workers, their queue on s.Line
// in place of opt.Progress, else in this process.
func (s Setup) Compare(pr *checker.Protocol, opt checker.CompareOptions) (*checker.Comparison, error) {
	what := ""
	if opt.Progress != nil {
		what = "cells checked"
	}
	r, finish, err := s.Runner(1, what)
	if err != nil {
		return nil, err
	}
	defer finish()
	if _, remote := r.(*Runner); remote {
		opt.Progress = nil // the queue's progress line says it
	}
	opt.Runner = r
	return pr.Compare(opt)
}

// RunTests checks the expect clauses of the protocols refs names
// (expect.Run) on the Runner the setup gives: its workers, else
// jobs goroutines of this process.
func (s Setup) RunTests(refs []string, load func(ref string) (*checker.Protocol, error), jobs int, opt expect.Options) ([]*expect.Suite, error) {
	r, finish, err := s.Runner(jobs, "")
	if err != nil {
		return nil, err
	}
	defer finish()
	opt.Runner = r
	return expect.Run(refs, load, opt)
}

// Check checks in under m (Instance.Check), its state searches split
// among the workers the setup names (Explore); the progress line is
// cleared before what the workers took is said.
func (s Setup) Check(in *checker.Instance, m *model.Model, opt explore.Options) (*checker.Report, error) {
	finish, err := s.Explore(cmp.Or(opt.Context, context.Background()), in, &opt)
	if err != nil {
		return nil, err
	}
	rep, err := in.Check(m, opt)
	s.clear()
	finish()
	return rep, err
}

// Explore sets opt.Cluster when the setup names workers: the state
// searches of checks of in then go to s.Parts partitions. When opt has a
// progress line, the partitions' progress replaces it on s.Line. finish
// reports on s.Log what the searches took and lets the cluster go.
func (s Setup) Explore(ctx context.Context, in *checker.Instance, opt *explore.Options) (finish func(), err error) {
	parts := s.Parts
	switch {
	case parts < 0:
		return nil, fmt.Errorf("--parts %d: want a number of partitions, at least 1", parts)
	case parts > 0 && s.URL == "" && s.Context == "" && s.Procs == 0:
		return nil, errors.New("--parts splits a search among workers: give --procs or --cluster too")
	case parts == 0 && (s.URL != "" || s.Context != ""):
		return nil, errors.New("--cluster needs --parts P: the partitions of the search, one per job slot of the workers")
	case parts == 0:
		parts = s.Procs
	}
	nc, done, err := s.connect()
	if err != nil || nc == nil {
		return func() {}, err
	}
	s.Log = cmp.Or(s.Log, io.Discard)
	if opt.MaxExecutions > 0 || opt.MaxGraphs > 0 {
		fmt.Fprintln(s.Log, "distributed: a search bounded by a count stays in this process, where the count's cut is the same from run to run")
	}
	dopt := Options{Log: s.Log}
	if opt.Progress != nil {
		dopt.Progress = s.queue("subtrees explored")
	}
	cl, err := NewCluster(ctx, nc, in, parts, dopt)
	if err != nil {
		done()
		return nil, err
	}
	opt.Cluster = cl
	if opt.Progress != nil && s.Line != nil {
		opt.Progress = func(st explore.Stats) {
			cs := cl.Stats()
			s.Line.Show(fmt.Sprintf("%d states, level %d, %s · %s", st.States, cs.Levels, st.Elapsed.Round(time.Second), cs.Workers()))
		}
	}
	return func() {
		switch st := cl.Stats(); {
		case st.Searches > 0:
			fmt.Fprintf(s.Log, "distributed: %d partitions, %s\n", parts, st)
		case st.Subtrees > 0:
			fmt.Fprintf(s.Log, "distributed: %s\n", st)
		}
		done()
	}, nil
}

// queue returns a progress line of jobs (what they are, done) and of the
// job queue.
func (s Setup) queue(what string) func(Progress) {
	return func(p Progress) {
		if s.Line != nil {
			s.Line.Show(fmt.Sprintf("%d of %d %s; the queue: %d running, %d waiting", p.Done, p.Total, what, p.Running, p.Queued))
		}
	}
}

// clear erases the progress line.
func (s Setup) clear() {
	if s.Line != nil {
		s.Line.Clear()
	}
}

// connect reaches the cluster the setup names, starting an embedded
// server and worker processes for Procs; it returns a nil connection when
// it names none. done closes what it opened.
func (s Setup) connect() (nc *nats.Conn, done func(), err error) {
	remote := s.URL != "" || s.Context != ""
	switch {
	case remote && s.Procs > 0:
		return nil, nil, errors.New("--cluster (or --context) and --procs exclude each other: --procs starts a cluster of its own")
	case s.Procs < 0:
		return nil, nil, fmt.Errorf("--procs %d: want a number of processes, at least 1", s.Procs)
	case !remote && s.Procs == 0:
		return nil, nil, nil
	}
	dopt := s.dialOptions()
	if s.Procs > 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, err
		}
		args := s.WorkerArgs
		if args == nil {
			args = OrdercheckWorker
		}
		return Procs(s.Procs, func(url, name string) *exec.Cmd { return exec.Command(exe, args(url, name)...) }, dopt)
	}
	nc, err = Dial(s.URL, dopt)
	if err != nil {
		return nil, nil, err
	}
	return nc, nc.Close, nil
}

// OrdercheckWorker returns the arguments of the ordercheck command that
// make it a worker of the server at url, named name, that dies with the
// process that started it (Procs): the default of Setup.WorkerArgs.
func OrdercheckWorker(url, name string) []string {
	return []string{"worker", "--cluster", url, "--name", name, "--quiet", "--with-parent"}
}

// dialOptions says how to reach the cluster the setup names.
func (s Setup) dialOptions() DialOptions {
	return DialOptions{Creds: s.Creds, Context: s.Context, Insecure: s.Insecure, Name: s.Name}
}

// Serve connects to the cluster the setup names (URL or Context: one is
// required) and serves its jobs (Work; opt.Jobs at least 1) until ctx
// ends or the server goes away. With parent set, the worker is one that
// Procs started: it stops when reading parent (its standard input, whose
// other end the parent holds) ends, and Serve returns at most a second
// later whatever its jobs do — their server was the parent's, so nothing
// a job still holds can be reported, and a search busy between its checks
// of ctx, or a client retrying the server, must not keep the worker
// alive (the command exits when Serve returns).
func (s Setup) Serve(ctx context.Context, parent io.Reader, opt WorkerOptions) error {
	if s.URL == "" && s.Context == "" {
		return errors.New("worker needs --cluster URL (or --context): the NATS server to take jobs from")
	}
	if opt.Jobs < 1 {
		return fmt.Errorf("--jobs %d: want at least 1", opt.Jobs)
	}
	nc, err := Dial(s.URL, s.dialOptions())
	if err != nil {
		return err
	}
	defer nc.Close()
	if parent == nil {
		return Work(ctx, nc, opt)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Work(ctx, nc, opt) }()
	gone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, parent) // until the parent's end closes
		close(gone)
	}()
	select {
	case err := <-done:
		return err
	case <-gone:
	}
	cancel()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Second):
		return nil
	}
}
