package history_test

import (
	"fmt"
	"log"
	"sync"

	"github.com/ordercheck/ordercheck/checker/history"
	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/lang"
)

// The linearizability of a Go type of one's own: a counter whose
// increments return the old value, stressed by goroutines in rounds
// (harness.Stress records each operation's call and return), checked in
// real time against a specification written in the protocol language.
// A counter that reads and writes without its lock would lose updates,
// and the check would fail.
func ExampleCheckRecorded() {
	spec, err := lang.ParseSpec("counter.spec", `spec {
  state n = 0
  op inc {
    require result == n
    n = n + 1
  }
}`)
	if err != nil {
		log.Fatal(err)
	}
	h, err := harness.Stress(harness.Config{Clients: 3, Rounds: 50, Seed: 1}, func(r *harness.Round) {
		var mu sync.Mutex // a fresh counter for each round
		var n int64
		inc := func() int64 {
			mu.Lock()
			defer mu.Unlock()
			n++
			return n - 1
		}
		for range 3 {
			r.Go(func(c harness.Client) { c.Do("inc", inc) })
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	l := history.CheckRecorded(spec, h, 0)
	fmt.Println(len(l.History), "operations:", l.Result)
	// Output: 150 operations: Ok
}
