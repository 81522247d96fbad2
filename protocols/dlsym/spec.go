package dlsym

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/harness"
)

// Spec is the sequential specification of a call through the cached
// pointer: every call reaches the resolved function of the initialised
// library and returns what it returns (the library's value, 42). The
// protocol has no other state: every step keeps the initial one, so the
// state explorer judges each call on its own and keeps no history.
var Spec = porcupine.Model{
	Init: func() interface{} { return nil },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		return output == int64(42), state
	},
	DescribeOperation: func(input, output interface{}) string {
		obj, name := harness.Split(input)
		if obj != 0 {
			return fmt.Sprintf("#%d %s() -> %v", obj, name, output)
		}
		return fmt.Sprintf("%s() -> %v", name, output)
	},
	DescribeState: func(interface{}) string { return "loaded" },
}
