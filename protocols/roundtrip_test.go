package protocols_test

import (
	"testing"

	"github.com/ordercheck/ordercheck/protocols"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// TestFormatRoundTrip checks that printing a protocol and parsing it again
// gives the same program, for every variant of every catalogue protocol.
func TestFormatRoundTrip(t *testing.T) {
	for _, name := range protocols.Names() {
		t.Run(name, func(t *testing.T) {
			pr, err := protocols.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			text := pr.File.Format()
			again, err := lang.Parse(name+".printed", text)
			if err != nil {
				t.Fatalf("the printed protocol does not parse: %v\n%s", err, text)
			}
			if again.Format() != text {
				t.Errorf("printing is not stable:\n%s\nthen\n%s", text, again.Format())
			}
			for _, v := range pr.File.Variants {
				a, err := pr.File.Compile(v.Name, nil)
				if err != nil {
					t.Fatal(err)
				}
				b, err := again.Compile(v.Name, nil)
				if err != nil {
					t.Fatal(err)
				}
				if a.Prog.String() != b.Prog.String() {
					t.Errorf("variant %s compiles differently after printing:\n%s\nvs\n%s", v.Name, a.Prog, b.Prog)
				}
			}
		})
	}
}
