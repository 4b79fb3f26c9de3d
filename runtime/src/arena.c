/*
 * arena.c - the per-batch bump allocator, and the few runtime helpers that
 * only allocate from it (string copies, growable arrays).
 */
#include "util.h"

#include <assert.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>

/* Smallest chunk; a batch of small records fits in one. */
#define STOAT_ARENA_MIN_CHUNK ((size_t)64 * 1024)
/* Chunks grow geometrically up to this size; larger requests get their own. */
#define STOAT_ARENA_MAX_GROWTH ((size_t)8 * 1024 * 1024)

struct stoat_arena_chunk {
	stoat_arena_chunk *next;
	size_t size; /* usable bytes in data */
	alignas(max_align_t) char data[];
};

/*
 * Where an empty arena points: zero-byte allocations from a fresh arena
 * must still return a non-NULL pointer (NULL marks a null key or value).
 */
static alignas(max_align_t) char arena_empty[8];

/* Sets up an empty arena; the first allocation mallocs the first chunk. */
void stoat_arena_init(stoat_arena *a)
{
	a->cur = arena_empty;
	a->end = arena_empty;
	a->head = NULL;
	a->spare = NULL;
	a->allocated = 0;
}

/*
 * Makes every chunk free again without giving memory back, so the next
 * batch allocates from the same chunks.  The current chunk stays current;
 * the others go to the spare list.
 */
void stoat_arena_reset(stoat_arena *a)
{
	stoat_arena_chunk *c = a->head;
	if (c == NULL)
		return;
	stoat_arena_chunk *rest = c->next;
	while (rest) {
		stoat_arena_chunk *next = rest->next;
		rest->next = a->spare;
		a->spare = rest;
		rest = next;
	}
	c->next = NULL;
	a->cur = c->data;
	a->end = c->data + c->size;
}

/* Gives every chunk back to malloc; the arena is empty and reusable. */
void stoat_arena_free(stoat_arena *a)
{
	stoat_arena_chunk *lists[2] = { a->head, a->spare };
	for (int i = 0; i < 2; i++) {
		stoat_arena_chunk *c = lists[i];
		while (c) {
			stoat_arena_chunk *next = c->next;
			free(c);
			c = next;
		}
	}
	stoat_arena_init(a);
}

/*
 * The out-of-line half of stoat_arena_alloc: the current chunk is full, so
 * take a spare chunk that is large enough, or malloc a new one (twice the
 * current one, so a batch needs few chunks).
 */
void *stoat_arena_alloc_slow(stoat_arena *a, size_t n)
{
	if (n > SIZE_MAX / 2)
		stoat_out_of_memory("an arena chunk", n);
	size_t rounded = (n + 7) & ~(size_t)7;

	/* Reuse a spare chunk first. */
	stoat_arena_chunk **link = &a->spare;
	while (*link && (*link)->size < rounded)
		link = &(*link)->next;
	stoat_arena_chunk *c = *link;
	if (c) {
		*link = c->next;
	} else {
		size_t size = STOAT_ARENA_MIN_CHUNK;
		if (a->head && a->head->size < STOAT_ARENA_MAX_GROWTH)
			size = a->head->size * 2;
		else if (a->head)
			size = a->head->size;
		if (size < rounded)
			size = rounded;
		c = stoat_xmalloc(sizeof(stoat_arena_chunk) + size);
		c->size = size;
		a->allocated += size;
	}
	c->next = a->head;
	a->head = c;
	a->cur = c->data + rounded;
	a->end = c->data + c->size;
	assert(a->cur <= a->end);
	return c->data;
}

/* Copies s into the arena (a non-NULL pointer even for the empty string). */
stoat_str stoat_arena_strdup(stoat_arena *a, stoat_str s)
{
	char *p = stoat_arena_alloc(a, s.len);
	if (s.len)
		memcpy(p, s.ptr, s.len);
	return (stoat_str){ p, s.len };
}

/* Concatenates a and b into the batch arena of cx. */
stoat_str stoat_str_concat(stoat_ctx *cx, stoat_str a, stoat_str b)
{
	if (a.len > SIZE_MAX / 2 || b.len > SIZE_MAX / 2)
		stoat_out_of_memory("an arena chunk", a.len + b.len);
	char *p = stoat_arena_alloc(&cx->arena, a.len + b.len);
	if (a.len)
		memcpy(p, a.ptr, a.len);
	if (b.len)
		memcpy(p + a.len, b.ptr, b.len);
	return (stoat_str){ p, a.len + b.len };
}

/*
 * The out-of-line half of stoat_vec_push: doubles the capacity (8 at
 * first), copying the elements into a new arena block.  The old block is
 * abandoned until the arena is reset.
 */
void *stoat_vec_push_slow(stoat_arena *a, stoat_vec *v, size_t elem_size)
{
	assert(v->len == v->cap);
	assert(elem_size > 0);
	size_t cap = v->cap ? v->cap * 2 : 8;
	if (cap < v->cap || cap > SIZE_MAX / 2 / elem_size)
		stoat_out_of_memory("an arena chunk", SIZE_MAX);
	void *data = stoat_arena_alloc(a, cap * elem_size);
	if (v->len)
		memcpy(data, v->data, v->len * elem_size);
	v->data = data;
	v->cap = cap;
	return (char *)data + elem_size * v->len++;
}
