package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/protocols"
)

// cluster holds the flags that send a command's work to worker processes
// through NATS JetStream (docs/distributed.md).
type cluster struct {
	url, creds, context string
	procs, parts        int
	insecure            bool
}

func (c *cluster) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.url, "cluster", "", "send the work (each cell, or the state search's partitions) to the workers of the NATS server at this URL (nats://HOST:PORT on loopback, tls://HOST:PORT elsewhere), which ordercheck worker serves")
	cmd.Flags().IntVar(&c.procs, "procs", 0, "do the work on this many worker processes of this machine, through a NATS server embedded in this one (0: in this process)")
	c.addConn(cmd)
}

// addParts adds the flag that splits a state search into partitions.
func (c *cluster) addParts(cmd *cobra.Command) {
	cmd.Flags().IntVar(&c.parts, "parts", 0, "split the state search into this many partitions, each held by a worker's job slot (default: one per --procs process; required with --cluster)")
}

// addConn adds the flags that say how to reach a cluster.
func (c *cluster) addConn(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.creds, "creds", "", "a NATS credentials file to connect with")
	cmd.Flags().StringVar(&c.context, "context", "", "a NATS context (the nats command's saved settings: URL, credentials, TLS files) by name or file; its URL serves when --cluster gives none")
	cmd.Flags().BoolVar(&c.insecure, "insecure", false, "allow a plain nats:// URL that is not loopback (jobs cross the network unencrypted)")
}

// runner returns where cells are checked: on workers when the flags ask
// for them (what is a progress line's word for the cells, "" for none),
// else on jobs goroutines of this process. finish reports what the
// workers took and lets the cluster go.
func (c *cluster) runner(name, what string, jobs int, stderr io.Writer) (r checker.Runner, finish func(), err error) {
	nc, release, err := c.connect(name)
	if err != nil || nc == nil {
		return checker.Local{Jobs: jobs}, func() {}, err
	}
	dr := &dist.Runner{Conn: nc}
	if what != "" {
		dr.Options.Progress = queueProgress(what)
	}
	return dr, func() {
		clearProgress()
		release()
		fmt.Fprintf(stderr, "distributed: %s\n", dr.Stats())
	}, nil
}

// queueProgress returns a progress line of jobs (what they are, done) and
// of the job queue.
func queueProgress(what string) func(dist.Progress) {
	return func(p dist.Progress) {
		fmt.Fprintf(os.Stderr, "\r\033[K%d of %d %s; the queue: %d running, %d waiting", p.Done, p.Total, what, p.Running, p.Queued)
	}
}

// explore sets opt.Cluster when the flags ask for workers: the state
// searches of checks of in then go to parts partitions (--parts, else
// one per --procs process). The function it returns reports what the
// searches took and lets the cluster go.
func (c *cluster) explore(ctx context.Context, in *checker.Instance, opt *explore.Options, stderr io.Writer) (func(), error) {
	parts := c.parts
	switch {
	case parts < 0:
		return nil, usageError(fmt.Errorf("--parts %d: want a number of partitions, at least 1", parts))
	case parts > 0 && c.url == "" && c.context == "" && c.procs == 0:
		return nil, usageError(errors.New("--parts splits a search among workers: give --procs or --cluster too"))
	case parts == 0 && (c.url != "" || c.context != ""):
		return nil, usageError(errors.New("--cluster needs --parts P: the partitions of the search, one per job slot of the workers"))
	case parts == 0:
		parts = c.procs
	}
	nc, done, err := c.connect("ordercheck explore")
	if err != nil || nc == nil {
		return func() {}, err
	}
	if opt.MaxExecutions > 0 || opt.MaxGraphs > 0 {
		fmt.Fprintln(stderr, "distributed: a search bounded by a count stays in this process, where the count's cut is the same from run to run")
	}
	dopt := dist.Options{Log: stderr}
	if opt.Progress != nil {
		dopt.Progress = queueProgress("subtrees explored")
	}
	cl, err := dist.NewCluster(ctx, nc, in, parts, dopt)
	if err != nil {
		done()
		return nil, err
	}
	opt.Cluster = cl
	if opt.Progress != nil {
		opt.Progress = func(s explore.Stats) {
			st := cl.Stats()
			fmt.Fprintf(os.Stderr, "\r\033[K%d states, level %d, %s · %s", s.States, st.Levels, s.Elapsed.Round(time.Second), st.Workers())
		}
	}
	return func() {
		switch st := cl.Stats(); {
		case st.Searches > 0:
			fmt.Fprintf(stderr, "distributed: %d partitions, %s\n", parts, st)
		case st.Subtrees > 0:
			fmt.Fprintf(stderr, "distributed: %s\n", st)
		}
		done()
	}, nil
}

