package tune

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/trace"
	"github.com/ordercheck/ordercheck/model"
)

// Options choose what tune keeps and bound its checks.
type Options struct {
	// Models every property must hold under; nil: rc11.
	Models []*model.Model
	// Props are the properties to keep, by name; nil: all the protocol's.
	Props []string
	// Options bound each check, but for the timeout, which bounds the
	// whole search (each check gets what is left of it), and the context,
	// whose cancellation stops it (Tuning.Stopped).
	Options explore.Options
	// MaxAssignments refuses a search over more assignments than this
	// (0: a million).
	MaxAssignments int
	// Atomics lets tune make plain accesses atomic where that can remove
	// a data race: the plain accesses of the races found with every site
	// seq_cst, until none is left, become sites that may stay plain.
	Atomics bool
	// Fences lets tune add a fence before each shared access that follows
	// another in its thread; among minimal assignments, fewer fences come
	// first, then weaker ones.
	Fences bool
}

// Tuning is the result of a search for the weakest orderings.
type Tuning struct {
	Instance *checker.Instance
	Models   []*model.Model
	Props    []string
	Sites    []Site
	// Minimal lists every minimal assignment (an ordering per site) under
	// which the properties hold under every model, weakest first.
	Minimal [][]model.Ordering
	// Unfixable are the properties violated even with every site seq_cst,
	// each with that check's report: no ordering fixes them. The search
	// kept the other properties.
	Unfixable []Unfixable
	// CurrentHolds says whether the current orderings keep the properties;
	// CurrentMinimal whether they are one of the minimal assignments.
	CurrentHolds, CurrentMinimal bool
	// Below says, for each site, what weakening it one step breaks (nil
	// where nothing is weaker): one step below the current orderings when
	// they hold, else below the first minimal assignment.
	Below []*Weakening
	// Checks counts the explorations run; Assignments the assignments
	// the lattice has (what plain enumeration would check); Refuted the
	// assignments a counterexample of another check refuted, unexplored.
	Checks, Assignments, Refuted int
	// Bounded is set when some check was cut short by a bound: a bounded
	// check counts as failing, so the minimum is "under the bound".
	Bounded bool
	// Stopped names the bound that stopped the whole search before it
	// finished (the timeout, which bounds the whole tune, or an
	// interruption); "" when it ran to its end. What it found is then
	// unfinished: no minimum, no weakening, nothing unfixable.
	Stopped explore.Limit
	// Atomics says plain accesses could become atomic (Options).
	Atomics bool
	// One says Minimal holds one minimal assignment of several possible:
	// the lattice had more assignments than Options.MaxAssignments,
	// and tune descended from the top to one instead of finding all.
	One bool
}

// Verdict sums up the tuning as a check: bounded when a bound cut some
// check short, violated when the current orderings are not minimal (too
// weak, or stronger than needed) or some property is beyond orderings,
// else verified.
func (t *Tuning) Verdict() checker.Verdict {
	switch {
	case t.Bounded:
		return checker.VerdictBounded
	case !t.CurrentMinimal || len(t.Unfixable) > 0:
		return checker.VerdictViolated
	}
	return checker.VerdictVerified
}

// Current says what the current orderings are: "minimal", "holds" (they
// keep the properties but are not minimal) or "fails".
func (t *Tuning) Current() string {
	switch {
	case t.CurrentMinimal:
		return "minimal"
	case t.CurrentHolds:
		return "holds"
	}
	return "fails"
}

// Unfixable is a property that no assignment of orderings keeps.
type Unfixable struct {
	Prop   string
	Model  *model.Model
	Report *checker.Report
}

// Weakening is the check of one site one step weaker than the current
// assignment: the ordering tried and, when it breaks something, the
// property, the model and the report (with its counterexample).
type Weakening struct {
	// From is the site's ordering it weakens; Ord the one a step below.
	From   model.Ordering
	Ord    model.Ordering
	Prop   string
	Model  *model.Model
	Report *checker.Report
}

