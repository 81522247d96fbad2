package render

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
)

// ComparisonHTML writes a comparison as one self-contained web page for a
// design review: the matrix (a row per variant, a column group per model,
// a cell per property, in words and colour), and for every violated cell
// its counterexample — the steps in words beside an execution graph drawn
// in SVG, a step-through, and the protocol's source with the lines the
// counterexample runs highlighted. No network, no script needed to read
// it (the script only adds the step-through); a print stylesheet.
func ComparisonHTML(w io.Writer, c *checker.Comparison) error {
	page := htmlPage{Title: "ordercheck: " + c.Protocol.Protocol.Name, Protocol: c.Protocol.Protocol.Name, ProtocolTitle: c.Protocol.Title, Props: c.Props, Notes: elsewhere(c)}
	for _, m := range c.Models {
		page.Models = append(page.Models, m.Name)
	}
	if len(c.Cases) > 0 {
		page.Params = c.Cases[0].ParamString()
	}
	shipped := ""
	if v := c.Protocol.DefaultVariant(); v != nil {
		shipped = v.Name
	}
	for i, in := range c.Cases {
		row := htmlRow{Variant: variantName(in), Doc: in.Doc(), Shipped: in.Variant != "" && in.Variant == shipped}
		for j, m := range c.Models {
			r := c.Reports[i][j]
			for _, p := range r.Props {
				cell := htmlCell{Model: m.Name, Prop: p.Name}
				switch p.Status {
				case checker.Holds:
					cell.Class, cell.Text = "holds", "holds"
				case checker.Violated:
					cell.Class, cell.Text = "violated", "violated"
				default:
					cell.Class, cell.Text = "unknown", "no verdict ("+r.Stats.LimitText()+")"
				}
				if p.Witness != nil {
					cell.Link = fmt.Sprintf("cex-%d-%d-%s", i, j, p.Name)
					cx := counterexampleHTML(cell.Link, in, m, p, c.Protocol.Source)
					page.Cexes = append(page.Cexes, cx)
				}
				row.Cells = append(row.Cells, cell)
			}
		}
		page.Rows = append(page.Rows, row)
	}
	return htmlTemplate.Execute(w, page)
}

type htmlPage struct {
	Title, Protocol, ProtocolTitle, Params, Notes string
	Models, Props                                 []string
	Rows                                          []htmlRow
	Cexes                                         []htmlCex
}

type htmlRow struct {
	Variant, Doc string
	Shipped      bool
	Cells        []htmlCell
}

type htmlCell struct {
	Model, Prop, Class, Text, Link string
}