// connect reaches the cluster the flags name, starting an embedded server
// and worker processes for --procs; it returns a nil connection when the
// flags ask for none. done closes what it opened.
func (c *cluster) connect(name string) (nc *nats.Conn, done func(), err error) {
	remote := c.url != "" || c.context != ""
	switch {
	case remote && c.procs > 0:
		return nil, nil, usageError(errors.New("--cluster (or --context) and --procs exclude each other: --procs starts a cluster of its own"))
	case c.procs < 0:
		return nil, nil, usageError(fmt.Errorf("--procs %d: want a number of processes, at least 1", c.procs))
	case !remote && c.procs == 0:
		return nil, nil, nil
	}
	dopt := dist.DialOptions{Creds: c.creds, Context: c.context, Insecure: c.insecure, Name: name}
	if c.procs > 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, err
		}
		return dist.Procs(c.procs, func(url, name string) *exec.Cmd {
			return exec.Command(exe, "worker", "--cluster", url, "--name", name, "--quiet", "--with-parent")
		}, dopt)
	}
	nc, err = dist.Dial(c.url, dopt)
	if err != nil {
		return nil, nil, usageError(err)
	}
	return nc, nc.Close, nil
}

func newWorkerCmd() *cobra.Command {
	var c cluster
	var jobs int
	var name string
	var quiet, withParent bool
	cmd := &cobra.Command{
		Use:   "worker --cluster URL",
		Short: "Check the cells and partitions other ordercheck processes send through NATS",
		Long: `worker serves the jobs that compare, test and explore send with --cluster
through the NATS server at URL (with JetStream): it pulls a cell, checks it
and sends its report back, or holds a partition of a state search until the
search ends, until interrupted or until the server goes away. Start as many
as the machines have cores to spare; a worker that dies has its job
redelivered to another. Each job line goes to stderr (--quiet: none).

Exit status: 0 when interrupted or when the server went away, 2 bad usage
or no server at URL.`,
		Example: `  ordercheck worker --cluster nats://127.0.0.1:4222
  ordercheck worker --cluster tls://nats.example.internal:4222 --creds ordercheck.creds --jobs 4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.url == "" && c.context == "" {
				return usageError(errors.New("worker needs --cluster URL (or --context): the NATS server to take jobs from"))
			}
			if jobs < 1 {
				return usageError(fmt.Errorf("--jobs %d: want at least 1", jobs))
			}
			nc, err := dist.Dial(c.url, dist.DialOptions{Creds: c.creds, Context: c.context, Insecure: c.insecure, Name: "ordercheck worker"})
			if err != nil {
				return usageError(err)
			}
			defer nc.Close()
			opt := dist.WorkerOptions{Catalogue: protocols.Lookup, Name: name, Jobs: jobs}
			if !quiet {
				opt.Log = cmd.ErrOrStderr()
			}
			ctx := cmd.Context()
			if withParent {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				go func() {
					io.Copy(io.Discard, cmd.InOrStdin()) // until the parent's end closes
					cancel()
					// Its server was the parent's: nothing a job still
					// holds can be reported. A search busy between its
					// checks of ctx, or a client retrying the server, must
					// not keep the process alive.
					time.AfterFunc(time.Second, func() { os.Exit(0) })
				}()
			}
			return dist.Work(ctx, nc, opt)
		},
	}
	cmd.Flags().StringVar(&c.url, "cluster", "", "the NATS server to take jobs from (nats://HOST:PORT on loopback, tls://HOST:PORT elsewhere)")
	c.addConn(cmd)
	cmd.Flags().IntVar(&jobs, "jobs", 1, "check this many cells (or hold this many partitions) at once")
	cmd.Flags().StringVar(&name, "name", "", "the worker's name in reports (default: host:pid)")
	cmd.Flags().BoolVar(&quiet, "quiet", false, "print no line per job")
	cmd.Flags().BoolVar(&withParent, "with-parent", false, "stop when standard input closes (the workers --procs starts: they die with their parent)")
	cmd.Flags().MarkHidden("with-parent")
	return cmd
}
