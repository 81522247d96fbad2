// Workers publish their part of an array, meet at a barrier, then count
// the parts they see, which main checks; the barrier is reused for a
// second round. Without the first wait (nobarrier) a worker may read a
// part before it is written; with a
// count above the workers (overcount) no round ever ends. A lock taken
// after the barrier, as a spin on a compare-exchange that resets its
// expected value, is explored as a wait.
//
// ordercheck: variant barrier default
// ordercheck: variant nobarrier -DNOBARRIER
// ordercheck: variant overcount -DCOUNT=3
// ordercheck: expect barrier: holds
// ordercheck: expect nobarrier: violates assertion, data-race
// ordercheck: expect overcount: violates deadlock
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define N 2
#ifndef COUNT
#define COUNT N
#endif

pthread_barrier_t barrier;
int part[N];
int seen[N];
atomic_int lock;
int inside;

void *worker(void *arg)
{
	long i = (long)arg;
	part[i] = 1;
#ifndef NOBARRIER
	pthread_barrier_wait(&barrier);
#endif
	for (int j = 0; j < N; j++)
		seen[i] += part[j];
	pthread_barrier_wait(&barrier);
	int r = 0;
	while (!atomic_compare_exchange_strong(&lock, &r, 1))
		r = 0;
	inside++;
	atomic_store(&lock, 0);
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	if (pthread_barrier_init(&barrier, NULL, COUNT) != 0)
		return 1;
	for (long i = 0; i < N; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	assert(inside == N);
	for (int i = 0; i < N; i++)
		assert(seen[i] == N);
	pthread_barrier_destroy(&barrier);
	return 0;
}
