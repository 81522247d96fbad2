// A Treiber stack on the heap whose push and pop retry a compare-exchange
// in a loop that break leaves: a failed round writes nothing another
// thread can see (push only fills its own node, not yet published), so it
// is pruned as GenMC's spin-assume prunes it, and the program has GenMC's
// 8 complete executions (v0.11, sc and rc11, -disable-sr).
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct node {
	int val;
	struct node *_Atomic next;
};

struct node *_Atomic top;

static void push(int v)
{
	struct node *n = malloc(sizeof(struct node));
	n->val = v;
	while (1) {
		struct node *t = atomic_load_explicit(&top, memory_order_acquire);
		atomic_store_explicit(&n->next, t, memory_order_relaxed);
		if (atomic_compare_exchange_strong_explicit(&top, &t, n, memory_order_release, memory_order_relaxed))
			break;
	}
}

static int pop(void)
{
	struct node *t;
	while (1) {
		t = atomic_load_explicit(&top, memory_order_acquire);
		if (t == NULL)
			return 0;
		struct node *next = atomic_load_explicit(&t->next, memory_order_relaxed);
		if (atomic_compare_exchange_strong_explicit(&top, &t, next, memory_order_release, memory_order_relaxed))
			break;
	}
	return t->val;
}

void *pusher(void *arg)
{
	push((int)(long)arg);
	return NULL;
}

void *popper(void *arg)
{
	pop();
	return NULL;
}

int main(void)
{
	pthread_t a, b, c;
	pthread_create(&a, NULL, pusher, (void *)1);
	pthread_create(&b, NULL, pusher, (void *)2);
	pthread_create(&c, NULL, popper, NULL);
	return 0;
}

// ordercheck: expect * under sc, tso, rc11: holds
