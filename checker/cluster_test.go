package checker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/progtest"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// memCluster runs each partition of a partitioned search on a goroutine
// of this process, as a worker process would (checker.Serve). When kill
// is set, the server of partition kill.part dies at level kill.level
// after sending its first batch of candidates, and another takes the
// partition over from the candidates stored.
type memCluster struct {
	p     *model.Program
	spec  model.Spec
	parts int
	jobs  int // the subtrees a split graph search leaves the workers at least; 0: the default
	kill  *killAt
	// searches counts the searches begun, subtrees the subtrees sent;
	// job and paths are the last subtrees'.
	searches, subtrees int
	job                []byte
	paths              [][]int32
	// cancel, when set, cancels the run when subtrees are sent.
	cancel func()
	// takeovers counts the partitions taken over after a kill.
	takeovers atomic.Int32
}

type killAt struct{ part, level int }

// SubtreeJobs is the number of subtrees the test drew for a split.
func (c *memCluster) SubtreeJobs() int { return c.jobs }

// Subtrees explores each subtree here, as a worker would.
func (c *memCluster) Subtrees(job []byte, paths [][]int32, accept func(int, []byte) error) error {
	c.subtrees += len(paths)
	c.job, c.paths = job, paths
	if c.cancel != nil { // the run is cancelled while the workers explore
		c.cancel()
		return context.Canceled
	}
	for i, p := range paths {
		data, err := checker.ServeSubtree(context.Background(), c.p, c.spec, job, p)
		if err == nil {
			err = accept(i, data)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var errKilled = errors.New("killed")

func (c *memCluster) Begin(job []byte, whole bool) (explore.Search, error) {
	c.searches++
	s := &memSearch{c: c, job: job, whole: whole, cands: map[[2]int][][]byte{}, reports: make(chan memReport, c.parts), next: make([]chan int, c.parts), done: make(chan struct{})}
	for q := range c.parts {
		s.next[q] = make(chan int, 1)
		s.serve(q, -1, c.kill)
	}
	return s, nil
}

type memSearch struct {
	c       *memCluster
	job     []byte
	whole   bool
	mu      sync.Mutex
	cands   map[[2]int][][]byte // by partition and level
	next    []chan int          // per partition: the levels asked for
	current int
	reports chan memReport
	done    chan struct{}
	wg      sync.WaitGroup
}

type memReport struct {
	part, level int
	data        []byte
	err         error
}

// serve starts a server of partition q; resume, when not -1, is the
// level in progress it takes over.
func (s *memSearch) serve(q, resume int, kill *killAt) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		sh := &memShare{s: s, q: q, resume: resume, kill: kill}
		err := checker.Serve(context.Background(), s.c.p, s.c.spec, s.job, s.whole, sh)
		if errors.Is(err, errKilled) {
			s.c.takeovers.Add(1)
			s.serve(q, sh.level, nil)
			return
		}
		if err != nil {
			s.reports <- memReport{part: q, err: err}
		}
	}()
}

func (s *memSearch) Parts() int { return s.c.parts }

func (s *memSearch) Send(part, level int, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]int{part, level}
	s.cands[k] = append(s.cands[k], data)
	return nil
}

