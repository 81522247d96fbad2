// A read whose value is never used still races: GenMC's
// tests/wrong/racy/MP+rel+rlx shape, the reader's acquire weakened to
// relaxed, its plain read of x kept into a local nobody reads.
#include <pthread.h>
#include <stdatomic.h>

int x;
atomic_int y;

void *writer(void *arg)
{
	x = 1;
	atomic_store_explicit(&y, 1, memory_order_release);
	return NULL;
}

void *reader(void *arg)
{
	int r;
	if (atomic_load_explicit(&y, memory_order_relaxed))
		r = x;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	return 0;
}

// ordercheck: expect *: violates data-race
