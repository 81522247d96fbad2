/* What ordercheck's C front end predefines: a 64-bit Linux target with
   GCC's atomic orders, and no host compiler. */
#define __STDC__ 1
#define __STDC_VERSION__ 201710L
#define __STDC_HOSTED__ 1
#define __GNUC__ 4
#define __x86_64__ 1
#define __linux__ 1
#define __LP64__ 1
#define __CHAR_BIT__ 8
#define __SIZE_TYPE__ unsigned long
#define __PTRDIFF_TYPE__ long
#define __WCHAR_TYPE__ int
#define __INT_MAX__ 2147483647
#define __LONG_MAX__ 9223372036854775807L
#define __ATOMIC_RELAXED 0
#define __ATOMIC_CONSUME 1
#define __ATOMIC_ACQUIRE 2
#define __ATOMIC_RELEASE 3
#define __ATOMIC_ACQ_REL 4
#define __ATOMIC_SEQ_CST 5
#define __ORDERCHECK__ 1
int __predefined_declarator;
