// Threads started in loops whose bounds main knows, as GenMC's queue and
// stack tests start them: counts in globals only main writes, a handle
// index stepped beside the loop's variable (j++, i++), and a join loop
// over a total main computed. SHARED has every writer write slot 0.
#include <assert.h>
#include <pthread.h>

// ordercheck: variant own default
// ordercheck: variant shared -DSHARED

#ifdef SHARED
#define SLOT(id) 0
#else
#define SLOT(id) (id)
#endif

int writers = 2, readers = 1;
static int total;
pthread_t threads[4];
int param[4];
int slot[4];

void *writer(void *arg)
{
	int id = *(int *)arg;
	slot[SLOT(id)] = id + 1;
	return NULL;
}

void *reader(void *arg)
{
	int id = *(int *)arg;
	slot[id] = 9;
	return NULL;
}

int main(void)
{
	int i = 0;
	total = writers + readers;
	for (int j = 0; j < total; j++)
		param[j] = j;
	for (int j = 0; j < writers; j++, i++)
		pthread_create(&threads[i], NULL, writer, &param[i]);
	for (int j = 0; j < readers; j++, i++)
		pthread_create(&threads[i], NULL, reader, &param[i]);
	for (i = 0; i < total; i++)
		pthread_join(threads[i], NULL);
	assert(i == 3 && total == 3);
	assert(slot[0] == 1 && slot[1] == 2 && slot[2] == 9);
	return 0;
}

// ordercheck: expect own: holds
// ordercheck: expect shared: violates assertion, data-race
