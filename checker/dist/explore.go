package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// A partitioned search (explore.Cluster) goes through JetStream so that
// nothing a worker holds is lost with it:
//
//   - each partition is a job on the job queue, which the worker that
//     takes it holds until the search ends (saying it is busy every third
//     of the acknowledgement wait); a dead worker's partition goes to
//     another worker;
//   - the candidates for partition q at level d are messages on
//     ordercheck.states.SEARCH.q.d in the file-stored stream
//     ORDERCHECK_STATES: the partition's visited set is the candidates of
//     the levels before, which the worker that takes a partition over
//     reads back;
//   - the coordinator asks for a level on ordercheck.levels.SEARCH (the
//     last command is what a worker taking over hears first), and each
//     partition publishes its report of the level to the results stream
//     once its candidates for the next level are stored.
//
// The coordinator says it is alive on ordercheck.alive.SEARCH every
// second; a worker that hears nothing from it for a while
// (WorkerOptions.Orphaned) lets the partition go and serves other jobs.
const (
	stateStream  = "ORDERCHECK_STATES"
	statePrefix  = "ordercheck.states."
	levelStream  = "ORDERCHECK_LEVELS"
	levelPrefix  = "ordercheck.levels."
	alivePrefix  = "ordercheck.alive."
	alivePeriod  = time.Second
	deadAfter    = 15 * time.Second // WorkerOptions.Orphaned's default
	takenLevel   = -1               // a report that says a worker took a partition
	waitReported = 10 * time.Second
)

// searchJob is a partition of a search, as the job queue carries it.
type searchJob struct {
	ID    string
	Part  int
	Parts int
	Job   []byte // the checker's description of the search
	Whole bool
}

// partReport is a partition's report of a level (or, at takenLevel,
// that a worker took it), with what the worker sent for the level.
type partReport struct {
	Search string
	Part   int
	Level  int
	Data   []byte `json:",omitempty"`
	Err    string `json:",omitempty"`
	Worker string
	// States counts the states new at the level; Msgs and Bytes the
	// candidates it sent; Memory is what the worker process holds.
	States, Msgs, Bytes int64
	Memory              uint64
}

// command is the coordinator's word to a search's partitions.
type command struct {
	Level int
	End   bool
}

// ExploreStats counts what a partitioned search took.
type ExploreStats struct {
	// Searches is the number of searches (a check may need two: one
	// under the model, one for data races under C11), Levels their levels.
	Searches, Levels int
	// Msgs and Bytes count the candidate messages the partitions sent.
	Msgs, Bytes int64
	// Memory is the most each worker held at the end of a level, and
	// States the states its partitions found, by worker.
	Memory map[string]uint64
	States map[string]int64
	// TakenOver counts partitions a worker took after another's death.
	TakenOver int
	// Subtrees counts the subtrees of graph searches sent as jobs.
	Subtrees int
}

func (s ExploreStats) String() string {
	if s.Searches == 0 {
		return fmt.Sprintf("%d subtrees of graph searches, %d bytes", s.Subtrees, s.Bytes)
	}
	return fmt.Sprintf("%d levels, %d candidate messages, %d bytes, %d partitions taken over; %s", s.Levels, s.Msgs, s.Bytes, s.TakenOver, s.Workers())
}

// Workers says, worker by worker, the states its partitions found and the
// most memory it held.
func (s ExploreStats) Workers() string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(s.Memory)) {
		out = append(out, fmt.Sprintf("%s %d states, %d MiB", n, s.States[n], s.Memory[n]>>20))
	}
	return strings.Join(out, "; ")
}

// Cluster sends the state searches of checks to the workers of a NATS
// cluster, each split into partitions: set it as checker.Options.Cluster
// for a check of the instance it was made for.
type Cluster struct {
	ctx   context.Context
	nc    *nats.Conn
	js    jetstream.JetStream
	in    *checker.Instance
	parts int
	opt   Options

	mu    sync.Mutex
	stats ExploreStats
}

