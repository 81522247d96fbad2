package tune

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
)

// A Rewrite is a minimal assignment written into the protocol's source.
type Rewrite struct {
	// Text is the source with each site whose ordering changes given the
	// new ordering in place of its ordering argument (a C program's
	// memory_order_* argument), and each fence tune adds before its line.
	Text string
	// Binds gives the same as parameter values, when every changed site
	// takes its ordering from a parameter that all its sites set alike (a
	// variant can then say it); nil otherwise.
	Binds map[string]string
	// Unwritten says which changed sites Text leaves as they are, and why
	// ("FILE:LINE:COL: rlx: the ordering is not written at this site ...").
	Unwritten []string
}

// Rewrite writes minimal assignment k into the protocol's source.
func (t *Tuning) Rewrite(k int) Rewrite {
	pr := t.Instance.Protocol
	lines := strings.SplitAfter(pr.Source, "\n")
	params := map[string]bool{}
	for _, p := range pr.File.Params {
		params[p.Name] = true
	}
	out := Rewrite{Binds: map[string]string{}}
	expressible := true
	var edits []edit
	inserts := map[int][]string{} // fences to insert before a line
	for i, site := range t.Sites {
		ord := t.Minimal[k][i]
		if ord == site.Current {
			continue
		}
		if site.Kind == SiteFenceSlot {
			expressible = false
			if l := site.Pos.Line - 1; l >= 0 && l < len(lines) {
				indent := lines[l][:len(lines[l])-len(strings.TrimLeft(lines[l], " \t"))]
				inserts[l] = append(inserts[l], indent+spellFence(pr, ord)+"\n")
			}
			continue
		}
		line, col, end, ok := orderingArg(lines, site, pr, params)
		if !ok {
			expressible = false
			if es, ok := cExplicit(lines, site, pr, ord); ok {
				edits = append(edits, es...)
			} else {
				out.Unwritten = append(out.Unwritten, fmt.Sprintf("%s: %s: the ordering is not written at this site (a macro supplies it, or the access implies it): change it by hand", site.Pos, ord))
			}
			continue
		}
		arg := lines[line][col:end]
		edits = append(edits, edit{line, col, end, spell(pr, ord, arg)})
		if params[arg] {
			if prev, seen := out.Binds[arg]; seen && prev != ord.String() {
				expressible = false
			}
			out.Binds[arg] = ord.String()
		} else {
			expressible = false
		}
	}
	// A parameter bound here must not order any site that keeps its
	// ordering with another value.
	for i, site := range t.Sites {
		if line, col, end, ok := orderingArg(lines, site, pr, params); ok {
			if v, bound := out.Binds[lines[line][col:end]]; bound && v != t.Minimal[k][i].String() {
				expressible = false
			}
		}
	}
	sort.Slice(edits, func(i, j int) bool {
		return edits[i].line > edits[j].line || edits[i].line == edits[j].line && edits[i].col > edits[j].col
	})
	for _, e := range edits {
		lines[e.line] = lines[e.line][:e.col] + e.text + lines[e.line][e.end:]
	}
	for l, fs := range inserts {
		lines[l] = strings.Join(fs, "") + lines[l]
	}
	if !expressible || len(out.Binds) == 0 {
		out.Binds = nil
	}
	out.Text = strings.Join(lines, "")
	return out
}

// cOrders are the C names of the orderings.
var cOrders = map[model.Ordering]string{model.Rlx: "memory_order_relaxed", model.Con: "memory_order_consume", model.Acq: "memory_order_acquire", model.Rel: "memory_order_release", model.AcqRel: "memory_order_acq_rel", model.SeqCst: "memory_order_seq_cst"}

// spell writes an ordering as the protocol's source does (as in was, in
// a C program: memory_order_* or GCC's __ATOMIC_*).
func spell(pr *checker.Protocol, o model.Ordering, was string) string {
	switch {
	case pr.C != nil && strings.HasPrefix(was, "__ATOMIC_"):
		return "__ATOMIC_" + strings.ToUpper(strings.TrimPrefix(cOrders[o], "memory_order_"))
	case pr.C != nil:
		return cOrders[o]
	}
	return o.String()
}

