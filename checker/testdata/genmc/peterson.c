// Peterson's lock for two threads, every access seq_cst, each thread
// entering its critical section once: a plain counter there would race if
// the lock let both in. The waits are spin loops, which GenMC turns into
// assumptions, as ordercheck's await is one.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

atomic_int flag[2];
atomic_int turn;
int cs;

void *thread(void *arg)
{
	int i = (intptr_t)arg, j = 1 - i;
	atomic_store_explicit(&flag[i], 1, memory_order_seq_cst);
	atomic_store_explicit(&turn, j, memory_order_seq_cst);
	while (atomic_load_explicit(&flag[j], memory_order_seq_cst) == 1 &&
	       atomic_load_explicit(&turn, memory_order_seq_cst) == j)
		;
	cs = cs + 1;
	atomic_store_explicit(&flag[i], 0, memory_order_seq_cst);
	return NULL;
}

int main()
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread, (void *)(intptr_t)i);
	return 0;
}
