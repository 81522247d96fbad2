// The reference dlsym program of docs/performance.md in C, for GenMC:
// N callers load a cached library pointer (acquire); the first to find it
// null initialises the library under the loader's lock and publishes the
// pointer (release); every caller then reads the library through it.
// The same program as ../dlsym-reference.oc, whose variants set LOAD and
// STORE.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef N
#define N 2
#endif
// LOAD and STORE are the cache's orderings: -DLOAD=memory_order_seq_cst
// -DSTORE=memory_order_seq_cst is the seqcst variant.
#ifndef LOAD
#define LOAD memory_order_acquire
#endif
#ifndef STORE
#define STORE memory_order_release
#endif

struct lib {
	int data;
};

struct lib lib;
int loaded;
atomic_intptr_t cache;
pthread_mutex_t loader = PTHREAD_MUTEX_INITIALIZER;

void *caller(void *arg)
{
	struct lib *f = (struct lib *)atomic_load_explicit(&cache, LOAD);
	if (f == NULL) {
		pthread_mutex_lock(&loader);
		if (loaded == 0) {
			lib.data = 42;
			loaded = 1;
		}
		pthread_mutex_unlock(&loader);
		f = &lib;
		atomic_store_explicit(&cache, (intptr_t)f, STORE);
	}
	int v = f->data;
	assert(v == 42);
	return NULL;
}

int main()
{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, caller, NULL);
	return 0;
}
