//go:build cgo && linux

package dlsym

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>

// resolve loads lib (already loaded: the loader only counts the reference)
// and looks sym up in it with the system's dlopen and dlsym, which take the
// loader's lock as the model's dlopen and dlsym do. With no such library,
// it looks sym up in the program's global scope.
static void *resolve(const char *lib, const char *sym) {
	void *h = dlopen(lib, RTLD_NOW);
	if (h == NULL)
		h = dlopen(NULL, RTLD_NOW);
	if (h == NULL)
		return NULL;
	return dlsym(h, sym);
}

typedef int (*int_fn)(int);

static int call_int(void *f, int x) { return ((int_fn)f)(x); }
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// The dlopen variants cache a function pointer obtained from the system's
// real dlopen and dlsym (C's abs, from the C library), as a Go package
// calling into C through a lazily resolved symbol would: the pointer is
// resolved on first use and called with -42, so every call returns 42, the
// value the specification expects. The simulated Library is not used.
func init() {
	Implementations["dlopen-original"] = func(*Library) Call { return &cPlainCache{} }
	Implementations["dlopen-fixed"] = func(*Library) Call { return &cAtomicCache{} }
}

var (
	libcName = C.CString("libc.so.6")
	absName  = C.CString("abs")
)

func resolveAbs() unsafe.Pointer { return unsafe.Pointer(C.resolve(libcName, absName)) }

func callAbs(f unsafe.Pointer) int {
	if f == nil {
		return 0 // dlsym failed: the call returns what no specification accepts
	}
	return int(C.call_int(f, -42))
}

// cPlainCache is the shipped cache over the real loader: a plain pointer.
type cPlainCache struct{ f unsafe.Pointer }

func (c *cPlainCache) Call() int {
	f := c.f
	if f == nil {
		f = resolveAbs()
		c.f = f
	}
	return callAbs(f)
}

// cAtomicCache is the fixed cache over the real loader: an atomic pointer.
type cAtomicCache struct{ f atomic.Pointer[byte] }

func (c *cAtomicCache) Call() int {
	f := unsafe.Pointer(c.f.Load())
	if f == nil {
		f = resolveAbs()
		c.f.Store((*byte)(f))
	}
	return callAbs(f)
}
