// Arrays inside structs and arrays of arrays: two writers fill a row of
// a grid and an item of a queue struct, then publish with ORD; the reader
// checks what it sees. A heap node's array field is read through a
// pointer to its first element. Arrays of arrays start from braced rows
// (zeros after a short row) or from a flat list (brace elision).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

// ordercheck: variant release default
// ordercheck: variant relaxed -DORD=memory_order_relaxed
#ifndef ORD
#define ORD memory_order_release
#endif

struct queue {
	int items[2];
	atomic_int ready[2];
	int head;
};

struct queue q = { .head = 7, .items = {4, 5} };
int grid[2][3];
int seed[2][3] = {{1, 2}, {4, 5, 6}};
int elided[2][2] = {1, 2, 3};

struct node {
	int vals[2];
	struct node *next;
};

void *writer(void *arg)
{
	long i = (long)arg;
	q.items[i] = 10 + i;
	int *row = grid[i];
	row[2] = 20 + i;
	atomic_store_explicit(&q.ready[i], 1, ORD);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, writer, (void *)i);
	for (int i = 0; i < 2; i++) {
		if (atomic_load_explicit(&q.ready[i], memory_order_acquire)) {
			assert(q.items[i] == 10 + i);
			assert(grid[i][2] == 20 + i);
		}
	}
	assert(q.head == 7 && grid[1][0] == 0);
	assert(seed[0][1] == 2 && seed[0][2] == 0 && seed[1][0] == 4 && seed[1][2] == 6);
	assert(elided[1][0] == 3 && elided[1][1] == 0);
	struct node *n = malloc(sizeof(struct node));
	n->vals[0] = 1;
	n->vals[1] = 2;
	int *p = n->vals;
	assert(p[1] == 2);
	free(n);
	return 0;
}

// ordercheck: expect release: holds
// ordercheck: expect relaxed under sc, tso: violates data-race
// ordercheck: expect relaxed: violates assertion, data-race
