package render

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/tune"
	"github.com/ordercheck/ordercheck/model"
)

// ReportHTML writes one check's report, of in under m, as the web page
// of a comparison of that one cell (ComparisonHTML).
func ReportHTML(w io.Writer, in *checker.Instance, m *model.Model, r *checker.Report) error {
	return ComparisonHTML(w, &checker.Comparison{Protocol: in.Protocol, Props: in.Protocol.PropNames(), Models: []*model.Model{m}, Cases: []*checker.Instance{in}, Reports: [][]*checker.Report{{r}}})
}

// ComparisonHTML writes a comparison as one self-contained web page for a
// design review: a one-line summary, a compact grid (a row per variant, a
// cell per model: "holds" or the properties violated, each linked), the
// detailed matrix (a cell per property) folded under it, and each
// counterexample once — the steps in words beside an execution graph
// drawn in SVG, a step-through, and the protocol's source with the lines
// the counterexample runs highlighted — folded until a link opens it. A
// counterexample that decides several cells (a C11 data race judged for
// the sc, tso, arm and riscv columns) is shown once and says which. No
// network, no script needed to read it (the script only opens what a
// link names and adds the step-through); a print stylesheet.
func ComparisonHTML(w io.Writer, c *checker.Comparison) error {
	page := htmlPage{Title: "ordercheck: " + c.Protocol.File.Name, Protocol: c.Protocol.File.Name, ProtocolTitle: c.Protocol.File.Title, Props: c.Props, Notes: elsewhere(c)}
	for _, m := range c.Models {
		page.Models = append(page.Models, m.Name)
	}
	if len(c.Cases) > 0 {
		page.Params = c.Cases[0].ParamString()
	}
	shipped := ""
	if v := c.Protocol.File.ShippedVariant(); v != nil {
		shipped = v.Name
		page.Shipped = true
	}
	shown := map[string]int{} // a counterexample's content -> its place in page.Cexes
	var holding, violating, undecided []string
	for i, in := range c.Cases {
		row := htmlRow{Variant: variantName(in), Doc: in.Doc(), Shipped: in.Variant != "" && in.Variant == shipped}
		violated, unknown := false, false
		for j, m := range c.Models {
			r := c.Reports[i][j]
			gc := gridCell{Model: m.Name, Class: "holds"}
			for _, p := range r.Props {
				cell := htmlCell{Model: m.Name, Prop: p.Name}
				if p.Witness != nil {
					cell.Link = page.counterexample(shown, fmt.Sprintf("cex-%d-%d-%s", i, j, p.Name), in, m, p, c.Protocol.Source)
				}
				switch p.Status {
				case checker.Holds:
					cell.Class, cell.Text = "holds", "holds"
				case checker.Violated:
					cell.Class, cell.Text = "violated", "violated"
					gc.Class, violated = "violated", true
					gc.Violated = append(gc.Violated, gridLink{Prop: p.Name, Link: cell.Link})
				default:
					cell.Class, cell.Text = "unknown", "no verdict ("+r.Stats.LimitText()+")"
					if gc.Class == "holds" {
						gc.Class = "unknown"
					}
					unknown = true
					gc.Unknown = append(gc.Unknown, p.Name)
					gc.Why = r.Stats.LimitText()
				}
				row.Cells = append(row.Cells, cell)
			}
			row.Grid = append(row.Grid, gc)
		}
		switch {
		case violated:
			violating = append(violating, row.Variant)
		case unknown:
			undecided = append(undecided, row.Variant)
		default:
			holding = append(holding, row.Variant)
		}
		page.Rows = append(page.Rows, row)
	}
	page.Summary = summary(holding, violating, undecided, len(c.Models))
	return htmlTemplate.Execute(w, page)
}

