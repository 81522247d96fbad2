package lang

import (
	"strings"
	"testing"
)

// TestFormatVariant prints every variant of the catalogue's protocols on
// its own and checks that the text compiles to the variant's program.
func TestFormatVariant(t *testing.T) {
	for _, file := range []string{"dlsym", "execenv", "cluster"} {
		pr, err := ParseFile("../" + file + "/" + file + ".oc")
		if err != nil {
			t.Fatal(err)
		}
		names := []string{""}
		for _, v := range pr.Variants {
			names = append(names, v.Name)
		}
		for _, name := range names {
			t.Run(file+"/"+name, func(t *testing.T) {
				text, err := pr.FormatVariant(name)
				if err != nil {
					t.Fatal(err)
				}
				flat, err := Parse("variant.oc", text)
				if err != nil {
					t.Fatalf("%v\n%s", err, text)
				}
				if len(flat.Variants) != 0 || len(flat.Expects) != 0 {
					t.Errorf("variants or expectations left in\n%s", text)
				}
				want, err := pr.Compile(name, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := flat.Compile("", nil)
				if err != nil {
					t.Fatalf("%v\n%s", err, text)
				}
				if body(got.Prog.String()) != body(want.Prog.String()) {
					t.Errorf("the printed variant compiles to\n%s\nnot\n%s", got.Prog, want.Prog)
				}
			})
		}
	}
	t.Run("unknown", func(t *testing.T) {
		pr, err := ParseFile("../dlsym/dlsym.oc")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pr.FormatVariant("fixd"); err == nil || !strings.Contains(err.Error(), "fixd") {
			t.Errorf("an unknown variant gives %v", err)
		}
	})
}

// body is a program's listing without its first line, which names it.
func body(listing string) string {
	_, rest, _ := strings.Cut(listing, "\n")
	return rest
}
