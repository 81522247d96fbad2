// Package harness holds what the catalogue's Go implementations share: the
// input of a recorded operation, the stress runner that records histories
// and the subprocess that runs them under Go's race detector.
package harness

import "fmt"

// Op is the input of an operation recorded by a stress run: the object it
// acts on (each round of a stress run builds a fresh one, so a
// specification may partition by it) and the operation's name.
type Op struct {
	Object int
	Name   string
}

// String gives the operation's name, as in the model's histories.
func (o Op) String() string { return o.Name }

// Split gives the object and name of an operation's input: an Op from a
// stress run or a history file, or a bare name (object 0) from a model
// execution's history.
func Split(input interface{}) (object int, name string) {
	switch in := input.(type) {
	case Op:
		return in.Object, in.Name
	case string:
		return 0, in
	}
	return 0, fmt.Sprint(input)
}
