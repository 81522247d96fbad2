#ifndef _ORDERCHECK_STDLIB_H
#define _ORDERCHECK_STDLIB_H
#include <stddef.h>
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void free(void *p);
void abort(void);
void exit(int status);
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#endif
