#include "flush.h"

/* Appends a Stats value { n, last } in the store value layout. */
static stoat_str stats_value(stoat_buf *b, int64_t n, const char *last)
{
	size_t start = b->len;
	stoat_val_put_i64(b, n);
	stoat_val_put_str(b, (stoat_str){ last, strlen(last) });
	return (stoat_str){ (const char *)(uintptr_t)start, b->len - start };
}

/* Appends a string key in the store key layout. */
static stoat_str string_key(stoat_buf *b, const char *s, size_t len)
{
	size_t start = b->len;
	stoat_key_put_str(b, (stoat_str){ s, len });
	return (stoat_str){ (const char *)(uintptr_t)start, b->len - start };
}

/* Turns an offset made by the two functions above into a pointer. */
static stoat_str at(const stoat_buf *b, stoat_str s)
{
	return (stoat_str){ b->data + (uintptr_t)s.ptr, s.len };
}

bool call_flush(stoat_ctx *cx, stoat_str tag)
{
	(void)tag;
	stoat_buf b;
	stoat_buf_init(&b);
	/* Offsets first: the buffer may move while it grows. */
	stoat_str k_apple = string_key(&b, "apple", 5), k_pear = string_key(&b, "pear", 4);
	stoat_str k_bad = string_key(&b, "bad", 3), k_fig = string_key(&b, "fig", 3);
	stoat_str k_nul = string_key(&b, "a\0b", 3);
	stoat_str apple_old = stats_value(&b, 1, "x"), apple_new = stats_value(&b, 2, "y");
	stoat_str pear_new = stats_value(&b, 5, "z"), fig_new = stats_value(&b, 99, "w");
	stoat_str nul_new = stats_value(&b, 7, "");
	stoat_str bad_new = stats_value(&b, 3, "long");
	bad_new.len = 3; /* cut short */

	stoat_store_update u[5];
	memset(u, 0, sizeof u);
	u[0].record.key = at(&b, k_apple);
	u[0].record.value = at(&b, apple_new);
	u[0].old_value = at(&b, apple_old);
	u[0].record.timestamp = 100;
	u[1].record.key = at(&b, k_pear);
	u[1].record.value = at(&b, pear_new);
	u[1].record.timestamp = 101;
	u[2].record.key = at(&b, k_bad);
	u[2].record.value = at(&b, bad_new);
	u[2].record.timestamp = 102;
	u[3].record.key = at(&b, k_fig);
	u[3].record.value = at(&b, fig_new);
	u[3].record.timestamp = 103;
	u[4].record.key = at(&b, k_nul);
	u[4].record.value = at(&b, nul_new);
	u[4].record.timestamp = 104;
	for (int i = 0; i < 5; i++)
		u[i].record.offset = 500 + i;

	const stoat_msg *saved = cx->msg;
	int64_t saved_timestamp = cx->timestamp;
	cx->app->stores[0].flush(cx, u, 5);
	cx->msg = saved;
	cx->timestamp = saved_timestamp;
	stoat_buf_free(&b);
	return true;
}
