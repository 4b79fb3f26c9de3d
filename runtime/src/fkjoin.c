/*
 * fkjoin.c - the right task's subscription lists of a foreign-key join
 * (KIP-213; compiler/codegen_join_fk.c generates the rest), and the hash
 * of a left value that tells a stale response from a current one.
 *
 * Kafka Streams keeps one subscription-store entry per (foreign key,
 * primary key) and prefix-scans them; stoat's key-value stores have no
 * prefix scan, so the subscriptions of a foreign key are one value, a
 * list sorted by primary-key bytes (the left table's store key layout,
 * so a scan comes in the order of those bytes, as Kafka Streams' comes
 * in the order of its serialised keys):
 *
 *	entry = pk length (4 bytes, big-endian) | pk | has hash (1 byte) | hash (8 bytes, big-endian)
 *
 * A list is rewritten whole on each change (in the arena: no allocation
 * per record), which costs the number of subscribers of that foreign key.
 */
#include "internal.h"

#include <string.h>

/* The size of an entry with a primary key of len bytes. */
static size_t entry_size(size_t len)
{
	return 4 + len + 1 + 8;
}

/* See runtime.h: FNV-1a, 64 bits. */
int64_t stoat_fk_hash(stoat_str value)
{
	uint64_t h = 14695981039346656037u;
	for (size_t i = 0; i < value.len; i++) {
		h ^= (unsigned char)value.ptr[i];
		h *= 1099511628211u;
	}
	return (int64_t)h;
}

/* See runtime.h. */
bool stoat_fk_next(stoat_str *list, stoat_str *pk, bool *has_hash, int64_t *hash)
{
	if (list->len < 4)
		return false;
	const unsigned char *p = (const unsigned char *)list->ptr;
	size_t len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
	if (list->len < entry_size(len))
		return false;
	*pk = (stoat_str){ list->ptr + 4, len };
	*has_hash = p[4 + len] != 0;
	uint64_t h = 0;
	for (int i = 0; i < 8; i++)
		h = h << 8 | p[5 + len + i];
	*hash = (int64_t)h;
	list->ptr += entry_size(len);
	list->len -= entry_size(len);
	return true;
}

/* Orders primary keys by their bytes, a shorter prefix first. */
static int pk_cmp(stoat_str a, stoat_str b)
{
	int c = memcmp(a.ptr, b.ptr, a.len < b.len ? a.len : b.len);
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

/* Appends an entry at out; returns the end. */
static char *put_entry(char *out, stoat_str pk, bool has_hash, int64_t hash)
{
	unsigned char *p = (unsigned char *)out;
	p[0] = (unsigned char)(pk.len >> 24);
	p[1] = (unsigned char)(pk.len >> 16);
	p[2] = (unsigned char)(pk.len >> 8);
	p[3] = (unsigned char)pk.len;
	if (pk.len)
		memcpy(p + 4, pk.ptr, pk.len);
	p[4 + pk.len] = has_hash;
	for (int i = 0; i < 8; i++)
		p[5 + pk.len + i] = (unsigned char)((uint64_t)hash >> (56 - 8 * i));
	return out + entry_size(pk.len);
}

/*
 * Rewrites key's list with pk's entry replaced (add: by (has_hash, hash))
 * or removed (!add), quietly (the store has no downstream).
 */
static bool rewrite(stoat_ctx *cx, int store, stoat_str key, stoat_str pk, bool add, bool has_hash, int64_t hash)
{
	stoat_str old = { NULL, 0 };
	if (!stoat_store_get(cx, store, key, &old)) {
		if (cx->error)
			return false;
		old = (stoat_str){ NULL, 0 };
	}
	char *buf = stoat_arena_alloc(&cx->arena, old.len + entry_size(pk.len));
	char *out = buf;
	bool placed = false;
	stoat_str rest = old, epk;
	bool eh;
	int64_t ev;
	while (stoat_fk_next(&rest, &epk, &eh, &ev)) {
		int c = pk_cmp(epk, pk);
		if (c == 0)
			continue; /* replaced or removed */
		if (c > 0 && add && !placed) {
			out = put_entry(out, pk, has_hash, hash);
			placed = true;
		}
		out = put_entry(out, epk, eh, ev);
	}
	if (add && !placed)
		out = put_entry(out, pk, has_hash, hash);
	if (out == buf)
		return old.ptr ? stoat_store_delete_quiet(cx, store, key) : true;
	return stoat_store_put_quiet(cx, store, key, (stoat_str){ buf, (size_t)(out - buf) });
}

/* See runtime.h. */
bool stoat_fk_subscribe(stoat_ctx *cx, int store, stoat_str key, stoat_str pk, bool has_hash, int64_t hash)
{
	return rewrite(cx, store, key, pk, true, has_hash, hash);
}

/* See runtime.h. */
bool stoat_fk_unsubscribe(stoat_ctx *cx, int store, stoat_str key, stoat_str pk)
{
	return rewrite(cx, store, key, pk, false, false, 0);
}
