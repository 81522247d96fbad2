package lang

import (
	"fmt"
	"sort"

	"github.com/anishathalye/porcupine"
)

// Op is the input of an operation recorded by a stress run (package harness): the object it
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

// PartitionByObject splits a history by the object its operations act on,
// objects in increasing order: a specification whose objects are
// independent checks each part on its own.
func PartitionByObject(h []porcupine.Operation) [][]porcupine.Operation {
	by := map[int][]porcupine.Operation{}
	for _, op := range h {
		obj, _ := Split(op.Input)
		by[obj] = append(by[obj], op)
	}
	keys := make([]int, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([][]porcupine.Operation, 0, len(keys))
	for _, k := range keys {
		out = append(out, by[k])
	}
	return out
}
