// A lock taken and never released: the second thread's spin can never
// end, which is a deadlock (an await the final memory cannot satisfy).
#include <pthread.h>
#include <stdatomic.h>

atomic_int lock;

void *taker(void *arg)
{
	int expected = 0;
	while (!atomic_compare_exchange_strong(&lock, &expected, 1))
		expected = 0;
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, taker, NULL);
	pthread_create(&t2, NULL, taker, NULL);
	return 0;
}

// ordercheck: expect * under sc, tso, rc11: violates deadlock (every execution)
