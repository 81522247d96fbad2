// Package cluster holds the cluster protocol: WAMR's cluster-lock
// traversal against the multi-module import-call swap.
package cluster

import _ "embed"

// Source is the protocol file.
//
//go:embed cluster.oc
var Source string
