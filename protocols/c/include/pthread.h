#ifndef _ORDERCHECK_PTHREAD_H
#define _ORDERCHECK_PTHREAD_H
#include <stddef.h>
typedef unsigned long pthread_t;
typedef struct { int __ordercheck_attr; } pthread_attr_t;
typedef struct { int __ordercheck_mutex; } pthread_mutex_t;
typedef struct { int __ordercheck_mutexattr; } pthread_mutexattr_t;
typedef struct { int __ordercheck_barrier; } pthread_barrier_t;
typedef struct { int __ordercheck_barrierattr; } pthread_barrierattr_t;
#define PTHREAD_MUTEX_INITIALIZER { 0 }
#define PTHREAD_BARRIER_SERIAL_THREAD (-1)
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int pthread_join(pthread_t thread, void **result);
void pthread_exit(void *retval);
pthread_t pthread_self(void);
int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_unlock(pthread_mutex_t *m);
int pthread_mutex_destroy(pthread_mutex_t *m);
int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr, unsigned count);
int pthread_barrier_wait(pthread_barrier_t *b);
int pthread_barrier_destroy(pthread_barrier_t *b);
#endif
