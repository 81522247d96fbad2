package checker

import (
	"fmt"

	"github.com/ordercheck/ordercheck/model"
)

// CompareOptions choose the cells of a comparison and bound each check.
type CompareOptions struct {
	// Variants to compare; nil: every variant, in the file's order.
	Variants []string
	// Models to compare under; nil: every registered model.
	Models []*model.Model
	// Params overrides parameters for every variant.
	Params map[string]string
	// Options bound each check.
	Options Options
	// Progress, when set, is called before each cell is checked: how many
	// are done of how many, and which is next ("fixed under rc11").
	Progress func(done, total int, next string)
}

// Comparison holds every variant × model × property verdict of a protocol.
type Comparison struct {
	Protocol *Protocol
	Props    []string
	Models   []*model.Model
	Cases    []*Instance
	// Reports[i][j] is case i under model j.
	Reports [][]*Report
}

// Compare checks the chosen variants under the chosen models: one cell per
// variant and model, each judging every property of the protocol. The
// cells of a variant share one data-race verdict per model races are
// judged under (C11, for the models that are not C11's).
func (p *Protocol) Compare(opt CompareOptions) (*Comparison, error) {
	c, err := p.Cells(opt)
	if err != nil {
		return nil, err
	}
	total := len(c.Cases) * len(c.Models)
	for i, in := range c.Cases {
		var row []*Report
		races := raceMemo{}
		for j, m := range c.Models {
			if opt.Progress != nil {
				opt.Progress(i*len(c.Models)+j, total, cellName(in, m))
			}
			rep, err := checkRaces(in.Prog, m, in.Protocol.Properties(), opt.Options, races)
			if err != nil {
				return nil, CellError(in, m, err)
			}
			row = append(row, rep)
		}
		c.Reports = append(c.Reports, row)
	}
	return c, nil
}

// cellName names a cell as "VARIANT under MODEL" (MODEL alone without
// variants).
func cellName(in *Instance, m *model.Model) string {
	if in.Variant == "" {
		return m.Name
	}
	return in.Variant + " under " + m.Name
}

// CellError says which cell of a comparison err comes from.
func CellError(in *Instance, m *model.Model, err error) error {
	return fmt.Errorf("%s under %s: %w", in.Variant, m.Name, err)
}

// Cells returns the comparison opt asks for with no cell checked yet: its
// variants compiled (every one before any is explored, so that a bad one
// fails at once), its models chosen, Reports nil. Compare checks each
// cell in turn; package dist hands them to workers.
func (p *Protocol) Cells(opt CompareOptions) (*Comparison, error) {
	c := &Comparison{Protocol: p, Props: p.PropNames(), Models: opt.Models}
	if c.Models == nil {
		c.Models = model.All()
	}
	variants := opt.Variants
	if variants == nil {
		for _, v := range p.Variants {
			variants = append(variants, v.Name)
		}
		if len(variants) == 0 {
			variants = []string{""}
		}
	}
	for _, v := range variants {
		inst, err := p.Instance(v, opt.Params)
		if err != nil {
			return nil, err
		}
		c.Cases = append(c.Cases, inst)
	}
	return c, nil
}

// Violated reports whether any cell is violated; Complete whether every
// exploration was exhaustive.
func (c *Comparison) Violated() (violated, complete bool) {
	complete = true
	for _, row := range c.Reports {
		for _, r := range row {
			violated = violated || r.Verdict() == VerdictViolated
			complete = complete && r.Stats.Exhaustive()
		}
	}
	return violated, complete
}
