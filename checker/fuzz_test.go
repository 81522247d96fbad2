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
	"github.com/ordercheck/ordercheck/protocols/c"
)

// FuzzEngines feeds edited protocol files to both engines (enginesAgree).
// (The catalogue's cells are held to one verdict in full by protocols'
// tests; this reaches programs nobody wrote.)
func FuzzEngines(f *testing.F) {
	addSeeds(f, "../protocols/examples/*.oc", "testdata/memory/*.oc")
	f.Fuzz(func(t *testing.T, src string) {
		if pr, err := checker.Parse("f.oc", src); err == nil {
			enginesAgree(t, pr)
		}
	})
}

// FuzzEnginesC does the same with edited C programs, as the C front end
// lowers them (its own FuzzParse holds the front end to located errors).
func FuzzEnginesC(f *testing.F) {
	addSeeds(f, "../protocols/c/testdata/*.c")
	f.Fuzz(func(t *testing.T, src string) {
		if pr, err := checker.ParseC("f.c", src, c.Options{}); err == nil {
			enginesAgree(t, pr)
		}
	})
}

// addSeeds adds the files the patterns match as seeds of f.
func addSeeds(f *testing.F, patterns ...string) {
	for _, pat := range patterns {
		files, _ := filepath.Glob(pat)
		if len(files) == 0 {
			f.Fatalf("no seeds match %s", pat)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(src))
		}
	}
}

// enginesAgree checks up to three variants of pr under sc and rc11 by
// the state explorer and the graph explorer (2,000 graphs, 0.3 s each):
// neither may fail internally and, where both explore to the end, every
// property has one verdict from both.
func enginesAgree(t *testing.T, pr *checker.Protocol) {
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
			if len(s.Props) != len(g.Props) {
				t.Fatalf("variant %q under %s: %d properties by states, %d by graphs", v, m.Name, len(s.Props), len(g.Props))
			}
			for i, p := range s.Props {
				if q := g.Props[i]; p.Name != q.Name || p.Status != q.Status {
					t.Fatalf("variant %q under %s: %s %s by states (%s), %s %s by graphs (%s)\n%s", v, m.Name, p.Name, p.Status, p.Message, q.Name, q.Status, q.Message, in.Prog)
				}
			}
		}
	}
}
