// Thread-local variables (__thread, _Thread_local): each thread has its
// own copy, starting at the declared value, so two threads that count in
// theirs neither race nor see each other's counts. SHARED drops the
// storage class: one counter, raced on.
#include <assert.h>
#include <pthread.h>

// ordercheck: variant local default
// ordercheck: variant shared -DSHARED

#ifdef SHARED
#define TLS
#else
#define TLS _Thread_local
#endif

TLS int count = 10;
__thread int tid;

void *worker(void *arg)
{
	tid = (long)arg;
	count += tid + 1;
	assert(count == 11 + tid);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	pthread_create(&t[0], NULL, worker, (void *)0);
	pthread_create(&t[1], NULL, worker, (void *)1);
	int *mine = &count;
	*mine = 5;
	assert(count == 5 && tid == 0);
	return 0;
}

// ordercheck: expect local: holds
// ordercheck: expect shared: violates assertion, data-race
