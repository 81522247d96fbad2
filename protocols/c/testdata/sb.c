// Store buffering: both threads may read 0 unless the accesses are
// seq_cst.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x, y;
atomic_int r1 = 1, r2 = 1;

void *t1(void *arg)
{
	atomic_store_explicit(&x, 1, memory_order_relaxed);
	atomic_store_explicit(&r1, atomic_load_explicit(&y, memory_order_relaxed), memory_order_relaxed);
	return NULL;
}

void *t2(void *arg)
{
	atomic_store_explicit(&y, 1, memory_order_relaxed);
	atomic_store_explicit(&r2, atomic_load_explicit(&x, memory_order_relaxed), memory_order_relaxed);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	if (pthread_create(&a, NULL, t1, NULL))
		abort();
	if (pthread_create(&b, NULL, t2, NULL))
		abort();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(!(r1 == 0 && r2 == 0));
	return 0;
}

// ordercheck: expect * under sc: holds
// ordercheck: expect * under tso, rc11: violates assertion
