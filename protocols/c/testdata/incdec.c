// ++, -- and assignments inside expressions, as allocators and loops
// write them: a per-thread free list handed out by idx[t]++, a loop whose
// condition counts (while (n++ < 2)), a pointer stepped over structs, an
// atomic ticket taken by ticket++, chained and nested assignments. Each thread takes a ticket; the two tickets
// differ, the slots each thread wrote hold its values. RACY shares one
// free-list index between the threads.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

// ordercheck: variant own default
// ordercheck: variant racy -DRACY

struct pair {
	int a;
	int b;
};

int pool[2][4];
int idx[2];
atomic_int ticket;
int got[2];
struct pair pairs[3];

int *take(int t)
{
#ifdef RACY
	return &pool[t][idx[0]++];
#else
	return &pool[t][idx[t]++];
#endif
}

void *worker(void *arg)
{
	long t = (long)arg;
	int n = 0;
	while (n++ < 2)
		*take(t) = 10 * t + n;
	got[t] = ticket++;
	return NULL;
}

int main(void)
{
	pthread_t h[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&h[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(h[i], NULL);
	assert(got[0] != got[1] && got[0] + got[1] == 1);
	assert(pool[1][0] == 11 && pool[1][1] == 12 && idx[1] == 2);
	struct pair *p = pairs;
	p++;
	(p++)->b = 5;
	--p;
	int k = 0;
	int v = p->b + ++k;
	assert(pairs[1].b == 5 && v == 6 && k == 1 && p == &pairs[1]);
	int a, b;
	a = b = 3;
	int c = (pairs[0].a = 4) + (a += 2);
	assert(a == 5 && b == 3 && c == 9 && pairs[0].a == 4);
	while ((k = k + 1) < 3)
		b++;
	assert(k == 3 && b == 4);
	return 0;
}

// ordercheck: expect own: holds
// ordercheck: expect racy: violates assertion, data-race
