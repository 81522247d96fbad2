// tune's rewriting of C orderings: explicit memory_order_* arguments,
// GCC's __ATOMIC_* ones, implied seq_cst (atomic_load, atomic_store,
// atomic_fetch_add, atomic_compare_exchange_strong become their _explicit
// twins), an order a macro supplies (left as it is, said so), and joins
// (the runtime's, not sites).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define ORD memory_order_seq_cst

int data;
atomic_int flag;
atomic_int count;
atomic_int once;
int seen;

void *writer(void *arg)
{
	data = 42;
	atomic_store_explicit(&flag, 1, memory_order_seq_cst);
	atomic_fetch_add(&count, 1);
	int zero = 0;
	atomic_compare_exchange_strong(&once, &zero, 1);
	atomic_store_explicit(&once, 2, ORD);
	return NULL;
}

void *reader(void *arg)
{
	if (__atomic_load_n(&flag, __ATOMIC_SEQ_CST) == 1)
		assert(data == 42);
	atomic_fetch_add(&count, 1);
	seen = atomic_load(&once);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, writer, NULL);
	pthread_create(&b, NULL, reader, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(atomic_load_explicit(&count, memory_order_relaxed) == 2);
	return 0;
}
