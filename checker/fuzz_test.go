package checker_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/model"
)

// FuzzEngines feeds edited protocol files to both engines: where the
// state explorer and the graph explorer both explore a variant to the end
// under a model, every property has one verdict from both; neither fails
// internally. (The catalogue's cells are held to this in full by
// protocols' tests; this reaches programs nobody wrote.)
func FuzzEngines(f *testing.F) {
	seeds, _ := filepath.Glob("../protocols/examples/*.oc")
	more, _ := filepath.Glob("testdata/memory/*.oc")
	for _, s := range append(seeds, more...) {
		src, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Fuzz(func(t *testing.T, src string) {
		pr, err := checker.Parse("f.oc", src)
		if err != nil {
			return
		}
		variants := []string{""}
		for _, v := range pr.File.Variants {
			if len(variants) < 3 {
				variants = append(variants, v.Name)
			}
		}
		for _, v := range variants {
			in, err := pr.Instance(v, nil)
			if err != nil {
				continue
			}
			for _, m := range []*model.Model{model.SC, model.RC11} {
				if checker.StatesUnsupported(in.Prog, m) != "" {
					continue
				}
				reps := map[explore.Engine]*checker.Report{}
				for _, eng := range []explore.Engine{explore.EngineStates, explore.EngineDPOR} {
					rep, err := in.Check(m, explore.Options{Engine: eng, MaxGraphs: 2000, Timeout: 300 * time.Millisecond})
					var ie *explore.InternalError
					if errors.As(err, &ie) {
						t.Fatalf("%s under %s by %s: %v", v, m.Name, eng, err)
					}
					if err != nil || !rep.Stats.Exhaustive() {
						break
					}
					reps[eng] = rep
				}
				s, g := reps[explore.EngineStates], reps[explore.EngineDPOR]
				if s == nil || g == nil {
					continue
				}
				for i, p := range s.Props {
					if q := g.Props[i]; p.Name != q.Name || p.Status != q.Status {
						t.Fatalf("variant %q under %s: %s %s by states (%s), %s %s by graphs (%s)\n%s", v, m.Name, p.Name, p.Status, p.Message, q.Name, q.Status, q.Message, in.Prog)
					}
				}
			}
		}
	})
}
