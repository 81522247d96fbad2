// Message passing with a relaxed publication: the reader may see the
// flag and not the data; under every model the plain accesses race
// (data races are C11's).
#define ORD memory_order_relaxed
#include "mp.c"

// ordercheck: expect * under sc, tso: violates data-race
// ordercheck: expect * under rc11: violates assertion, data-race
