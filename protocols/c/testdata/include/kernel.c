// Message passing written with kernel-style macros from a header that an
// -I directory holds (testdata/include, TestIncludes): statement
// expressions give READ_ONCE and smp_load_acquire their values, and the
// reader's wait, whose body is an empty do { } while (0), is a spin.
#include <assert.h>
#include <kern/once.h>
#include <pthread.h>

// ordercheck: variant release default
// ordercheck: variant relaxed -DRELAXED

atomic_int data, ready;

void *writer(void *arg)
{
	WRITE_ONCE(data, 42);
#ifdef RELAXED
	WRITE_ONCE(ready, 1);
#else
	smp_store_release(&ready, 1);
#endif
	return NULL;
}

void *reader(void *arg)
{
	while (!smp_load_acquire(&ready))
		cpu_relax();
	assert(READ_ONCE(data) == 42);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	return 0;
}

// ordercheck: expect release: holds
// ordercheck: expect relaxed under sc, tso: holds
// ordercheck: expect relaxed under rc11: violates assertion
