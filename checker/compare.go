package checker

import (
	"fmt"

	"github.com/ordercheck/ordercheck/checker/explore"
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
	Options explore.Options
	// Progress, when set, is called before the first cell and as each is
	// done: how many are done of how many, and the first not done yet
	// ("fixed under rc11").
	Progress func(done, total int, next string)
	// Runner checks the cells; nil: Local{}, one at a time in this process.
	Runner Runner
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
// variant and model, each judging every property of the protocol, on
// opt.Runner. The cells of a variant share one data-race verdict per
// model races are judged under (C11, for the models that are not C11's)
// when they run in one process.
func (p *Protocol) Compare(opt CompareOptions) (*Comparison, error) {
	c, err := p.Cells(opt)
	if err != nil {
		return nil, err
	}
	var cells []Cell
	c.Reports = make([][]*Report, len(c.Cases))
	for i, in := range c.Cases {
		c.Reports[i] = make([]*Report, len(c.Models))
		for _, m := range c.Models {
			cells = append(cells, Cell{in, m})
		}
	}
	r := opt.Runner
	if r == nil {
		r = Local{}
	}
	done, first := 0, 0 // first: the first cell not done
	progress := func() {
		for ; first < len(cells) && c.Reports[first/len(c.Models)][first%len(c.Models)] != nil; first++ {
		}
		if opt.Progress != nil && first < len(cells) {
			opt.Progress(done, len(cells), cells[first].Name())
		}
	}
	progress()
	err = r.Run(cells, opt.Options, func(i int, rep *Report, err error) error {
		if err != nil {
			return cellError(cells[i], err)
		}
		c.Reports[i/len(c.Models)][i%len(c.Models)] = rep
		done++
		progress()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// cellError says which cell err comes from.
func cellError(c Cell, err error) error { return fmt.Errorf("%s: %w", c.Name(), err) }

// Cells returns the comparison opt asks for with no cell checked yet: its
// variants compiled (every one before any is explored, so that a bad one
// fails at once), its models chosen, Reports nil.
func (p *Protocol) Cells(opt CompareOptions) (*Comparison, error) {
	c := &Comparison{Protocol: p, Props: p.PropNames(), Models: opt.Models}
	if c.Models == nil {
		c.Models = model.All()
	}
	variants := opt.Variants
	if variants == nil {
		for _, v := range p.File.Variants {
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

// Verdict sums up the comparison: violated when some cell is, bounded
// when some exploration was cut short, else verified.
func (c *Comparison) Verdict() Verdict {
	switch violated, complete := c.Violated(); {
	case violated:
		return VerdictViolated
	case !complete:
		return VerdictBounded
	}
	return VerdictVerified
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
