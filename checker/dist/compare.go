package dist

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
)

// Options steer a distributed comparison.
type Options struct {
	// AckWait is how long a job may go unacknowledged before it goes to
	// another worker (default DefaultAckWait). Workers busy with a job
	// say so every third of it, so it bounds the time a dead worker's job
	// waits, not the time a job may take.
	AckWait time.Duration
	// Grace is how long past a job's timeout its coordinator waits for
	// the answer, the worker's report on its way (default DefaultGrace);
	// a cell still unanswered then has no verdict.
	Grace time.Duration
	// Progress, when set, is called after each answer and about once a
	// second while the jobs run: how far the cells (or a check's
	// subtrees) are, and the job queue's depth.
	Progress func(Progress)
	// Log, when set, gets a line when a partitioned search waits long for
	// a partition.
	Log io.Writer
}

// Progress is how far a run of jobs is.
type Progress struct {
	// Done jobs have answered, of Total sent.
	Done, Total int
	// Running jobs are held by workers and Queued ones wait for one, in
	// the whole queue (other runs' jobs too).
	Running, Queued int
}

// jobQueue connects to JetStream through nc and makes the job queue (its
// acknowledgement wait ackWait, or DefaultAckWait), its workers' consumer
// and the results stream, if they are not there.
func jobQueue(ctx context.Context, nc *nats.Conn, ackWait time.Duration) (jetstream.JetStream, error) {
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	jobs, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: jobStream, Subjects: []string{jobSubjects}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage})
	if err != nil {
		return nil, fmt.Errorf("the job queue: %w", err)
	}
	if _, err := jobs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: workers, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: maxDeliveries}); err != nil {
		return nil, fmt.Errorf("the job queue: %w", err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: resultStream, Subjects: []string{resultPrefix + ">"}, Storage: jetstream.MemoryStorage, MaxAge: time.Hour}); err != nil {
		return nil, fmt.Errorf("the result stream: %w", err)
	}
	return js, nil
}

// newJob returns job number cell of a run: in, compiled from its
// protocol with its parameters (the protocol named, or a file's text sent).
func newJob(run string, cell int, in *checker.Instance) job {
	j := job{Run: run, Cell: cell, Params: in.ParamMap(), Variant: in.Variant}
	if pr := in.Protocol; pr.Path == "" {
		j.Name = pr.File.Name
	} else {
		j.Path, j.Source, j.C = pr.Path, pr.Source, pr.C
	}
	return j
}

// Runner checks cells on the workers of the cluster Conn reaches, one
// job per cell: the checker.Runner to set as CompareOptions.Runner or to
// give expect.RunCases. A cell every worker died on ends the run. When
// the options' Context is cancelled, the cells not done yet get the
// reports of checks interrupted at once: no verdict, as in one process.
type Runner struct {
	Conn    *nats.Conn
	Options Options
	stats   Stats
}

// Stats returns what the runs so far took.
func (r *Runner) Stats() Stats { return r.stats }

