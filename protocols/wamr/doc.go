// Package wamr is a Go port of the fragment of WAMR's thread manager that
// the execenv and cluster protocols model: a cluster with a mutex-protected
// list of exec_envs, exec_envs pointing at module instances, instances with
// an exception slot under the exception lock, and the spreading of an
// exception by walking the list. Both protocols check it against Spec.
package wamr
