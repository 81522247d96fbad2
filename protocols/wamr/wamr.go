package wamr

import (
	"sync"
	"sync/atomic"

	"github.com/ordercheck/ordercheck/protocols/harness"
)

// Instance is a module instance: its exception slot (cur_exception, 0 for
// none) is guarded by the cluster's exception lock.
type Instance struct {
	Name    string
	exc     int
	Started int // times its start function ran; written by the thread that runs it
}

// ExecEnv is an exec_env: the module instance it currently runs (a plain
// pointer, or an atomic one when the cluster says so), its membership of
// the cluster's list and, for exceptions kept in exec_envs (issue #2512),
// its own exception slot.
type ExecEnv struct {
	Name      string
	cluster   *Cluster
	inst      *Instance
	ainst     atomic.Pointer[Instance]
	exception int
	inList    bool
}

// Cluster is a WAMR cluster: the list of its exec_envs under Lock
// (cluster->lock), the global cluster_list_lock taken first by a search,
// and the global exception lock of #2509.
type Cluster struct {
	ListLock sync.Mutex // cluster_list_lock
	Lock     sync.Mutex // cluster->lock
	ExcLock  sync.Mutex // exception_lock
	// Atomic makes module_inst an atomic pointer (Go's atomics are
	// sequentially consistent).
	Atomic bool
	// ExcInEnv keeps exceptions in exec_envs: the spread writes each
	// exec_env's slot and never reads module_inst.
	ExcInEnv bool
	// SearchBySelf has a trapping thread name its own exec_env instead of
	// searching the list by module_inst.
	SearchBySelf bool
	envs         []*ExecEnv
	hasException bool
}

// NewExecEnv makes an exec_env of c running inst, linked into the list
// when listed.
func (c *Cluster) NewExecEnv(name string, inst *Instance, listed bool) *ExecEnv {
	e := &ExecEnv{Name: name, cluster: c}
	e.Store(inst)
	if listed {
		e.inList = true
		c.envs = append(c.envs, e)
	}
	return e
}

// Load reads e's module_inst: a plain read, or an atomic one.
func (e *ExecEnv) Load() *Instance {
	if e.cluster.Atomic {
		return e.ainst.Load()
	}
	return e.inst
}

// Store writes e's module_inst: a plain write, or an atomic one.
func (e *ExecEnv) Store(i *Instance) {
	if e.cluster.Atomic {
		e.ainst.Store(i)
		return
	}
	e.inst = i
}

// Link adds e to the cluster's list; the caller holds Lock.
func (c *Cluster) Link(e *ExecEnv) {
	e.inList = true
	c.envs = append(c.envs, e)
}

// Unlink removes e from the list under Lock, as a thread leaving the
// cluster does.
func (c *Cluster) Unlink(e *ExecEnv) {
	c.Lock.Lock()
	defer c.Lock.Unlock()
	for k, x := range c.envs {
		if x == e {
			c.envs = append(c.envs[:k:k], c.envs[k+1:]...)
			break
		}
	}
	e.inList = false
}

// HasException reads cluster->has_exception; the caller holds Lock.
func (c *Cluster) HasException() bool { return c.hasException }

// Exception reads i's exception under the exception lock
// (wasm_copy_exception).
func (c *Cluster) Exception(i *Instance) int {
	c.ExcLock.Lock()
	defer c.ExcLock.Unlock()
	return i.exc
}

// SetException writes i's exception under the exception lock.
func (c *Cluster) SetException(i *Instance, v int) {
	c.ExcLock.Lock()
	i.exc = v
	c.ExcLock.Unlock()
}

// SetExceptionUnlocked writes i's exception without the lock, as the
// original import call's bh_memcpy_s did.
func (c *Cluster) SetExceptionUnlocked(i *Instance, v int) { i.exc = v }

// Raise is wasm_set_exception(inst) from a thread running self: it
// searches the list for the exec_env running inst (or takes self), and
// spreads the exception over the list under Lock, writing it into each
// exec_env's current instance (set_exception_visitor); when none runs inst,
// only inst gets it. It reports where the exception reached watched, whose
// own instance is own.
func (c *Cluster) Raise(self *ExecEnv, inst *Instance, watched *ExecEnv, own *Instance) Delivery {
	found := false
	c.ListLock.Lock()
	c.Lock.Lock()
	if c.SearchBySelf {
		found = self != nil && self.inList
	} else {
		for _, e := range c.envs {
			found = found || e.Load() == inst
		}
	}
	c.Lock.Unlock()
	c.ListLock.Unlock()
	if !found {
		c.SetException(inst, 1)
		return NotSpread
	}
	harness.Perturb()
	c.Lock.Lock()
	defer c.Lock.Unlock()
	c.hasException = true
	d := NotSpread
	if c.ExcInEnv {
		d = ToEnv
	}
	for _, e := range c.envs {
		if c.ExcInEnv {
			c.ExcLock.Lock()
			e.exception = 1
			c.ExcLock.Unlock()
			continue
		}
		j := e.Load()
		if e == watched {
			d = ToChild
			if j == own {
				d = ToOwn
			}
		}
		harness.Perturb()
		c.SetException(j, 1)
	}
	return d
}

// MoveExceptionLocked copies from's exception into to when there is one
// and returns it; the caller holds ExcLock.
func (c *Cluster) MoveExceptionLocked(from, to *Instance) int {
	if from.exc != 0 {
		to.exc = from.exc
	}
	return from.exc
}
