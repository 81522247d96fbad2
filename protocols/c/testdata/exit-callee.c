// A worker publishes the address of a local, then ends its thread from a
// function it calls, with pthread_exit: the call does not come back (the
// assertion after it never runs), and the worker's frame goes with the
// thread, so the other thread's write through the published pointer is a
// use after free, racing with the free (GenMC's stack-freed2). Publishing
// a global instead is safe.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

// ordercheck: variant local default
// ordercheck: variant global -DGLOBAL

int *_Atomic p;
int g;

void leave(int *loc)
{
	atomic_store(&p, loc);
	pthread_exit(NULL);
}

void *worker(void *arg)
{
	int x = 0;
#ifdef GLOBAL
	leave(&g);
#else
	leave(&x);
#endif
	assert(0);
	return NULL;
}

void *writer(void *arg)
{
	int *q = atomic_load(&p);
	if (q != NULL)
		*q = 42;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, worker, NULL);
	pthread_create(&b, NULL, writer, NULL);
	return 0;
}

// ordercheck: expect local under sc, tso, rc11: violates memory-safety, data-race
// ordercheck: expect global under sc, tso, rc11: holds
