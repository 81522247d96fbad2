// A reader that gives up: after three more tries it ends its thread with
// pthread_exit, else it sees the flag and, by release/acquire, the data.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
atomic_int flag;

void *writer(void *arg)
{
	atomic_store_explicit(&x, 42, memory_order_relaxed);
	atomic_store_explicit(&flag, 1, memory_order_release);
	return NULL;
}

void *reader(void *arg)
{
	int count = 0;
	int seen = atomic_load_explicit(&flag, memory_order_acquire);
	while (seen != 1) {
		count++;
		if (count > 3)
			pthread_exit(NULL);
		seen = atomic_load_explicit(&flag, memory_order_acquire);
	}
	assert(atomic_load_explicit(&x, memory_order_relaxed) == 42);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	return 0;
}

// ordercheck: expect *: holds
