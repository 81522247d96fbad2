package lang

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// expectHead is a protocol to which the tests append expect clauses, from
// line 11 on.
const expectHead = `protocol e
param N = 2
param ORD = rel
param MODE = a in a, b
variant v1 "" default
variant v2 ""
variant v3 ""
property p
property q
thread t { }
`

// cellString renders a cell's verdict as "p q!" ("!": every execution),
// "holds", or "uncovered".
func cellString(c Cell) string {
	if c.Clause == nil {
		return "uncovered"
	}
	if len(c.Violated) == 0 {
		return "holds"
	}
	var s []string
	for _, v := range c.Violated {
		if v.Every {
			s = append(s, v.Prop+"!")
		} else {
			s = append(s, v.Prop)
		}
	}
	return strings.Join(s, " ")
}

// cells renders a configuration as "variant/model=verdict" lines.
func cells(c Config) []string {
	var out []string
	for _, cell := range c.Cells {
		out = append(out, cell.Variant+"/"+cell.Model+"="+cellString(cell))
	}
	return out
}

func TestParseExpect(t *testing.T) {
	for _, tc := range []struct {
		name, clause string
		want         Expect
		printed      string // "": the clause itself
	}{
		{"every cell holds", "expect *: holds", Expect{}, ""},
		{"one variant", "expect v1: violates p", Expect{Variants: []string{"v1"}, Violated: []Violation{{Prop: "p"}}}, ""},
		{"variants and models", "expect v1, v2 under rc11, rc11-consume: violates p, q",
			Expect{Variants: []string{"v1", "v2"}, Models: []string{"rc11", "rc11-consume"}, Violated: []Violation{{Prop: "p"}, {Prop: "q"}}}, ""},
		{"parameters", "expect * with MODE=b N=3: holds",
			Expect{Params: []Bind{{"MODE", Value{Text: "b"}}, {"N", Value{Text: "3"}}}}, ""},
		{"every execution", "expect v2 with MODE=b: violates p (every execution), q",
			Expect{Variants: []string{"v2"}, Params: []Bind{{"MODE", Value{Text: "b"}}}, Violated: []Violation{{Prop: "p", Every: true}, {Prop: "q"}}}, ""},
		{"all parts", "expect v3 with ORD=acq under sc: violates q (every execution)",
			Expect{Variants: []string{"v3"}, Params: []Bind{{"ORD", Value{Text: "acq"}}}, Models: []string{"sc"}, Violated: []Violation{{Prop: "q", Every: true}}}, ""},
		{"negative integer", "expect * with N=-1 under tso: holds", Expect{Params: []Bind{{"N", Value{Text: "-1"}}}, Models: []string{"tso"}}, ""},
		{"layout is free", "expect v1 ,v2\n  under sc ,tso :\n  violates p ( every execution )",
			Expect{Variants: []string{"v1", "v2"}, Models: []string{"sc", "tso"}, Violated: []Violation{{Prop: "p", Every: true}}},
			"expect v1, v2 under sc, tso: violates p (every execution)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := Parse("e.oc", expectHead+tc.clause+"\n")
			if err != nil {
				t.Fatal(err)
			}
			if len(pr.Expects) != 1 {
				t.Fatalf("%d clauses, want 1", len(pr.Expects))
			}
			got := *pr.Expects[0]
			if got.Pos.Line != 11 || got.Pos.Col != 1 {
				t.Errorf("clause at %s, want e.oc:11:1", got.Pos)
			}
			for i := range got.Params {
				got.Params[i].Value.Pos = tc.want.Pos
			}
			got.Pos, got.variantAt, got.modelAt, got.propAt = tc.want.Pos, nil, nil, nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parsed %+v, want %+v", got, tc.want)
			}
			printed := tc.printed
			if printed == "" {
				printed = tc.clause
			}
			if s := pr.Expects[0].String(); s != printed {
				t.Errorf("prints as %q, want %q", s, printed)
			}
			again, err := Parse("printed.oc", pr.Format())
			if err != nil {
				t.Fatalf("the printed protocol does not parse: %v\n%s", err, pr.Format())
			}
			if again.Format() != pr.Format() {
				t.Errorf("printing is not stable:\n%s\nthen\n%s", pr.Format(), again.Format())
			}
		})
	}
}

