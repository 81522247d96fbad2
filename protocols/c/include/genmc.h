#ifndef _ORDERCHECK_GENMC_H
#define _ORDERCHECK_GENMC_H
/* The verification builtins tools share. */
void __VERIFIER_assume(int cond);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
_Bool __VERIFIER_nondet_bool(void);
void __VERIFIER_error(void);

/* GenMC's hazard pointers: a retired block is freed once no hazard pointer
 * protects it, so an access a hazard pointer protects is never a use after
 * retire (docs/c.md). */
typedef int __VERIFIER_hp_t;
__VERIFIER_hp_t *__VERIFIER_hp_alloc(void);
void *__VERIFIER_hp_protect(__VERIFIER_hp_t *hp, void *p);
void __VERIFIER_hp_clear(__VERIFIER_hp_t *hp);
void __VERIFIER_hp_free(__VERIFIER_hp_t *hp);
void __VERIFIER_hp_retire(void *p);

/* GenMC's annotations of helping and final compare-exchanges, hints for its
 * search that leave the program's meaning alone: the compare-exchange. */
#define __VERIFIER_helped_CAS(c) do { c; } while (0)
#define __VERIFIER_helping_CAS(c) do { } while (0)
#define __VERIFIER_final_CAS(c) (c)

/* GenMC's optional block ends every execution that runs it (its
 * __VERIFIER_assume(0)): no complete execution runs it, so it is left
 * out. */
#define __VERIFIER_optional(x) do { } while (0)
#endif
