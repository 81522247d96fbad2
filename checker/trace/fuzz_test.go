package trace_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ordercheck/ordercheck/checker/explore"
	"github.com/ordercheck/ordercheck/checker/trace"
	"github.com/ordercheck/ordercheck/protocols"
)

// FuzzReplay checks that no trace, however edited, makes reading or
// replaying it panic or fail inside ordercheck: a trace that does not fit
// is bad input.
func FuzzReplay(f *testing.F) {
	for _, path := range []string{"../../traces/dlsym/unordered.rc11.lib-init.json", "../../traces/execenv/original.sc.data-race.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := trace.Read(strings.NewReader(text))
		if err != nil {
			return
		}
		if _, err := trace.Replay(tr, protocols.Lookup); err != nil {
			var ie *explore.InternalError
			if errors.As(err, &ie) {
				t.Fatalf("an internal error on a trace: %v", err)
			}
		}
	})
}
