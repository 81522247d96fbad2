package simulate_test

import (
	"fmt"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/simulate"
	"github.com/ordercheck/ordercheck/model"
)

// Instance walks random runs of dlsym's unordered fix under rc11: the
// publication race shows up within a thousand runs, with a
// counterexample; its silence would have proved nothing.
func ExampleInstance() {
	pr, err := checker.Load("../../protocols/dlsym/dlsym.oc")
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := pr.Instance("unordered", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := simulate.Instance(in, model.RC11, simulate.Options{Runs: 1000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Verdict(), res.Witness("") != nil)
	// Output:
	// violated true
}
