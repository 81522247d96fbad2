package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/ordercheck/ordercheck/checker/dist"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/protocols"
)

// cluster holds the flags that send a command's work to worker processes
// through NATS JetStream (docs/distributed.md).
type cluster struct{ dist.Setup }

func (c *cluster) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.URL, "cluster", "", "send the work (each cell, or the state search's partitions) to the workers of the NATS server at this URL (nats://HOST:PORT on loopback, tls://HOST:PORT elsewhere), which ordercheck worker serves")
	cmd.Flags().IntVar(&c.Procs, "procs", 0, "do the work on this many worker processes of this machine, through a NATS server embedded in this one (0: in this process)")
	c.addConn(cmd)
}

// addParts adds the flag that splits a state search into partitions.
func (c *cluster) addParts(cmd *cobra.Command) {
	cmd.Flags().IntVar(&c.Parts, "parts", 0, "split the state search into this many partitions, each held by a worker's job slot (default: one per --procs process; required with --cluster)")
}

// addConn adds the flags that say how to reach a cluster.
func (c *cluster) addConn(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.Creds, "creds", "", "a NATS credentials file to connect with")
	cmd.Flags().StringVar(&c.Context, "context", "", "a NATS context (the nats command's saved settings: URL, credentials, TLS files) by name or file; its URL serves when --cluster gives none")
	cmd.Flags().BoolVar(&c.Insecure, "insecure", false, "allow a plain nats:// URL that is not loopback (jobs cross the network unencrypted)")
}

// setup returns the flags' cluster for command name, its notes on cmd's
// standard error and its progress on line; its worker processes are this
// executable's worker command (dist.OrdercheckWorker).
func (c *cluster) setup(cmd *cobra.Command, name string, line *render.Progress) dist.Setup {
	s := c.Setup
	s.Name, s.Log, s.Line = name, cmd.ErrOrStderr(), line
	return s
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
			opt := dist.WorkerOptions{Catalogue: protocols.Lookup, Name: name, Jobs: jobs}
			if !quiet {
				opt.Log = cmd.ErrOrStderr()
			}
			var parent io.Reader
			if withParent {
				parent = cmd.InOrStdin()
			}
			c.Name = "ordercheck worker"
			return c.Serve(cmd.Context(), parent, opt)
		},
	}
	cmd.Flags().StringVar(&c.URL, "cluster", "", "the NATS server to take jobs from (nats://HOST:PORT on loopback, tls://HOST:PORT elsewhere)")
	c.addConn(cmd)
	cmd.Flags().IntVar(&jobs, "jobs", 1, "check this many cells (or hold this many partitions) at once")
	cmd.Flags().StringVar(&name, "name", "", "the worker's name in reports (default: host:pid)")
	cmd.Flags().BoolVar(&quiet, "quiet", false, "print no line per job")
	cmd.Flags().BoolVar(&withParent, "with-parent", false, "stop when standard input closes (the workers --procs starts: they die with their parent)")
	cmd.Flags().MarkHidden("with-parent")
	return cmd
}
