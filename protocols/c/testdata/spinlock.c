// A test-and-test-and-set lock from a compare-exchange, as C code writes
// it: the spin loops are waits (GenMC's spin-assume), so the exploration
// is finite without --unroll. Its acquire and release make the plain
// counter race-free; the variant relaxed (ACQ=memory_order_relaxed) breaks
// that.
// ordercheck: variant acquire
// ordercheck: variant relaxed -DACQ=memory_order_relaxed
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#ifndef ACQ
#define ACQ memory_order_acquire
#endif

atomic_int lock;
int count;

static void acquire(void)
{
	int expected;
	do {
		while (atomic_load_explicit(&lock, memory_order_relaxed) != 0)
			;
		expected = 0;
	} while (!atomic_compare_exchange_strong_explicit(&lock, &expected, 1, ACQ, memory_order_relaxed));
}

static void release(void)
{
	atomic_store_explicit(&lock, 0, memory_order_release);
}

void *worker(void *arg)
{
	acquire();
	count++;
	release();
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert(count == 2);
	return 0;
}

// ordercheck: expect acquire: holds
// ordercheck: expect relaxed under sc, tso: violates data-race
// ordercheck: expect relaxed: violates assertion, data-race
