// Package dist runs ordercheck's work on worker processes through NATS
// JetStream: a comparison's or a test run's cells (Compare, expect.RunCases), and
// the parts of one large check (Cluster): the partitions of a state search
// and the subtrees of a graph search. Each is a job on a work-queue
// stream; workers pull jobs, do them and publish each answer to a results
// stream before they acknowledge the job. A worker that dies with a job
// has it redelivered once its acknowledgement is overdue (a worker busy
// with a long job says so every third of that wait), so nothing is lost,
// and an answer that arrives twice is counted once: the result does not
// depend on the number of workers or on which of them died.
//
// StartServer embeds a loopback NATS server with JetStream for a machine
// of its own; Dial reaches a cluster the user runs.
package dist

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/c"
)

// The streams and the consumer jobs go through.
const (
	jobStream     = "ORDERCHECK_JOBS"
	jobSubjects   = "ordercheck.jobs.>"
	resultStream  = "ORDERCHECK_RESULTS"
	resultPrefix  = "ordercheck.results."
	workers       = "ordercheck-workers"
	maxDeliveries = 5
	// DefaultAckWait is how long a job may go unacknowledged before it
	// goes to another worker.
	DefaultAckWait = 30 * time.Second
	// resetAttempts bounds how often a reader of a stream makes its
	// consumer again after losing it (about a second apart): past them a
	// read fails, so that a restarted server is noticed, not waited on.
	resetAttempts = 2
)

// job is one cell to check: the protocol (a catalogue name, or a file's
// path and text), the parameters, the variant, the model, the bounds.
type job struct {
	Run     string
	Cell    int
	Name    string // the catalogue name; "" for a file
	Path    string
	Source  string
	C       *c.Options `json:",omitempty"` // a C program's -D and --unroll
	Params  map[string]string
	Variant string
	Model   string
	Options explore.Options // its bounds and engine (Context and Progress stay behind)
	// Deadline, when set, is when the coordinator stops waiting for the
	// job's answer (its timeout is up): a worker drops a job past it,
	// which nobody waits for any more.
	Deadline time.Time `json:",omitempty"`
	// Search, when set, makes the job a partition of a state search (the
	// protocol fields say what is searched).
	Search *searchJob `json:",omitempty"`
	// Subtree, when set, makes the job a subtree of a graph search.
	Subtree *subtreeJob `json:",omitempty"`
}

// subtreeJob is a subtree of a graph search: the checker's description of
// the search and the subtree's path (checker.ServeSubtree).
type subtreeJob struct {
	Job  []byte
	Path []int32
}

// result is a worker's answer to a job: the report (MarshalReport's) or
// the error the check ran into, and which delivery of the job it was.
type result struct {
	Run       string
	Cell      int
	Report    json.RawMessage `json:",omitempty"`
	Err       string          `json:",omitempty"`
	Worker    string
	Delivered uint64
}

// protocol returns the job's protocol: the worker's own catalogue's by
// name, or the text the job carries (its path only names it in messages:
// a worker never opens a path a job gives).
func (j *job) protocol(cat checker.Catalogue) (*checker.Protocol, error) {
	if j.Name != "" {
		if cat == nil {
			return nil, fmt.Errorf("the job names the catalogue protocol %s, and this worker has no catalogue", j.Name)
		}
		return cat(j.Name)
	}
	if j.C != nil {
		return checker.ParseC(j.Path, j.Source, *j.C)
	}
	return checker.Parse(j.Path, j.Source)
}

// token matches what a job's run or search id may be: a NATS subject
// token (nuid's ids are such).
var token = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// validate checks what a job says of itself, before a worker acts on it:
// every message on the queue is treated as hostile until it passes.
func (j *job) validate() error {
	switch {
	case j.Search == nil && !token.MatchString(j.Run):
		return fmt.Errorf("run id %.40q is not a subject token", j.Run)
	case j.Cell < 0:
		return fmt.Errorf("cell %d is negative", j.Cell)
	case (j.Name == "") == (j.Source == ""):
		return errors.New("a job names a catalogue protocol or carries a protocol's text, one of the two")
	case j.Name != "" && j.Path != "":
		return errors.New("a job naming a catalogue protocol carries no path")
	case j.Search != nil && j.Subtree != nil:
		return errors.New("a job is a partition or a subtree, not both")
	}
	if s := j.Search; s != nil {
		switch {
		case !token.MatchString(s.ID):
			return fmt.Errorf("search id %.40q is not a subject token", s.ID)
		case s.Parts < 1 || s.Part < 0 || s.Part >= s.Parts:
			return fmt.Errorf("partition %d of %d", s.Part, s.Parts)
		}
		return nil
	}
	if j.Subtree == nil {
		if _, err := model.Lookup(j.Model); err != nil {
			return err
		}
	}
	return nil
}

// Stats counts what a distributed comparison took.
type Stats struct {
	// Jobs is the number of cells sent; Redelivered the reports that came
	// from a job's second or later delivery (its first worker died or
	// was too slow to say it was busy); Duplicates the reports dropped
	// because the cell already had one.
	Jobs, Redelivered, Duplicates int
	// Workers names the workers that answered.
	Workers []string
	// Bytes counts the jobs' and reports' payloads.
	Bytes int64
}

// add adds what another run took.
func (s *Stats) add(o Stats) {
	s.Jobs += o.Jobs
	s.Redelivered += o.Redelivered
	s.Duplicates += o.Duplicates
	s.Bytes += o.Bytes
	for _, w := range o.Workers {
		if !slices.Contains(s.Workers, w) {
			s.Workers = append(s.Workers, w)
		}
	}
}

func (s Stats) String() string {
	return fmt.Sprintf("%d jobs on %d workers, %d redelivered, %d duplicates, %d bytes", s.Jobs, len(s.Workers), s.Redelivered, s.Duplicates, s.Bytes)
}
