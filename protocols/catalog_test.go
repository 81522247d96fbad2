package protocols_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// verdicts gives, per protocol, parameter overrides and variant, and per
// model, the properties expected violated (every other property must hold),
// as derived in ../shared/seed-protocols.md and each protocol's README. A
// property marked "!" must be violated in every execution. In execenv and
// cluster, linearizability (the operations against wamr.Spec) fails exactly
// where deliver does: an exception spread into the child instance and not
// moved back is the lost exception.
var verdicts = []struct {
	protocol string
	params   map[string]string
	expect   map[string]map[string]string // variant -> model -> "prop prop"
}{
	{"dlsym", nil, map[string]map[string]string{
		"original":      {"sc": "data-race", "tso": "data-race", "rc11": "data-race lib-init linearizability", "rc11-consume": "data-race lib-init linearizability"},
		"unordered":     {"sc": "data-race", "tso": "data-race", "rc11": "data-race lib-init linearizability", "rc11-consume": "data-race lib-init linearizability"},
		"fixed":         {"sc": "", "tso": "", "rc11": "", "rc11-consume": ""},
		"consume":       {"sc": "data-race", "tso": "data-race", "rc11": "data-race lib-init linearizability", "rc11-consume": ""},
		"consume-indep": {"sc": "data-race", "tso": "data-race", "rc11": "data-race lib-init linearizability", "rc11-consume": "data-race lib-init linearizability"},
		"codegen":       {"sc": "data-race", "tso": "data-race", "rc11": "data-race lib-init linearizability", "rc11-consume": "data-race lib-init linearizability"},
		"dcl":           {"sc": "", "tso": "", "rc11": "", "rc11-consume": ""},
		"nocache":       {"sc": "", "tso": "", "rc11": "", "rc11-consume": ""},
	}},
	{"execenv", nil, everyModel(map[string]string{
		"original":          "data-race deliver linearizability",
		"skip-start":        "start-once",
		"lock-across-start": "deadlock",
		"pr2685":            "",
		"pr2882":            "",
		"temp-env":          "start-once tls",
		"start-in-child":    "",
		"exc-in-env":        "data-race",
	})},
	{"execenv", map[string]string{"SPAWN": "embedder"}, everyModel(map[string]string{
		"original":          "deadlock",
		"skip-start":        "start-once",
		"lock-across-start": "deadlock",
		"pr2685":            "deadlock!",
		"pr2882":            "",
		"temp-env":          "start-once tls",
		"start-in-child":    "",
		"exc-in-env":        "deadlock",
	})},
	{"cluster", nil, everyModel(map[string]string{
		"original":       "data-race deliver linearizability",
		"pr2685":         "",
		"atomic-relaxed": "deliver linearizability",
		"atomic-acqrel":  "deliver linearizability",
		"exc-in-env":     "",
	})},
}

// everyModel expects the same violations under every model.
func everyModel(byVariant map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for v, props := range byVariant {
		out[v] = map[string]string{"sc": props, "tso": props, "rc11": props, "rc11-consume": props}
	}
	return out
}

// TestVerdicts asserts the verdict matrix of every catalogue protocol: a
// regression in any cell fails.
func TestVerdicts(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range verdicts {
		covered[tc.protocol] = true
		pr, err := checker.Load(tc.protocol)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range pr.Variants {
			if _, ok := tc.expect[v.Name]; !ok {
				t.Errorf("%s: variant %s has no expected verdicts", tc.protocol, v.Name)
			}
		}
		for variant, byModel := range tc.expect {
			inst, err := pr.Instance(variant, tc.params)
			if err != nil {
				t.Fatal(err)
			}
			for modelName, want := range byModel {
				t.Run(tc.protocol+"/"+paramString(tc.params)+variant+"/"+modelName, func(t *testing.T) {
					m, err := model.Lookup(modelName)
					if err != nil {
						t.Fatal(err)
					}
					rep, err := inst.Check(m, checker.Options{})
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					every := map[string]bool{}
					w := strings.Fields(want)
					for i, p := range w {
						if name, ok := strings.CutSuffix(p, "!"); ok {
							w[i], every[name] = name, true
						}
					}
					for _, p := range rep.Props {
						if every[p.Name] && p.Violations != rep.Stats.Executions {
							t.Errorf("%s is violated in %d of %d executions, expected all", p.Name, p.Violations, rep.Stats.Executions)
						}
						if p.Status == checker.Unknown {
							t.Errorf("%s is unknown: %s", p.Name, p.Message)
						}
						if p.Status == checker.Violated {
							got = append(got, p.Name)
						}
					}
					sort.Strings(got)
					sort.Strings(w)
					if strings.Join(got, " ") != strings.Join(w, " ") {
						t.Errorf("violated: [%s], expected [%s]", strings.Join(got, " "), strings.Join(w, " "))
					}
				})
			}
		}
	}
	for _, name := range protocols.Names() {
		if !covered[name] {
			t.Errorf("protocol %s has no verdict matrix", name)
		}
	}
}

func paramString(params map[string]string) string {
	var parts []string
	for k, v := range params {
		parts = append(parts, k+"="+v+"/")
	}
	sort.Strings(parts)
	return strings.Join(parts, "")
}
