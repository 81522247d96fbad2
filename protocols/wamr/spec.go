package wamr

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/lang"
)

// Operation names, as the protocol files' op blocks and the Go port record
// them.
const (
	OpSet     = "set_module_inst"     // switch the watched exec_env to the child instance
	OpRestore = "restore_module_inst" // switch back; the output is the exception moved back (0 or 1)
	OpRaise   = "raise"               // a trap spread over the cluster; the output is a Delivery
	OpCreate  = "create_thread"       // add the child's exec_env; the output is 1 when created
)

// Delivery says where a raise left its exception on the watched exec_env
// (the parent's in execenv, the import caller's in cluster).
type Delivery = int64

// The deliveries a raise reports.
const (
	NotSpread Delivery = iota // the raising instance runs on no listed exec_env: only it has the exception
	ToOwn                     // the watched exec_env's own instance
	ToChild                   // the child (callee) instance swapped into the watched exec_env
	ToEnv                     // the exec_env itself (exceptions kept in exec_envs)
)

// state is the cluster as the specification sees it.
type state struct {
	child    bool // the child instance is current on the watched exec_env
	childExc bool // the child instance holds an exception
	raised   bool // the cluster has an exception (cluster->has_exception)
}

// Spec is the sequential specification shared by execenv and cluster: one
// watched exec_env whose module_inst is switched to a child instance and
// back, while other threads raise exceptions over the cluster. Executed
// one at a time, a raise reaches the instance current at that moment, a
// restore moves the child's exception back to the own instance (so no
// exception spread to the exec_env is lost), and no thread is created
// after an exception. Histories are partitioned by object (one cluster per
// stress round).
var Spec = porcupine.Model{
	Partition: lang.PartitionByObject,
	Init:      func() interface{} { return state{} },
	Step: func(st, input, output interface{}) (bool, interface{}) {
		s := st.(state)
		out, _ := output.(int64)
		_, name := lang.Split(input)
		switch name {
		case OpSet:
			s.child = true
			return out == 0, s
		case OpRestore:
			ok := out == b2i(s.childExc)
			s.child = false
			return ok, s
		case OpRaise:
			switch out {
			case NotSpread:
				return true, s
			case ToOwn:
				ok := !s.child
				s.raised = true
				return ok, s
			case ToChild:
				ok := s.child
				s.raised, s.childExc = true, true
				return ok, s
			case ToEnv:
				s.raised = true
				return true, s
			}
			return false, s
		case OpCreate:
			return out == b2i(!s.raised), s
		}
		return false, s
	},
	DescribeOperation: func(input, output interface{}) string {
		obj, name := lang.Split(input)
		out, _ := output.(int64)
		res := fmt.Sprint(out)
		switch name {
		case OpRaise:
			res = map[int64]string{NotSpread: "not spread", ToOwn: "own instance", ToChild: "child instance", ToEnv: "exec_env"}[out]
		case OpRestore:
			res = map[int64]string{0: "nothing moved back", 1: "exception moved back"}[out]
		case OpCreate:
			res = map[int64]string{0: "refused", 1: "created"}[out]
		case OpSet:
			res = map[int64]string{0: "child current"}[out]
		}
		if obj != 0 {
			return fmt.Sprintf("#%d %s() -> %s", obj, name, res)
		}
		return fmt.Sprintf("%s() -> %s", name, res)
	},
	DescribeState: func(st interface{}) string {
		s := st.(state)
		cur := "own instance current"
		if s.child {
			cur = "child instance current"
		}
		return fmt.Sprintf("%s; child exception %v; cluster exception %v", cur, s.childExc, s.raised)
	},
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
