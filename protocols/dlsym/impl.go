package dlsym

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anishathalye/porcupine"

	"github.com/ordercheck/ordercheck/protocols/harness"
)

// Library is a shared library as the loader sees it: memory its
// constructors initialise, loaded once under the loader's own lock, as
// glibc's dlopen does under GL(dl_load_lock).
type Library struct {
	loader sync.Mutex
	loaded bool
	data   int // written by the "constructors"
}

// open loads the library once (dlopen).
func (l *Library) open() {
	l.loader.Lock()
	if !l.loaded {
		l.data = 42
		l.loaded = true
	}
	l.loader.Unlock()
}

// sym resolves the symbol (dlsym): a pointer into the library's memory.
func (l *Library) sym() *int {
	l.loader.Lock()
	defer l.loader.Unlock()
	return &l.data
}

// Call is one call through a per-call-site cache: it resolves the function
// pointer if needed and calls through it; the callee returns the library
// memory it reads.
type Call interface {
	Call() int
}

// Implementations names the Go versions of the catalogue's variants. Go's
// atomics are sequentially consistent, so the relaxed, consume and codegen
// variants have no faithful Go form; their atomic cache would be fixed.
var Implementations = map[string]func(*Library) Call{
	"original": func(l *Library) Call { return &plainCache{lib: l} },
	"fixed":    func(l *Library) Call { return &atomicCache{lib: l} },
	"dcl":      func(l *Library) Call { return &dclCache{lib: l} },
	"nocache":  func(l *Library) Call { return &noCache{lib: l} },
}

// plainCache is the shipped Ref(C_NULL): a plain pointer.
type plainCache struct {
	lib *Library
	f   *int
}

func (c *plainCache) Call() int {
	f := c.f
	if f == nil {
		c.lib.open()
		c.f = c.lib.sym()
		f = c.f
	}
	return *f
}

// atomicCache is Threads.Atomic: an atomic pointer.
type atomicCache struct {
	lib *Library
	f   atomic.Pointer[int]
}

func (c *atomicCache) Call() int {
	f := c.f.Load()
	if f == nil {
		c.lib.open()
		f = c.lib.sym()
		c.f.Store(f)
	}
	return *f
}

// dclCache is Libdl.LazyLibrary's double-checked locking.
type dclCache struct {
	lib *Library
	mu  sync.Mutex
	f   unsafe.Pointer
}

func (c *dclCache) Call() int {
	f := (*int)(atomic.LoadPointer(&c.f))
	if f == nil {
		c.mu.Lock()
		if f = (*int)(atomic.LoadPointer(&c.f)); f == nil {
			c.lib.open()
			f = c.lib.sym()
			atomic.StorePointer(&c.f, unsafe.Pointer(f))
		}
		c.mu.Unlock()
	}
	return *f
}

// noCache resolves on every call.
type noCache struct{ lib *Library }

func (c *noCache) Call() int {
	c.lib.open()
	return *c.lib.sym()
}

// Stress runs cfg.Rounds rounds of cfg.Clients goroutines, each round on a
// fresh library and cache, each goroutine making one call, and returns
// their history. The protocol's parameters have no Go form.
func Stress(cfg harness.Config) ([]porcupine.Operation, error) {
	impl := Implementations[cfg.Variant]
	if impl == nil {
		return nil, fmt.Errorf("dlsym has no Go variant %q", cfg.Variant)
	}
	if len(cfg.Params) > 0 {
		return nil, fmt.Errorf("dlsym's Go version takes no parameters")
	}
	return harness.Stress(cfg, func(r *harness.Round) {
		call := impl(&Library{})
		for range cfg.Clients {
			r.Go(func(c harness.Client) {
				c.Do("call", func() int64 { return int64(call.Call()) })
			})
		}
	})
}
