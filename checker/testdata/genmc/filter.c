// Peterson's lock for three threads (the filter lock), every access
// seq_cst, as filter.oc: each thread climbs two levels, waiting at each
// while another thread is at that level or above and it is the level's
// victim, then enters its critical section once, where a plain counter
// races if the lock lets two in. The waits are spin loops, which GenMC
// turns into assumptions.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

atomic_int level[3];
atomic_int victim[3];
int cs;

void *thread(void *arg)
{
	int i = (intptr_t)arg;
	for (int l = 1; l < 3; l++) {
		atomic_store_explicit(&level[i], l, memory_order_seq_cst);
		atomic_store_explicit(&victim[l], i, memory_order_seq_cst);
		while ((atomic_load_explicit(&level[(i + 1) % 3], memory_order_seq_cst) >= l ||
			atomic_load_explicit(&level[(i + 2) % 3], memory_order_seq_cst) >= l) &&
		       atomic_load_explicit(&victim[l], memory_order_seq_cst) == i)
			;
	}
	cs = cs + 1;
	atomic_store_explicit(&level[i], 0, memory_order_seq_cst);
	return NULL;
}

int main()
{
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thread, (void *)(intptr_t)i);
	return 0;
}