// Run searches for the weakest orderings of the instance's atomic
// accesses and fences that keep the chosen properties under every chosen
// model. A stronger ordering never adds behaviours, so holding is closed
// upwards in the lattice of assignments: each check that holds settles
// every assignment above it, each that fails every one below, and the
// assignments are visited weakest first, so each that holds with nothing
// holding below it is minimal.
func Run(in *checker.Instance, opt Options) (*Tuning, error) {
	models := opt.Models
	if models == nil {
		models = []*model.Model{checker.DefaultModel}
	}
	props := opt.Props
	if props == nil {
		props = in.Protocol.PropNames()
	}
	consume := slices.ContainsFunc(models, func(m *model.Model) bool { return m.Consume })
	t := &Tuning{Instance: in, Models: models, Props: props, Atomics: opt.Atomics}
	plain := map[model.Pos]bool{}
	if opt.Atomics && slices.Contains(props, checker.PropDataRace) {
		var err error
		if plain, err = racingPlain(in, models, consume, opt.Options, &t.Checks); err != nil {
			return nil, err
		}
	}
	prog := in.Prog
	if opt.Fences {
		prog = withFenceSlots(prog)
	}
	t.Sites = Sites(prog, consume, plain)
	lines := strings.Split(in.Protocol.Source, "\n")
	for i, site := range t.Sites {
		if l := site.Pos.Line - 1; l >= 0 && l < len(lines) {
			text, _, _ := strings.Cut(lines[l], "//")
			t.Sites[i].Text = strings.TrimSpace(text)
			if site.Kind == SiteFenceSlot {
				t.Sites[i].Text = "a fence before: " + t.Sites[i].Text
			}
		}
	}
	total, limit := 1, opt.MaxAssignments
	if limit <= 0 {
		limit = 1_000_000
	}
	for _, s := range t.Sites {
		total = min(total*len(s.Levels), math.MaxInt32)
	}
	t.Assignments = total
	s := &tuneSearch{t: t, in: in, prog: prog, opt: opt.Options}
	if opt.Options.Timeout > 0 {
		s.deadline = time.Now().Add(opt.Options.Timeout)
	}
	res, err := s.run(props, total, limit)
	if errors.Is(err, errTuneStopped) {
		t.Bounded = true
		t.Minimal, t.Below, t.Unfixable = nil, nil, nil
		return t, nil
	}
	return res, err
}

// errTuneStopped stops a search whose time ran out or that was
// interrupted (Tuning.Stopped).
var errTuneStopped = errors.New("tune stopped")

// run searches for the minimal assignments of the properties props among
// total assignments, finding every one when there are at most limit.
func (s *tuneSearch) run(props []string, total, limit int) (*Tuning, error) {
	t := s.t
	// With every site at its strongest: what no ordering can fix.
	keep, err := s.unfixable(s.ords(s.top()), props)
	if err != nil {
		return nil, err
	}
	t.Props = keep
	if len(keep) == 0 {
		return t, nil
	}
	if total > limit {
		// Too many assignments to find every minimal one: descend from
		// the top to one.
		if err := s.descend(); err != nil {
			return nil, err
		}
		return t, s.weakenings()
	}
	// Each site alone below seq_cst, the others seq_cst: a level that
	// fails there fails with any others, which settles a whole slab of
	// assignments in one check.
	for i, site := range t.Sites {
		for l := len(site.Levels) - 2; l >= 0; l-- {
			a := s.top()
			a[i] = l
			if s.settled(a) || s.refuted(a) {
				continue
			}
			if _, _, err := s.holds(a); err != nil {
				return nil, err
			}
		}
	}
	// Every assignment, weakest first.
	all := s.assignments()
	for _, a := range all {
		if s.settled(a) || s.refuted(a) {
			continue
		}
		if _, _, err := s.holds(a); err != nil {
			return nil, err
		}
	}
	// Every assignment below one that held was checked or settled, so the
	// minimal ones are those with no other that held below them.
	for _, a := range all {
		if s.minimal(a) {
			t.Minimal = append(t.Minimal, s.ords(a))
		}
	}
	// Fewer fences first (stable: then weaker, the sweep's order).
	fences := func(m []model.Ordering) int {
		n := 0
		for i, o := range m {
			if t.Sites[i].Kind == SiteFenceSlot && o.Atomic() {
				n++
			}
		}
		return n
	}
	sort.SliceStable(t.Minimal, func(i, j int) bool { return fences(t.Minimal[i]) < fences(t.Minimal[j]) })
	return t, s.weakenings()
}