type htmlCex struct {
	ID, Title, Message string
	Steps              []witnessStep
	Memory             []string // the shared memory after each step, as far as the steps shown wrote it
	Notes              []string
	Graph              template.HTML
	Source             []htmlLine
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
	if p.Model != nil && p.Model != m {
		title += " (judged under C11: this is an execution under " + p.Model.Name + ")"
	}
	cx := htmlCex{ID: id, Title: title, Message: p.Message, Steps: steps, Notes: notes, Graph: template.HTML(svgGraph(p.Witness, steps)), Memory: memoryAfter(p.Witness, steps)}
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
// initial values of the others stand).
func memoryAfter(w *checker.Witness, steps []witnessStep) []string {
	g := w.Graph
	p := g.Prog
	val := map[model.Loc]int64{}
	var order []model.Loc
	var out []string
	for _, st := range steps {
		ev := g.Ev(st.Ref)
		if ev.Kind == model.KWrite {
			if _, seen := val[ev.Loc]; !seen {
				order = append(order, ev.Loc)
			}
			val[ev.Loc] = ev.Val
		}
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
// events the violation rests on are outlined.
func svgGraph(w *checker.Witness, steps []witnessStep) string {
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
	const colW, rowH, boxW, boxH, top = 260, 46, 220, 30, 40
	pos := map[model.EventRef][2]int{}
	for i, st := range steps {
		pos[st.Ref] = [2]int{20 + col[st.Ref.T]*colW, top + i*rowH}
	}
	anchor := map[model.EventRef]bool{}
	for _, a := range w.Violation.Anchors {
		anchor[a] = true
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
		x1, y1 := a[0]+boxW, a[1]+boxH/2
		x2, y2 := c[0]+boxW, c[1]+boxH/2
		if a[0] != c[0] {
			x1, x2 = a[0]+boxW/2, c[0]+boxW/2
			y1, y2 = a[1]+boxH, c[1]
			if c[1] < a[1] {
				y1, y2 = a[1], c[1]+boxH
			}
		}
		fmt.Fprintf(&b, `<path class="%s" d="M %d %d C %d %d, %d %d, %d %d" marker-end="url(#arrow)"><title>%s</title></path>`, class, x1, y1, x1+30, y1, x2+30, y2, x2, y2, label)
		fmt.Fprintf(&b, `<text class="%s-label" x="%d" y="%d">%s</text>`, class, (x1+x2)/2+34, (y1+y2)/2, label)
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
	if w.Model != nil && w.Model.RacesUndefined {
		x := model.NewExec(g)
		x.Of(model.SW).Each(func(i, j int) {
			a, b := x.Refs[i], x.Refs[j]
			if !a.IsInit() && !b.IsInit() {
				edge(a, b, "sw", "sw")
			}
		})
	}
	before, missing := linEdges(w)
	for _, e := range before {
		edge(e[0], e[1], "ophb", "hb")
	}
	for _, e := range missing {
		edge(e[0], e[1], "missing", "missing hb")
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
			class, st.Num, xy[0], xy[1], boxW, boxH, xy[0]+6, xy[1]+19, st.Num, template.HTMLEscapeString(shortText(st.What, 30)))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// shortText cuts s to n characters with an ellipsis.
func shortText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
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
.doc { color: #444; font-size: .9em; }
.scroll { overflow-x: auto; max-width: 100%; }
.cex > .scroll { flex: 1 1 auto; min-width: 0; }
.steps td.num { text-align: right; }
.steps .why { color: #5a2d82; font-size: .9em; }
.steps td.mem { font-size: .85em; color: #333; }
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
<h2>{{.Title}}</h2>
<p>{{.Message}}</p>
<div class="stepper" hidden><button type="button" data-dir="-1">previous</button> <button type="button" data-dir="1">next</button> <span class="at"></span> (or the arrow keys)</div>
<div class="cex">
<div class="scroll">
<table class="steps">
<thead><tr><th scope="col">step</th><th scope="col">thread</th><th scope="col">event</th><th scope="col">source</th><th scope="col">memory written so far</th></tr></thead>
<tbody>
{{$mem := .Memory}}{{range $i, $st := .Steps}}<tr data-step="{{$st.Num}}"><td class="num">{{$st.Num}}</td><td>{{$st.Thread}}</td><td>{{$st.What}}{{if $st.Why}}<div class="why">{{$st.Why}}</div>{{end}}</td><td><code>{{$st.Pos}}</code></td><td class="mem"><code>{{index $mem $i}}</code></td></tr>
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
</section>
{{end}}{{end}}`))

var htmlTemplate = template.Must(template.Must(htmlParts.Clone()).New("page").Parse(`{{template "head" .}}<h1>{{.Protocol}}{{if .ProtocolTitle}}: {{.ProtocolTitle}}{{end}}</h1>
{{if .Params}}<p>Parameters: <code>{{.Params}}</code></p>{{end}}
<p>Legend: <span>holds</span>, <strong>violated</strong> (the link shows its counterexample), no verdict (a bound cut the search, named). The variant shipped today is marked <span class="shipped">(shipped)</span>.{{if .Notes}} {{.Notes}}.{{end}}</p>
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
{{template "cexes" .Cexes}}
{{template "script"}}
</body>
</html>
`))

// TuningHTML writes the result of tune as a web page, with the same parts
// as the review page: the sites with their current and minimal orderings,
// what one step weaker at each breaks, each minimal assignment as a diff
// of the file, and the counterexample of each step that breaks something.
func TuningHTML(w io.Writer, t *checker.Tuning) error {
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
		text, _ := t.Rewrite(k)
		page.Diffs = append(page.Diffs, UnifiedDiff(in.Protocol.Ref(), in.Protocol.Ref()+fmt.Sprintf(" (minimal %d)", k+1), in.Protocol.Source, text))
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
	Unfixable, Minimal, Diffs                        []string
	Sites                                            []tuneSite
	Cexes                                            []htmlCex
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
<pre class="source">{{$d}}</pre>
{{end}}
{{template "cexes" .Cexes}}
{{template "script"}}
</body>
</html>
`))
