package protocols_test

import (
	"testing"

	"github.com/ordercheck/ordercheck/checker/checkertest"
	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/protocols"
)

// TestExpectations checks the expect clauses of every catalogue protocol
// through the go test helper users run on their own protocols: a subtest
// per protocol, variant, model and configuration. TestCatalogue checks
// the same verdicts from its comparisons, so -short runs the helper on the
// first protocol only.
func TestExpectations(t *testing.T) {
	names := protocols.Names()
	if testing.Short() {
		names = names[:1]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			pr, err := protocols.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			checkertest.RunProtocol(t, pr, explore.Options{})
		})
	}
}
