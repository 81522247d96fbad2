/* Kernel-style accessors, as a header under an -I directory writes them:
 * statement expressions and do { } while (0) blocks. */
#include <stdatomic.h>

#define READ_ONCE(x) ({ __typeof__(x) __v = atomic_load_explicit(&(x), memory_order_relaxed); __v; })
#define WRITE_ONCE(x, v) do { atomic_store_explicit(&(x), (v), memory_order_relaxed); } while (0)
#define smp_load_acquire(p) ({ __typeof__(*(p)) __v = atomic_load_explicit((p), memory_order_acquire); __v; })
#define smp_store_release(p, v) do { atomic_store_explicit((p), (v), memory_order_release); } while (0)
#define cpu_relax() do { } while (0)
