package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
)

// WorkerOptions steer a worker.
type WorkerOptions struct {
	// Name names the worker in reports and logs (default: host:pid).
	Name string
	// Jobs is how many jobs it checks at once (default 1).
	Jobs int
	// Log, when set, gets a line when a job starts and when it ends.
	Log io.Writer
	// Orphaned is how long a worker checking a cell or holding a
	// partition goes on without hearing from its coordinator before it
	// drops the job (default 15 s; a coordinator speaks every second).
	Orphaned time.Duration
	// Catalogue finds the protocols jobs name (package protocols' Lookup);
	// with none, such jobs fail.
	Catalogue checker.Catalogue
}

// Work serves jobs from the cluster nc reaches until ctx is done or the
// connection closes for good (the embedded server's process ended). A
// job it holds when ctx ends goes back to the queue for another worker.
func Work(ctx context.Context, nc *nats.Conn, opt WorkerOptions) error {
	if opt.Name == "" {
		host, _ := os.Hostname()
		opt.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	opt.Jobs = max(opt.Jobs, 1)
	if opt.Orphaned <= 0 {
		opt.Orphaned = deadAfter
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	// The queue exists once a coordinator has sent work: until then, wait.
	var cons jetstream.Consumer
	for {
		if cons, err = js.Consumer(ctx, jobStream, workers); err == nil {
			break
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrConsumerNotFound) && !errors.Is(err, context.DeadlineExceeded) {
			return unlessStopped(ctx, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
		if nc.IsClosed() {
			return nil
		}
	}
	ackWait := DefaultAckWait
	if info, err := cons.Info(ctx); err == nil {
		ackWait = info.Config.AckWait
	}
	var wg sync.WaitGroup
	errs := make(chan error, opt.Jobs)
	for range opt.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- serve(ctx, nc, js, cons, ackWait, opt)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return unlessStopped(ctx, err)
		}
	}
	return nil
}

// serve pulls jobs one at a time and checks them.
func serve(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, cons jetstream.Consumer, ackWait time.Duration, opt WorkerOptions) error {
	for ctx.Err() == nil && !nc.IsClosed() {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if nc.IsClosed() {
				return nil
			}
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for msg := range batch.Messages() {
			if err := handle(ctx, nc, js, msg, ackWait, opt); err != nil {
				return err
			}
		}
	}
	return nil
}

// handle checks one job and publishes its report before acknowledging
// it, saying it is still busy every third of the acknowledgement wait.
func handle(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, msg jetstream.Msg, ackWait time.Duration, opt WorkerOptions) error {
	var j job
	err := json.Unmarshal(msg.Data(), &j)
	if err == nil {
		err = j.validate()
	}
	if err != nil {
		// Someone else's message, or a broken one: refused, said, and the
		// worker goes on.
		logf(opt.Log, "%s: refused a message on %s: not a job: %v\n", opt.Name, msg.Subject(), err)
		msg.TermWithReason("not a job: " + err.Error())
		return nil
	}
	if !j.Deadline.IsZero() && time.Now().After(j.Deadline) {
		logf(opt.Log, "%s: dropped %s cell %d: past its deadline, nobody waits for it\n", opt.Name, j.Run, j.Cell)
		msg.TermWithReason("past its deadline")
		return nil
	}
	if j.Search != nil {
		// A partition's worker hears its coordinator itself (share.Next).
		ctx, stop := abandoned(ctx, nc, nil, 0)
		defer stop()
		return servePart(ctx, nc, js, msg, &j, ackWait, opt)
	}
	// A check whose report nobody can read or waits for stops.
	alive, err := listen(nc, j.Run)
	if err != nil {
		return unlessStopped(ctx, err)
	}
	defer alive.close()
	parent := ctx
	ctx, stop := abandoned(ctx, nc, alive, opt.Orphaned)
	defer stop()
	md, err := msg.Metadata()
	if err != nil {
		return err
	}
	logf(opt.Log, "%s: start %s cell %d (%s under %s, delivery %d)\n", opt.Name, j.Run, j.Cell, j.Variant, j.Model, md.NumDelivered)
	stopBusy := keepBusy(msg, ackWait)
	data, checkErr := check(ctx, &j, opt.Catalogue)
	stopBusy()
	switch {
	case parent.Err() != nil || nc.IsClosed():
		// Stopped, not finished: the job is another worker's to check.
		msg.Nak()
		return nil
	case ctx.Err() != nil:
		logf(opt.Log, "%s: dropped %s cell %d: its coordinator is gone\n", opt.Name, j.Run, j.Cell)
		acked(msg.TermWithReason("its coordinator is gone"), &j, opt)
		return nil
	}
	res := result{Run: j.Run, Cell: j.Cell, Report: data, Worker: opt.Name, Delivered: md.NumDelivered}
	if checkErr != nil {
		res.Report, res.Err = nil, checkErr.Error()
	}
	payload, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if _, err := js.Publish(ctx, resultPrefix+j.Run, payload); err != nil {
		// Too large for the server, say: report that, not nothing.
		res.Report, res.Err = nil, fmt.Sprintf("the report could not be sent: %v", err)
		if payload, err = json.Marshal(res); err != nil {
			return err
		}
		if _, err := js.Publish(ctx, resultPrefix+j.Run, payload); err != nil {
			// The server restarted, or went away: the run this report
			// belongs to is gone with its streams. Said, and on.
			logf(opt.Log, "%s: the report of %s cell %d is lost: %v\n", opt.Name, j.Run, j.Cell, Redact(err.Error()))
			return nil
		}
	}
	if acked(msg.DoubleAck(ctx), &j, opt) {
		logf(opt.Log, "%s: done %s cell %d\n", opt.Name, j.Run, j.Cell)
	}
	return nil
}

// acked says whether a job's acknowledgement (err) went through, and
// logs it when not: the job is gone with a restarted server, or will be
// delivered again. The worker goes on either way.
func acked(err error, j *job, opt WorkerOptions) bool {
	if err != nil {
		logf(opt.Log, "%s: %s job %d not acknowledged (it may be checked again): %v\n", opt.Name, j.Run, j.Cell, Redact(err.Error()))
	}
	return err == nil
}

// abandoned is ctx, cancelled too once nc is closed (the server gone for
// good, its reconnection attempts spent) or once the coordinator alive
// listens to (when not nil) has been silent for longer than orphaned.
func abandoned(ctx context.Context, nc *nats.Conn, alive *listener, orphaned time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if nc.IsClosed() || alive != nil && alive.silent(orphaned) {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}

// unlessStopped returns err, or nil when the worker was stopped (ctx done)
// meanwhile: an error of a stopping worker is the stop's (a job it was
// reporting goes to another worker, or to this one again, as an
// unfinished one does).
func unlessStopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// keepBusy tells the server every third of the acknowledgement wait that
// the job msg is still being worked on, until the function it returns is
// called (once or more).
func keepBusy(msg jetstream.Msg, ackWait time.Duration) (stop func()) {
	busy := time.NewTicker(max(ackWait/3, 10*time.Millisecond))
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-busy.C:
				msg.InProgress()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); busy.Stop() }) }
}

// check compiles the job's cell and checks it.
func check(ctx context.Context, j *job, cat checker.Catalogue) ([]byte, error) {
	pr, err := j.protocol(cat)
	if err != nil {
		return nil, err
	}
	in, err := pr.Instance(j.Variant, j.Params)
	if err != nil {
		return nil, err
	}
	if s := j.Subtree; s != nil {
		return checker.ServeSubtree(ctx, in.Prog, pr.SeqSpec(), s.Job, s.Path)
	}
	m, err := model.Lookup(j.Model)
	if err != nil {
		return nil, err
	}
	o := j.Options
	o.Context = ctx
	rep, err := in.Check(m, o)
	if err != nil {
		return nil, err
	}
	return checker.MarshalReport(rep)
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
