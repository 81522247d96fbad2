// Loops that make progress in their locals are not spin loops: a counter
// and a compare-exchange that retries with the value it read both end,
// where a wait that rolled their locals back would wait for ever.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x;

void *bump(void *arg)
{
	atomic_fetch_add_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, bump, NULL);
	int i = 0;
	while (i < 3)
		i++;
	int e = 0;
	while (!atomic_compare_exchange_strong(&x, &e, e + 10))
		;
	pthread_join(t, NULL);
	assert(i == 3 && x >= 10);
	return 0;
}

// ordercheck: expect *: holds
