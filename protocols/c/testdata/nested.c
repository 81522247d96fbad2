// Structs inside structs, as lock-free queues and stacks keep them: a
// pool of nodes inside a struct, a header struct inside each node, a grid
// member, and a pointer to an inner struct handed to a function. A writer
// fills a node through pointers and publishes its index with ORD; the
// reader follows the index. OOB indexes one node past the pool.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

// ordercheck: variant release default
// ordercheck: variant relaxed -DORD=memory_order_relaxed
// ordercheck: variant oob -DOOB
#ifndef ORD
#define ORD memory_order_release
#endif

struct hdr {
	int tag;
	int len;
};

struct node {
	struct hdr h;
	int vals[2][2];
	atomic_int next;
};

struct pool {
	atomic_int top;
	struct node nodes[3];
} pool;

void fill(struct hdr *h, int tag)
{
	h->tag = tag;
	h->len = 2;
}

void *writer(void *arg)
{
	long i = (long)arg;
	struct node *n = &pool.nodes[i];
	fill(&n->h, 40 + i);
	n->vals[1][i - 1] = 7;
	atomic_store_explicit(&pool.top, (int)i, ORD);
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, writer, (void *)2);
	int k = atomic_load_explicit(&pool.top, memory_order_acquire);
	if (k) {
		assert(pool.nodes[k].h.tag == 40 + k);
		assert(pool.nodes[k].vals[1][k - 1] == 7 && pool.nodes[k].h.len == 2);
	}
	struct pool *hp = malloc(sizeof(struct pool));
	hp->nodes[2].h.len = 5;
	struct hdr *h = &hp->nodes[2].h;
	assert(h->len == 5);
	atomic_init(&hp->nodes[1].next, 3);
	assert(atomic_load(&hp->nodes[1].next) == 3);
#ifdef OOB
	int j = 2 + (k != 0);
	hp->nodes[j].h.tag = 1;
#endif
	free(hp);
	return 0;
}

// ordercheck: expect release: holds
// ordercheck: expect relaxed under sc, tso: violates data-race
// ordercheck: expect relaxed: violates assertion, data-race
// ordercheck: expect oob: violates bounds
