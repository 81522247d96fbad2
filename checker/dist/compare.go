package dist

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/ordercheck/ordercheck/checker"
)

// Options steer a distributed comparison.
type Options struct {
	// AckWait is how long a job may go unacknowledged before it goes to
	// another worker (default DefaultAckWait). Workers busy with a job
	// say so every third of it, so it bounds the time a dead worker's job
	// waits, not the time a job may take.
	AckWait time.Duration
	// Progress, when set, is called after each report with the cells
	// done and their number.
	Progress func(done, total int)
	// Log, when set, gets a line when a partitioned search waits long for
	// a partition.
	Log io.Writer
}

// jobQueue makes the job queue, its workers' consumer and the results
// stream, if they are not there.
func jobQueue(ctx context.Context, js jetstream.JetStream, ackWait time.Duration) error {
	jobs, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: jobStream, Subjects: []string{jobSubjects}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.MemoryStorage})
	if err != nil {
		return fmt.Errorf("the job queue: %w", err)
	}
	if _, err := jobs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: workers, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: maxDeliveries}); err != nil {
		return fmt.Errorf("the job queue: %w", err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: resultStream, Subjects: []string{resultPrefix + ">"}, Storage: jetstream.MemoryStorage, MaxAge: time.Hour}); err != nil {
		return fmt.Errorf("the result stream: %w", err)
	}
	return nil
}

// Compare checks the comparison opt asks for of pr on the workers the
// cluster nc reaches, one job per cell, and assembles it: the same
// comparison pr.Compare(opt) returns in this process.
func Compare(ctx context.Context, nc *nats.Conn, pr *checker.Protocol, copt checker.CompareOptions, opt Options) (*checker.Comparison, Stats, error) {
	var st Stats
	c, err := pr.Cells(copt)
	if err != nil {
		return nil, st, err
	}
	if opt.AckWait <= 0 {
		opt.AckWait = DefaultAckWait
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, st, err
	}
	if err := jobQueue(ctx, js, opt.AckWait); err != nil {
		return nil, st, err
	}
	jobs, err := js.Stream(ctx, jobStream)
	if err != nil {
		return nil, st, err
	}
	results, err := js.Stream(ctx, resultStream)
	if err != nil {
		return nil, st, err
	}
	run := nuid.Next()
	defer func() {
		// Leave nothing of this run behind, finished or not.
		cleanup, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		jobs.Purge(cleanup, jetstream.WithPurgeSubject("ordercheck.jobs."+run))
		results.Purge(cleanup, jetstream.WithPurgeSubject(resultPrefix+run))
	}()
	reports, err := results.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultPrefix + run}})
	if err != nil {
		return nil, st, err
	}
	// A job every worker died on is dropped after its last delivery: the
	// server says so, and the comparison fails rather than waits.
	dropped := make(chan *nats.Msg, 16)
	sub, err := nc.ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+jobStream+"."+workers, dropped)
	if err != nil {
		return nil, st, err
	}
	defer sub.Unsubscribe()
	cellOf := map[uint64]int{}
	total := len(c.Cases) * len(c.Models)
	for i, in := range c.Cases {
		for k, m := range c.Models {
			j := job{Run: run, Cell: i*len(c.Models) + k, Params: copt.Params, Variant: in.Variant, Model: m.Name, Options: copt.Options}
			if pr.Path == "" {
				j.Name = pr.Name
			} else {
				j.Path, j.Source = pr.Path, pr.Source
			}
			data, err := json.Marshal(j)
			if err != nil {
				return nil, st, err
			}
			ack, err := js.Publish(ctx, "ordercheck.jobs."+run, data)
			if err != nil {
				return nil, st, fmt.Errorf("sending %s under %s: %w", in.Variant, m.Name, err)
			}
			cellOf[ack.Sequence] = j.Cell
			st.Jobs++
			st.Bytes += int64(len(data))
		}
	}
	c.Reports = make([][]*checker.Report, len(c.Cases))
	for i := range c.Reports {
		c.Reports[i] = make([]*checker.Report, len(c.Models))
	}
	failures := 0 // reads of the results in a row that failed
	for done := 0; done < total; {
		select {
		case <-ctx.Done():
			return nil, st, ctx.Err()
		case m := <-dropped:
			var adv struct {
				StreamSeq  uint64 `json:"stream_seq"`
				Deliveries uint64 `json:"deliveries"`
			}
			if json.Unmarshal(m.Data, &adv) == nil {
				if cell, ok := cellOf[adv.StreamSeq]; ok {
					in, mod := c.Cases[cell/len(c.Models)], c.Models[cell%len(c.Models)]
					return nil, st, checker.CellError(in, mod, fmt.Errorf("delivered to %d workers, none of which finished it", adv.Deliveries))
				}
			}
			continue
		default:
		}
		batch, err := reports.Fetch(16, jetstream.FetchMaxWait(250*time.Millisecond))
		if err != nil {
			// A server restarted without the streams, say: give up after
			// five seconds of failures rather than wait forever.
			if failures++; nc.IsClosed() || failures > 20 {
				return nil, st, fmt.Errorf("reading the reports from NATS (%d of %d cells done): %w", done, total, err)
			}
			time.Sleep(250 * time.Millisecond)
			continue
		}
		failures = 0
		for msg := range batch.Messages() {
			var res result
			if err := json.Unmarshal(msg.Data(), &res); err != nil || res.Run != run || res.Cell < 0 || res.Cell >= total {
				return nil, st, fmt.Errorf("a malformed report on %s", msg.Subject())
			}
			st.Bytes += int64(len(msg.Data()))
			i, k := res.Cell/len(c.Models), res.Cell%len(c.Models)
			if c.Reports[i][k] != nil {
				st.Duplicates++
				continue
			}
			if res.Err != "" {
				return nil, st, checker.CellError(c.Cases[i], c.Models[k], fmt.Errorf("%s (on worker %s)", res.Err, res.Worker))
			}
			rep, err := checker.UnmarshalReport(res.Report, c.Cases[i])
			if err != nil {
				return nil, st, checker.CellError(c.Cases[i], c.Models[k], err)
			}
			c.Reports[i][k] = rep
			if res.Delivered > 1 {
				st.Redelivered++
			}
			if !slices.Contains(st.Workers, res.Worker) {
				st.Workers = append(st.Workers, res.Worker)
			}
			done++
			if opt.Progress != nil {
				opt.Progress(done, total)
			}
		}
	}
	slices.Sort(st.Workers)
	return c, st, nil
}