func TestExpectErrors(t *testing.T) {
	noVariants := "protocol e\nproperty p\nthread t { }\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown variant", expectHead + "expect v1, v9: holds", "e.oc:11:12: unknown variant v9 (variants: v1, v2, v3)"},
		{"named variant without variants", noVariants + "expect v1: holds", "e.oc:4:8: unknown variant v1: protocol e has no variants (write \"*\")"},
		{"variant twice", expectHead + "expect v2, v2: holds", "e.oc:11:12: variant v2 is listed twice in this expect clause"},
		{"unknown parameter", expectHead + "expect * with K=1: holds", "e.oc:11:17: unknown parameter K (parameters: N, ORD, MODE)"},
		{"parameter twice", expectHead + "expect * with N=1 N=2: holds", "e.oc:11:21: parameter N is set twice in this expect clause"},
		{"not a choice", expectHead + "expect * with MODE=c: holds", "e.oc:11:20: parameter MODE is one of a, b, not \"c\""},
		{"integer for an ordering", expectHead + "expect * with ORD=3: holds", "e.oc:11:19: parameter ORD holds an ordering, not the integer 3"},
		{"ordering for an integer", expectHead + "expect * with N=acq: holds", "e.oc:11:17: parameter N holds an integer, not the ordering acq"},
		{"neither", expectHead + "expect * with N=many: holds", "e.oc:11:17: parameter N: \"many\" is neither an integer nor an ordering"},
		{"unknown model", expectHead + "expect * under sc, power: holds", "e.oc:11:20: unknown memory model \"power\""},
		{"model twice", expectHead + "expect * under tso, tso: holds", "e.oc:11:21: model tso is listed twice in this expect clause"},
		{"unknown property", expectHead + "expect *: violates p, r", "e.oc:11:23: unknown property r (declare it with \"property r\")"},
		{"property twice", expectHead + "expect *: violates p, q, p (every execution)", "e.oc:11:26: property p is listed twice in this expect clause"},
		{"no colon", expectHead + "expect * holds", "e.oc:11:10: expected \":\", found \"holds\""},
		{"no verdict", expectHead + "expect *: violated p", "e.oc:11:11: expected \"holds\" or \"violates\", found \"violated\""},
		{"no property", expectHead + "expect *: violates", "e.oc:12:1: expected a property name, found end of file"},
		{"not every execution", expectHead + "expect *: violates p (every run)", "e.oc:11:29: expected \"execution\", found \"run\""},
		{"no variant", expectHead + "expect : holds", "e.oc:11:8: expected a variant name or \"*\", found \":\""},
		{"overlap of *", expectHead + "expect *: holds\nexpect *: violates p",
			"e.oc:12:1: every variant under every model is also selected by the expect clause at e.oc:11:1"},
		{"overlap of * under models", expectHead + "expect * under sc, tso: holds\nexpect * under rc11, tso: violates p",
			"e.oc:12:1: every variant under tso is also selected by the expect clause at e.oc:11:1"},
		{"overlap of variants", expectHead + "expect v1, v2: holds\nexpect v3, v2: violates p",
			"e.oc:12:1: variant v2 under every model is also selected by the expect clause at e.oc:11:1"},
		{"overlap of cells", expectHead + "expect v1 with MODE=b N=1 under sc: holds\nexpect v2, v1 with N=1 MODE=b under tso, sc: violates q",
			"e.oc:12:1: variant v1 under sc with MODE=b N=1 is also selected by the expect clause at e.oc:11:1"},
		{"overlap of the implicit variant", noVariants + "expect * under sc: holds\nexpect * under sc: violates p",
			"e.oc:5:1: every variant under sc is also selected by the expect clause at e.oc:4:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("e.oc", tc.src+"\n")
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
}

