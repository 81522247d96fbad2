// Package execenv holds the execenv protocol: WAMR's exec_env->module_inst
// swap while a child instance's start function runs.
package execenv

import _ "embed"

// Source is the protocol file.
//
//go:embed execenv.oc
var Source string