// descend finds one minimal assignment: from every site at its
// strongest level, each site in turn (fence slots first, so that fewer
// fences are kept) goes down to the weakest level that still holds with
// the others where they are. Holding is closed upwards, so a site that
// cannot go lower while the others are stronger cannot once they are
// weaker: the result is minimal.
func (s *tuneSearch) descend() error {
	t := s.t
	a := s.top()
	order := make([]int, 0, len(t.Sites))
	for i, site := range t.Sites {
		if site.Kind == SiteFenceSlot {
			order = append(order, i)
		}
	}
	for i, site := range t.Sites {
		if site.Kind != SiteFenceSlot {
			order = append(order, i)
		}
	}
	for _, i := range order {
		for l := range t.Sites[i].Levels {
			if l == a[i] {
				break
			}
			b := slices.Clone(a)
			b[i] = l
			if s.refuted(b) {
				continue
			}
			ok, _, err := s.holds(b)
			if err != nil {
				return err
			}
			if ok {
				a = b
				break
			}
		}
	}
	t.Minimal, t.One = [][]model.Ordering{s.ords(a)}, true
	return nil
}

// weakenings checks the current assignment and, for each site, one step
// weaker than the current orderings when they hold, else than the first
// minimal assignment (Tuning.Below, CurrentHolds, CurrentMinimal).
func (s *tuneSearch) weakenings() error {
	t := s.t
	var err error
	// The current assignment, and each site one step weaker.
	cur := make([]int, len(t.Sites))
	for i, site := range t.Sites {
		cur[i] = nearestLevel(site.Levels, site.Current)
	}
	if t.CurrentHolds, _, err = s.holds(cur); err != nil {
		return err
	}
	// One step weaker than the current orderings when they hold, else
	// than the first minimal assignment: what each site's ordering is for.
	base := cur
	if !t.CurrentHolds && len(t.Minimal) > 0 {
		base = make([]int, len(t.Sites))
		for i, site := range t.Sites {
			base[i] = nearestLevel(site.Levels, t.Minimal[0][i])
		}
	}
	t.Below = make([]*Weakening, len(t.Sites))
	weaker := false // some assignment one step below base holds
	if t.CurrentHolds || len(t.Minimal) > 0 {
		for i, site := range t.Sites {
			for _, lower := range coveredBy(site.Levels, base[i]) {
				a := slices.Clone(base)
				a[i] = lower
				ok, w, err := s.holds(a)
				if err != nil {
					return err
				}
				weaker = weaker || ok
				if !ok && (t.Below[i] == nil || t.Below[i].Report == nil) {
					w.From, w.Ord = site.Levels[base[i]], site.Levels[lower]
					t.Below[i] = w
				} else if ok && t.Below[i] == nil {
					t.Below[i] = &Weakening{From: site.Levels[base[i]], Ord: site.Levels[lower]}
				}
			}
		}
	}
	// Holding is closed upwards: an assignment that holds is minimal when
	// nothing one step below it holds.
	t.CurrentMinimal = t.CurrentHolds && !weaker
	return nil
}