func (s *memSearch) Level(ctx context.Context, level int) ([][]byte, error) {
	s.mu.Lock()
	s.current = level
	s.mu.Unlock()
	for _, ch := range s.next {
		ch <- level
	}
	out := make([][]byte, s.c.parts)
	for got := 0; got < s.c.parts; {
		var r memReport
		select {
		case r = <-s.reports:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.err != nil {
			return nil, r.err
		}
		if r.level == level && out[r.part] == nil {
			out[r.part] = r.data
			got++
		}
	}
	return out, nil
}

func (s *memSearch) End() {
	close(s.done)
	s.wg.Wait()
}

type memShare struct {
	s      *memSearch
	q      int
	resume int
	level  int
	kill   *killAt
	sent   int
}

func (sh *memShare) Part() int  { return sh.q }
func (sh *memShare) Parts() int { return sh.s.c.parts }

func (sh *memShare) Next() (int, bool, error) {
	if sh.resume >= 0 {
		sh.level, sh.resume = sh.resume, -1
		return sh.level, true, nil
	}
	select {
	case l := <-sh.s.next[sh.q]:
		sh.level = l
		return l, true, nil
	case <-sh.s.done:
		return 0, false, nil
	}
}

func (sh *memShare) Receive(level int, f func([]byte) error) error {
	sh.s.mu.Lock()
	batches := sh.s.cands[[2]int{sh.q, level}]
	sh.s.mu.Unlock()
	for _, b := range batches {
		if err := f(b); err != nil {
			return err
		}
	}
	return nil
}

func (sh *memShare) Send(part, level int, data []byte) error {
	if k := sh.kill; k != nil && k.part == sh.q && k.level == level-1 && sh.sent > 0 {
		return errKilled
	}
	sh.sent++
	return sh.s.Send(part, level, data)
}

func (sh *memShare) Flush() error {
	if k := sh.kill; k != nil && k.part == sh.q && k.level == sh.level {
		return errKilled
	}
	return nil
}

func (sh *memShare) Report(level int, data []byte, _ int64) error {
	sh.s.reports <- memReport{part: sh.q, level: level, data: data}
	return nil
}

// sameReports fails unless two checks' reports agree in everything but
// their times.
func sameReports(t interface{ Fatalf(string, ...any) }, what string, a, b *checker.Report) {
	as, bs := a.Stats, b.Stats
	as.Elapsed, bs.Elapsed = 0, 0
	if fmt.Sprint(as) != fmt.Sprint(bs) || as.Graphs != bs.Graphs || as.States != bs.States {
		t.Fatalf("%s: stats %+v, one process %+v", what, bs, as)
	}
	for i, x := range a.Props {
		y := b.Props[i]
		if x.Status != y.Status || x.Violations != y.Violations || x.Message != y.Message || x.Reached != y.Reached ||
			(x.Witness == nil) != (y.Witness == nil) || x.Witness != nil && x.Witness.Graph.Key() != y.Witness.Graph.Key() {
			t.Fatalf("%s: %s %s (%d, %q), one process %s (%d, %q)", what, x.Name, y.Status, y.Violations, y.Message, x.Status, x.Violations, x.Message)
		}
	}
}

// drawProtocol draws a protocol-sized program, with copied threads and,
// sometimes, operations and a specification to check them against.
func drawProtocol(t *rapid.T) (*model.Program, model.Spec) {
	p := progtest.WithTwins(t, progtest.Program(t, progtest.ProtocolSized))
	if !rapid.Bool().Draw(t, "operations") {
		return p, nil
	}
	spec, _ := drawSpec(t)
	return withOperations(t, p), spec
}

// TestPartitionedMatchesOneProcess checks that a state search split into
// partitions finds what the search in one process finds: the same
// counts, verdicts and witnesses, whatever the number of partitions, and
// when a partition's server dies in the middle of a level and another
// takes over.
func TestPartitionedMatchesOneProcess(t *testing.T) {
	for _, m := range progtest.Machines() {
		t.Run(m.Name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				p, spec := drawProtocol(t)
				progtest.Explorable(p, m)
				names := []string{checker.PropLinearizability, checker.PropDeadlock}
				if m.RaceModel(p) == m { // else races are judged by graphs under C11
					names = append(names, checker.PropDataRace)
				}
				props := checker.Properties(spec, names...)
				opt := explore.Options{Engine: explore.EngineStates, MaxGraphs: 3000}
				want, err := checker.Check(p, m, props, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !want.Stats.Exhaustive() && want.Stats.Limit != explore.MaxEvents && want.Stats.Limit != explore.LoopBound {
					t.Skip("the exploration exceeds the budget")
				}
				c := &memCluster{p: p, spec: spec, parts: rapid.IntRange(1, 4).Draw(t, "parts")}
				if rapid.Bool().Draw(t, "kill") {
					c.kill = &killAt{part: rapid.IntRange(0, c.parts-1).Draw(t, "killed"), level: rapid.IntRange(0, 6).Draw(t, "at level")}
				}
				opt.Cluster, opt.MaxGraphs = c, 0 // a count would keep the search in this process
				opt.Workers = rapid.IntRange(1, 2).Draw(t, "workers")
				got, err := checker.Check(p, m, props, opt)
				if err != nil {
					t.Fatal(err)
				}
				if c.searches == 0 {
					t.Fatal("the search did not go to the cluster")
				}
				sameReports(t, fmt.Sprintf("%d partitions", c.parts), want, got)
			})
		})
	}
}