// counterexample adds the counterexample of property p of variant in under
// model m to the page, or, when the page shows the same execution already
// (judged for another column, or breaking another property), notes the
// cell there; it returns the counterexample's id.
func (page *htmlPage) counterexample(shown map[string]int, id string, in *checker.Instance, m *model.Model, p checker.PropResult, source string) string {
	steps, notes := witnessSteps(p.Witness)
	key := execKey(p.Witness, steps)
	k, ok := shown[key]
	if !ok {
		k = len(page.Cexes)
		shown[key] = k
		cx := counterexampleHTML(id, in, m, p, source)
		cx.Messages = nil
		page.Cexes = append(page.Cexes, cx)
	} else {
		// The same execution: one graph outlines what each property's
		// violation rests on.
		c := &page.Cexes[k]
		c.witnesses = append(c.witnesses, p.Witness)
		c.Graph = template.HTML(svgGraph(c.witnesses[0], c.Steps, c.witnesses[1:]...))
		for _, n := range notes {
			if !slices.Contains(c.Notes, n) {
				c.Notes = append(c.Notes, n)
			}
		}
	}
	c := &page.Cexes[k]
	c.decides(variantName(in), m, p)
	c.Title = c.heading()
	return c.ID
}

// execKey names the execution a witness shows: its steps, the write each
// read reads and each location's modification order. Two witnesses with
// one key are one execution, whichever property or model found it.
func execKey(w *explore.Witness, steps []witnessStep) string {
	g := w.Graph
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00", g.Prog.Name)
	for _, st := range steps {
		ev := g.Ev(st.Ref)
		fmt.Fprintf(&b, "%v %s %s %v %v\x00", st.Ref, st.Thread, st.What, st.Pos, ev.Rf)
	}
	for l, co := range g.Co {
		fmt.Fprintf(&b, "%d %v\x00", l, co)
	}
	return b.String()
}

// decides records that the counterexample decides property p of variant
// under model m.
func (cx *htmlCex) decides(variant string, m *model.Model, p checker.PropResult) {
	i := slices.IndexFunc(cx.Verdicts, func(v cexVerdict) bool { return v.Variant == variant && v.Prop == p.Name })
	if i < 0 {
		cx.Verdicts = append(cx.Verdicts, cexVerdict{Variant: variant, Prop: p.Name})
		i = len(cx.Verdicts) - 1
	}
	if !slices.ContainsFunc(cx.Messages, func(c cexMessage) bool { return c.Prop == p.Name && c.Text == p.Message }) {
		cx.Messages = append(cx.Messages, cexMessage{Prop: p.Name, Text: p.Message})
	}
	v := &cx.Verdicts[i]
	v.Models = append(v.Models, m.Name)
	if p.Model != nil && p.Model != m {
		v.Judged, v.By = append(v.Judged, m.Name), p.Model.Name
	}
}

// heading titles a counterexample of the comparison by the cells it
// decides.
func (cx *htmlCex) heading() string {
	// Properties broken under the same models are named together, and
	// then variants with the same verdicts.
	type cells struct{ variant, under string }
	var keys []cells
	props := map[cells][]string{}
	for _, v := range cx.Verdicts {
		under := strings.Join(v.Models, ", ")
		if len(v.Judged) > 0 {
			under += fmt.Sprintf(" (under %s judged under C11: this is an execution under %s)", strings.Join(v.Judged, ", "), v.By)
		}
		k := cells{v.Variant, under}
		if props[k] == nil {
			keys = append(keys, k)
		}
		props[k] = append(props[k], v.Prop)
	}
	var order []string
	variants := map[string][]string{}
	for _, k := range keys {
		t := andList(props[k]) + " violated under " + k.under
		if variants[t] == nil {
			order = append(order, t)
		}
		variants[t] = append(variants[t], k.variant)
	}
	var parts []string
	for _, t := range order {
		parts = append(parts, andList(variants[t])+": "+t)
	}
	return strings.Join(parts, "; ")
}

// summary is the page's first line: which variants hold under every
// model, which violate something, which a bound left undecided.
func summary(holding, violating, undecided []string, models int) string {
	every := "every model"
	if models == 1 {
		every = "the model"
	}
	var parts []string
	switch len(holding) {
	case 0:
		parts = append(parts, "No variant holds under "+every)
	case 1:
		parts = append(parts, holding[0]+" holds under "+every)
	default:
		parts = append(parts, andList(holding)+" hold under "+every)
	}
	if len(violating) > 0 {
		verb := " violate"
		if len(violating) == 1 {
			verb = " violates"
		}
		parts = append(parts, andList(violating)+verb+" a property")
	}
	if len(undecided) > 0 {
		parts = append(parts, andList(undecided)+" no verdict where a bound cut the search")
	}
	return strings.Join(parts, "; ") + "."
}