// NewCluster returns a cluster that splits the state searches of checks
// of in into parts partitions on the workers nc reaches. Every partition
// needs a worker's job slot for the whole search: parts should not exceed
// the slots the workers have.
func NewCluster(ctx context.Context, nc *nats.Conn, in *checker.Instance, parts int, opt Options) (*Cluster, error) {
	if parts < 1 {
		return nil, fmt.Errorf("%d partitions: want at least 1", parts)
	}
	js, err := jobQueue(ctx, nc, opt.AckWait)
	if err != nil {
		return nil, err
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: stateStream, Subjects: []string{statePrefix + ">"}, Storage: jetstream.FileStorage, Compression: jetstream.S2Compression, MaxAge: 24 * time.Hour}); err != nil {
		return nil, fmt.Errorf("the state stream: %w", err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: levelStream, Subjects: []string{levelPrefix + ">"}, Storage: jetstream.MemoryStorage, MaxAge: 24 * time.Hour}); err != nil {
		return nil, fmt.Errorf("the level stream: %w", err)
	}
	return &Cluster{ctx: ctx, nc: nc, js: js, in: in, parts: parts, opt: opt, stats: ExploreStats{Memory: map[string]uint64{}, States: map[string]int64{}}}, nil
}

// Stats returns what the searches so far took.
func (c *Cluster) Stats() ExploreStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.stats
	st.Memory, st.States = maps.Clone(st.Memory), maps.Clone(st.States)
	return st
}

// Subtrees sends the subtrees of a graph search as jobs, one per path, and
// gives accept what each found; a report accept refuses is set aside.
func (c *Cluster) Subtrees(desc []byte, paths [][]int32, accept func(int, []byte) error) error {
	jobs := make([]job, len(paths))
	for i, p := range paths {
		jobs[i] = newJob("", i, c.in)
		jobs[i].Subtree = &subtreeJob{Job: desc, Path: p}
	}
	st, err := runJobs(c.ctx, c.nc, jobs, c.opt, func(i int, res *result) error {
		if res.Err != "" {
			return fmt.Errorf("subtree %v on worker %s: %s", paths[i], res.Worker, res.Err)
		}
		if err := accept(i, res.Report); err != nil {
			return fmt.Errorf("%w: subtree %v: %v", errRejected, paths[i], err)
		}
		return nil
	}, func(i int) error { return fmt.Errorf("subtree %v: %w", paths[i], errDropped) })
	c.mu.Lock()
	c.stats.Subtrees += len(paths)
	c.stats.Bytes += st.Bytes
	c.mu.Unlock()
	return err
}

// Begin sends the partitions of a search as jobs.
func (c *Cluster) Begin(desc []byte, whole bool) (explore.Search, error) {
	id := nuid.Next()
	s := &search{c: c, id: id, owners: make([]string, c.parts)}
	results, err := c.js.Stream(c.ctx, resultStream)
	if err != nil {
		return nil, err
	}
	s.restart = watch(c.nc, results)
	reports, err := results.OrderedConsumer(c.ctx, jetstream.OrderedConsumerConfig{MaxResetAttempts: resetAttempts, FilterSubjects: []string{resultPrefix + id}})
	if err != nil {
		return nil, err
	}
	if s.iter, err = reports.Messages(); err != nil {
		return nil, err
	}
	s.dropped = make(chan *nats.Msg, 16)
	if s.sub, err = c.nc.ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+jobStream+"."+workers, s.dropped); err != nil {
		return nil, err
	}
	s.quiet = beat(c.nc, id)
	for q := range c.parts {
		j := newJob(id, q, c.in)
		j.Search = &searchJob{ID: id, Part: q, Parts: c.parts, Job: desc, Whole: whole}
		data, err := json.Marshal(j)
		if err != nil {
			s.End()
			return nil, err
		}
		ack, err := c.js.Publish(c.ctx, "ordercheck.jobs."+id, data)
		if err != nil {
			s.End()
			return nil, fmt.Errorf("sending partition %d: %w", q, err)
		}
		s.seqs = append(s.seqs, ack.Sequence)
	}
	c.mu.Lock()
	c.stats.Searches++
	c.mu.Unlock()
	return s, nil
}

