package render_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// reviewPage renders dlsym's unordered and fixed variants under sc and
// rc11 as the review page.
func reviewPage(t *testing.T) string {
	t.Helper()
	pr, err := protocols.Load("dlsym")
	if err != nil {
		t.Fatal(err)
	}
	var models []*model.Model
	for _, n := range []string{"sc", "rc11"} {
		m, err := model.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	cmp, err := pr.Compare(checker.CompareOptions{Variants: []string{"original", "unordered", "fixed"}, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := render.Comparison(&b, cmp, render.FormatHTML); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// element is a parsed HTML element: its name, attributes, text and
// children.
type element struct {
	name  string
	attrs map[string]string
	text  string
	kids  []*element
}

func (e *element) all(name string) []*element {
	var out []*element
	for _, k := range e.kids {
		if k.name == name {
			out = append(out, k)
		}
		out = append(out, k.all(name)...)
	}
	return out
}

func (e *element) words() string {
	s := e.text
	for _, k := range e.kids {
		s += " " + k.words()
	}
	return strings.Join(strings.Fields(s), " ")
}

// parseHTML reads the page into elements, as a lenient HTML reader.
func parseHTML(t *testing.T, page string) *element {
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict, dec.AutoClose, dec.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	root := &element{name: "root"}
	stack := []*element{root}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page does not parse: %v", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			top.kids = append(top.kids, e)
			stack = append(stack, e)
		case xml.EndElement:
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			top.text += string(tok)
		}
	}
	return root
}

// TestComparisonHTML reads the review page back: a self-contained page
// (nothing fetched), a summary line, the compact grid (a cell per variant
// and model: holds, or the violated properties each linked), the matrix
// with a cell per variant, model and property in words and colour, the
// shipped variant marked, each violated cell linked to a counterexample
// whose steps, graph events and highlighted source agree, and each
// counterexample shown once, folded.
func TestComparisonHTML(t *testing.T) {
	page := reviewPage(t)
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//)`).FindString(page); m != "" {
		t.Errorf("the page fetches something: %s", m)
	}
	doc := parseHTML(t, page)
	var grid, matrix *element
	for _, tb := range doc.all("table") {
		switch tb.attrs["class"] {
		case "grid":
			grid = tb
		case "matrix":
			matrix = tb
		}
	}
	if grid == nil || matrix == nil {
		t.Fatal("no grid or no matrix")
	}
	ids := map[string]bool{}
	for _, s := range doc.all("section") {
		if ids[s.attrs["id"]] {
			t.Errorf("counterexample %s twice", s.attrs["id"])
		}
		ids[s.attrs["id"]] = true
	}
	var summary string
	for _, p := range doc.all("p") {
		if p.attrs["class"] == "summary" {
			summary = p.words()
		}
	}
	if want := "fixed holds under every model; original and unordered violate a property."; summary != want {
		t.Errorf("summary %q, want %q", summary, want)
	}
	gridCells := 0
	for _, td := range grid.all("td") {
		gridCells++
		class, words := td.attrs["class"], td.words()
		switch class {
		case "holds":
			if words != "holds" {
				t.Errorf("a holding grid cell says %q", words)
			}
		case "violated":
			links := td.all("a")
			if len(links) == 0 || words == "holds" {
				t.Errorf("a violated grid cell says %q with %d links", words, len(links))
			}
			for _, a := range links {
				if !ids[strings.TrimPrefix(a.attrs["href"], "#")] {
					t.Errorf("grid link %s goes nowhere", a.attrs["href"])
				}
			}
		default:
			t.Errorf("a grid cell of class %q", class)
		}
	}
	if want := 3 * 2; gridCells != want {
		t.Errorf("%d grid cells, want %d (3 variants × 2 models)", gridCells, want)
	}
	execs := map[string]string{}
	for _, sec := range doc.all("section") {
		if len(sec.all("details")) == 0 || sec.all("details")[0].attrs["open"] != "" {
			t.Errorf("counterexample %s is not folded", sec.attrs["id"])
		}
		// One execution, one section: cells and properties it decides
		// share it.
		steps := sec.all("table")[0].words()
		if prev, ok := execs[steps]; ok {
			t.Errorf("counterexamples %s and %s show one execution", prev, sec.attrs["id"])
		}
		execs[steps] = sec.attrs["id"]
	}
	cells := 0
	for _, td := range matrix.all("td") {
		cells++
		class, words := td.attrs["class"], td.words()
		if !strings.HasPrefix(words, class) && !(class == "unknown" && strings.HasPrefix(words, "no verdict")) {
			t.Errorf("a %s cell says %q: colour must not be the only signal", class, words)
		}
		if class == "violated" {
			links := td.all("a")
			if len(links) != 1 || !ids[strings.TrimPrefix(links[0].attrs["href"], "#")] {
				t.Errorf("a violated cell without a link to its counterexample: %v", td.attrs)
			}
		}
	}
	if want := 3 * 2 * 4; cells != want {
		t.Errorf("%d cells, want %d (3 variants × 2 models × 4 properties)", cells, want)
	}
	if !strings.Contains(matrix.words(), "original (shipped)") {
		t.Error("the shipped variant is not marked")
	}
	sections := doc.all("section")
	if len(sections) == 0 {
		t.Fatal("no counterexample")
	}
	for _, s := range sections {
		rows := 0
		for _, tr := range s.all("tr") {
			if tr.attrs["data-step"] != "" {
				rows++
			}
		}
		boxes := 0
		for _, g := range s.all("g") {
			if g.attrs["data-step"] != "" {
				boxes++
			}
		}
		if rows == 0 || rows != boxes {
			t.Errorf("%s: %d steps in words, %d events in the graph", s.attrs["id"], rows, boxes)
		}
		mem := 0
		for _, td := range s.all("td") {
			if strings.HasPrefix(td.attrs["class"], "mem") {
				mem++
				if strings.Contains(td.words(), "lib.data=42") && strings.Contains(td.words(), "lib.data=0") {
					t.Errorf("%s: a location twice in one memory cell: %s", s.attrs["id"], td.words())
				}
			}
		}
		if mem != rows {
			t.Errorf("%s: %d steps, %d memory cells", s.attrs["id"], rows, mem)
		}
		if len(s.all("svg")) != 1 {
			t.Errorf("%s: no execution graph", s.attrs["id"])
		}
		hot := 0
		for _, span := range s.all("span") {
			if span.attrs["class"] == "hot" {
				hot++
			}
		}
		if hot == 0 {
			t.Errorf("%s: no source line highlighted", s.attrs["id"])
		}
	}
}

// TestComparisonHTMLInBrowser opens the review pages of the catalogue in
// a headless Chromium at 1280 px, as a reviewer would: under 500 KB, the
// compact grid's every column in view, no console error
// and no network request; the cells and their verdicts those of the JSON
// output; a click on a violated cell brings its counterexample into
// view; the step-through steps back and reaches the last event again. A
// screenshot of that counterexample in its page is written to
// $ORDERCHECK_ARTIFACTS when set (a whole page of six models' is taller
// than the browser captures).
func TestComparisonHTMLInBrowser(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("ORDERCHECK_BROWSER_TESTS") != "" {
			t.Fatal("chromium is not installed, and ORDERCHECK_BROWSER_TESTS asks for the browser tests")
		}
		t.Skip("chromium is not installed (CI installs it and sets ORDERCHECK_BROWSER_TESTS)")
	}
	names := []string{"dlsym", "execenv", "cluster"}
	if testing.Short() {
		names = names[:1] // one page smokes the browser; the others differ in data
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) { browse(t, browser, name) })
	}
}

