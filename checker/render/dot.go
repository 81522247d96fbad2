package render

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/encoding"
	"gonum.org/v1/gonum/graph/encoding/dot"
	"gonum.org/v1/gonum/graph/multi"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// dotNode is an event drawn as a node.
type dotNode struct {
	id    int64
	name  string
	label string
	attrs []encoding.Attribute
}

func (n dotNode) ID() int64     { return n.id }
func (n dotNode) DOTID() string { return n.name }
func (n dotNode) Attributes() []encoding.Attribute {
	return append([]encoding.Attribute{{Key: "label", Value: fmt.Sprintf("%q", n.label)}}, n.attrs...)
}

// dotLine is a relation edge (po, rf, co, sw).
type dotLine struct {
	from, to graph.Node
	id       int64
	rel      string
	attrs    []encoding.Attribute
}

func (l dotLine) From() graph.Node         { return l.from }
func (l dotLine) To() graph.Node           { return l.to }
func (l dotLine) ReversedLine() graph.Line { l.from, l.to = l.to, l.from; return l }
func (l dotLine) ID() int64                { return l.id }
func (l dotLine) Attributes() []encoding.Attribute {
	return append([]encoding.Attribute{{Key: "label", Value: l.rel}}, l.attrs...)
}

var relStyle = map[string][]encoding.Attribute{
	"po": {{Key: "color", Value: "black"}},
	"rf": {{Key: "color", Value: "red"}, {Key: "fontcolor", Value: "red"}},
	"co": {{Key: "color", Value: "blue"}, {Key: "fontcolor", Value: "blue"}, {Key: "style", Value: "dashed"}},
	"sw": {{Key: "color", Value: "darkgreen"}, {Key: "fontcolor", Value: "darkgreen"}, {Key: "penwidth", Value: "2"}},
	// between operations: happens-before from a return to a call, and
	// the synchronisation a specification promises that is missing
	"hb":      {{Key: "color", Value: "purple"}, {Key: "fontcolor", Value: "purple"}, {Key: "style", Value: "bold"}},
	"missing": {{Key: "color", Value: "red"}, {Key: "fontcolor", Value: "red"}, {Key: "style", Value: "dashed"}, {Key: "penwidth", Value: "2"}},
}

// DOT draws a witness's causal cone as a Graphviz graph: events in one
// cluster per thread, with po, rf, co and sw edges, and for a history
// that does not linearize the happens-before between its operations (hb)
// and the synchronisation missing (missing); the events that show the
// violation (the racing pair, the failed assertion, the stale read) are
// highlighted.
func DOT(w *explore.Witness) ([]byte, error) {
	g := w.Graph
	p := g.Prog
	keep := w.Cone()
	x, steps := presentation(w)
	num := map[model.EventRef]int{}
	for i, r := range steps {
		num[r] = i + 1
	}
	hot := map[model.EventRef]bool{}
	for _, a := range w.Violation.Anchors {
		hot[a] = true
		if e := g.Ev(a); e.Kind == model.KError {
			// the failed assertion's stale read, if any, is hot too
			for i := int(a.I) - 1; i >= 0; i-- {
				if r := (model.EventRef{T: a.T, I: int32(i)}); g.Ev(r).Kind == model.KRead {
					hot[r] = true
					break
				}
			}
		}
	}
	dg := multi.NewDirectedGraph()
	nodes := map[model.EventRef]dotNode{}
	node := func(r model.EventRef) dotNode {
		if n, ok := nodes[r]; ok {
			return n
		}
		var n dotNode
		if r.IsInit() {
			l := model.Loc(r.I)
			n = dotNode{name: fmt.Sprintf("init_%d", r.I), label: fmt.Sprintf("init %s = %s", p.Locs[l].Name, p.FormatValue(p.Locs[l].Init)),
				attrs: []encoding.Attribute{{Key: "shape", Value: "box"}, {Key: "style", Value: "dashed"}}}
		} else {
			ev := g.Ev(r)
			in := &p.Threads[r.T].Code[ev.Instr]
			n = dotNode{name: fmt.Sprintf("e%d_%d", r.T, r.I), label: fmt.Sprintf("%d. %s: %s", num[r], p.Threads[r.T].Name, describeEvent(g, ev, in, num)),
				attrs: []encoding.Attribute{{Key: "shape", Value: "box"}}}
			if hot[r] {
				n.attrs = append(n.attrs, encoding.Attribute{Key: "color", Value: "red"}, encoding.Attribute{Key: "penwidth", Value: "3"})
			}
		}
		n.id = int64(len(nodes))
		nodes[r] = n
		dg.AddNode(n)
		return n
	}
	var nlines int64
	edge := func(a, b model.EventRef, rel string) {
		dg.SetLine(dotLine{from: node(a), to: node(b), id: nlines, rel: rel, attrs: relStyle[rel]})
		nlines++
	}
	for _, r := range steps {
		if !keep[r] {
			continue
		}
		node(r)
		ev := g.Ev(r)
		if r.I > 0 && keep[model.EventRef{T: r.T, I: r.I - 1}] {
			edge(model.EventRef{T: r.T, I: r.I - 1}, r, "po")
		}
		if ev.Kind == model.KRead {
			edge(ev.Rf, r, "rf")
		}
	}
	for l, co := range g.Co {
		prev := model.InitRef(model.Loc(l))
		for _, wr := range co {
			if keep[wr] {
				if _, drawn := nodes[prev]; drawn || !prev.IsInit() {
					edge(prev, wr, "co")
				}
				prev = wr
			}
		}
	}
	x.Of(model.SW).Each(func(i, j int) {
		a, b := x.Refs[i], x.Refs[j]
		if keep[a] && keep[b] {
			edge(a, b, "sw")
		}
	})
	before, missing := linEdges(w)
	for rel, es := range map[string][][2]model.EventRef{"hb": before, "missing": missing} {
		for _, e := range es {
			if keep[e[0]] && keep[e[1]] {
				edge(e[0], e[1], rel)
			}
		}
	}
	return dot.MarshalMulti(dg, "execution", "", "  ")
}

// SVG renders a DOT graph to an SVG file at path with Graphviz's dot.
func SVG(dotSrc []byte, path string) error {
	bin, err := exec.LookPath("dot")
	if err != nil {
		return fmt.Errorf("--svg needs Graphviz's dot, which is not installed (apt-get install graphviz); --dot writes the graph without it")
	}
	c := exec.Command(bin, "-Tsvg")
	c.Stdin = bytes.NewReader(dotSrc)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		return fmt.Errorf("dot: %v: %s", err, errOut.Bytes())
	}
	return WriteFile(path, func(w io.Writer) error { _, err := w.Write(out.Bytes()); return err })
}
