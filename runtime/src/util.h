/*
 * util.h - the bottom layer of the runtime: allocation that cannot fail,
 * byte encodings (murmur2, base64, UTF-8), number formatting and parsing,
 * and the names of the application table's enums.  Depends on nothing but
 * stoat/runtime.h; every other private header may include it.
 */
#ifndef STOAT_RUNTIME_UTIL_H
#define STOAT_RUNTIME_UTIL_H

#include "stoat/runtime.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Allocation (util.c)                                                 */
/* ------------------------------------------------------------------ */

/*
 * Out of memory is not a per-record error: the process cannot go on.
 * Prints "stoat: out of memory (WHAT, N bytes)" and aborts.  Every
 * allocation in the runtime that cannot fail goes through these.
 */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void stoat_out_of_memory(const char *what, size_t n);

/* malloc(n) (at least one byte), or stoat_out_of_memory. */
void *stoat_xmalloc(size_t n);

/* calloc(count, size) (at least one byte), or stoat_out_of_memory. */
void *stoat_xcalloc(size_t count, size_t size);

/* realloc to count * size bytes (at least one), or stoat_out_of_memory. */
void *stoat_xrealloc(void *p, size_t count, size_t size);

/* A NUL-terminated copy of s[0..n), or stoat_out_of_memory. */
char *stoat_xstrndup(const char *s, size_t n);

/* A copy of the C string s, or stoat_out_of_memory. */
char *stoat_xstrdup(const char *s);

/* The struct of type `type` whose member `member` is at ptr. */
#define STOAT_CONTAINER_OF(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Milliseconds of the monotonic clock (for intervals, never timestamps). */
int64_t stoat_now_ms(void);

/* Seconds of the monotonic clock, to the nanosecond (for latencies). */
double stoat_now_seconds(void);

/* Milliseconds since the epoch: the wall clock, as record timestamps are. */
int64_t stoat_wall_ms(void);

/* ------------------------------------------------------------------ */
/* Byte encodings (encoding.c)                                         */
/* ------------------------------------------------------------------ */

/* Kafka's Utils.murmur2 (seed 0x9747b28c), as a signed Java int. */
int32_t stoat_murmur2(const void *data, size_t len);

/* Kafka's default partition for a non-null key: toPositive(murmur2) % n. */
int32_t stoat_partition_for_key(stoat_str key, int32_t partitions);

/* Bytes needed for the padded base64 encoding of n bytes. */
static inline size_t stoat_base64_encoded_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

/* Appends the padded standard base64 (RFC 4648) encoding of s to b. */
void stoat_base64_encode(stoat_buf *b, stoat_str s);

/*
 * Decodes standard base64 (padding optional) into out, which must hold at
 * least in.len / 4 * 3 + 3 bytes.  Returns false on a character outside the
 * alphabet, misplaced padding or an impossible length.
 */
bool stoat_base64_decode(stoat_str in, char *out, size_t *out_len);

/* True when s is well-formed UTF-8 (no overlongs, surrogates, > U+10FFFF). */
bool stoat_utf8_valid(stoat_str s);

/* ------------------------------------------------------------------ */
/* Numbers (buf.c, json.c)                                             */
/* ------------------------------------------------------------------ */

/* Appends the JSON number for v (as stoat_buf_put_f64) and is the
 * formatting core shared with it; returns the bytes written or 0 for
 * NaN and infinities.  out must hold at least 32 bytes. */
size_t stoat_format_f64(char *out, double v);

/* stoat_format_f64 without its fast path when fast is false (tests check
 * that both give the same bytes). */
size_t stoat_format_f64_with(char *out, double v, bool fast);

/* Parses the JSON number text[0..len) as a double, correctly rounded (a
 * fast exact path for short decimals, strtod otherwise); fast false forces
 * strtod (for tests). */
double stoat_parse_f64(const char *text, size_t len, bool fast);

/* ------------------------------------------------------------------ */
/* Names (util.c)                                                      */
/* ------------------------------------------------------------------ */

/* Lower-case names used on the command line and by `describe`. */
const char *stoat_format_name(stoat_format f);
const char *stoat_policy_name(stoat_policy p);
const char *stoat_guarantee_name(stoat_guarantee g);

/* Kafka's rule for topic names: 1-249 of [a-zA-Z0-9._-], not . or .. */
bool stoat_topic_name_valid(stoat_str topic);

#endif /* STOAT_RUNTIME_UTIL_H */
