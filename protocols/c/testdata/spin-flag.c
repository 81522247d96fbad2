// Two threads add one to x with a compare-exchange once y is set, in a
// loop that a flag ends: a round that reads y unset or fails its
// compare-exchange writes nothing and is pruned, leaving GenMC's two
// complete executions (v0.11, -disable-sr). The livelock variant waits
// for x to equal y instead, which it never does once y is set first: the
// final memory repeats the round forever, a deadlock (GenMC's liveness
// violation, with --check-liveness).
// ordercheck: variant flag default
// ordercheck: variant livelock -DLIVELOCK
#include <pthread.h>
#include <stdatomic.h>

atomic_int x, y;

void *inc(void *arg)
{
	int ok = 0;
	while (!ok) {
		int e = atomic_load_explicit(&x, memory_order_relaxed);
#ifdef LIVELOCK
		if (e != atomic_load_explicit(&y, memory_order_relaxed))
#else
		if (atomic_load_explicit(&y, memory_order_relaxed) == 0)
#endif
			continue;
		ok = atomic_compare_exchange_strong_explicit(&x, &e, e + 1, memory_order_relaxed, memory_order_relaxed);
	}
	return NULL;
}

void *bump(void *arg)
{
	atomic_store_explicit(&y, 1, memory_order_relaxed);
	return NULL;
}

int main(void)
{
	pthread_t a, b, c;
	pthread_create(&a, NULL, inc, NULL);
	pthread_create(&b, NULL, inc, NULL);
	pthread_create(&c, NULL, bump, NULL);
	return 0;
}

// ordercheck: expect flag: holds
// ordercheck: expect livelock: violates deadlock
