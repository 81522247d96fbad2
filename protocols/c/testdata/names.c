// Functions named as the protocol language's built-in calls (alloc,
// load, cas) are the program's own: they are called, not taken for the
// built-ins. __builtin_expect is its first argument's value.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;
int cells[2];

int *alloc(int i)
{
	return &cells[i];
}

int load(int *p)
{
	return *p;
}

void *worker(void *arg)
{
	int *c = alloc(1);
	*c = 7;
	atomic_store_explicit(&x, 1, memory_order_release);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	assert(__builtin_expect(load(alloc(1)) == 7, 1) && atomic_load(&x) == 1);
	return 0;
}

// ordercheck: expect *: holds
