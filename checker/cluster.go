package checker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/checker/internal/engine"
	"github.com/ordercheck/ordercheck/checker/internal/states"
	"github.com/ordercheck/ordercheck/model"
)

// Cluster splits a state search into partitions that worker processes
// expand (Options.Cluster; package dist provides one on NATS JetStream).
type Cluster = engine.Cluster

// Search is the coordinator's end of a partitioned search.
type Search = engine.Search

// Share is a worker's end of one partition of a search.
type Share = engine.Share

// searchJob describes a state search of a check to the workers of a
// cluster: the model, the properties by name, and the bounds.
type searchJob struct {
	Model   string
	Props   []string
	Options Options
}

// distributable reports whether props can be named to a worker, which
// rebuilds them with Properties: only the built-in ones and assertions.
func distributable(props []Property) ([]string, bool) {
	var names []string
	for _, p := range props {
		switch p.(type) {
		case dataRace, deadlock, *linearizability, assertion:
			names = append(names, p.Name())
		default:
			return nil, false
		}
	}
	return names, true
}

// Serve expands one partition of a partitioned state search of p, the
// one the cluster's job (what a check with Options.Cluster sent) and
// whole describe, until the search ends; spec is the sequential
// specification linearizability is judged against, and ctx stops the
// worker. The program must be the coordinator's, compiled from the same
// protocol, variant and parameters.
func Serve(ctx context.Context, p *model.Program, spec *porcupine.Model, job []byte, whole bool, sh Share) error {
	var j searchJob
	if err := json.Unmarshal(job, &j); err != nil {
		return fmt.Errorf("not a search job: %w", err)
	}
	m, err := model.Lookup(j.Model)
	if err != nil {
		return err
	}
	props := Properties(spec, j.Props...)
	opt := j.Options
	opt.Context, opt.Cluster = ctx, nil
	opt.WholeHistories = opt.WholeHistories || whole
	opt.Races, spec = needs(props)
	return states.Serve(p, m, states.Config{Options: opt, Spec: spec, Judge: judgeWith(props)}, sh)
}

// statesConfig returns the state search's configuration for a check of
// props under m; with a cluster, the job that describes it to workers.
// A property the workers could not rebuild keeps the search here.
func statesConfig(m *model.Model, props []Property, opt Options, spec *porcupine.Model) (states.Config, error) {
	cfg := states.Config{Options: opt, Spec: spec, Judge: judgeWith(props)}
	if opt.Cluster == nil {
		return cfg, nil
	}
	names, ok := distributable(props)
	if !ok {
		cfg.Options.Cluster = nil
		return cfg, nil
	}
	job, err := json.Marshal(searchJob{Model: m.Name, Props: names, Options: opt})
	cfg.Job = job
	return cfg, err
}