// nearestLevel returns the level of an ordering: itself, or when it is
// not a level (con where no model tells it from rlx, a relaxed fence) the
// strongest level weaker than it, else the weakest stronger one.
func nearestLevel(levels []model.Ordering, o model.Ordering) int {
	if i := slices.Index(levels, o); i >= 0 {
		return i
	}
	best := -1
	for i, l := range levels {
		if Weaker(l, o) && (best < 0 || Weaker(levels[best], l)) {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	for i, l := range levels {
		if Weaker(o, l) {
			return i
		}
	}
	return len(levels) - 1
}

// coveredBy returns the levels just below level i: the strongest ones
// weaker than it.
func coveredBy(levels []model.Ordering, i int) []int {
	var below []int
	for j := range levels {
		if j != i && Weaker(levels[j], levels[i]) {
			below = append(below, j)
		}
	}
	var out []int
	for _, j := range below {
		covered := false
		for _, k := range below {
			if k != j && Weaker(levels[j], levels[k]) {
				covered = true
			}
		}
		if !covered {
			out = append(out, j)
		}
	}
	return out
}

// tuneSearch is a search's state: what the checks so far settled.
type tuneSearch struct {
	t          *Tuning
	in         *checker.Instance
	prog       *model.Program // the instance's, with fence slots when tune adds fences
	opt        explore.Options
	held, fail [][]int // assignments checked, as level indices per site
	cache      map[string]tuneResult
	// witnesses are the latest counterexamples of failed checks, most
	// recent last, which refuted tries on other assignments.
	witnesses []tuneWitness
	deadline  time.Time // when the whole search's timeout runs out
}

// tuneWitness is a counterexample a check found: an execution (as a trace,
// to rebuild on another assignment's program) violating a property under
// the model of the check (its column; data races are judged under that
// model's race model for each program).
type tuneWitness struct {
	trace *trace.Trace
	model *model.Model
}

// maxWitnesses bounds the counterexamples kept for refuted.
const maxWitnesses = 8

// refuted reports whether a counterexample of an earlier check is still
// one with the orderings of a: the same events, reads-from and
// modification order, rebuilt on a's program (fence slots that differ
// make other events and refute nothing), consistent under its model, and
// violating the same property. Such an assignment fails without being
// explored (Tuning.Refuted counts them).
func (s *tuneSearch) refuted(a []int) bool {
	if len(s.witnesses) == 0 {
		return false
	}
	p := WithOrderings(s.prog, s.t.Sites, s.ords(a))
	judges := checker.Properties(s.in.Protocol.SeqSpec(), s.t.Props...)
	for k := len(s.witnesses) - 1; k >= 0; k-- {
		w := s.witnesses[k]
		g, err := w.trace.Rebuild(p)
		if err != nil {
			continue
		}
		m := w.model
		if w.trace.Property == checker.PropDataRace {
			m = m.RaceModel(p) // another program's orderings may change it
		}
		if v, _, err := w.trace.Judge(g, m, judges); err == nil && v != nil {
			s.t.Refuted++
			s.fail = append(s.fail, a)
			return true
		}
	}
	return false
}

// keep records the counterexample of a failed check for refuted.
func (s *tuneSearch) keep(w *Weakening) {
	if w == nil || w.Report == nil {
		return
	}
	for _, pr := range w.Report.Props {
		if pr.Name == w.Prop && pr.Witness != nil {
			s.witnesses = append(s.witnesses, tuneWitness{trace.New(pr.Witness), w.Model})
			if len(s.witnesses) > maxWitnesses {
				s.witnesses = s.witnesses[1:]
			}
			return
		}
	}
}

type tuneResult struct {
	ok bool
	w  *Weakening
}

// top is every site at its strongest level (seq_cst), as level indices.
func (s *tuneSearch) top() []int {
	a := make([]int, len(s.t.Sites))
	for i, site := range s.t.Sites {
		a[i] = len(site.Levels) - 1
	}
	return a
}

// ords turns level indices into orderings.
func (s *tuneSearch) ords(a []int) []model.Ordering {
	out := make([]model.Ordering, len(a))
	for i, l := range a {
		out[i] = s.t.Sites[i].Levels[l]
	}
	return out
}

// below reports whether assignment a is at most as strong as b.
func (s *tuneSearch) below(a, b []int) bool {
	for i := range a {
		lv := s.t.Sites[i].Levels
		if !Weaker(lv[a[i]], lv[b[i]]) {
			return false
		}
	}
	return true
}

// settled reports whether earlier checks decide a: one that held below
// it (then a holds and is not minimal) or one that failed above it.
func (s *tuneSearch) settled(a []int) bool {
	for _, h := range s.held {
		if s.below(h, a) {
			return true
		}
	}
	for _, f := range s.fail {
		if s.below(a, f) {
			return true
		}
	}
	return false
}

// minimal reports whether a was checked and held with nothing that held
// strictly below it.
func (s *tuneSearch) minimal(a []int) bool {
	if r, ok := s.cache[fmt.Sprint(a)]; !ok || !r.ok {
		return false
	}
	for _, h := range s.held {
		if !slices.Equal(h, a) && s.below(h, a) {
			return false
		}
	}
	return true
}

// assignments lists every assignment, weakest first: by the total
// strength of its orderings (an assignment is checked after every one
// below it).
func (s *tuneSearch) assignments() [][]int {
	var out [][]int
	a := make([]int, len(s.t.Sites))
	var gen func(i int)
	gen = func(i int) {
		if i == len(a) {
			out = append(out, slices.Clone(a))
			return
		}
		for l := range s.t.Sites[i].Levels {
			a[i] = l
			gen(i + 1)
		}
	}
	gen(0)
	height := func(a []int) int {
		h := 0
		for i, l := range a {
			h += bits.OnesCount8(caps(s.t.Sites[i].Levels[l]))
		}
		return h
	}
	sort.SliceStable(out, func(i, j int) bool { return height(out[i]) < height(out[j]) })
	return out
}

// holds checks assignment a under every model (once per assignment) and
// records the result; a failure comes with the property, model and
// report that broke.
func (s *tuneSearch) holds(a []int) (bool, *Weakening, error) {
	key := fmt.Sprint(a)
	if r, ok := s.cache[key]; ok {
		return r.ok, r.w, nil
	}
	ok, w, err := s.check(s.ords(a), s.t.Props)
	if err != nil {
		return false, nil, err
	}
	if s.cache == nil {
		s.cache = map[string]tuneResult{}
	}
	s.cache[key] = tuneResult{ok, w}
	if ok {
		s.held = append(s.held, a)
	} else {
		s.fail = append(s.fail, a)
		s.keep(w)
	}
	return ok, w, nil
}

// check explores the program with orderings ords under each model in
// turn, stopping at the first that breaks a property.
func (s *tuneSearch) check(ords []model.Ordering, props []string) (bool, *Weakening, error) {
	var w *Weakening
	err := s.explore(ords, props, func(m *model.Model, rep *checker.Report, pr checker.PropResult) bool {
		w = &Weakening{Prop: pr.Name, Model: m, Report: rep}
		return false
	})
	return w == nil, w, err
}

// explore checks the program with orderings ords under each model in
// turn and calls broken for each property a model's report does not
// keep, until it returns false.
func (s *tuneSearch) explore(ords []model.Ordering, props []string, broken func(*model.Model, *checker.Report, checker.PropResult) bool) error {
	p := WithOrderings(s.prog, s.t.Sites, ords)
	judges := checker.Properties(s.in.Protocol.SeqSpec(), props...)
	var races checker.RaceVerdicts
	for _, m := range s.t.Models {
		opt, err := s.budget()
		if err != nil {
			return err
		}
		s.t.Checks++
		rep, err := races.Check(p, m, judges, opt)
		if err != nil {
			return err
		}
		if !rep.Stats.Exhaustive() {
			s.t.Bounded = true
			if rep.Stats.Limit == explore.Timeout && !s.deadline.IsZero() || rep.Stats.Limit == explore.Interrupted {
				s.t.Stopped = rep.Stats.Limit
				return errTuneStopped
			}
		}
		for _, pr := range rep.Props {
			if pr.Status != checker.Holds && !broken(m, rep, pr) {
				return nil
			}
		}
	}
	return nil
}

// budget returns the options of the next check: the timeout is the whole
// search's, so each check gets what is left of it; once it is spent, or
// the context cancelled, the search stops (errTuneStopped).
func (s *tuneSearch) budget() (explore.Options, error) {
	opt := s.opt
	if ctx := opt.Context; ctx != nil && ctx.Err() != nil {
		s.t.Stopped = explore.Interrupted
		return opt, errTuneStopped
	}
	if !s.deadline.IsZero() {
		left := time.Until(s.deadline)
		if left <= 0 {
			s.t.Stopped = explore.Timeout
			return opt, errTuneStopped
		}
		opt.Timeout = left
	}
	return opt, nil
}

// unfixable checks the assignment with every site seq_cst and returns the
// properties it keeps; the violated ones are recorded as unfixable (a
// property a bound left undecided is kept, and the tuning bounded).
func (s *tuneSearch) unfixable(top []model.Ordering, props []string) ([]string, error) {
	broken := map[string]bool{}
	err := s.explore(top, props, func(m *model.Model, rep *checker.Report, pr checker.PropResult) bool {
		if pr.Status == checker.Violated && !broken[pr.Name] {
			broken[pr.Name] = true
			s.t.Unfixable = append(s.t.Unfixable, Unfixable{Prop: pr.Name, Model: m, Report: rep})
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	var keep []string
	for _, p := range props {
		if !broken[p] {
			keep = append(keep, p)
		}
	}
	return keep, nil
}

// racingPlain finds the plain accesses that atomics could take out of a
// data race: with every site seq_cst, each race found adds its plain
// accesses as sites, until the races are gone or a race has no plain
// access left to make atomic.
func racingPlain(in *checker.Instance, models []*model.Model, consume bool, opt explore.Options, checks *int) (map[model.Pos]bool, error) {
	plain := map[model.Pos]bool{}
	for {
		sites := Sites(in.Prog, consume, plain)
		top := make([]model.Ordering, len(sites))
		for i := range top {
			top[i] = model.SeqCst
		}
		p := WithOrderings(in.Prog, sites, top)
		grew := false
		for _, m := range models {
			*checks++
			rep, err := checker.Check(p, m, []checker.Property{checker.DataRace}, opt)
			if err != nil {
				return nil, err
			}
			w := rep.Props[0].Witness
			if w == nil {
				continue
			}
			for _, a := range w.Violation.Anchors {
				ev := w.Graph.Ev(a)
				in := &w.Graph.Prog.Threads[a.T].Code[ev.Instr]
				if !in.Ord.Atomic() && !plain[in.Pos] {
					plain[in.Pos], grew = true, true
				}
			}
			break
		}
		if !grew {
			return plain, nil
		}
	}
}
