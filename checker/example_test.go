package checker_test

import (
	"fmt"
	"log"
	"os"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/render"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// A protocol file, one of its variants, one model.
func ExampleLoad() {
	pr, err := checker.Load("../protocols/dlsym/dlsym.oc")
	if err != nil {
		log.Fatal(err)
	}
	inst, err := pr.Instance("unordered", nil)
	if err != nil {
		log.Fatal(err)
	}
	rep, err := inst.Check(model.RC11, explore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Verdict())
	for _, p := range rep.Props {
		fmt.Println(p.Name, p.Status)
	}
	// Output:
	// violated
	// data-race violated
	// lib-init violated
	// deadlock holds
	// linearizability violated
}

// A protocol of one's own, every variant under every model.
func ExampleParse() {
	pr, err := checker.Parse("sb.oc", `protocol sb "store buffering"
param ORD = rlx
variant relaxed default
variant seq-cst ORD=sc
shared x = 0
shared y = 0
shared seen_a = 0
shared seen_b = 0
property both-zero "some thread sees the other's store"
thread a {
  store(x, 1, ORD)
  seen_a = load(y, ORD)
}
thread b {
  store(y, 1, ORD)
  seen_b = load(x, ORD)
}
final both-zero: seen_a == 1 || seen_b == 1, "both loads read 0"
`)
	if err != nil {
		log.Fatal(err)
	}
	cmp, err := pr.Compare(checker.CompareOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := render.Comparison(os.Stdout, cmp, render.FormatMarkdown); err != nil {
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
	// **tso**
	//
	// | variant | both-zero | states |
	// |---|---|---|
	// | relaxed | FAIL | 57 |
	// | seq-cst | ok | 23 |
	//
	// **arm**
	//
	// | variant | both-zero | executions |
	// |---|---|---|
	// | relaxed | FAIL | 4 |
	// | seq-cst | ok | 3 |
	//
	// **riscv**
	//
	// | variant | both-zero | executions |
	// |---|---|---|
	// | relaxed | FAIL | 4 |
	// | seq-cst | ok | 3 |
	//
	// **rc11**
	//
	// | variant | both-zero | states |
	// |---|---|---|
	// | relaxed | FAIL | 14 |
	// | seq-cst | ok | 10 |
	//
	// **rc11-consume**
	//
	// | variant | both-zero | executions |
	// |---|---|---|
	// | relaxed | FAIL | 4 |
	// | seq-cst | ok | 10 states |
	//
	// ok = holds, FAIL = violated, ? = unknown (a bound cut the search).
	// seq-cst under rc11, rc11-consume is explored under sc (atomics, if any, all seq_cst, and no race: DRF-SC).
}

// Any program, any properties: here the catalogue's program with the
// built-in data-race property alone, by execution graphs.
func ExampleCheck() {
	pr, err := protocols.Load("dlsym")
	if err != nil {
		log.Fatal(err)
	}
	inst, err := pr.Instance("original", nil)
	if err != nil {
		log.Fatal(err)
	}
	rep, err := checker.Check(inst.Prog, model.SC, []checker.Property{checker.DataRace}, explore.Options{Engine: explore.EngineDPOR})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Props[0].Status, "by", rep.Engine)
	fmt.Println(rep.Props[0].Message)
	// Output:
	// violated by dpor
	// caller[0] reads cache (plain, protocols/dlsym/dlsym.oc:68:11) and caller[1] writes cache (plain, protocols/dlsym/dlsym.oc:73:11), unordered by happens-before
}
