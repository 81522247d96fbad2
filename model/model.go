package model

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Model is a memory model: which executions of a program it allows, and
// everything else the checker needs to know of it. Each model is one value
// in its own file, registered with Register; nothing outside this package
// asks for a model by name.
type Model struct {
	// Name is the model's name on the command line (sc, tso, rc11, ...).
	Name string
	// Doc says in a few words what the model is, for help texts.
	Doc string
	// Axioms are the model's constraints, checked in order: an execution is
	// consistent when it satisfies every one.
	Axioms []Axiom
	// HB is the happens-before relation data races are judged by.
	HB *Derived
	// RacesUndefined says that a data race is undefined behaviour under
	// the model (herd7's Undef), as in C11.
	RacesUndefined bool
	// Consume says the model tells a consume load from a relaxed one (it
	// orders what depends on a consume load); elsewhere con acts as rlx.
	Consume bool
	// LoadBuffering says the model allows executions with a cycle in
	// po ∪ rf: a load reading a write its own thread makes later, through
	// other threads. Explorers that build executions in po ∪ rf order
	// cannot reach those: a program is explored under such a model by
	// the graph explorer only when a probe finds no load it can buffer,
	// else by speculation.
	LoadBuffering bool
	// Ordered, for a model with LoadBuffering, is the pairs of a thread's
	// events that the model orders whatever rf and co are (dependencies,
	// barriers, acquire and release), within the order whose acyclicity
	// forbids a po ∪ rf cycle together with rfe: ARM's lob parts,
	// RISC-V's static ppo rules. Nil: none known.
	Ordered *Derived
	// Within lists the models that allow every execution this one allows:
	// the strength order (sc ⊆ tso ⊆ rc11, rc11-consume ⊆ rc11).
	Within []*Model
	// Strength places the model in lists (help texts, compare's columns),
	// strongest first; models of one strength, such as a model and its
	// variant, sit side by side in the order of their names.
	Strength int
	// Machine is the model's operational form, which the state explorer
	// runs; nil when the model is explored by execution graphs only.
	Machine Machine
	// Stale explains in a phrase why the model lets read r of x read a
	// write older than w, which comes before r in the presentation of the
	// execution; step names an event as the presentation numbers it.
	Stale func(x *Exec, r, w int, step func(i int) string) string
	// Unordered explains in a phrase why event a of x is not
	// happens-before event b, of another thread (for data races).
	Unordered func(x *Exec, a, b int, step func(i int) string) string
	// Fast, when set, decides consistency as the axioms do but faster, or
	// says it cannot (decided false) and the axioms decide.
	Fast func(g *Graph) (consistent, decided bool)
	// Clocks says that the model's consistency is RC11's, decided as a
	// graph grows by the happens-before clocks of its events (NewClock,
	// Grown) where no seq_cst event is involved.
	Clocks bool
	// Parts, when set, names the relations whose union is the relation of
	// the acyclicity axiom named axiom (nil for another axiom), so that an
	// explanation can say what each edge of a cycle is (Cycle).
	Parts func(x *Exec, axiom string) []Part
	// Order is an order of events every consistent execution respects
	// beyond po, rf, co and fr, which a counterexample's presentation
	// follows where it can: RC11's psc, the order of seq_cst events. Nil
	// when there is none.
	Order *Derived
}

// Part is a named relation: one way events of an execution are ordered.
type Part struct {
	Name string
	Rel  Relation
}

// union returns the union of the parts' relations.
func union(x *Exec, parts []Part) Relation {
	out := NewRelation(x.N)
	for _, p := range parts {
		out = out.Union(p.Rel)
	}
	return out
}

