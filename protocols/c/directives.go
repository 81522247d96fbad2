package c

import (
	"strings"

	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// directive is the prefix of a comment that speaks to ordercheck.
const directive = "// ordercheck:"

// directives reads the "// ordercheck: expect ..." comments of a C file
// into the protocol: expect clauses as a protocol file writes them.
func directives(pr *lang.Protocol, file string, src []byte) error {
	for i, line := range strings.Split(string(src), "\n") {
		col := strings.Index(line, directive)
		if col < 0 {
			continue
		}
		rest := line[col+len(directive):]
		trimmed := strings.TrimLeft(rest, " \t")
		at := model.Pos{File: file, Line: i + 1, Col: col + len(directive) + len(rest) - len(trimmed) + 1}
		word, _, _ := strings.Cut(trimmed, " ")
		switch word {
		case "expect":
			if err := pr.ParseExpect(strings.TrimRight(trimmed, " \t\r"), at); err != nil {
				return err
			}
		default:
			return &lang.Error{Pos: at, Msg: "an ordercheck comment holds an expect clause (// ordercheck: expect ...), found " + word + model.DidYouMean(word, []string{"expect"})}
		}
	}
	return nil
}
