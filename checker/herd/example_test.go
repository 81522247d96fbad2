package herd_test

import (
	"fmt"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/herd"
	"github.com/ordercheck/ordercheck/model"
)

// RunFile runs a litmus test as herd7 does: its final states and whether
// its condition holds.
func ExampleRunFile() {
	res, err := herd.RunFile("../../protocols/litmus/testdata/MP+rel+acq.litmus", model.RC11, explore.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.States)
	fmt.Println(res.Verdict(), res.Observation())
	// Output:
	// [1:r0=0; 1:r1=0; 1:r0=1; 1:r1=1;]
	// No Never
}

// ExplainFile says why an outcome is forbidden: the axioms that reject
// each candidate execution producing it.
func ExampleExplainFile() {
	x, err := herd.ExplainFile("../../protocols/litmus/testdata/MP+rel+acq.litmus", `1:r0=1 /\ 1:r1=0`, model.RC11, explore.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x.Allowed(), x.Candidates, x.Axioms())
	// Output:
	// false 1 [coherence]
}
