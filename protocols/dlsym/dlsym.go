// Package dlsym holds the dlsym protocol: a lazily resolved function
// pointer cached in a global and read by many threads.
package dlsym

import _ "embed"

// Source is the protocol file.
//
//go:embed dlsym.oc
var Source string
