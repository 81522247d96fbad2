#ifndef _ORDERCHECK_STDIO_H
#define _ORDERCHECK_STDIO_H
#include <stddef.h>
/* Output has no effect on shared memory: the checker drops these calls
   (their arguments are not evaluated). */
int printf(const char *format, ...);
int fprintf(void *stream, const char *format, ...);
int puts(const char *s);
extern void *stderr;
extern void *stdout;
#endif
