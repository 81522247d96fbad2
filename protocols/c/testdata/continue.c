// continue in for loops that are not counted (it runs the step) and in
// do-while loops (it runs the test), beside break; the rounds each loop
// makes add up to known sums. WRONG expects another sum.
#include <assert.h>
#include <stdatomic.h>

// ordercheck: variant right default
// ordercheck: variant wrong -DWRONG

#ifdef WRONG
#define SUM 3
#else
#define SUM 2
#endif

atomic_int x;

int main(void)
{
	int sum = 0, n = 0;
	for (int i = 0; i < 5; i = i + 1) {
		if (i == 1)
			continue;
		if (i == 3)
			break;
		sum += i;
	}
	int k = 0;
	do {
		k++;
		if (k < 3)
			continue;
		n += k;
	} while (k < 4);
	int j = 0;
	while (atomic_load(&x) == 0 && j < 3) {
		j++;
		if (j == 2)
			continue;
		n += 10;
	}
	assert(sum == SUM && n == 7 + 20 && j == 3);
	return 0;
}

// ordercheck: expect right: holds
// ordercheck: expect wrong: violates assertion
