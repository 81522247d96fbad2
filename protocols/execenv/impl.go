package execenv

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/wamr"
)

// world is one round: a cluster whose parent thread spawns a child while
// the other threads trap.
type world struct {
	c          *wamr.Cluster
	IP, IC     *wamr.Instance
	EP, EC     *wamr.ExecEnv
	Etmp       *wamr.ExecEnv // option (3)'s temporary exec_env, in no list
	hwb        bool          // hardware bound checks: a wasm call must use the thread's TLS exec_env
	trap       bool          // the child's start function traps this round
	saved      *wamr.Instance
	round      *harness.Round
	v          *variant
	tlsRefused bool // a start function was refused ("invalid exec env")
}

// variant is one catalogue variant of the parent's spawn path.
type variant struct {
	swapIn, swapOut func(w *world, c harness.Client) // nil: no swap
	startOnParent   func(w *world, c harness.Client) // execute_post_instantiate_functions' start call; nil: none
	startInChild    bool                             // option (5): the child runs start itself
	excInEnv        bool                             // option (4)
	// instantiateOutsideLock: on the embedder path, instantiate before
	// taking cluster->lock (#2882).
	instantiateOutsideLock bool
}

// Variants names the Go versions of the catalogue's variants: every one
// has a faithful Go form, since none relies on an ordering weaker than
// Go's (each bug is an interleaving or a lock discipline).
var Variants = map[string]*variant{
	"original":   {swapIn: plainSet, startOnParent: startOnParent, swapOut: plainRestore},
	"skip-start": {},
	"lock-across-start": {
		swapIn: func(w *world, c harness.Client) {
			c.Do(wamr.OpSet, func() int64 {
				w.c.Lock.Lock()
				w.saved = w.EP.Load()
				w.EP.Store(w.IC)
				return 0
			})
		},
		startOnParent: startOnParent,
		swapOut: func(w *world, c harness.Client) {
			c.Do(wamr.OpRestore, func() int64 {
				w.EP.Store(w.saved)
				w.c.Lock.Unlock()
				return 0
			})
		},
	},
	"pr2685":         {swapIn: lockedSet, startOnParent: startOnParent, swapOut: lockedRestore},
	"pr2882":         {swapIn: lockedSet, startOnParent: startOnParent, swapOut: lockedRestore, instantiateOutsideLock: true},
	"temp-env":       {startOnParent: func(w *world, c harness.Client) { w.runStart(c, w.Etmp, w.EP) }},
	"start-in-child": {startInChild: true},
	"exc-in-env":     {swapIn: plainSet, startOnParent: startOnParent, swapOut: plainRestore, excInEnv: true},
}

// plainSet is the original swap: module_inst written without a lock.
func plainSet(w *world, c harness.Client) {
	c.Do(wamr.OpSet, func() int64 {
		w.saved = w.EP.Load()
		w.EP.Store(w.IC)
		return 0
	})
}

// plainRestore restores module_inst without a lock, moving nothing back.
func plainRestore(w *world, c harness.Client) {
	c.Do(wamr.OpRestore, func() int64 {
		w.EP.Store(w.saved)
		return 0
	})
}

// lockedSet is wasm_exec_env_set_module_inst (#2685).
func lockedSet(w *world, c harness.Client) {
	c.Do(wamr.OpSet, func() int64 {
		w.saved = w.EP.Load()
		w.c.Lock.Lock()
		w.EP.Store(w.IC)
		w.c.Lock.Unlock()
		return 0
	})
}

// lockedRestore is wasm_exec_env_restore_module_inst (#2685): restore
// under cluster->lock, copying the exception back.
func lockedRestore(w *world, c harness.Client) {
	c.Do(wamr.OpRestore, func() int64 {
		old := w.EP.Load()
		w.c.Lock.Lock()
		w.EP.Store(w.saved)
		buf := w.c.Exception(old)
		w.c.Lock.Unlock()
		if buf != 0 {
			w.c.SetException(w.saved, buf)
		}
		return int64(buf)
	})
}

// startOnParent runs the child's start function on the parent's exec_env.
func startOnParent(w *world, c harness.Client) { w.runStart(c, w.EP, w.EP) }

