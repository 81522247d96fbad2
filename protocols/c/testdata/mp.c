// Message passing: a flag published with ORD, read with acquire.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ORD
#define ORD memory_order_release
#endif

int data;
atomic_int flag;

void *writer(void *arg)
{
	data = 42;
	atomic_store_explicit(&flag, 1, ORD);
	return NULL;
}

void *reader(void *arg)
{
	if (atomic_load_explicit(&flag, memory_order_acquire) == 1) {
		int d = data;
		assert(d == 42);
	}
	return NULL;
}

int main(void)
{
	pthread_t w, r;
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	return 0;
}

// With a release store the reader that sees the flag sees the data.
// ordercheck: expect * under sc, tso, rc11: holds
