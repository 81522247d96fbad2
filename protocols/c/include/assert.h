#ifndef _ORDERCHECK_ASSERT_H
#define _ORDERCHECK_ASSERT_H
/* assert(e) is a check of property "assertion"; its message is e's text. */
#define assert(e) __ordercheck_assert((e), #e)
#endif
