// Two mutexes taken in opposite orders.
#include <pthread.h>

pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
int shared;

void *ab(void *arg)
{
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	shared++;
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return NULL;
}

void *ba(void *arg)
{
	pthread_mutex_lock(&b);
	pthread_mutex_lock(&a);
	shared++;
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, ab, NULL);
	pthread_create(&t2, NULL, ba, NULL);
	return 0;
}

// ordercheck: expect * under sc, tso, rc11: violates deadlock
