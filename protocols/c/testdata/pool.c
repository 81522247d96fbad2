// A Treiber stack over a static pool of nodes, as GenMC's stc and qu
// tests allocate them: each thread takes nodes from its own row of a large
// array (&pool[t][used[t]++]), pushes with a release compare-exchange,
// and main pops with an acquire one. PUB_ORD relaxed loses the node's
// value to a race. The pool's 768 nodes are locations no execution
// touches but a few of.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

// ordercheck: variant release default
// ordercheck: variant relaxed -DPUB_ORD=memory_order_relaxed
#ifndef PUB_ORD
#define PUB_ORD memory_order_release
#endif

struct node {
	int value;
	_Atomic(struct node *) next;
};

struct node pool[3][128];
int used[3];
_Atomic(struct node *) top;

struct node *new_node(int t)
{
	return &pool[t][used[t]++];
}

void push(int t, int v)
{
	struct node *n = new_node(t);
	n->value = v;
	struct node *old = atomic_load_explicit(&top, memory_order_relaxed);
	do
		atomic_store_explicit(&n->next, old, memory_order_relaxed);
	while (!atomic_compare_exchange_strong_explicit(&top, &old, n, PUB_ORD, memory_order_relaxed));
}

int pop(void)
{
	struct node *old = atomic_load_explicit(&top, memory_order_acquire);
	struct node *next;
	do {
		if (old == NULL)
			return 0;
		next = atomic_load_explicit(&old->next, memory_order_relaxed);
	} while (!atomic_compare_exchange_strong_explicit(&top, &old, next, memory_order_acquire, memory_order_acquire));
	return old->value;
}

void *pusher(void *arg)
{
	long t = (long)arg;
	push(t, 10 * t);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	pthread_create(&t[0], NULL, pusher, (void *)1);
	pthread_create(&t[1], NULL, pusher, (void *)2);
	int a = pop();
	int b = pop();
	assert(a == 0 || a == 10 || a == 20);
	assert(b == 0 || b == 10 || b == 20);
	assert(a == 0 || a != b);
	return 0;
}

// ordercheck: expect release: holds
// ordercheck: expect relaxed: violates data-race