// runStart is wasm_call_function(env, start of the child instance) on a
// thread whose TLS exec_env is tls; the start function may trap.
func (w *world) runStart(c harness.Client, env, tls *wamr.ExecEnv) {
	if w.hwb && env != tls {
		w.tlsRefused = true
		return
	}
	w.IC.Started++
	harness.Perturb() // the start function runs
	if w.trap {
		c.Do(wamr.OpRaise, func() int64 { return w.c.Raise(env, w.IC, w.EP, w.IP) })
	}
}

// postInstantiate is execute_post_instantiate_functions for the child.
func (w *world) postInstantiate(c harness.Client) {
	if w.v.swapIn != nil {
		w.v.swapIn(w, c)
	}
	if w.v.startOnParent != nil {
		w.v.startOnParent(w, c)
	}
	if w.v.swapOut != nil {
		w.v.swapOut(w, c)
	}
}

// createThread is wasm_cluster_create_thread, cluster->lock held: it
// refuses after an exception, else links the child's exec_env and spawns
// the child.
func (w *world) createThread(c harness.Client) {
	c.Do(wamr.OpCreate, func() int64 {
		if w.c.HasException() {
			return 0
		}
		w.c.Link(w.EC)
		w.round.Spawn(w.child)
		return 1
	})
}

// child is the spawned thread: its start (option 5), then wasi_thread_start.
func (w *world) child(c harness.Client) {
	if w.v.startInChild {
		w.runStart(c, w.EC, w.EC)
	}
}

// parent spawns the child by the path SPAWN names.
func (w *world) parent(c harness.Client, embedder bool) {
	if embedder && !w.v.instantiateOutsideLock {
		// wasm_cluster_spawn_exec_env held cluster->lock across instantiation.
		w.c.Lock.Lock()
		w.postInstantiate(c)
		w.createThread(c)
		w.c.Lock.Unlock()
		return
	}
	w.postInstantiate(c)
	w.c.Lock.Lock()
	w.createThread(c)
	w.c.Lock.Unlock()
}

// Stress runs the Go version of cfg.Variant: each round a fresh cluster
// with a parent spawning a child (its start function trapping in a random
// half of the rounds) and cfg.Clients-1 other threads trapping. Params
// SPAWN (wasi, embedder) and HWB (1, 0) are the protocol's. A round that
// blocks ends the run with harness.ErrDeadlock.
func Stress(cfg harness.Config) ([]porcupine.Operation, error) {
	v := Variants[cfg.Variant]
	if v == nil {
		return nil, fmt.Errorf("execenv has no Go variant %q", cfg.Variant)
	}
	embedder, hwb := false, true
	for k, val := range cfg.Params {
		switch {
		case k == "SPAWN" && (val == "wasi" || val == "embedder"):
			embedder = val == "embedder"
		case k == "HWB" && (val == "0" || val == "1"):
			hwb = val == "1"
		default:
			return nil, fmt.Errorf("execenv's Go version has no parameter %s=%s (SPAWN=wasi|embedder, HWB=0|1)", k, val)
		}
	}
	trappers := max(cfg.Clients-1, 1)
	return harness.Stress(cfg, func(r *harness.Round) {
		c := &wamr.Cluster{ExcInEnv: v.excInEnv}
		w := &world{c: c, hwb: hwb, trap: r.Rand.IntN(2) == 0, round: r, v: v}
		w.IP, w.IC = &wamr.Instance{Name: "I_P", Started: 1}, &wamr.Instance{Name: "I_C"}
		w.EP = c.NewExecEnv("E_P", w.IP, true)
		w.EC = c.NewExecEnv("E_C", w.IC, false)
		w.Etmp = c.NewExecEnv("E_tmp", w.IC, false)
		r.Go(func(cl harness.Client) { w.parent(cl, embedder) })
		for k := 0; k < trappers; k++ {
			it := &wamr.Instance{Name: fmt.Sprintf("I_T%d", k), Started: 1}
			et := c.NewExecEnv(fmt.Sprintf("E_T%d", k), it, true)
			r.Go(func(cl harness.Client) {
				cl.Do(wamr.OpRaise, func() int64 { return c.Raise(et, it, w.EP, w.IP) })
			})
		}
	})
}
