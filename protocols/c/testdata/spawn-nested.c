// A thread that starts and joins its own worker, as a runtime's spawning
// thread does, and properties of the program's own, named by the message
// of the asserts that check them.
//
// ordercheck: variant joined default
// ordercheck: variant detached -DDETACHED
//
// ordercheck: property handoff "the worker sees what its parent wrote before starting it"
// ordercheck: property seen "main sees the worker's write once both have ended"
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int before, result;
pthread_t worker_thread;

static void *worker(void *arg)
{
	assert(before == 1 && "handoff: the worker read before's old value");
	result = 1;
	return NULL;
}

// start runs once, called from the spawning thread only: it may start
// threads too.
static void start(void)
{
	before = 1;
	pthread_create(&worker_thread, NULL, worker, NULL);
}

static void *spawner(void *arg)
{
	do {
		start(); // the macro idiom: a body that runs once
	} while (0);
#ifndef DETACHED
	pthread_join(worker_thread, NULL);
#endif
	return NULL;
}

int main(void)
{
	pthread_t s;
	pthread_create(&s, NULL, spawner, NULL);
	pthread_join(s, NULL);
	assert(result == 1 && "seen: main read result before the worker wrote it");
	return 0;
}

// ordercheck: expect joined: holds
// ordercheck: expect detached: violates seen, data-race
