// A Treiber stack on the heap: push allocates a node and publishes it
// with a release compare-exchange; pop reads the top with acquire and
// frees the node it took. Without hazard pointers a concurrent pop reads
// a node the other freed: a use after free.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct node {
	int val;
	struct node *next;
};

struct node *_Atomic top;

static void push(int v)
{
	struct node *n = malloc(sizeof(struct node));
	n->val = v;
	struct node *old = atomic_load_explicit(&top, memory_order_relaxed);
	n->next = old;
	while (!atomic_compare_exchange_strong_explicit(&top, &old, n, memory_order_release, memory_order_relaxed))
		n->next = old;
}

static int pop(void)
{
	struct node *old = atomic_load_explicit(&top, memory_order_acquire);
	while (old != NULL) {
		struct node *next = old->next;
		if (atomic_compare_exchange_strong_explicit(&top, &old, next, memory_order_acquire, memory_order_acquire)) {
			int v = old->val;
			free(old);
			return v;
		}
	}
	return 0;
}

void *pusher(void *arg)
{
	push(1);
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
	pthread_create(&a, NULL, pusher, NULL);
	pthread_create(&b, NULL, popper, NULL);
	pthread_create(&c, NULL, popper, NULL);
	return 0;
}

// ordercheck: expect * under sc, tso, rc11: violates memory-safety, data-race
