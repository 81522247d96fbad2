package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/tune"
	"github.com/ordercheck/ordercheck/model"
)

// Tuning writes the result of tune for people: what was kept, the sites
// with their current and minimal orderings, what cannot be fixed by
// orderings, whether the current orderings are minimal and what one step
// weaker breaks, and each minimal assignment as a variant (when
// parameters can say it) and as a diff of the file.
func Tuning(w io.Writer, t *tune.Tuning) {
	in := t.Instance
	var models []string
	for _, m := range t.Models {
		models = append(models, m.Name)
	}
	variant := ""
	if in.Variant != "" {
		variant = ", variant " + in.Variant
	}
	fmt.Fprintf(w, "tune %s%s under %s\n", in.Protocol.Ref(), variant, strings.Join(models, ", "))
	if t.Stopped != explore.NoLimit {
		fmt.Fprintf(w, "the search was cut short (%s) after %s, before it could tell what keeps %s: no verdict.\n", t.Stopped, plural(int64(t.Checks), "check"), strings.Join(t.Props, ", "))
		return
	}
	for _, u := range t.Unfixable {
		hint := "a logic bug, beyond orderings"
		if u.Prop == checker.PropDataRace && !t.Atomics {
			hint = "--atomics lets tune make plain accesses atomic"
		}
		fmt.Fprintf(w, "  %s is violated under %s even with every site seq_cst: no ordering fixes it (%s)\n", u.Prop, u.Model.Name, hint)
	}
	if len(t.Props) == 0 {
		fmt.Fprintf(w, "nothing left to keep.\n")
		return
	}
	fmt.Fprintf(w, "keeping %s: %d sites, %d assignments, %d checks", strings.Join(t.Props, ", "), len(t.Sites), t.Assignments, t.Checks)
	if t.Refuted > 0 {
		fmt.Fprintf(w, " (and %d refuted by their counterexamples)", t.Refuted)
	}
	if t.One {
		fmt.Fprint(w, "; too many assignments to find every minimal one: one found by descending from seq_cst")
	}
	if t.Bounded {
		fmt.Fprint(w, " (some bounded: the minimum is under the bound)")
	}
	fmt.Fprintln(w)
	if len(t.Sites) == 0 {
		fmt.Fprintln(w, "no atomic access or fence to order.")
		return
	}
	if len(t.Minimal) == 0 {
		fmt.Fprintln(w, "no assignment of orderings keeps them.")
		return
	}
	// The table.
	header := []string{"site", "source", "current"}
	for k := range t.Minimal {
		if len(t.Minimal) == 1 {
			header = append(header, "minimal")
		} else {
			header = append(header, fmt.Sprintf("minimal %d", k+1))
		}
	}
	rows := [][]string{header}
	for i, s := range t.Sites {
		row := []string{s.Pos.String(), s.Text, siteOrd(s, s.Current)}
		for _, m := range t.Minimal {
			row = append(row, siteOrd(s, m[i]))
		}
		rows = append(rows, row)
	}
	fmt.Fprintln(w)
	writeColumns(w, rows)
	fmt.Fprintln(w)
	fmt.Fprint(w, currentWords[t.Current()])
	if t.CurrentHolds {
		fmt.Fprint(w, " One step weaker:")
	}
	fmt.Fprintln(w)
	if !t.CurrentHolds {
		fmt.Fprintln(w, "What each site's minimal ordering is for, one step weaker:")
	}
	for i, b := range t.Below {
		s := t.Sites[i]
		from := s.Current
		if b != nil {
			from = b.From
		} else if !t.CurrentHolds {
			from = t.Minimal[0][i]
		}
		switch {
		case b == nil:
			fmt.Fprintf(w, "  %s: %s is the weakest there is\n", s.Pos, siteOrd(s, from))
		case b.Report == nil:
			fmt.Fprintf(w, "  %s: %s → %s still keeps them\n", s.Pos, siteOrd(s, from), siteOrd(s, b.Ord))
		default:
			fmt.Fprintf(w, "  %s: %s → %s breaks %s under %s\n", s.Pos, siteOrd(s, from), siteOrd(s, b.Ord), b.Prop, b.Model.Name)
		}
	}
	for k := range t.Minimal {
		rw := t.Rewrite(k)
		name := "minimal"
		if len(t.Minimal) > 1 {
			name = fmt.Sprintf("minimal %d", k+1)
		}
		if rw.Binds != nil {
			var keys []string
			for p := range rw.Binds {
				keys = append(keys, p)
			}
			sort.Strings(keys)
			var bs []string
			for _, p := range keys {
				bs = append(bs, p+"="+rw.Binds[p])
			}
			fmt.Fprintf(w, "\n%s, as a variant:\n  variant tuned %s \"found by ordercheck tune\"\n", name, strings.Join(bs, " "))
		}
		if d := UnifiedDiff(in.Protocol.Ref(), in.Protocol.Ref()+" ("+name+")", in.Protocol.Source, rw.Text); d != "" {
			fmt.Fprintf(w, "\n%s, as a diff of the file:\n%s", name, d)
		}
		fmt.Fprint(w, unwritten(name, rw.Unwritten))
	}
}

