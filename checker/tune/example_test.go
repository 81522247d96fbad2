package tune_test

import (
	"fmt"

	"github.com/ordercheck/ordercheck/checker"
	"github.com/ordercheck/ordercheck/checker/tune"
)

// mp passes a message through a flag whose orderings are parameters.
const mp = `protocol mp "message passing through a flag"

param PUB = rlx "ordering of the flag's store"
param SUB = rlx "ordering of the flag's load"

shared data = 0
shared flag = 0

property delivered "the reader sees the message once it sees the flag"

thread writer {
  store(data, 42, rlx)
  store(flag, 1, PUB)
}

thread reader {
  f = load(flag, SUB)
  if f == 1 {
    d = load(data, rlx)
    assert delivered: d == 42, "flag seen, message not"
  }
}
`

// Run finds the weakest orderings that keep message passing under rc11
// (the default model), and Rewrite says them as a variant.
func ExampleRun() {
	pr, err := checker.Parse("mp.oc", mp)
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := pr.Instance("", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := tune.Run(in, tune.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("current orderings keep it:", t.CurrentHolds)
	for i, s := range t.Sites {
		fmt.Printf("%s: %s -> %s\n", s.Text, s.Current, t.Minimal[0][i])
	}
	fmt.Println(t.Rewrite(0).Binds)
	// Output:
	// current orderings keep it: false
	// store(data, 42, rlx): rlx -> rlx
	// store(flag, 1, PUB): rlx -> rel
	// f = load(flag, SUB): rlx -> acq
	// d = load(data, rlx): rlx -> rlx
	// map[PUB:rel SUB:acq]
}
