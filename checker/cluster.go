package checker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/states"
	"github.com/ordercheck/ordercheck/model"
)

// searchJob describes a state search of a check to the workers of a
// cluster: the model, the properties by name, and the bounds; Deadline is
// when Options.Timeout ends the whole check, whenever a worker starts.
type searchJob struct {
	Model    string
	Props    []string
	Options  explore.Options
	Deadline time.Time `json:",omitzero"`
}

// describe returns the job that describes a search of props under m with
// opt, its timeout counted from now.
func describe(m *model.Model, names []string, opt explore.Options) ([]byte, error) {
	j := searchJob{Model: m.Name, Props: names, Options: opt}
	if opt.Timeout > 0 {
		j.Deadline = time.Now().Add(opt.Timeout)
	}
	return json.Marshal(j)
}

// read decodes a job a coordinator described, and returns its model, its
// properties (linearizability against spec) and its options, bound to
// ctx and to what is left of the timeout.
func read(ctx context.Context, job []byte, spec model.Spec) (*model.Model, []Property, explore.Options, error) {
	var j searchJob
	if err := json.Unmarshal(job, &j); err != nil {
		return nil, nil, explore.Options{}, fmt.Errorf("not a search job: %w", err)
	}
	m, err := model.Lookup(j.Model)
	if err != nil {
		return nil, nil, explore.Options{}, err
	}
	opt := j.Options
	opt.Context, opt.Cluster = ctx, nil
	if !j.Deadline.IsZero() {
		opt.Timeout = max(time.Until(j.Deadline), time.Nanosecond)
	}
	return m, Properties(spec, j.Props...), opt, nil
}

// distributable names props to a worker, which rebuilds them with
// Properties: only the built-in ones and assertions can be; another is
// an error, as checking it in this process instead of on the cluster
// asked for would be a silent choice.
func distributable(props []Property) ([]string, error) {
	var names []string
	for _, p := range props {
		switch p.(type) {
		case dataRace, deadlock, *linearizability, assertion:
			names = append(names, p.Name())
		default:
			return nil, fmt.Errorf("property %s cannot be checked on a cluster: workers rebuild properties by name, the built-in ones and assertions only (check it without Options.Cluster)", p.Name())
		}
	}
	return names, nil
}

// Serve expands one partition of a partitioned state search of p, the
// one the cluster's job (what a check with Options.Cluster sent) and
// whole describe, until the search ends; spec is the sequential
// specification linearizability is judged against, and ctx stops the
// worker. The program must be the coordinator's, compiled from the same
// protocol, variant and parameters.
func Serve(ctx context.Context, p *model.Program, spec model.Spec, job []byte, whole bool, sh explore.Share) error {
	m, props, opt, err := read(ctx, job, spec)
	if err != nil {
		return err
	}
	cfg := engine.Config{Options: opt, WholeHistories: whole}
	cfg.Races, spec = needs(props)
	return states.Serve(p, m, states.Config{Config: cfg, Spec: spec, Judge: judgeWith(props)}, sh)
}

// statesConfig returns the state search's configuration for a check of
// props under m; with a cluster, the job that describes it to workers.
// A property the workers cannot rebuild is an error.
func statesConfig(m *model.Model, props []Property, opt engine.Config, spec model.Spec) (states.Config, error) {
	cfg := states.Config{Config: opt, Spec: spec, Judge: judgeWith(props)}
	if opt.Cluster == nil {
		return cfg, nil
	}
	names, err := distributable(props)
	if err != nil {
		return cfg, err
	}
	job, err := describe(m, names, opt.Options)
	cfg.Job = job
	return cfg, err
}

// The top of a split graph search, explored here, deepens until it leaves
// at least topJobs subtrees to the workers (or the number the cluster
// asks for: explore.Splitter), or reaches topDepth.
const (
	topJobs  = 64
	topDepth = 200
)

// splitGraphs explores p under m by graphs, the top of the search tree
// here and its subtrees on the workers of opt.Cluster, and judges props
// into rep (names: theirs, for the workers), as judgeGraphs does in one
// process: each part of the tree is explored once, the counts add up and
// the witnesses are chosen by shorter, whatever found them.
func splitGraphs(p *model.Program, m *model.Model, props []Property, names []string, opt engine.Config, rep *Report) error {
	start := time.Now()
	job, err := describe(m, names, opt.Options)
	if err != nil {
		return err
	}
	top := opt
	top.Cluster = nil
	jobs := [][]int32{nil}
	// stopped reports a bound that ended the top's exploration (time,
	// memory, cancellation): the subtrees left are then not sent.
	stopped := func() bool {
		switch rep.Stats.Limit {
		case explore.Timeout, explore.Interrupted, explore.MaxMemory:
			return true
		}
		return false
	}
	want := topJobs
	if sp, ok := opt.Cluster.(explore.Splitter); ok && sp.SubtreeJobs() > 0 {
		want = sp.SubtreeJobs()
	}
	for depth := 1; len(jobs) > 0 && len(jobs) < want && depth <= topDepth && !stopped(); depth++ {
		var next [][]int32
		for _, path := range jobs {
			sub := &engine.Subtree{Path: path, Cut: len(path) + 1}
			top.Subtree = sub
			if opt.Timeout > 0 { // the whole check's
				top.Timeout = max(opt.Timeout-time.Since(start), time.Nanosecond)
			}
			part := newReport(m, rep.Engine, props)
			if err := judgeGraphs(p, m, props, top, part); err != nil {
				return err
			}
			rep.add(part)
			next = append(next, sub.Jobs...)
		}
		jobs = next
	}
	if len(jobs) > 0 && !stopped() {
		found := make([]*Report, len(jobs)) // in the order of jobs, whatever the order they come in
		err := opt.Cluster.Subtrees(job, jobs, func(i int, data []byte) error {
			part, err := unmarshalReport(data, p, names)
			found[i] = part
			return err
		})
		if ctx := opt.Context; err != nil && ctx != nil && ctx.Err() != nil {
			// Cancelled while the workers explored: what the top found, bounded.
			rep.Stats.Add(explore.Stats{Limit: explore.Interrupted})
			found = nil
		} else if err != nil {
			return err
		}
		for _, part := range found {
			if part != nil {
				rep.add(part)
			}
		}
	}
	rep.Stats.Elapsed = time.Since(start)
	return nil
}

// add adds what o, a part of the same exploration, found to rep.
func (rep *Report) add(o *Report) {
	rep.Stats.Add(o.Stats)
	for i := range rep.Props {
		r, x := &rep.Props[i], &o.Props[i]
		r.Violations += x.Violations
		r.Reached += x.Reached
		if x.Witness != nil && (r.Witness == nil || shorter(x.Witness, r.Witness)) {
			r.Witness, r.Message = x.Witness, x.Message
		}
	}
}

// ServeSubtree explores the subtree path names of a graph search (one a
// check with Options.Cluster split), which job describes, and returns what
// it found, encoded for the coordinator; spec and ctx as for Serve.
func ServeSubtree(ctx context.Context, p *model.Program, spec model.Spec, job []byte, path []int32) ([]byte, error) {
	m, props, opt, err := read(ctx, job, spec)
	if err != nil {
		return nil, err
	}
	rep := newReport(m, explore.EngineDPOR, props)
	if err := judgeGraphs(p, m, props, engine.Config{Options: opt, Subtree: &engine.Subtree{Path: path}}, rep); err != nil {
		return nil, err
	}
	return MarshalReport(rep)
}
