// A global declared extern before the code that uses it and defined after
// (a header's declaration, the file's definition) is one variable: the
// two threads' plain writes to it race. GenMC's optional block, a hint
// that ends every execution running it, is left out.
#include <genmc.h>
#include <pthread.h>

extern int shared_count;

void *bump(void *arg)
{
	__VERIFIER_optional(shared_count = 7;);
	shared_count = shared_count + 1;
	return NULL;
}

int shared_count;

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, bump, NULL);
	pthread_create(&b, NULL, bump, NULL);
	return 0;
}

// ordercheck: expect * under sc, tso, rc11: violates data-race