// cImplicit are C's atomic operations whose ordering is implied
// (seq_cst): each has an _explicit twin that takes it as its last
// argument (two, success and failure, for a compare-exchange).
var cImplicit = map[string]bool{"atomic_load": true, "atomic_store": true, "atomic_exchange": true, "atomic_fetch_add": true, "atomic_fetch_sub": true, "atomic_fetch_or": true, "atomic_fetch_xor": true, "atomic_fetch_and": true, "atomic_compare_exchange_strong": true, "atomic_compare_exchange_weak": true}

// edit replaces the bytes col to end of line (from 0) with text.
type edit struct {
	line, col, end int
	text           string
}

// cExplicit writes ordering o into a C site whose ordering is implied,
// written on one line as a call of one of cImplicit: its _explicit twin,
// with o (and a compare-exchange's failure order, o's read part) added.
// The edits are two insertions, after the name and before the closing
// parenthesis, so that the edits of sites in its arguments stay apart.
func cExplicit(lines []string, site Site, pr *checker.Protocol, o model.Ordering) ([]edit, bool) {
	line, col := site.Pos.Line-1, site.Pos.Col-1
	if pr.C == nil || !ownFile(pr, site) || site.Kind == SiteFence || line < 0 || line >= len(lines) || col < 0 || col >= len(lines[line]) {
		return nil, false
	}
	l := lines[line]
	name := l[col:]
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	if !cImplicit[name] {
		return nil, false
	}
	open := col + len(name)
	depth := 0
	for end := open; end < len(l); end++ {
		switch l[end] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				orders := cOrders[o]
				if strings.HasPrefix(name, "atomic_compare_exchange") {
					orders += ", " + cOrders[o.ReadPart()]
				}
				return []edit{{line, open, open, "_explicit"}, {line, end, end, ", " + orders}}, true
			}
		}
	}
	return nil, false
}

// ownFile reports whether the site is in the protocol's own file (not a
// header it includes), the text Rewrite edits.
func ownFile(pr *checker.Protocol, site Site) bool {
	return pr.File.File == "" || site.Pos.File == pr.File.File
}

// spellFence writes a fence statement as the protocol's source does.
func spellFence(pr *checker.Protocol, o model.Ordering) string {
	if pr.C != nil {
		return "atomic_thread_fence(" + cOrders[o] + ");"
	}
	return "fence(" + o.String() + ")"
}

// orderingArg finds a site's ordering argument in the source lines: the
// identifier at the site's OrdPos, when it is in the protocol's own file
// and names an ordering (a protocol file's, or a parameter holding one; a
// C program's memory_order_* or __ATOMIC_*). An ordering the source implies (C's
// atomic_load), or writes elsewhere (in a macro), has none. It returns
// the line (from 0) and the byte span of the argument.
func orderingArg(lines []string, site Site, pr *checker.Protocol, params map[string]bool) (line, col, end int, ok bool) {
	at := site.OrdPos
	line, col = at.Line-1, at.Col-1
	if at.File != site.Pos.File || !ownFile(pr, site) || line < 0 || line >= len(lines) || col < 0 || col >= len(lines[line]) {
		return 0, 0, 0, false
	}
	l := lines[line]
	end = col
	for end < len(l) && (l[end] == '_' || 'a' <= l[end] && l[end] <= 'z' || 'A' <= l[end] && l[end] <= 'Z' || '0' <= l[end] && l[end] <= '9') {
		end++
	}
	id := l[col:end]
	if pr.C != nil {
		return line, col, end, strings.HasPrefix(id, "memory_order_") || strings.HasPrefix(id, "__ATOMIC_")
	}
	_, known := model.ParseOrdering(id)
	return line, col, end, known || params[id]
}