// Run implements checker.Runner: it sends each cell as a job, bounded by
// copt, and calls got with the index of each cell whose report arrives,
// rebuilt against the cell's instance, or with the error its check met.
func (r *Runner) Run(cells []checker.Cell, copt explore.Options, got func(i int, rep *checker.Report, err error) error) error {
	ctx := copt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	jobs := make([]job, len(cells))
	var deadline time.Time
	if copt.Timeout > 0 {
		// Each cell's check stops at its timeout; a cell no worker took by
		// then (none is up, say) gets no verdict, as a timed-out check.
		deadline = time.Now().Add(copt.Timeout + cmp.Or(r.Options.Grace, DefaultGrace))
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	for i, c := range cells {
		jobs[i] = newJob("", i, c.Instance)
		jobs[i].Model, jobs[i].Options, jobs[i].Deadline = c.Model.Name, copt, deadline
	}
	have := make([]bool, len(cells))
	st, err := runJobs(ctx, r.Conn, jobs, r.Options, func(i int, res *result) error {
		var rep *checker.Report
		var err error
		if res.Err == "" {
			if rep, err = checker.UnmarshalReport(res.Report, cells[i].Instance); err != nil {
				return fmt.Errorf("%w: %v", errRejected, err)
			}
		} else {
			err = fmt.Errorf("%s (on worker %s)", res.Err, res.Worker)
		}
		have[i] = true
		return got(i, rep, err)
	}, func(i int) error { return fmt.Errorf("%s: %w", cells[i].Name(), errDropped) })
	r.stats.add(st)
	if err == nil || ctx.Err() == nil {
		return err
	}
	// Cancelled, or past the deadline: each cell not done is what a check
	// interrupted (timed out) before it began reports, no verdict (checked
	// here, where it stops at once).
	interrupted := copt
	interrupted.Context = ctx
	if !deadline.IsZero() && time.Now().After(deadline) {
		interrupted.Context, interrupted.Timeout = nil, time.Nanosecond
	}
	for i, c := range cells {
		if !have[i] {
			rep, err := c.Instance.Check(c.Model, interrupted)
			if err := got(i, rep, err); err != nil {
				return err
			}
		}
	}
	return nil
}

// DefaultGrace is how long past a job's timeout its coordinator waits
// for the answer by default (Options.Grace).
const DefaultGrace = 5 * time.Second

// errRejected marks a result that is not what its job asked: it is
// logged and set aside, and the job's real result awaited.
var errRejected = errors.New("rejected")

// errDropped says a job went to every worker it could and none finished.
var errDropped = fmt.Errorf("delivered to %d workers, none of which finished it", maxDeliveries)

// runJobs sends jobs as one run (it sets their Run and Cell), with the
// acknowledgement wait and progress opt says, and calls got with each
// job's index and its first result as it arrives; an error of got's ends
// the run, and so does a job every worker died on (dropped says how). The
// run's jobs and results are purged at the end, finished or not.
func runJobs(ctx context.Context, nc *nats.Conn, jobs []job, opt Options, got func(i int, res *result) error, dropped func(i int) error) (Stats, error) {
	var st Stats
	js, err := jobQueue(ctx, nc, opt.AckWait)
	if err != nil {
		return st, err
	}
	queue, err := js.Stream(ctx, jobStream)
	if err != nil {
		return st, err
	}
	results, err := js.Stream(ctx, resultStream)
	if err != nil {
		return st, err
	}
	run := nuid.Next()
	defer beat(nc, run)() // the workers drop the run's jobs once it stops
	defer func() {
		cleanup, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		queue.Purge(cleanup, jetstream.WithPurgeSubject("ordercheck.jobs."+run))
		results.Purge(cleanup, jetstream.WithPurgeSubject(resultPrefix+run))
	}()
	reports, err := results.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{MaxResetAttempts: resetAttempts, FilterSubjects: []string{resultPrefix + run}})
	if err != nil {
		return st, err
	}
	iter, err := reports.Messages()
	if err != nil {
		return st, err
	}
	defer iter.Stop()
	// A job every worker died on is dropped after its last delivery: the
	// server says so, and the run fails rather than waits.
	drops := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+jobStream+"."+workers, drops)
	if err != nil {
		return st, err
	}
	defer sub.Unsubscribe()
	jobOf := map[uint64]int{}
	for i := range jobs {
		j := &jobs[i]
		j.Run, j.Cell = run, i
		data, err := json.Marshal(j)
		if err != nil {
			return st, err
		}
		ack, err := js.Publish(ctx, "ordercheck.jobs."+run, data)
		if err != nil {
			return st, fmt.Errorf("sending job %d: %w", i, err)
		}
		jobOf[ack.Sequence] = i
		st.Jobs++
		st.Bytes += int64(len(data))
	}
	have := make([]bool, len(jobs))
	done := 0
	var told time.Time
	tell := func() {
		if opt.Progress == nil {
			return
		}
		told = time.Now()
		p := Progress{Done: done, Total: len(jobs)}
		if cons, err := queue.Consumer(ctx, workers); err == nil {
			if info, err := cons.Info(ctx); err == nil {
				p.Running, p.Queued = info.NumAckPending, int(info.NumPending)
			}
		}
		opt.Progress(p)
	}
	failures := 0 // reads of the results in a row that failed
	restart := watch(nc, results)
	for done < len(jobs) {
		if time.Since(told) > time.Second {
			tell()
		}
		if err := restart.lost(ctx); err != nil {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case m := <-drops:
			var adv struct {
				StreamSeq uint64 `json:"stream_seq"`
			}
			if json.Unmarshal(m.Data, &adv) == nil {
				if i, ok := jobOf[adv.StreamSeq]; ok {
					return st, dropped(i)
				}
			}
			continue
		default:
		}
		msg, err := iter.Next(jetstream.NextMaxWait(250 * time.Millisecond))
		if errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
			failures = 0
			continue
		}
		if err != nil {
			// The server gone, say: give up after five seconds of failures
			// rather than wait forever.
			if failures++; nc.IsClosed() || failures > 20 {
				return st, fmt.Errorf("reading the results from NATS (%d of %d jobs done): %w", done, len(jobs), err)
			}
			time.Sleep(250 * time.Millisecond)
			continue
		}
		failures = 0
		var res result
		if err := json.Unmarshal(msg.Data(), &res); err != nil || res.Run != run || res.Cell < 0 || res.Cell >= len(jobs) {
			// Not one of this run's results: someone else's message on
			// its subject. Said and set aside.
			logf(opt.Log, "ordercheck: set aside a message on %s that is not a result of this run\n", msg.Subject())
			continue
		}
		st.Bytes += int64(len(msg.Data()))
		if have[res.Cell] {
			st.Duplicates++
			continue
		}
		if err := got(res.Cell, &res); errors.Is(err, errRejected) {
			logf(opt.Log, "ordercheck: set aside a result of cell %d from %.40q: %v\n", res.Cell, res.Worker, err)
			continue
		} else if err != nil {
			return st, err
		}
		have[res.Cell] = true
		done++
		if res.Delivered > 1 {
			st.Redelivered++
		}
		if !slices.Contains(st.Workers, res.Worker) {
			st.Workers = append(st.Workers, res.Worker)
		}
		tell()
	}
	slices.Sort(st.Workers)
	return st, nil
}