// unwritten lists the changes of minimal assignment name that its diff
// leaves out ("" when there are none).
func unwritten(name string, u []string) string {
	if len(u) == 0 {
		return ""
	}
	return "\n" + name + ", not in the diff:\n  " + strings.Join(u, "\n  ") + "\n"
}

// currentWords say what the current orderings are (Tuning.Current).
var currentWords = map[string]string{
	"minimal": "The current orderings are minimal.",
	"holds":   "The current orderings keep the properties but are not minimal.",
	"fails":   "The current orderings do not keep the properties.",
}

// siteOrd names a site's ordering: "none" for a fence slot without fence.
func siteOrd(s tune.Site, o model.Ordering) string {
	if s.Kind == tune.SiteFenceSlot && !o.Atomic() {
		return "none"
	}
	return o.String()
}

// writeColumns writes rows as left-aligned columns two spaces apart.
func writeColumns(w io.Writer, rows [][]string) {
	width := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))+2))
			}
		}
		fmt.Fprintln(w, "  "+strings.TrimRight(b.String(), " "))
	}
}

// JSONTuning is the result of tune in JSON.
type JSONTuning struct {
	Protocol   string         `json:"protocol"`
	Variant    string         `json:"variant,omitempty"`
	Models     []string       `json:"models"`
	Props      []string       `json:"properties"`
	Unfixable  []JSONUnfixed  `json:"unfixable,omitempty"`
	Sites      []JSONSite     `json:"sites"`
	Minimal    [][]string     `json:"minimal"`
	Current    string         `json:"current"` // "minimal", "holds", "fails"
	Weakenings []JSONWeakened `json:"one_step_weaker,omitempty"`
	Checks     int            `json:"checks"`
	Refuted    int            `json:"refuted"` // assignments refuted by an earlier check's counterexample, not explored
	Assign     int            `json:"assignments"`
	Bounded    bool           `json:"bounded"`
	// Stopped names the bound that stopped the whole search (timeout,
	// interrupted), when one did.
	Stopped string `json:"stopped,omitempty"`
	// One: Minimal holds one minimal assignment of possibly several.
	One bool `json:"one_of_several,omitempty"`
}

// JSONUnfixed is a property no ordering fixes.
type JSONUnfixed struct {
	Prop  string `json:"property"`
	Model string `json:"model"`
}

// JSONSite is a site of tune in JSON.
type JSONSite struct {
	Pos     string `json:"position"`
	Source  string `json:"source"`
	Kind    string `json:"kind"`
	Current string `json:"current"`
}

// JSONWeakened is one site one step weaker than the current orderings.
type JSONWeakened struct {
	Pos    string `json:"position"`
	Ord    string `json:"ordering"`
	Breaks string `json:"breaks,omitempty"`
	Model  string `json:"model,omitempty"`
}

// TuningJSON returns the result of tune as data.
func TuningJSON(t *tune.Tuning) JSONTuning {
	out := JSONTuning{Protocol: t.Instance.Protocol.Ref(), Variant: t.Instance.Variant, Props: t.Props, Checks: t.Checks, Refuted: t.Refuted, Assign: t.Assignments, Bounded: t.Bounded, Stopped: t.Stopped.String(), One: t.One, Sites: []JSONSite{}, Minimal: [][]string{}}
	for _, m := range t.Models {
		out.Models = append(out.Models, m.Name)
	}
	for _, u := range t.Unfixable {
		out.Unfixable = append(out.Unfixable, JSONUnfixed{u.Prop, u.Model.Name})
	}
	for _, s := range t.Sites {
		out.Sites = append(out.Sites, JSONSite{s.Pos.String(), s.Text, s.Kind.String(), s.Current.String()})
	}
	for _, m := range t.Minimal {
		out.Minimal = append(out.Minimal, ordNames(m))
	}
	out.Current = t.Current()
	for i, b := range t.Below {
		if b == nil {
			continue
		}
		jw := JSONWeakened{Pos: t.Sites[i].Pos.String(), Ord: b.Ord.String()}
		if b.Report != nil {
			jw.Breaks, jw.Model = b.Prop, b.Model.Name
		}
		out.Weakenings = append(out.Weakenings, jw)
	}
	return out
}

func ordNames(os []model.Ordering) []string {
	var out []string
	for _, o := range os {
		out = append(out, o.String())
	}
	return out
}

// Weakening writes what weakening site i of t one step breaks: the
// counterexample, or that nothing does.
func Weakening(w io.Writer, t *tune.Tuning, i int) {
	s, bw := t.Sites[i], t.Below[i]
	if bw == nil || bw.Report == nil {
		fmt.Fprintf(w, "%s: nothing breaks one step below %s\n", s.Pos, s.Current)
		return
	}
	fmt.Fprintf(w, "%s one step weaker (%s → %s) under %s:\n\n", s.Pos, bw.From, bw.Ord, bw.Model.Name)
	Report(w, bw.Report)
}
