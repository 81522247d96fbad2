// Threads started in a counted loop add to a counter under a mutex (or
// not, with -DUNLOCKED), and main checks the total after joining them.
#include <assert.h>
#include <pthread.h>

#define N 3

int count;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *add(void *arg)
{
	long k = (long) arg;
#ifndef UNLOCKED
	pthread_mutex_lock(&m);
#endif
	count = count + k;
#ifndef UNLOCKED
	pthread_mutex_unlock(&m);
#endif
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, add, (void *) (long) (i + 1));
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	assert(count == 6);
	return 0;
}

// ordercheck: expect * under sc, tso, rc11: holds
