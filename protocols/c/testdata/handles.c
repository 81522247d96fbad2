// Thread handles named by an expression of a counted loop's variable:
// t + (i - 1) is &t[0], &t[1], &t[2] as the loop unrolls (t alone is
// &t[0]), so the joins wait for
// the threads the creates started. A constant condition keeps one arm, so
// the arm that would index ids[-1] when i is 1 is never lowered. The
// joins count down.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int count;
int ids[2];

void *w(void *arg)
{
	atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (int i = 1; i < 4; i++) {
		if (i == 1)
			pthread_create(t, NULL, w, NULL);
		else
			pthread_create(t + (i - 1), NULL, w, &ids[i - 2]);
	}
	for (int i = 2; i >= 0; i--)
		pthread_join(t[i], NULL);
	assert(atomic_load_explicit(&count, memory_order_relaxed) == 3);
	return 0;
}

// ordercheck: expect *: holds
