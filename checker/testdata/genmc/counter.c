// N threads each fetch-and-add one counter, relaxed: N! executions under
// RC11 (the order of the additions). The Counter-N benchmark shape.
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 6
#endif

atomic_int x;

void *thread(void *arg)
{
	atomic_fetch_add_explicit(&x, 1, memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, thread, NULL);
	return 0;
}