// search is the coordinator's end of a search on JetStream.
type search struct {
	c       *Cluster
	id      string
	iter    jetstream.MessagesContext // the partitions' reports
	dropped chan *nats.Msg
	sub     *nats.Subscription
	owners  []string // the worker that took each partition last
	seqs    []uint64 // the partitions' jobs in the job stream
	quiet   func()   // stops the beat
	ended   atomic.Bool
	cut     bool         // a level ended with an error
	restart *streamWatch // the server restarting under the search
}

func (s *search) Parts() int { return s.c.parts }

func (s *search) Send(part, level int, data []byte) error {
	_, err := s.c.js.Publish(s.c.ctx, stateSubject(s.id, part, level), data)
	return err
}

func stateSubject(id string, part, level int) string {
	return statePrefix + id + "." + strconv.Itoa(part) + "." + strconv.Itoa(level)
}

func (s *search) command(cmd command) error {
	data, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	_, err = s.c.js.Publish(s.c.ctx, levelPrefix+s.id, data)
	return err
}

// Level asks for a level and waits for every partition's report of it.
func (s *search) Level(ctx context.Context, level int) (out [][]byte, err error) {
	defer func() { s.cut = s.cut || err != nil }()
	if err := s.command(command{Level: level}); err != nil {
		return nil, err
	}
	out = make([][]byte, s.c.parts)
	got, failures := 0, 0
	last := time.Now()
	for got < s.c.parts {
		select {
		case <-s.c.ctx.Done():
			return nil, s.c.ctx.Err()
		case <-ctx.Done():
			return nil, ctx.Err()
		case m := <-s.dropped:
			var adv struct {
				StreamSeq uint64 `json:"stream_seq"`
			}
			if json.Unmarshal(m.Data, &adv) == nil && slices.Contains(s.seqs, adv.StreamSeq) {
				return nil, fmt.Errorf("a partition was delivered to %d workers, none of which finished it", maxDeliveries)
			}
			continue
		default:
		}
		if s.c.opt.Log != nil && time.Since(last) > waitReported {
			var unowned []int
			for q, d := range out {
				if d == nil && s.owners[q] == "" {
					unowned = append(unowned, q)
				}
			}
			if len(unowned) > 0 {
				logf(s.c.opt.Log, "level %d: no worker has taken partitions %v yet: each needs a free job slot (start workers, or lower --parts)\n", level, unowned)
			}
			last = time.Now()
		}
		if err := s.restart.lost(s.c.ctx); err != nil {
			return nil, err
		}
		msg, err := s.iter.Next(jetstream.NextMaxWait(250 * time.Millisecond))
		if errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		if err != nil {
			if failures++; s.c.nc.IsClosed() || failures > 20 {
				return nil, fmt.Errorf("reading the partitions' reports from NATS: %w", err)
			}
			time.Sleep(250 * time.Millisecond)
			continue
		}
		failures = 0
		var r partReport
		if err := json.Unmarshal(msg.Data(), &r); err != nil || r.Search != s.id || r.Part < 0 || r.Part >= s.c.parts {
			return nil, fmt.Errorf("a malformed report on %s", msg.Subject())
		}
		if r.Err != "" {
			return nil, fmt.Errorf("partition %d on worker %s: %s", r.Part, r.Worker, r.Err)
		}
		s.c.mu.Lock()
		s.c.stats.Memory[r.Worker] = max(s.c.stats.Memory[r.Worker], r.Memory)
		if r.Level == takenLevel {
			if s.owners[r.Part] != "" {
				s.c.stats.TakenOver++
			}
			s.owners[r.Part] = r.Worker
		}
		if r.Level == level && out[r.Part] == nil {
			out[r.Part] = r.Data
			got++
			s.c.stats.Msgs += r.Msgs
			s.c.stats.Bytes += r.Bytes
			s.c.stats.States[r.Worker] += r.States
		}
		s.c.mu.Unlock()
		last = time.Now()
	}
	s.c.mu.Lock()
	s.c.stats.Levels++
	s.c.mu.Unlock()
	return out, nil
}

