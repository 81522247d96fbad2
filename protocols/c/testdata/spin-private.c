// A wait whose round counts in a block of its own: the round reads what it
// writes, so it makes progress and is no spin — its rounds are explored,
// and the count reaching 2 fails the assertion (GenMC finds it too).
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <assert.h>

struct box { int n; };
atomic_int flag;

void *setter(void *arg)
{
	atomic_store(&flag, 1);
	return NULL;
}

void *waiter(void *arg)
{
	struct box *b = malloc(sizeof(struct box));
	b->n = 0;
	while (atomic_load(&flag) == 0 && b->n < 3)
		b->n = b->n + 1;
	assert(b->n < 2);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, setter, NULL);
	pthread_create(&b, NULL, waiter, NULL);
	return 0;
}

// ordercheck: expect * under sc, tso, rc11: violates assertion
