package c

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// directive is the prefix of a comment that speaks to ordercheck.
const directive = "// ordercheck:"

// comments are what a C file's "// ordercheck:" comments say: its
// variants, its expect clauses and its own properties.
type comments struct {
	variants []variant
	expects  []clause
	props    []*lang.Prop
}

// variant is "// ordercheck: variant NAME [default] [shipped]
// [-DNAME[=VALUE]...]": the program the file is with those macros defined.
type variant struct {
	name    string
	def     bool
	shipped bool
	defines []string
	at      model.Pos
}

// clause is an expect clause's text and where it starts.
type clause struct {
	text string
	at   model.Pos
}

// variantRE matches a variant's name, as the protocol language writes one.
var variantRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// readComments reads the "// ordercheck:" comments of a C file.
func readComments(file string, src []byte) (*comments, error) {
	out := &comments{}
	seen := map[string]bool{}
	for i, line := range strings.Split(string(src), "\n") {
		col := strings.Index(line, directive)
		if col < 0 {
			continue
		}
		rest := line[col+len(directive):]
		trimmed := strings.TrimLeft(rest, " \t")
		start := col + len(directive) + len(rest) - len(trimmed) + 1
		at := model.Pos{File: file, Line: i + 1, Col: start}
		text := strings.TrimRight(trimmed, " \t\r")
		word, _, _ := strings.Cut(text, " ")
		switch word {
		case "expect":
			out.expects = append(out.expects, clause{text, at})
		case "property":
			p, err := readProp(text, at)
			if err != nil {
				return nil, err
			}
			for _, q := range out.props {
				if q.Name == p.Name {
					return nil, &lang.Error{Pos: at, Msg: fmt.Sprintf("property %s is already declared at %s", p.Name, q.Pos)}
				}
			}
			out.props = append(out.props, p)
		case "variant":
			fields := strings.Fields(text)
			if len(fields) < 2 || !variantRE.MatchString(fields[1]) {
				return nil, &lang.Error{Pos: at, Msg: "a variant comment names the variant: // ordercheck: variant NAME [default] [shipped] [-DNAME[=VALUE] ...]"}
			}
			v := variant{name: fields[1], at: at}
			if seen[v.name] {
				return nil, &lang.Error{Pos: at, Msg: "variant " + v.name + " is declared twice"}
			}
			seen[v.name] = true
			for _, f := range fields[2:] {
				fat := at
				fat.Col += strings.Index(text, f)
				name, _, _ := strings.Cut(strings.TrimPrefix(f, "-D"), "=")
				switch {
				case f == "default" && !v.def:
					v.def = true
				case f == "shipped" && !v.shipped:
					v.shipped = true
				case strings.HasPrefix(f, "-D") && identRE.MatchString(name):
					v.defines = append(v.defines, f[2:])
				case strings.HasPrefix(f, "-D") && len(f) > 2:
					return nil, &lang.Error{Pos: fat, Msg: fmt.Sprintf("%s: %q is not a macro name", f, name)}
				default:
					return nil, &lang.Error{Pos: fat, Msg: "a variant comment holds default, shipped and -DNAME[=VALUE] words, found " + f}
				}
			}
			out.variants = append(out.variants, v)
		default:
			return nil, &lang.Error{Pos: at, Msg: "an ordercheck comment holds a variant, a property or an expect clause (// ordercheck: expect ...), found " + word + model.DidYouMean(word, []string{"expect", "property", "variant"})}
		}
	}
	return out, nil
}

// readProp reads "property NAME ["doc"]": a property of the program's
// own, which an assert names by the message it carries
// (assert(e && "NAME: message")).
func readProp(text string, at model.Pos) (*lang.Prop, error) {
	rest := strings.TrimSpace(strings.TrimPrefix(text, "property"))
	name, doc := rest, ""
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		name, doc = rest[:i], rest[i:]
	}
	if !variantRE.MatchString(name) {
		return nil, &lang.Error{Pos: at, Msg: `a property comment names the property: // ordercheck: property NAME "what it says"`}
	}
	if name == PropAssertion || lang.BuiltinProp(name) {
		return nil, &lang.Error{Pos: at, Msg: "property " + name + " is built in: name yours otherwise"}
	}
	if doc = strings.TrimSpace(doc); doc != "" {
		s, err := strconv.Unquote(doc)
		if err != nil {
			return nil, &lang.Error{Pos: at, Msg: "a property's description is a quoted string, found " + doc}
		}
		doc = s
	}
	return &lang.Prop{Name: name, Doc: doc, Pos: at}, nil
}

// addExpects reads the expect clauses into the protocol.
func (cm *comments) addExpects(pr *lang.Protocol) error {
	for _, e := range cm.expects {
		if err := pr.ParseExpect(e.text, e.at); err != nil {
			return err
		}
	}
	return nil
}
