// A failed assert aborts the program, as C's assert does: main, which
// joins the thread that failed, and a thread waiting for the mutex that
// thread held wait for nothing the program runs, and are no deadlock. (In
// the protocol language a failed assert stops its own thread only.)
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m;
int x;

void *holder(void *arg)
{
	pthread_mutex_lock(&m);
	x = 1;
	assert(x == 0 && "x is 0"); // always fails, with m held
	pthread_mutex_unlock(&m);
	return NULL;
}

void *waiter(void *arg)
{
	pthread_mutex_lock(&m);
	x = 2;
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t h, w;
	pthread_create(&h, NULL, holder, NULL);
	pthread_create(&w, NULL, waiter, NULL);
	pthread_join(h, NULL);
	pthread_join(w, NULL);
	return 0;
}

// ordercheck: expect *: violates assertion