// Cycle returns a shortest cycle of the relation of m's acyclicity axiom
// named axiom in x, as exec indices (the first event closes it), and what
// each edge is: the first of m's Parts holding it, else the relation's
// name. It returns nil when the axiom is not an acyclicity axiom of m or
// holds of x.
func (m *Model) Cycle(x *Exec, axiom string) (cycle []int, edges []string) {
	var a *Axiom
	for i := range m.Axioms {
		if m.Axioms[i].Name == axiom && m.Axioms[i].Test == Acyclic {
			a = &m.Axioms[i]
		}
	}
	if a == nil {
		return nil, nil
	}
	r := x.Of(a.Rel)
	for s := 0; s < x.N; s++ {
		// breadth first from s, back to s
		prev := make([]int, x.N)
		for i := range prev {
			prev[i] = -1
		}
		queue := []int{s}
		found := -1
		for len(queue) > 0 && found < 0 {
			i := queue[0]
			queue = queue[1:]
			for j := 0; j < x.N && found < 0; j++ {
				if !r.Has(i, j) {
					continue
				}
				if j == s {
					found = i
				} else if prev[j] < 0 {
					prev[j] = i
					queue = append(queue, j)
				}
			}
		}
		if found < 0 {
			continue
		}
		path := []int{}
		for i := found; i != s; i = prev[i] {
			path = append(path, i)
		}
		path = append(path, s)
		slices.Reverse(path)
		if cycle == nil || len(path) < len(cycle) {
			cycle = path
		}
	}
	if cycle == nil {
		return nil, nil
	}
	var parts []Part
	if m.Parts != nil {
		parts = m.Parts(x, axiom)
	}
	for k, i := range cycle {
		j := cycle[(k+1)%len(cycle)]
		name := a.Rel.Name
		for _, p := range parts {
			if p.Rel.Has(i, j) {
				name = p.Name
				break
			}
		}
		edges = append(edges, name)
	}
	return cycle, edges
}

// Axiom is a named constraint on executions, as a herd7 .cat file states
// one: "acyclic po | rf as no-thin-air".
type Axiom struct {
	// Name is the axiom's name, as the .cat file of the model calls it.
	Name string
	// Test is what must hold of Rel.
	Test Test
	// Rel is the relation constrained.
	Rel *Derived
}

// Test is the kind of constraint an axiom places on its relation.
type Test uint8

// Constraints on relations, as in .cat files.
const (
	Acyclic     Test = iota // no cycle
	Irreflexive             // no pair (e, e)
	Empty                   // no pair at all
)

func (t Test) String() string { return [...]string{"acyclic", "irreflexive", "empty"}[t] }

// Holds reports whether the test holds of r.
func (t Test) Holds(r Relation) bool {
	switch t {
	case Acyclic:
		return r.Acyclic()
	case Irreflexive:
		ok, _ := r.Irreflexive()
		return ok
	}
	return r.Empty()
}

// Check returns "" when x is consistent under m, otherwise the name of the
// first axiom it violates.
func (m *Model) Check(x *Exec) string {
	for i := range m.Axioms {
		a := &m.Axioms[i]
		if !a.Test.Holds(x.Of(a.Rel)) {
			return a.Name
		}
	}
	return ""
}

// Consistent reports whether g is consistent under m: by the model's fast
// check where it decides, else by its axioms.
func (m *Model) Consistent(g *Graph) bool {
	if m.Fast != nil {
		if ok, decided := m.Fast(g); decided {
			return ok
		}
	}
	return m.Check(NewExec(g)) == ""
}

// RaceModel returns the model data races of p are judged by when p is
// checked under m: m itself when races are undefined behaviour under it
// (a C11 model), otherwise C11 — RC11 with consume (rc11-consume) when p
// has consume loads, RC11 when it has none, where the two agree. A data
// race is a property of the C program, not of the machine it runs on: a
// racy plain access can sit behind a weak outcome that a stronger model
// never produces, so judging races in the stronger model's executions
// would miss it.
//
// One exception keeps m: when every atomic access and fence of p is
// seq_cst (locks aside) and m lies within RC11 in the strength order.
// Then DRF-SC decides: a program without a race in its SC executions has
// only SC executions under C11, and m's executions include the SC ones,
// so a race shows in m's executions exactly when it does in C11's.
func (m *Model) RaceModel(p *Program) *Model {
	if m.RacesUndefined {
		return m
	}
	if OnlySCAtomics(p) && m.within(RC11) {
		return m
	}
	for _, th := range p.Threads {
		for _, in := range th.Code {
			if in.Ord == Con || in.FailOrd == Con {
				return RC11Consume
			}
		}
	}
	return RC11
}

