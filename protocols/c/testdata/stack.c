// Locals in memory: a local whose address is taken, and local arrays and
// structs, live in their function's frame — allocated when it starts,
// freed when it returns. main shares its locals with the threads it
// joins (holds); a function that publishes the address of its own local
// leaves a pointer to freed memory (ESCAPE), and one that publishes it
// before writing it lets the reader see uninitialised memory (UNINIT).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

// ordercheck: variant joined default
// ordercheck: variant escape -DESCAPE
// ordercheck: variant uninit -DUNINIT

struct pair {
	int a;
	int b;
};

_Atomic(int *) shared;
atomic_int done;

void publish(void)
{
	int local;
#ifndef UNINIT
	local = 5;
#endif
	atomic_store_explicit(&shared, &local, memory_order_release);
#ifdef UNINIT
	while (!atomic_load_explicit(&done, memory_order_acquire))
		;
#endif
}

void *owner(void *arg)
{
	publish();
	return NULL;
}

void *user(void *arg)
{
	int *p = atomic_load_explicit(&shared, memory_order_acquire);
	if (p != NULL) {
		int v = *p;
		assert(v == 5);
	}
	atomic_store_explicit(&done, 1, memory_order_release);
	return NULL;
}

void *adder(void *arg)
{
	int *xs = arg;
	xs[1] = xs[0] + 1;
	return NULL;
}

int main(void)
{
	int buf[2] = {1};
	struct pair pr = {3, 4};
	pthread_t t;
	pthread_create(&t, NULL, adder, buf);
	pthread_join(t, NULL);
	assert(buf[1] == 2 && pr.a + pr.b == 7);
#if defined(ESCAPE) || defined(UNINIT)
	pthread_t o, u;
	pthread_create(&o, NULL, owner, NULL);
	pthread_create(&u, NULL, user, NULL);
	pthread_join(o, NULL);
	pthread_join(u, NULL);
#endif
	return 0;
}

// ordercheck: expect joined: holds
// A memory error aborts the program, as a failed assert does: the
// threads waiting for the one that failed (main's join, the owner's wait)
// are no deadlock.
// ordercheck: expect escape: violates memory-safety, data-race
// ordercheck: expect uninit: violates memory-safety
