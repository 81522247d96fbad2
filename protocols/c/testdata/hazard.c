// A Treiber stack whose pop retires the node it took with GenMC's
// hazard-pointer API: a retired node is freed once no hazard pointer
// protects it, so the pop that read a node through its hazard pointer may
// still read its fields after another pop retired it. Read without the
// hazard pointer, that read is a use after retire; a node retired twice,
// or freed after its retire, is a double free.
#include <genmc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

// ordercheck: variant protected default
// ordercheck: variant unprotected -DUNPROTECTED
// ordercheck: variant twice -DTWICE
// ordercheck: variant freed -DFREED

struct node {
	int val;
	struct node *next;
};

struct node *_Atomic top;

static void push(int v)
{
	struct node *n = malloc(sizeof(struct node));
	n->val = v;
	while (1) {
		struct node *old = atomic_load_explicit(&top, memory_order_acquire);
		n->next = old;
		if (atomic_compare_exchange_strong_explicit(&top, &old, n, memory_order_release, memory_order_relaxed))
			break;
	}
}

static int pop(void)
{
	__VERIFIER_hp_t *hp = __VERIFIER_hp_alloc();
	struct node *t;
	while (1) {
#ifdef UNPROTECTED
		t = atomic_load_explicit(&top, memory_order_acquire);
#else
		t = __VERIFIER_hp_protect(hp, &top);
#endif
		if (t == NULL) {
			__VERIFIER_hp_free(hp);
			return 0;
		}
		struct node *next = t->next;
		if (atomic_compare_exchange_strong_explicit(&top, &t, next, memory_order_release, memory_order_relaxed))
			break;
	}
	int v = t->val;
	__VERIFIER_hp_retire(t);
#if defined(TWICE)
	__VERIFIER_hp_retire(t);
#elif defined(FREED)
	free(t);
#endif
	__VERIFIER_hp_free(hp);
	return v;
}

void *pusher(void *arg)
{
	push(1);
	push(2);
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

// ordercheck: expect protected under sc, tso, rc11: holds
// ordercheck: expect unprotected under sc, tso, rc11: violates memory-safety, data-race
// ordercheck: expect twice under sc, tso, rc11: violates memory-safety
// ordercheck: expect freed under sc, tso, rc11: violates memory-safety
