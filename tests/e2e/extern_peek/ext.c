#include <inttypes.h>
#include <stdio.h>

#include "ext.h"

stoat_str ext_reverse(stoat_ctx *cx, stoat_str s)
{
	char *p = stoat_arena_alloc(&cx->arena, s.len ? s.len : 1);
	for (size_t i = 0; i < s.len; i++)
		p[i] = s.ptr[s.len - 1 - i];
	return (stoat_str){ p, s.len };
}

int64_t ext_checked_half(stoat_ctx *cx, int64_t n)
{
	if (n % 2 != 0) {
		stoat_error(cx, "odd number %" PRId64, n);
		return 0;
	}
	return n / 2;
}

bool log_seen(stoat_ctx *cx, stoat_str tag, stoat_str s)
{
	(void)cx;
	fprintf(stderr, "peek saw %.*s=%.*s\n", (int)tag.len, tag.ptr, (int)s.len, s.ptr);
	return true;
}

stoat_opt_str ext_sign(stoat_ctx *cx, stoat_opt_i64 x)
{
	(void)cx;
	if (!x.has)
		return (stoat_opt_str){ false, { "", 0 } };
	if (x.v < 0)
		return (stoat_opt_str){ true, STOAT_STR_LIT("neg") };
	if (x.v == 0)
		return (stoat_opt_str){ true, STOAT_STR_LIT("zero") };
	return (stoat_opt_str){ true, STOAT_STR_LIT("pos") };
}