// browse checks the review page of the catalogue protocol name.
func browse(t *testing.T, browser, name string) {
	pr, err := protocols.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := pr.Compare(checker.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var page, js bytes.Buffer
	if err := render.Comparison(&page, cmp, render.FormatHTML); err != nil {
		t.Fatal(err)
	}
	if err := render.Comparison(&js, cmp, render.FormatJSON); err != nil {
		t.Fatal(err)
	}
	if page.Len() > 500<<10 {
		t.Errorf("the page takes %d KB, more than a reviewer's 500", page.Len()>>10)
	}
	dir := os.Getenv("ORDERCHECK_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path, err := filepath.Abs(filepath.Join(dir, name+"-review.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The verdicts, in the matrix's order, from the JSON output.
	var data struct {
		Results []struct {
			Properties []struct{ Status string }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &data); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range data.Results {
		for _, p := range r.Properties {
			want = append(want, map[string]string{"holds": "holds", "violated": "violated", "unknown": "no verdict"}[p.Status])
		}
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Do(ctx); err != nil { // open the tab first, so that no event is missed
		t.Fatalf("chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeWarning {
				problems = append(problems, "console "+string(ev.Type))
			}
		case *cdpruntime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") {
				problems = append(problems, "request: "+u)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	eval := func(expr string) string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	click := func(sel string) {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	verdicts := strings.Split(eval(`Array.from(document.querySelectorAll("table.matrix td")).map(td => td.textContent.trim().replace(/ \(.*/, "")).join(",")`), ",")
	// At 1280 px the compact grid shows every column: it scrolls
	// neither itself nor the page.
	gridFits := eval(`(function () { var g = document.querySelector("table.grid"), r = g.getBoundingClientRect(); return String(r.right <= window.innerWidth && g.parentElement.scrollWidth <= g.parentElement.clientWidth); })()`)
	folded := eval(`String(Array.from(document.querySelectorAll("details.cex-body")).every(d => !d.open))`)
	click(`table.grid td.violated a`)
	hash := eval(`location.hash`)
	inView := eval(`(function () { var s = document.querySelector(location.hash), r = s.getBoundingClientRect(); return String(r.top >= -1 && r.top < window.innerHeight && s.querySelector("details").open); })()`) == "true"
	at := func() string { return eval(`document.querySelector(location.hash + " .stepper .at").textContent`) }
	before := at()
	click(`section:target .stepper button[data-dir="-1"]`)
	click(`section:target .stepper button[data-dir="-1"]`)
	back := at()
	click(`section:target .stepper button[data-dir="1"]`)
	click(`section:target .stepper button[data-dir="1"]`)
	end := at()
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	// A narrow window: the page itself does not scroll sideways (wide
	// tables and graphs scroll in their own boxes).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(420, 800)); err != nil {
		t.Fatal(err)
	}
	if wide := eval(`String(document.documentElement.scrollWidth - window.innerWidth)`); wide != "0" {
		t.Errorf("at 420 px the page is %s px wider than the window", wide)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page had %v", problems)
	}
	if strings.Join(verdicts, ",") != strings.Join(want, ",") {
		t.Errorf("the matrix says %v, the JSON output %v", verdicts, want)
	}
	if !strings.HasPrefix(hash, "#cex-") || !inView {
		t.Errorf("clicking a violated cell went to %q (in view: %v)", hash, inView)
	}
	if gridFits != "true" {
		t.Error("at 1280 px the grid does not show every column")
	}
	if folded != "true" {
		t.Error("counterexamples are open before a link opens one")
	}
	var n, total, k int
	if _, err := fmt.Sscanf(before, "step %d of %d", &n, &total); err != nil || n != total {
		t.Errorf("the step-through opens at %q, not at its last step", before)
	}
	if _, err := fmt.Sscanf(back, "step %d of", &k); err != nil || k != max(total-2, 1) {
		t.Errorf("two steps back: %q", back)
	}
	if end != before {
		t.Errorf("two steps on: %q, want %q", end, before)
	}
	if err := os.WriteFile(filepath.Join(dir, name+"-review.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestCounterexampleSVG keeps the execution graph of one counterexample
// as a golden file — it must not change from run to run — and parses it
// as the XML an SVG is.
func TestCounterexampleSVG(t *testing.T) {
	page := reviewPage(t)
	svg := regexp.MustCompile(`(?s)<section id="cex-1-1-lib-init".*?(<svg.*?</svg>)`).FindStringSubmatch(page)
	if svg == nil {
		t.Fatal("no graph for unordered's lib-init under rc11")
	}
	dec := xml.NewDecoder(strings.NewReader(svg[1]))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
	}
	path := filepath.Join("testdata", "unordered-rc11-lib-init.svg")
	if *update {
		if err := os.WriteFile(path, []byte(svg[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./checker/render -update writes it)", err)
	}
	if svg[1] != string(want) {
		t.Errorf("the graph differs from %s", path)
	}
}
