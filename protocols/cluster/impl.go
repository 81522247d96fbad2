package cluster

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/harness"
	"github.com/ordercheck/ordercheck/protocols/wamr"
)

// world is one round: a cluster whose caller thread makes a multi-module
// import call while others trap and one leaves.
type world struct {
	c             *wamr.Cluster
	Icaller, Isub *wamr.Instance
	EA            *wamr.ExecEnv
}

// variant is one catalogue variant of wasm_interp_call_func_import's swap.
type variant struct {
	atomic, excInEnv bool
	swapIn           func(w *world)
	// swapOut restores module_inst and returns the exception it moved
	// back; copy then transfers the callee's exception (nil: none).
	swapOut func(w *world) int
	copy    func(w *world) int
}

// Variants names the Go versions of the catalogue's variants.
// atomic-relaxed has none: Go's atomics are sequentially consistent, so its
// Go form would be atomic-acqrel's program (whose verdicts, like every
// cluster variant's, are the same under every model).
var Variants = map[string]*variant{
	"original": {
		swapIn:  func(w *world) { w.EA.Store(w.Isub) },
		swapOut: func(w *world) int { w.EA.Store(w.Icaller); return 0 },
		copy: func(w *world) int { // the probe locked, the memcpy not
			e := w.c.Exception(w.Isub)
			if e != 0 {
				w.c.SetExceptionUnlocked(w.Icaller, e)
			}
			return e
		},
	},
	"pr2685": {
		swapIn: func(w *world) {
			w.c.Lock.Lock()
			w.EA.Store(w.Isub)
			w.c.Lock.Unlock()
		},
		swapOut: func(w *world) int {
			old := w.EA.Load()
			w.c.Lock.Lock()
			w.EA.Store(w.Icaller)
			moved := w.c.Exception(old)
			w.c.Lock.Unlock()
			if moved != 0 {
				w.c.SetException(w.Icaller, moved)
			}
			return moved
		},
	},
	"atomic-acqrel": {
		atomic:  true,
		swapIn:  func(w *world) { w.EA.Store(w.Isub) },
		swapOut: func(w *world) int { w.EA.Store(w.Icaller); return 0 },
		copy: func(w *world) int { // the whole copy under the exception lock
			w.c.ExcLock.Lock()
			defer w.c.ExcLock.Unlock()
			return w.c.MoveExceptionLocked(w.Isub, w.Icaller)
		},
	},
	"exc-in-env": {
		excInEnv: true,
		swapIn:   func(w *world) { w.EA.Store(w.Isub) },
		swapOut:  func(w *world) int { w.EA.Store(w.Icaller); return 0 },
	},
}

// Stress runs the Go version of cfg.Variant: each round a fresh cluster
// with the caller making one import call, one thread leaving the cluster
// and cfg.Clients-2 (at least one) threads trapping. The protocol has no
// parameters the Go version takes.
func Stress(cfg harness.Config) ([]porcupine.Operation, error) {
	v := Variants[cfg.Variant]
	if v == nil {
		return nil, fmt.Errorf("cluster has no Go variant %q", cfg.Variant)
	}
	if len(cfg.Params) > 0 {
		return nil, fmt.Errorf("cluster's Go version takes no parameters")
	}
	spreaders := max(cfg.Clients-2, 1)
	return harness.Stress(cfg, func(r *harness.Round) {
		c := &wamr.Cluster{Atomic: v.atomic, ExcInEnv: v.excInEnv, SearchBySelf: v.excInEnv}
		w := &world{c: c, Icaller: &wamr.Instance{Name: "I_caller"}, Isub: &wamr.Instance{Name: "I_sub"}}
		w.EA = c.NewExecEnv("E_A", w.Icaller, true)
		el := c.NewExecEnv("E_L", &wamr.Instance{Name: "I_L"}, true)
		r.Go(func(cl harness.Client) {
			cl.Do(wamr.OpSet, func() int64 { v.swapIn(w); return 0 })
			harness.Perturb() // the callee runs in I_sub
			cl.Do(wamr.OpRestore, func() int64 {
				moved := v.swapOut(w)
				if v.copy != nil {
					moved = v.copy(w)
				}
				return int64(moved)
			})
		})
		r.Go(func(harness.Client) { c.Unlink(el) })
		for k := 0; k < spreaders; k++ {
			it := &wamr.Instance{Name: fmt.Sprintf("I_T%d", k)}
			et := c.NewExecEnv(fmt.Sprintf("E_T%d", k), it, true)
			r.Go(func(cl harness.Client) {
				cl.Do(wamr.OpRaise, func() int64 { return c.Raise(et, it, w.EA, w.Icaller) })
			})
		}
	})
}