// TestPartitionedCatalogue checks partitioned searches of the catalogue's
// protocols against one process's, with a partition's server dying at
// each level in turn: its successor rebuilds the visited set from the
// candidates stored (spin loops reach old states again at later levels).
func TestPartitionedCatalogue(t *testing.T) {
	cases := []struct {
		name, variant, model string
		params               map[string]string
	}{
		{"dlsym", "fixed", "rc11", map[string]string{"N": "2"}},
		{"dlsym", "original", "tso", map[string]string{"N": "2"}},
		{"dlsym", "dcl", "sc", map[string]string{"N": "2"}},
		{"cluster", "original", "rc11", nil},
		{"cluster", "pr2685", "tso", nil},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.variant+"/"+c.model, func(t *testing.T) {
			pr, err := protocols.Load(c.name)
			if err != nil {
				t.Fatal(err)
			}
			in, err := pr.Instance(c.variant, c.params)
			if err != nil {
				t.Fatal(err)
			}
			m := progtest.MustModel(t, c.model)
			want, err := in.Check(m, explore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			takeovers := 0
			for _, kill := range []*killAt{nil, {0, 0}, {1, 3}, {2, 9}, {1, 17}} {
				mc := &memCluster{p: in.Prog, spec: pr.SeqSpec(), parts: 3, kill: kill}
				got, err := in.Check(m, explore.Options{Cluster: mc})
				if err != nil {
					t.Fatal(err)
				}
				if mc.searches == 0 {
					t.Fatal("the search did not go to the cluster")
				}
				sameReports(t, fmt.Sprintf("killed at %v", kill), want, got)
				takeovers += int(mc.takeovers.Load())
			}
			if takeovers == 0 {
				t.Fatal("no partition was taken over: the kills missed")
			}
		})
	}
}

// TestSplitGraphsMatchesOneProcess checks that a graph search whose
// subtrees go to a cluster finds what one process finds: the same counts,
// verdicts and witnesses, under every model whose search can be split.
func TestSplitGraphsMatchesOneProcess(t *testing.T) {
	for _, m := range model.All() {
		if m.LoadBuffering {
			continue // speculation is not split
		}
		t.Run(m.Name, func(t *testing.T) {
			split := 0
			rapid.Check(t, func(t *rapid.T) {
				p, spec := drawProtocol(t)
				props := checker.Properties(spec, checker.PropLinearizability, checker.PropDeadlock, checker.PropDataRace)
				opt := explore.Options{Engine: explore.EngineDPOR, MaxGraphs: 5000}
				want, err := checker.Check(p, m, props, opt)
				if err != nil {
					t.Fatal(err)
				}
				if want.Stats.Limit == explore.MaxGraphs || want.Props[2].Stats != nil && want.Props[2].Stats.Limit == explore.MaxGraphs {
					t.Skip("the exploration exceeds the budget")
				}
				c := &memCluster{p: p, spec: spec, jobs: rapid.IntRange(1, 8).Draw(t, "top jobs")}
				opt.Cluster, opt.MaxGraphs = c, 0
				got, err := checker.Check(p, m, props, opt)
				if err != nil {
					t.Fatal(err)
				}
				sameReports(t, fmt.Sprintf("%d subtrees", c.subtrees), want, got)
				split += c.subtrees
			})
			if split == 0 {
				t.Error("no search was split")
			}
		})
	}
}

