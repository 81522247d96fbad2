#ifndef _ORDERCHECK_GENMC_H
#define _ORDERCHECK_GENMC_H
/* The verification builtins tools share. */
void __VERIFIER_assume(int cond);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
_Bool __VERIFIER_nondet_bool(void);
void __VERIFIER_error(void);
#endif