func TestExpectPrecedence(t *testing.T) {
	pr, err := Parse("e.oc", expectHead+`expect *: holds
expect * under rc11: violates p
expect v1: violates q
expect v1 under tso: violates q, p (every execution)
expect v2 with MODE=b: violates p
expect * with N=1: holds
expect v2 with N=1: violates q
`)
	if err != nil {
		t.Fatal(err)
	}
	configs, err := pr.Expectations([]string{"sc", "tso", "rc11"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		params string
		want   []string
	}{
		{"default parameters", "", []string{
			"v1/sc=q", "v1/tso=p! q", "v1/rc11=q", // explicit variants beat "*", with or without under
			"v2/sc=holds", "v2/tso=holds", "v2/rc11=p", // under beats no under
			"v3/sc=holds", "v3/tso=holds", "v3/rc11=p",
		}},
		{"uncovered cells", "MODE=b", []string{
			"v1/sc=uncovered", "v1/tso=uncovered", "v1/rc11=uncovered",
			"v2/sc=p", "v2/tso=p", "v2/rc11=p",
			"v3/sc=uncovered", "v3/tso=uncovered", "v3/rc11=uncovered",
		}},
		{"a configuration of its own", "N=1", []string{
			"v1/sc=holds", "v1/tso=holds", "v1/rc11=holds",
			"v2/sc=q", "v2/tso=q", "v2/rc11=q",
			"v3/sc=holds", "v3/tso=holds", "v3/rc11=holds",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c *Config
			var order []string
			for i := range configs {
				order = append(order, paramKeyOf(configs[i].Params))
				if paramKeyOf(configs[i].Params) == tc.params {
					c = &configs[i]
				}
			}
			if got := strings.Join(order, ","); got != ",MODE=b,N=1" {
				t.Errorf("configurations %q, want the default first, then in order of appearance", got)
			}
			if c == nil {
				t.Fatalf("no configuration %q", tc.params)
			}
			if got := cells(*c); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("cells\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	t.Run("deciding clause", func(t *testing.T) {
		cell := configs[0].Cells[1] // v1 under tso
		if cell.Clause == nil || cell.Clause.Pos.Line != 14 {
			t.Errorf("v1 under tso decided by %v, want the clause at line 14", cell.Clause)
		}
	})
	t.Run("overrides", func(t *testing.T) {
		if o := configs[0].Overrides(); o != nil {
			t.Errorf("default configuration overrides %v", o)
		}
		if o := configs[1].Overrides(); !reflect.DeepEqual(o, map[string]string{"MODE": "b"}) {
			t.Errorf("overrides %v, want MODE=b", o)
		}
	})
	t.Run("model not checked", func(t *testing.T) {
		_, err := pr.Expectations([]string{"sc", "tso"})
		if want := "e.oc:12:16: model rc11 is not among the models checked (sc, tso)"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
}

func TestExpectImplicitVariant(t *testing.T) {
	pr, err := Parse("e.oc", "protocol e\nproperty p\nthread t { }\nexpect *: holds\nexpect * under tso: violates p\n")
	if err != nil {
		t.Fatal(err)
	}
	configs, err := pr.Expectations([]string{"sc", "tso"})
	if err != nil {
		t.Fatal(err)
	}
	if len(configs) != 1 {
		t.Fatalf("%d configurations, want 1", len(configs))
	}
	if got, want := cells(configs[0]), []string{"/sc=holds", "/tso=p"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}

func TestExpectNoClauses(t *testing.T) {
	pr, err := Parse("small.oc", small)
	if err != nil {
		t.Fatal(err)
	}
	configs, err := pr.Expectations([]string{"sc"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(len(configs), cells(configs[0])), "1 [plain/sc=uncovered fenced/sc=uncovered]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