// End tells the partitions the search is over, waits a little for the
// workers to let them go, and removes what the search stored.
func (s *search) End() {
	if s.ended.Swap(true) {
		return
	}
	s.quiet()
	s.sub.Unsubscribe()
	s.iter.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.command(command{End: true})
	jobs, err := s.c.js.Stream(ctx, jobStream)
	subj := "ordercheck.jobs." + s.id
	// Wait for the workers to hand their partitions back, unless the
	// coordinator was interrupted or a level was cut short (a timeout, a
	// worker gone): then it must report what it has at once, and purging
	// the jobs is enough.
	for err == nil && !s.cut && ctx.Err() == nil && s.c.ctx.Err() == nil {
		info, ierr := jobs.Info(ctx, jetstream.WithSubjectFilter(subj))
		if ierr != nil || info.State.Subjects[subj] == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err == nil {
		jobs.Purge(ctx, jetstream.WithPurgeSubject(subj))
	}
	for name, subj := range map[string]string{stateStream: statePrefix + s.id + ".>", levelStream: levelPrefix + s.id, resultStream: resultPrefix + s.id} {
		if st, err := s.c.js.Stream(ctx, name); err == nil {
			st.Purge(ctx, jetstream.WithPurgeSubject(subj))
		}
	}
}

// servePart serves a partition job: the worker holds it until the search
// ends, then acknowledges it.
func servePart(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, msg jetstream.Msg, j *job, ackWait time.Duration, opt WorkerOptions) error {
	sj := j.Search
	md, err := msg.Metadata()
	if err != nil {
		return err
	}
	logf(opt.Log, "%s: take partition %d of %d of search %s (delivery %d)\n", opt.Name, sj.Part, sj.Parts, sj.ID, md.NumDelivered)
	stopBusy := keepBusy(msg, ackWait)
	defer stopBusy()
	sh := &share{ctx: ctx, nc: nc, js: js, j: sj, worker: opt.Name, orphaned: opt.Orphaned}
	defer sh.close()
	if err := sh.publish(takenLevel, nil, ""); err != nil {
		msg.Nak()
		return nil
	}
	err = func() error {
		pr, err := j.protocol(opt.Catalogue)
		if err != nil {
			return err
		}
		in, err := pr.Instance(j.Variant, j.Params)
		if err != nil {
			return err
		}
		return checker.Serve(ctx, in.Prog, pr.SeqSpec(), sj.Job, sj.Whole, sh)
	}()
	stopBusy()
	switch {
	case ctx.Err() != nil:
		// Stopped, not finished: the partition is another worker's.
		msg.Nak()
		return nil
	case sh.gone:
		logf(opt.Log, "%s: the coordinator of search %s is gone\n", opt.Name, sj.ID)
		acked(msg.Term(), j, opt)
		return nil
	case err != nil:
		logf(opt.Log, "%s: partition %d of search %s: %v\n", opt.Name, sj.Part, sj.ID, err)
		sh.publish(sh.level, nil, err.Error())
		acked(msg.Term(), j, opt)
		return nil
	}
	if acked(msg.DoubleAck(ctx), j, opt) {
		logf(opt.Log, "%s: done with partition %d of search %s\n", opt.Name, sj.Part, sj.ID)
	}
	return nil
}

// share is a worker's end of a partition on JetStream.
type share struct {
	ctx    context.Context
	nc     *nats.Conn
	js     jetstream.JetStream
	j      *searchJob
	worker string

	levels   jetstream.MessagesContext
	alive    *listener // the coordinator's beat
	gone     bool      // the coordinator stopped saying it is alive
	orphaned time.Duration
	level    int
	acks     []jetstream.PubAckFuture
	msgs     int64
	bytes    int64
	states   int64
}

// close lets go of the subscriptions.
func (sh *share) close() {
	if sh.levels != nil {
		sh.levels.Stop()
	}
	if sh.alive != nil {
		sh.alive.close()
	}
}

func (sh *share) Part() int  { return sh.j.Part }
func (sh *share) Parts() int { return sh.j.Parts }

func (sh *share) Next() (int, bool, error) {
	if sh.levels == nil {
		st, err := sh.js.Stream(sh.ctx, levelStream)
		if err != nil {
			return 0, false, err
		}
		cons, err := st.OrderedConsumer(sh.ctx, jetstream.OrderedConsumerConfig{MaxResetAttempts: resetAttempts, FilterSubjects: []string{levelPrefix + sh.j.ID}, DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy})
		if err != nil {
			return 0, false, err
		}
		if sh.levels, err = cons.Messages(); err != nil {
			return 0, false, err
		}

		if sh.alive, err = listen(sh.nc, sh.j.ID); err != nil {
			return 0, false, err
		}
	}
	for sh.ctx.Err() == nil {
		if sh.alive.silent(sh.orphaned) {
			sh.gone = true
			return 0, false, nil
		}
		msg, err := sh.levels.Next(jetstream.NextMaxWait(time.Second))
		if err != nil {
			if sh.nc.IsClosed() {
				return 0, false, nil
			}
			continue
		}
		var cmd command
		if err := json.Unmarshal(msg.Data(), &cmd); err != nil {
			return 0, false, fmt.Errorf("a malformed command on %s", msg.Subject())
		}
		if cmd.End {
			return 0, false, nil
		}
		sh.level = cmd.Level
		return cmd.Level, true, nil
	}
	return 0, false, nil
}

// Receive reads the candidates for the partition at level: an ordered
// consumer of the level's subject, read to its end.
func (sh *share) Receive(level int, f func([]byte) error) error {
	st, err := sh.js.Stream(sh.ctx, stateStream)
	if err != nil {
		return err
	}
	cons, err := st.OrderedConsumer(sh.ctx, jetstream.OrderedConsumerConfig{MaxResetAttempts: resetAttempts, FilterSubjects: []string{stateSubject(sh.j.ID, sh.j.Part, level)}})
	if err != nil {
		return err
	}
	info, err := cons.Info(sh.ctx)
	if err != nil {
		return err
	}
	for left := info.NumPending; left > 0; {
		batch, err := cons.Fetch(int(min(left, 64)), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return err
		}
		for msg := range batch.Messages() {
			if err := f(msg.Data()); err != nil {
				return err
			}
			left--
		}
		if err := batch.Error(); err != nil {
			return err
		}
	}
	return nil
}

func (sh *share) Send(part, level int, data []byte) error {
	ack, err := sh.js.PublishAsync(stateSubject(sh.j.ID, part, level), data)
	if err != nil {
		return err
	}
	sh.acks = append(sh.acks, ack)
	sh.msgs++
	sh.bytes += int64(len(data))
	return nil
}

func (sh *share) Flush() error {
	acks := sh.acks
	sh.acks = nil
	for _, a := range acks {
		select {
		case <-a.Ok():
		case err := <-a.Err():
			return err
		case <-sh.ctx.Done():
			return sh.ctx.Err()
		}
	}
	return nil
}

func (sh *share) Report(level int, data []byte, states int64) error {
	sh.states = states
	return sh.publish(level, data, "")
}

// publish sends the coordinator the partition's report of level (data,
// or the error that stopped the partition), with what the level sent.
func (sh *share) publish(level int, data []byte, errText string) error {
	r := partReport{Search: sh.j.ID, Part: sh.j.Part, Level: level, Data: data, Err: errText, Worker: sh.worker, States: sh.states, Msgs: sh.msgs, Bytes: sh.bytes, Memory: model.ProcessMemory()}
	sh.msgs, sh.bytes, sh.states = 0, 0, 0
	payload, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = sh.js.Publish(sh.ctx, resultPrefix+sh.j.ID, payload)
	return err
}
