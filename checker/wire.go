package checker

import (
	"encoding/json"
	"fmt"

	"github.com/ordercheck/ordercheck/model"
)

// MarshalReport encodes r for another process (a worker's answer to the
// process that renders it): verdicts, counts and witnesses, each model by
// its name and each graph without its program, which the reader compiles
// from the same protocol.
func MarshalReport(r *Report) ([]byte, error) {
	w := wireReport{Model: r.Model.Name, Engine: r.Engine, Stats: r.Stats}
	if r.Via != nil {
		w.Via = r.Via.Name
	}
	for _, p := range r.Props {
		wp := wireProp{Name: p.Name, Stats: p.Stats, Engine: p.Engine, Status: p.Status, Message: p.Message, Violations: p.Violations, Reached: p.Reached}
		if p.Model != nil {
			wp.Model = p.Model.Name
		}
		if x := p.Witness; x != nil {
			wp.Witness = &wireWitness{
				Threads: x.Graph.Threads, Co: x.Graph.Co, Model: x.Model.Name,
				Final: x.Final, States: x.States, Races: x.Races, Blocked: x.Blocked,
				Violation: x.Violation,
			}
		}
		w.Props = append(w.Props, wp)
	}
	return json.Marshal(w)
}

// UnmarshalReport decodes a report MarshalReport encoded for in: its
// witnesses' graphs are of in's program.
func UnmarshalReport(data []byte, in *Instance) (*Report, error) {
	return unmarshalReport(data, in.Prog)
}

// unmarshalReport decodes a report of prog.
func unmarshalReport(data []byte, prog *model.Program) (*Report, error) {
	var w wireReport
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("a report: %w", err)
	}
	m, err := model.Lookup(w.Model)
	if err != nil {
		return nil, err
	}
	r := &Report{Model: m, Engine: w.Engine, Stats: w.Stats}
	if w.Via != "" {
		if r.Via, err = model.Lookup(w.Via); err != nil {
			return nil, err
		}
	}
	for _, wp := range w.Props {
		p := PropResult{Name: wp.Name, Stats: wp.Stats, Engine: wp.Engine, Status: wp.Status, Message: wp.Message, Violations: wp.Violations, Reached: wp.Reached}
		if wp.Model != "" {
			if p.Model, err = model.Lookup(wp.Model); err != nil {
				return nil, err
			}
		}
		if x := wp.Witness; x != nil {
			if len(x.Threads) != len(prog.Threads) || len(x.Co) != len(prog.Locs) {
				return nil, fmt.Errorf("a report: %s's witness does not fit the program", wp.Name)
			}
			wm, err := model.Lookup(x.Model)
			if err != nil {
				return nil, err
			}
			g := &model.Graph{Prog: prog, Threads: x.Threads, Co: x.Co}
			p.Witness = &Witness{
				Execution: &Execution{Graph: g, Model: wm, Final: x.Final, States: x.States, Races: x.Races, Blocked: x.Blocked},
				Violation: x.Violation,
			}
		}
		r.Props = append(r.Props, p)
	}
	return r, nil
}

type wireReport struct {
	Model  string
	Via    string `json:",omitempty"`
	Engine Engine
	Props  []wireProp
	Stats  Stats
}

type wireProp struct {
	Name                string
	Model               string `json:",omitempty"`
	Stats               *Stats
	Engine              Engine
	Status              Status
	Message             string
	Violations, Reached int64
	Witness             *wireWitness `json:",omitempty"`
}

type wireWitness struct {
	Threads   [][]model.Event
	Co        [][]model.EventRef
	Model     string
	Final     model.FinalState
	States    []model.ThreadState
	Races     [][2]model.EventRef
	Blocked   []int
	Violation Violation
}