// andList joins words as prose does: "a", "a and b", "a, b and c".
func andList(ws []string) string {
	if len(ws) <= 1 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

type htmlPage struct {
	Title, Protocol, ProtocolTitle, Params, Notes, Summary string
	Shipped                                                bool
	Models, Props                                          []string
	Rows                                                   []htmlRow
	Cexes                                                  []htmlCex
}

type htmlRow struct {
	Variant, Doc string
	Shipped      bool
	Cells        []htmlCell // a cell per model and property
	Grid         []gridCell // a cell per model
}

type htmlCell struct {
	Model, Prop, Class, Text, Link string
}

// gridCell is a variant under one model in the compact grid: the
// properties violated (linked), and those a bound left without a verdict.
type gridCell struct {
	Model, Class, Why string
	Violated          []gridLink
	Unknown           []string
}

type gridLink struct{ Prop, Link string }

// cexVerdict is a property a counterexample breaks and the models under
// which the comparison shows it; Judged are those whose model takes it
// from By's (C11) exploration.
type cexVerdict struct {
	Variant, Prop, By string
	Models, Judged    []string
}

// cexMessage is what a counterexample breaks, in words: the page names
// the property when it breaks more than one.
type cexMessage struct{ Prop, Text string }

type htmlCex struct {
	ID, Title string
	Messages  []cexMessage
	// Verdicts are the cells of a comparison it decides.
	Verdicts []cexVerdict
	Steps    []witnessStep
	Memory   []string // the shared memory after each step, as far as the steps shown wrote it
	Notes    []string
	Graph    template.HTML
	Source   []htmlLine
	// witnesses are the graph's: one execution, each breaking a property.
	witnesses []*explore.Witness
}

type htmlLine struct {
	Num  int
	Text string
	Hot  bool
}

// counterexampleHTML prepares one violated cell's counterexample.
func counterexampleHTML(id string, in *checker.Instance, m *model.Model, p checker.PropResult, source string) htmlCex {
	steps, notes := witnessSteps(p.Witness)
	title := fmt.Sprintf("%s under %s: %s violated", variantName(in), m.Name, p.Name)
	cx := htmlCex{ID: id, Title: title, witnesses: []*explore.Witness{p.Witness}, Messages: []cexMessage{{Prop: p.Name, Text: p.Message}}, Steps: steps, Notes: notes, Graph: template.HTML(svgGraph(p.Witness, steps)), Memory: memoryAfter(p.Witness, steps)}
	// The lines the counterexample runs, with two lines of context, the
	// gaps between them marked.
	hot := map[int]bool{}
	for _, st := range steps {
		hot[st.Pos.Line] = true
	}
	lines := strings.Split(strings.TrimRight(source, "\n"), "\n")
	near := func(n int) bool {
		for d := -2; d <= 2; d++ {
			if hot[n+d] {
				return true
			}
		}
		return false
	}
	for i, l := range lines {
		switch {
		case near(i + 1):
			cx.Source = append(cx.Source, htmlLine{Num: i + 1, Text: l, Hot: hot[i+1]})
		case len(cx.Source) > 0 && cx.Source[len(cx.Source)-1].Num != 0:
			cx.Source = append(cx.Source, htmlLine{Text: "…"})
		}
	}
	return cx
}

// memoryAfter gives, after each step, the value of every location the
// steps so far wrote — the last write shown, in the order shown (the
// initial values of the others stand) — or "" where the step wrote
// nothing, so that the page says it once.
func memoryAfter(w *explore.Witness, steps []witnessStep) []string {
	g := w.Graph
	p := g.Prog
	val := map[model.Loc]int64{}
	var order []model.Loc
	var out []string
	for _, st := range steps {
		ev := g.Ev(st.Ref)
		if ev.Kind != model.KWrite {
			if len(order) == 0 {
				out = append(out, " ") // nothing written yet
			} else {
				out = append(out, "")
			}
			continue
		}
		if _, seen := val[ev.Loc]; !seen {
			order = append(order, ev.Loc)
		}
		val[ev.Loc] = ev.Val
		var parts []string
		for _, l := range order {
			parts = append(parts, p.Locs[l].Name+"="+p.FormatValue(val[l]))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// svgGraph draws a witness's execution graph: a column per thread, its
// events top to bottom in the order shown, reads-from edges (rf, solid),
// coherence between shown writes of a location (co, dashed), from-reads
// edges (fr, dotted) and, under a C11 model, synchronises-with (sw); the
// events the violation rests on are outlined. Witnesses also of the same
// execution add what their violations rest on.
func svgGraph(w *explore.Witness, steps []witnessStep, also ...*explore.Witness) string {
	g := w.Graph
	p := g.Prog
	col := map[int32]int{}
	var threads []int32
	for _, st := range steps {
		if _, ok := col[st.Ref.T]; !ok {
			col[st.Ref.T] = len(threads)
			threads = append(threads, st.Ref.T)
		}
	}
	// Boxes as wide as the longest label (12 px monospace), so that no
	// label is cut; columns apart enough for the edges' labels between.
	const rowH, boxH, top = 46, 30, 40
	boxW := 220
	for _, st := range steps {
		boxW = max(boxW, 16+len([]rune(fmt.Sprintf("%d. %s", st.Num, st.What)))*15/2)
	}
	colW := boxW + 70
	pos := map[model.EventRef][2]int{}
	for i, st := range steps {
		pos[st.Ref] = [2]int{20 + col[st.Ref.T]*colW, top + i*rowH}
	}
	all := append([]*explore.Witness{w}, also...)
	anchor := map[model.EventRef]bool{}
	c11 := false
	for _, x := range all {
		for _, a := range x.Violation.Anchors {
			anchor[a] = true
		}
		c11 = c11 || x.Model != nil && x.Model.RacesUndefined
	}
	width, height := 40+len(threads)*colW, top+len(steps)*rowH+20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="execution graph" viewBox="0 0 %d %d" width="%d" height="%d">`, width, height, width, height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="context-stroke"/></marker></defs>`)
	for _, t := range threads {
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="thread">%s</text>`, 20+col[t]*colW, 20, template.HTMLEscapeString(p.Threads[t].Name))
	}
	edge := func(from, to model.EventRef, class, label string) {
		a, okA := pos[from]
		c, okC := pos[to]
		if !okA || !okC {
			return
		}
		// Within a column, a loop on its right; between columns, from
		// one box's side to the facing side of the other, so that no
		// edge crosses the boxes it joins.
		y1, y2 := a[1]+boxH/2, c[1]+boxH/2
		x1, x2, d1, d2, lx := a[0]+boxW, c[0]+boxW, 30, 30, 0
		switch {
		case a[0] < c[0]:
			x1, x2, d1, d2 = a[0]+boxW, c[0], 40, -40
		case a[0] > c[0]:
			x1, x2, d1, d2 = a[0], c[0]+boxW, -40, 40
		default:
			lx = 34
		}
		fmt.Fprintf(&b, `<path class="%s" d="M %d %d C %d %d, %d %d, %d %d" marker-end="url(#arrow)"><title>%s</title></path>`, class, x1, y1, x1+d1, y1, x2+d2, y2, x2, y2, label)
		fmt.Fprintf(&b, `<text class="%s-label" x="%d" y="%d">%s</text>`, class, (x1+x2)/2+lx, (y1+y2)/2-3, label)
	}
	for _, st := range steps {
		ev := g.Ev(st.Ref)
		if ev.Kind == model.KRead && !ev.Rf.IsInit() {
			edge(ev.Rf, st.Ref, "rf", "rf")
		}
		if ev.Kind == model.KRead {
			// fr: to the first write after the one it read.
			co := g.Co[ev.Loc]
			k := 0
			if !ev.Rf.IsInit() {
				k = g.CoPos(ev.Loc, ev.Rf) + 1
			}
			for ; k < len(co); k++ {
				if _, shown := pos[co[k]]; shown && co[k] != st.Ref {
					edge(st.Ref, co[k], "fr", "fr")
					break
				}
			}
		}
	}
	// sw: the synchronisation of a C11 model (release to acquire, through
	// fences and release sequences), between the events shown.
	if c11 {
		x := model.NewExec(g)
		x.Of(model.SW).Each(func(i, j int) {
			a, b := x.Refs[i], x.Refs[j]
			if !a.IsInit() && !b.IsInit() {
				edge(a, b, "sw", "sw")
			}
		})
	}
	for _, x := range all {
		// A race: the pair of accesses that no happens-before path
		// orders, beside the sw edges that order the rest.
		if a := x.Violation.Anchors; x.Violation.Prop == "data-race" && len(a) == 2 {
			edge(a[0], a[1], "race", "race: no hb")
		}
		before, missing := linEdges(x)
		for _, e := range before {
			edge(e[0], e[1], "ophb", "hb")
		}
		for _, e := range missing {
			edge(e[0], e[1], "missing", "missing hb")
		}
	}
	for l := range g.Co {
		var prev *model.EventRef
		for _, wr := range g.Co[l] {
			if _, shown := pos[wr]; !shown {
				continue
			}
			if prev != nil {
				edge(*prev, wr, "co", "co")
			}
			wr := wr
			prev = &wr
		}
	}
	for _, st := range steps {
		xy := pos[st.Ref]
		class := "event"
		if anchor[st.Ref] {
			class += " anchor"
		}
		fmt.Fprintf(&b, `<g class="%s" data-step="%d"><rect x="%d" y="%d" width="%d" height="%d" rx="4"/><text x="%d" y="%d">%d. %s</text></g>`,
			class, st.Num, xy[0], xy[1], boxW, boxH, xy[0]+6, xy[1]+19, st.Num, template.HTMLEscapeString(st.What))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// htmlParts are the pieces the pages share: style, script, and the
// counterexample sections.
var htmlParts = template.Must(template.New("parts").Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
{{template "style"}}
</head>
<body>
{{end}}{{define "style"}}<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #1a1a1a; background: #fff; max-width: 1400px; }
p, h1, h2, summary { overflow-wrap: anywhere; }
table.matrix td, table.steps td.num, table.steps th { white-space: nowrap; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2.5rem; border-top: 1px solid #ccc; padding-top: 1rem; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #999; padding: .25rem .5rem; text-align: left; vertical-align: top; }
thead th { background: #eee; }
td.holds { background: #e3f4e3; color: #14501a; }
td.violated { background: #fbe0e0; color: #7a0b0b; font-weight: 600; }
td.unknown { background: #fff3cd; color: #5c4500; }
td a { color: inherit; }
.shipped { font-weight: 600; }
table.grid td { white-space: normal; min-width: 4.5rem; }
table.grid td a { white-space: nowrap; }
table.grid th[scope=row] { white-space: nowrap; }
p.summary { font-size: 1.05rem; }
details.cex-body > summary { cursor: pointer; }
details.cex-body > summary h2 { display: inline; border: 0; margin: 0; padding: 0; }
section.counterexample { border-top: 1px solid #ccc; margin-top: 1.5rem; padding-top: .75rem; }
pre.source .add { background: #e3f4e3; color: #14501a; display: inline-block; width: 100%; }
pre.source .del { background: #fbe0e0; color: #7a0b0b; display: inline-block; width: 100%; }
pre.source .hunk { color: #1f4fa8; }
.doc { color: #444; font-size: .9em; }
.scroll { overflow-x: auto; max-width: 100%; }
.cex > .scroll { flex: 1 1 auto; min-width: 0; }
.steps td.num { text-align: right; }
.steps .why { color: #5a2d82; font-size: .9em; }
.steps td.mem { font-size: .85em; color: #333; }
.steps td.mem.same::before { content: "\201D"; color: #999; }
.cex { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
svg text { font: 12px ui-monospace, monospace; }
svg .thread { font-weight: 700; }
svg .event rect { fill: #f7f7f7; stroke: #555; }
svg .event.anchor rect { fill: #fde2e2; stroke: #b00020; stroke-width: 2; }
svg .event.dim { opacity: .25; }
svg path { fill: none; stroke-width: 1.5; }
svg path.rf { stroke: #1b7f3b; }
svg path.co { stroke: #1f4fa8; stroke-dasharray: 6 3; }
svg path.fr { stroke: #b00020; stroke-dasharray: 2 3; }
svg path.sw { stroke: #6a1b9a; stroke-width: 2.5; stroke-dasharray: 8 2 2 2; }
svg .sw-label { fill: #6a1b9a; }
svg path.ophb { stroke: #7b1fa2; stroke-width: 2.5; }
svg .ophb-label { fill: #7b1fa2; }
svg path.missing { stroke: #b00020; stroke-width: 2.5; stroke-dasharray: 6 4; }
svg path.race { stroke: #d35400; stroke-width: 2.5; stroke-dasharray: 3 3; }
svg .race-label { fill: #d35400; font-weight: bold; }
svg .missing-label { fill: #b00020; font-weight: bold; }
svg .rf-label { fill: #1b7f3b; } svg .co-label { fill: #1f4fa8; } svg .fr-label { fill: #b00020; }
pre.source { font: 12px/1.4 ui-monospace, monospace; background: #fafafa; border: 1px solid #ddd; padding: .5rem; overflow-x: auto; }
pre.source .hot { background: #fff0b3; display: inline-block; width: 100%; }
pre.source .ln { color: #888; user-select: none; }
.stepper { margin: .5rem 0; }
.stepper button { font: inherit; padding: .2rem .7rem; }
tr.hidden { display: none; }
@media print { .stepper { display: none; } tr.hidden { display: table-row; } h2 { break-before: page; } a { text-decoration: none; } }
</style>{{end}}{{define "script"}}<script>
// A link to a counterexample opens it; printing opens them all.
function openTarget() {
  var sec = location.hash && document.getElementById(location.hash.slice(1));
  if (sec && sec.querySelector) {
    var d = sec.querySelector("details.cex-body");
    if (d) { d.open = true; }
    sec.scrollIntoView();
  }
}
window.addEventListener("hashchange", openTarget);
document.querySelectorAll("a[href^='#']").forEach(function (a) {
  a.addEventListener("click", function () {
    var d = document.getElementById(a.getAttribute("href").slice(1));
    d = d && d.querySelector("details.cex-body");
    if (d) { d.open = true; }
  });
});
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});
openTarget();
// Step-through: reveal a counterexample one event at a time.
document.querySelectorAll("section.counterexample").forEach(function (sec) {
  var rows = sec.querySelectorAll("tr[data-step]"), boxes = sec.querySelectorAll("g[data-step]");
  var bar = sec.querySelector(".stepper"), at = bar.querySelector(".at"), n = rows.length;
  bar.hidden = false;
  function show(k) {
    n = Math.max(1, Math.min(rows.length, k));
    rows.forEach(function (r) { r.classList.toggle("hidden", +r.dataset.step > n); });
    boxes.forEach(function (g) { g.classList.toggle("dim", +g.dataset.step > n); });
    at.textContent = "step " + n + " of " + rows.length;
  }
  bar.querySelectorAll("button").forEach(function (b) { b.addEventListener("click", function () { show(n + (+b.dataset.dir)); }); });
  sec.tabIndex = 0;
  sec.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") show(n + 1);
    if (e.key === "ArrowLeft") show(n - 1);
  });
  show(rows.length);
});
</script>{{end}}{{define "cexes"}}{{range .}}
<section id="{{.ID}}" class="counterexample">
<details class="cex-body">
<summary><h2>{{.Title}}</h2></summary>
{{$named := gt (len .Messages) 1}}{{range .Messages}}<p>{{if $named}}<strong>{{.Prop}}</strong>: {{end}}{{.Text}}</p>{{end}}
<div class="stepper" hidden><button type="button" data-dir="-1">previous</button> <button type="button" data-dir="1">next</button> <span class="at"></span> (or the arrow keys)</div>
<div class="cex">
<div class="scroll">
<table class="steps">
<thead><tr><th scope="col">step</th><th scope="col">thread</th><th scope="col">event</th><th scope="col">source</th><th scope="col">memory written so far</th></tr></thead>
<tbody>
{{$mem := .Memory}}{{range $i, $st := .Steps}}<tr data-step="{{$st.Num}}"><td class="num">{{$st.Num}}</td><td>{{$st.Thread}}</td><td>{{$st.What}}{{if $st.Why}}<div class="why">{{$st.Why}}</div>{{end}}</td><td><code>{{$st.Pos}}</code></td>{{with index $mem $i}}<td class="mem"><code>{{.}}</code></td>{{else}}<td class="mem same" title="as above"></td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
<div class="scroll">{{.Graph}}</div>
</div>
{{range .Notes}}<p>{{.}}</p>{{end}}

<details><summary>The protocol's lines this counterexample runs, highlighted</summary>
<pre class="source">{{range .Source}}{{if .Num}}<span{{if .Hot}} class="hot"{{end}}><span class="ln">{{printf "%4d" .Num}}  </span>{{.Text}}</span>{{else}}<span class="ln">   {{.Text}}</span>{{end}}
{{end}}</pre>
</details>
</details>
</section>
{{end}}{{end}}`))

var htmlTemplate = template.Must(template.Must(htmlParts.Clone()).New("page").Parse(`{{template "head" .}}<h1>{{.Protocol}}{{if .ProtocolTitle}}: {{.ProtocolTitle}}{{end}}</h1>
{{if .Params}}<p>Parameters: <code>{{.Params}}</code></p>{{end}}
<p class="summary"><strong>{{.Summary}}</strong></p>
<p>Legend: <span>holds</span>, <strong>violated</strong> (the link shows its counterexample), no verdict (a bound cut the search, named).{{if .Shipped}} The variant shipped today is marked <span class="shipped">(shipped)</span>.{{end}}{{if .Notes}} {{.Notes}}.{{end}}</p>
<div class="scroll">
<table class="grid">
<caption>Each variant under each model: the properties it violates</caption>
<thead><tr><th scope="col">variant</th>{{range $.Models}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr><th scope="row" title="{{.Doc}}"><span{{if .Shipped}} class="shipped"{{end}}>{{.Variant}}{{if .Shipped}} (shipped){{end}}</span></th>{{range .Grid}}<td class="{{.Class}}" title="{{.Model}}">{{if or .Violated .Unknown}}{{range $k, $v := .Violated}}{{if $k}}, {{end}}<a href="#{{$v.Link}}">{{$v.Prop}}</a>{{end}}{{if .Unknown}}{{if .Violated}}; {{end}}no verdict: {{range $k, $u := .Unknown}}{{if $k}}, {{end}}{{$u}}{{end}} ({{.Why}}){{end}}{{else}}holds{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
<details class="detail">
<summary>Every property under every model, with the variants' descriptions</summary>
<div class="scroll">
<table class="matrix">
<caption>Every variant under every model</caption>
<thead>
<tr><th scope="col" rowspan="2">variant</th>{{range $.Models}}<th scope="colgroup" colspan="{{len $.Props}}">{{.}}</th>{{end}}</tr>
<tr>{{range $.Models}}{{range $.Props}}<th scope="col">{{.}}</th>{{end}}{{end}}</tr>
</thead>
<tbody>
{{range .Rows}}<tr><th scope="row"><span{{if .Shipped}} class="shipped"{{end}}>{{.Variant}}{{if .Shipped}} (shipped){{end}}</span>{{if .Doc}}<div class="doc">{{.Doc}}</div>{{end}}</th>{{range .Cells}}<td class="{{.Class}}" title="{{.Model}}: {{.Prop}}">{{if .Link}}<a href="#{{.Link}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
</details>
{{template "cexes" .Cexes}}
{{template "script"}}
</body>
</html>
`))

// TuningHTML writes the result of tune as a web page, with the same parts
// as the review page: the sites with their current and minimal orderings,
// what one step weaker at each breaks, each minimal assignment as a diff
// of the file, and the counterexample of each step that breaks something.
func TuningHTML(w io.Writer, t *tune.Tuning) error {
	in := t.Instance
	var models []string
	for _, m := range t.Models {
		models = append(models, m.Name)
	}
	page := tunePage{Title: "ordercheck tune: " + in.Protocol.Ref(), Protocol: in.Protocol.Ref(), Variant: variantName(in), Models: strings.Join(models, ", "), Props: strings.Join(t.Props, ", "), Checks: t.Checks, Assignments: t.Assignments, Bounded: t.Bounded, One: t.One}
	for _, u := range t.Unfixable {
		page.Unfixable = append(page.Unfixable, u.Prop+" under "+u.Model.Name)
	}
	for k := range t.Minimal {
		page.Minimal = append(page.Minimal, fmt.Sprintf("minimal %d", k+1))
		rw := t.Rewrite(k)
		page.Diffs = append(page.Diffs, coloured(UnifiedDiff(in.Protocol.Ref(), in.Protocol.Ref()+fmt.Sprintf(" (minimal %d)", k+1), in.Protocol.Source, rw.Text)+unwritten(fmt.Sprintf("minimal %d", k+1), rw.Unwritten)))
	}
	page.Current = currentWords[t.Current()]
	for i, s := range t.Sites {
		row := tuneSite{Pos: s.Pos.String(), Source: s.Text, Current: siteOrd(s, s.Current)}
		for _, m := range t.Minimal {
			row.Minimal = append(row.Minimal, siteOrd(s, m[i]))
		}
		if b := t.Below[i]; b != nil && b.Report != nil {
			row.Breaks = fmt.Sprintf("%s breaks %s under %s", siteOrd(s, b.Ord), b.Prop, b.Model.Name)
			for _, p := range b.Report.Props {
				if p.Name == b.Prop && p.Witness != nil {
					row.Link = fmt.Sprintf("cex-%d", i)
					cx := counterexampleHTML(row.Link, in, b.Model, p, in.Protocol.Source)
					cx.Title = fmt.Sprintf("%s one step weaker (%s): %s violated under %s", s.Pos, siteOrd(s, b.Ord), p.Name, b.Model.Name)
					page.Cexes = append(page.Cexes, cx)
				}
			}
		} else if b != nil {
			row.Breaks = siteOrd(s, b.Ord) + " still keeps them"
		}
		page.Sites = append(page.Sites, row)
	}
	return tuneTemplate.Execute(w, page)
}

type tunePage struct {
	Title, Protocol, Variant, Models, Props, Current string
	Checks, Assignments                              int
	Bounded, One                                     bool
	Unfixable, Minimal                               []string
	Diffs                                            [][]diffLine
	Sites                                            []tuneSite
	Cexes                                            []htmlCex
}

// diffLine is a line of a unified diff with the class that colours it:
// add, del, hunk or none.
type diffLine struct{ Class, Text string }

// coloured splits a unified diff into lines classed for colour.
func coloured(d string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		c := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		}
		out = append(out, diffLine{c, l})
	}
	return out
}

type tuneSite struct {
	Pos, Source, Current, Breaks, Link string
	Minimal                            []string
}

var tuneTemplate = template.Must(template.Must(htmlParts.Clone()).New("tune").Parse(`{{template "head" .}}<h1>Weakest orderings: {{.Protocol}}, {{.Variant}}</h1>
<p>Under {{.Models}}, keeping {{.Props}}: {{.Checks}} checks of {{.Assignments}} assignments{{if .One}}, too many to find every minimal one: one found by descending from seq_cst{{end}}{{if .Bounded}}; some checks were cut short by a bound, so the minimum is under the bound{{end}}.</p>
{{range .Unfixable}}<p><strong>{{.}}</strong> is violated even with every site seq_cst: no ordering fixes it.</p>{{end}}
<p>{{.Current}}</p>
<div class="scroll">
<table class="sites">
<caption>Each site: its current ordering, the minimal ones, and what one step weaker breaks</caption>
<thead><tr><th scope="col">site</th><th scope="col">source</th><th scope="col">current</th>{{range .Minimal}}<th scope="col">{{.}}</th>{{end}}<th scope="col">one step weaker</th></tr></thead>
<tbody>
{{range .Sites}}<tr><td><code>{{.Pos}}</code></td><td><code>{{.Source}}</code></td><td>{{.Current}}</td>{{range .Minimal}}<td>{{.}}</td>{{end}}<td>{{if .Link}}<a href="#{{.Link}}">{{.Breaks}}</a>{{else}}{{.Breaks}}{{end}}</td></tr>
{{end}}</tbody>
</table>
</div>
{{range $k, $d := .Diffs}}<h2>{{index $.Minimal $k}}, as a diff of the file</h2>
<pre class="source diff">{{range $d}}{{if .Class}}<span class="{{.Class}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}
{{end}}</pre>
{{end}}
{{template "cexes" .Cexes}}
{{template "script"}}
</body>
</html>
`))
