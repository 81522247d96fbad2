package checker_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/model"
)

// TestMemorySafety checks the heap protocols of testdata/memory: GenMC's
// tests/wrong/memory patterns, whose expectations are GenMC's verdicts,
// and the heap's checks written by hand. Each file's expect clauses hold,
// and under sc, tso and rc11 the state explorer (where the model has a
// machine for the program) and the graph explorer give the same verdict
// on every property.
func TestMemorySafety(t *testing.T) {
	files, err := filepath.Glob("testdata/memory/*.oc")
	if err != nil || len(files) < 8 {
		t.Fatalf("want the memory protocols, found %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			checkertest.Run(t, f)
			pr, err := checker.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			variants := []string{""} // the protocol itself
			if len(pr.Variants) > 0 {
				variants = nil
				for _, v := range pr.Variants {
					variants = append(variants, v.Name)
				}
			}
			checked := 0
			for _, v := range variants {
				in, err := pr.Instance(v, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range []string{"sc", "tso", "rc11"} {
					m, _ := model.Lookup(name)
					graphs, err := in.Check(m, checker.Options{Engine: checker.EngineDPOR})
					if err != nil {
						t.Fatal(err)
					}
					states, err := in.Check(m, checker.Options{Engine: checker.EngineStates})
					if err != nil {
						if strings.Contains(err.Error(), "no operational form") {
							continue
						}
						t.Fatal(err)
					}
					checked++
					for i, p := range graphs.Props {
						if s := states.Props[i]; s.Status != p.Status {
							t.Errorf("%q under %s: %s %s by graphs (%s), %s by states (%s)", v, name, p.Name, p.Status, p.Message, s.Status, s.Message)
						}
					}
				}
			}
			if checked == 0 {
				t.Error("no cell compared the engines")
			}
		})
	}
}