// OnlySCAtomics reports whether every atomic access and fence of p is
// seq_cst, locks and unlocks aside: then DRF-SC applies to it under C11
// (Lahav, Vafeiadis, Kang, Hur, Dreyer, PLDI 2017) — if its SC executions
// have no data race, its RC11 executions are exactly its SC executions.
func OnlySCAtomics(p *Program) bool {
	for _, th := range p.Threads {
		for _, in := range th.Code {
			switch in.Op {
			case OpLoad, OpStore, OpRMW, OpFence:
				if in.Ord.Atomic() && in.Ord != SeqCst {
					return false
				}
			case OpCAS:
				if in.Ord != SeqCst || in.FailOrd != SeqCst {
					return false
				}
			}
		}
	}
	return true
}

// within reports whether m lies within n in the strength order (m's
// Within, followed transitively).
func (m *Model) within(n *Model) bool {
	seen := map[*Model]bool{}
	var walk func(*Model) bool
	walk = func(x *Model) bool {
		if x == n {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		for _, y := range x.Within {
			if walk(y) {
				return true
			}
		}
		return false
	}
	return walk(m)
}

// HappensBefore returns the happens-before of x that data races are
// judged by under m.
func (m *Model) HappensBefore(x *Exec) Relation { return x.Of(m.HB) }

func (m *Model) String() string { return m.Name }

// Derived is a derived relation (a .cat file's "let"), defined once with Let
// and computed at most once per execution.
type Derived struct {
	// Name is the relation's name, as the .cat file of its model calls it.
	Name string
	def  func(x *Exec) Relation
	id   int
}

var (
	relsMu  sync.Mutex
	nrels   int
	statics []*Derived // the relations LetStatic defined
)

// Let defines a derived relation called name, computed by def (which may
// ask x for other derived relations).
func Let(name string, def func(x *Exec) Relation) *Derived {
	relsMu.Lock()
	defer relsMu.Unlock()
	nrels++
	return &Derived{Name: name, def: def, id: nrels - 1}
}

// LetStatic defines a derived relation that depends on an execution's
// events alone, not on what its reads read or on modification order: an
// Exec of a graph with the same events reuses it (Exec.Keep).
func LetStatic(name string, def func(x *Exec) Relation) *Derived {
	d := Let(name, def)
	relsMu.Lock()
	statics = append(statics, d)
	relsMu.Unlock()
	return d
}

var (
	registryMu sync.RWMutex
	registry   []*Model
)

// Register adds a model to the registry that Lookup and All read. It
// panics when a model of that name is already registered: models are
// registered once, when their package is initialised (or, for a test's own
// model, when the test begins: see Unregister).
func Register(m *Model) *Model {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, o := range registry {
		if o.Name == m.Name {
			panic("model: " + m.Name + " registered twice")
		}
	}
	registry = append(registry, m)
	slices.SortStableFunc(registry, func(a, b *Model) int {
		if a.Strength != b.Strength {
			return a.Strength - b.Strength
		}
		return strings.Compare(a.Name, b.Name)
	})
	return m
}

// Unregister removes the model called name from the registry (for tests
// that register a model of their own).
func Unregister(name string) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry = slices.DeleteFunc(registry, func(m *Model) bool { return m.Name == name })
}

// Lookup returns the registered model called name.
func Lookup(name string) (*Model, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, m := range registry {
		if m.Name == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("unknown memory model %q%s (known: %s)", name, DidYouMean(name, namesLocked()), strings.Join(namesLocked(), ", "))
}

// All returns the registered models, strongest first.
func All() []*Model {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return slices.Clone(registry)
}

// Names returns the names of the registered models, strongest first.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	out := make([]string, len(registry))
	for i, m := range registry {
		out[i] = m.Name
	}
	return out
}
