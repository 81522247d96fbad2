package render_test

import (
	"log"
	"os"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
)

// sb is store buffering, relaxed or seq_cst: both threads may read 0
// unless the accesses are seq_cst.
const sb = `protocol sb "store buffering"
param ORD = rlx
variant relaxed default
variant seq-cst ORD=sc
shared x = 0
shared y = 0
property both-zero "some thread sees the other's store"
thread a {
  store(x, 1, ORD)
  r = load(y, ORD)
}
thread b {
  store(y, 1, ORD)
  r = load(x, ORD)
}
final both-zero: a.r == 1 || b.r == 1, "both threads read 0"
`

// A comparison of a protocol's variants under two models, as a Markdown
// table for a design review.
func ExampleComparison() {
	pr, err := checker.Parse("sb.oc", sb)
	if err != nil {
		log.Fatal(err)
	}
	c, err := pr.Compare(checker.CompareOptions{Models: []*model.Model{model.SC, model.RC11}})
	if err != nil {
		log.Fatal(err)
	}
	if err := render.Comparison(os.Stdout, c, render.FormatMarkdown); err != nil {
		log.Fatal(err)
	}
	// Output:
	// **sc**
	//
	// | variant | both-zero | states |
	// |---|---|---|
	// | relaxed | ok | 10 |
	// | seq-cst | ok | 10 |
	//
	// **rc11**
	//
	// | variant | both-zero | states |
	// |---|---|---|
	// | relaxed | FAIL | 14 |
	// | seq-cst | ok | 10 |
	//
	// ok = holds, FAIL = violated, ? = unknown (a bound cut the search).
	// seq-cst under rc11 is explored under sc (atomics, if any, all seq_cst, and no race: DRF-SC).
}

// The counterexample of a violated property, step by step.
func ExampleWitness() {
	pr, err := checker.Parse("sb.oc", sb)
	if err != nil {
		log.Fatal(err)
	}
	inst, err := pr.Instance("relaxed", nil)
	if err != nil {
		log.Fatal(err)
	}
	rep, err := inst.Check(model.RC11, explore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range rep.Props {
		if p.Witness != nil {
			os.Stdout.WriteString(render.Witness(p.Witness))
		}
	}
	// Output:
	// 1. a  write x = 1  (rlx)                              sb.oc:9:3
	//     2. a  read y = 0  (rlx, from init)                    sb.oc:10:7
	//     3. b  write y = 1  (rlx)                              sb.oc:13:3
	//     4. b  read x = 0  (rlx, from init)                    sb.oc:14:7
	//           reads x=0 from init although step 1 wrote 1: step 1 is not happens-before this read — no release/acquire chain orders them
}
