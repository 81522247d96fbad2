// Locals are registers: updated in place (n++, n += v, n *= v) and read
// back, in the thread and in a function it calls.
#include <assert.h>
#include <pthread.h>

int r;

static int triple(int v)
{
	int k = v;
	k *= 3;
	return k;
}

void *t(void *a)
{
	int n = 0;
	n++;
	n += 2;
	r = triple(n);
	return NULL;
}

int main(void)
{
	pthread_t h;
	pthread_create(&h, NULL, t, NULL);
	pthread_join(h, NULL);
	assert(r == 9);
	return 0;
}

// ordercheck: expect *: holds
