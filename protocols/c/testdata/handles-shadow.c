// Two thread handles of one name: the global t and a block's own t in
// main. A function main calls joins the global one, after main's block
// started a thread into its own: each join waits for the thread its
// handle holds.
#include <assert.h>
#include <pthread.h>

int x, y;
pthread_t t;

static void *A(void *arg)
{
	x = 1;
	return NULL;
}

static void *B(void *arg)
{
	y = 1;
	return NULL;
}

static void joinB(void)
{
	pthread_join(t, NULL); // the global t: B
	assert(y == 1);
}

int main(void)
{
	pthread_create(&t, NULL, B, NULL);
	{
		pthread_t t;
		pthread_create(&t, NULL, A, NULL);
		joinB();
		pthread_join(t, NULL); // the block's t: A
		assert(x == 1);
	}
	return 0;
}

// ordercheck: expect *: holds
