// The memoized dlsym pointer of dlsym.oc as the C a runtime writes it: a
// per-call-site cache of the symbol's address, filled on the first call by
// dlopen and dlsym, which take the loader's lock, and read by every later
// call. Each fix of dlsym.oc is a variant, chosen by macros. A test
// (c_test.go) holds its verdicts to dlsym.oc's: assertion here is
// lib-init there.
//
// ordercheck: variant original -DPLAIN
// ordercheck: variant unordered -DLOAD=memory_order_relaxed -DSTORE=memory_order_relaxed
// ordercheck: variant fixed -DLOAD=memory_order_acquire -DSTORE=memory_order_release
// ordercheck: variant consume -DLOAD=memory_order_consume -DSTORE=memory_order_release
// ordercheck: variant consume-indep -DLOAD=memory_order_consume -DSTORE=memory_order_release -DINDEP
// ordercheck: variant codegen -DLOAD=memory_order_relaxed -DSTORE=memory_order_release
// ordercheck: variant dcl -DLOAD=memory_order_acquire -DSTORE=memory_order_release -DDCL
// ordercheck: variant nocache -DPLAIN -DNOCACHE
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#ifndef N
#define N 2 // callers
#endif

struct lib {
	int data; // library memory: relocations and constructors write it
};

struct lib lib;
int loaded;                    // glibc's link map: the library is loaded
pthread_mutex_t dl_load_lock;  // glibc's GL(dl_load_lock)
pthread_mutex_t ll_lock;       // LazyLibrary's own lock (dcl only)

#ifdef PLAIN
struct lib *cache; // Ref(C_NULL), as shipped
#define LOAD_CACHE() cache
#define STORE_CACHE(p) (cache = (p))
#else
struct lib *_Atomic cache;
#define LOAD_CACHE() atomic_load_explicit(&cache, LOAD)
#define STORE_CACHE(p) atomic_store_explicit(&cache, (p), STORE)
#endif

// dlopen maps the library once, under the loader's lock.
static void dlopen_lib(void)
{
	pthread_mutex_lock(&dl_load_lock);
	if (loaded == 0) {
		lib.data = 42;
		loaded = 1;
	}
	pthread_mutex_unlock(&dl_load_lock);
}

// dlsym looks the symbol up under the same lock.
static struct lib *dlsym_lib(void)
{
	pthread_mutex_lock(&dl_load_lock);
	struct lib *p = &lib;
	pthread_mutex_unlock(&dl_load_lock);
	return p;
}

void *caller(void *arg)
{
	struct lib *f;
#ifdef NOCACHE
	dlopen_lib();
	f = dlsym_lib();
#else
	f = LOAD_CACHE(); // R0
	if (f == NULL) {
#ifdef DCL
		pthread_mutex_lock(&ll_lock);
		f = atomic_load_explicit(&cache, memory_order_acquire); // re-check under the lock
		if (f == NULL) {
			dlopen_lib();
			f = dlsym_lib();
			STORE_CACHE(f);
		}
		pthread_mutex_unlock(&ll_lock);
#else
		dlopen_lib();     // R2-R4
		f = dlsym_lib();  // R5
		STORE_CACHE(f);   // R6
		f = LOAD_CACHE(); // R7: the Ref is read again
#endif
	}
#endif
	// R8: the call; the callee reads library memory.
#ifdef INDEP
	int v = lib.data;
#else
	int v = f->data;
#endif
	assert(v == 42); // called into an uninitialised library
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, caller, NULL);
	return 0;
}

// The verdicts of dlsym.oc, lib-init as assertion (linearizability has no
// counterpart in C: no operations).
// ordercheck: expect *: holds
// ordercheck: expect original, unordered, consume-indep, codegen under sc, tso: violates data-race
// ordercheck: expect original, unordered, codegen under arm, riscv: violates data-race
// ordercheck: expect consume-indep under arm, riscv: violates data-race, assertion
// ordercheck: expect original, unordered, consume-indep, codegen under rc11, rc11-consume: violates data-race, assertion
// ordercheck: expect consume under rc11: violates data-race, assertion
