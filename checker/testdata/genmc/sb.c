// Store buffering with N threads: thread i stores x[i] and loads
// x[(i+1) % N], all relaxed: 2^N executions under RC11. The same program
// as the SB-N benchmark of checker/bench_test.go.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifndef N
#define N 16
#endif

atomic_int x[N];

void *thread(void *arg)
{
	int i = (intptr_t)arg;
	atomic_store_explicit(&x[i], 1, memory_order_relaxed);
	atomic_load_explicit(&x[(i + 1) % N], memory_order_relaxed);
	return NULL;
}

int main()
{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, thread, (void *)(intptr_t)i);
	return 0;
}