// TestClusterTimeout bounds checks split on a cluster by a timeout far
// shorter than they take: the timeout is the whole check's, wherever its
// parts run, so the report is bounded by it, not verified.
func TestClusterTimeout(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ model, n string }{
		{"rc11", "6"},         // a partitioned state search
		{"rc11-consume", "4"}, // a graph search's subtrees
	} {
		t.Run(c.model, func(t *testing.T) {
			in, err := pr.Instance("fixed", map[string]string{"N": c.n})
			if err != nil {
				t.Fatal(err)
			}
			mc := &memCluster{p: in.Prog, spec: pr.SeqSpec(), parts: 2}
			start := time.Now()
			rep, err := in.Check(progtest.MustModel(t, c.model), explore.Options{Cluster: mc, Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stats.Limit != explore.Timeout || mc.searches+mc.subtrees == 0 {
				t.Fatalf("limit %s after %d searches and %d subtrees, want a timeout", rep.Stats.LimitText(), mc.searches, mc.subtrees)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Fatalf("a 300 ms timeout took %v", el)
			}
			// A part begun after the check's timeout (a job that waited in
			// the queue) stops at once: the timeout is the check's, not
			// each part's.
			if mc.job != nil {
				stopped := 0
				for _, path := range mc.paths {
					data, err := checker.ServeSubtree(context.Background(), in.Prog, pr.SeqSpec(), mc.job, path)
					if err != nil {
						t.Fatal(err)
					}
					late, err := checker.UnmarshalReport(data, in)
					if err != nil {
						t.Fatal(err)
					}
					if late.Stats.Graphs > 1 {
						t.Fatalf("subtree %v begun after the deadline explored %d graphs", path, late.Stats.Graphs)
					}
					if late.Stats.Limit == explore.Timeout {
						stopped++
					}
				}
				if stopped == 0 {
					t.Fatal("no subtree begun after the deadline says the timeout stopped it")
				}
			}
		})
	}
}

// TestSplitGraphsInterrupted cancels a split graph search while the
// workers explore its subtrees: the report is what the top found, bounded
// by the interruption (no verdict), not an error; and a search cancelled
// before it starts sends no subtree.
func TestSplitGraphsInterrupted(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("fixed", map[string]string{"N": "3"})
	if err != nil {
		t.Fatal(err)
	}
	m := progtest.MustModel(t, "rc11-consume")
	ctx, cancel := context.WithCancel(context.Background())
	mc := &memCluster{p: in.Prog, spec: pr.SeqSpec(), cancel: cancel}
	rep, err := in.Check(m, explore.Options{Cluster: mc, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stats.Limit != explore.Interrupted || mc.subtrees == 0 || rep.Verdict() != checker.VerdictTimeout {
		t.Fatalf("cancelled while %d subtrees were out: limit %s, verdict %s", mc.subtrees, rep.Stats.LimitText(), rep.Verdict())
	}
	mc = &memCluster{p: in.Prog, spec: pr.SeqSpec()}
	rep, err = in.Check(m, explore.Options{Cluster: mc, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stats.Limit != explore.Interrupted || mc.subtrees != 0 {
		t.Fatalf("cancelled before: limit %s with %d subtrees sent", rep.Stats.LimitText(), mc.subtrees)
	}
}

// TestClusterRefusesOwnProperty checks that a property of the user's own,
// which workers cannot rebuild by name, makes a check on a cluster an
// error that names it, under both engines, rather than a check that
// silently stays in this process.
func TestClusterRefusesOwnProperty(t *testing.T) {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	in, err := pr.Instance("fixed", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range []explore.Engine{explore.EngineStates, explore.EngineDPOR} {
		t.Run(eng.String(), func(t *testing.T) {
			mc := &memCluster{p: in.Prog, spec: pr.SeqSpec()}
			_, err := checker.Check(in.Prog, progtest.MustModel(t, "sc"), []checker.Property{checker.DataRace, declaredRaces{}}, explore.Options{Cluster: mc, Engine: eng})
			if err == nil || !strings.Contains(err.Error(), "my-races cannot be checked on a cluster") {
				t.Fatalf("got %v, want an error naming my-races", err)
			}
		})
	}
}
