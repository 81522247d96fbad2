package trace_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/trace"
	"github.com/ordercheck/ordercheck/model"
	"github.com/ordercheck/ordercheck/protocols"
)

// A counterexample saved as a trace, read back and replayed.
func ExampleReplay() {
	pr, err := protocols.Load("dlsym")
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
	var saved bytes.Buffer
	if err := trace.Of(inst, rep.Witness("lib-init")).WriteJSON(&saved); err != nil {
		log.Fatal(err)
	}
	tr, err := trace.Read(&saved)
	if err != nil {
		log.Fatal(err)
	}
	r, err := trace.Replay(tr, protocols.Lookup)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Witness.Violation.Prop, "reproduces:", r.Witness.Violation.Msg)
	// Output:
	// lib-init reproduces: caller[1]: called into an uninitialised library (protocols/dlsym/dlsym.oc:86:3)
}
