/*
 * std.c - the stoat standard library: the C definitions behind the
 * `extern fn` declarations of stdlib/std.stoat.
 *
 * See stoat/std.h for the calling convention.  Every function here is
 * total: a bad argument is reported with stoat_error() (messages start with
 * the stoat-level function name) and a zero value is returned.  Results are
 * slices of the arguments, static strings, or arena memory; nothing here
 * calls malloc.  Number formatting and parsing assume the "C" locale, which
 * generated programs never change.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif

#include <stoat/std.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS_PER_SECOND INT64_C(1000)
#define MS_PER_MINUTE INT64_C(60000)
#define MS_PER_HOUR INT64_C(3600000)
#define MS_PER_DAY INT64_C(86400000)

/* How many bytes of an argument an error message quotes. */
#define QUOTE_MAX 40

/* ------------------------------------------------------------------ */
/* Internal helpers                                                    */
/* ------------------------------------------------------------------ */

/*
 * Returns s with a non-NULL ptr, so that slices of it (and empty results)
 * never carry the NULL that marks an absent Kafka key or value.
 */
static stoat_str nonnull(stoat_str s)
{
	if (s.ptr == NULL) {
		s.ptr = "";
		s.len = 0;
	}
	return s;
}

/* Returns the empty string (static storage, non-NULL ptr). */
static stoat_str empty_str(void)
{
	return (stoat_str){ "", 0 };
}

/* Allocates an n-byte string in the arena; *out receives its writable bytes. */
static stoat_str alloc_str(stoat_ctx *cx, size_t n, char **out)
{
	char *p = stoat_arena_alloc(&cx->arena, n ? n : 1);
	*out = p;
	return (stoat_str){ p, n };
}

/* Copies n bytes from p into the arena and returns the copy. */
static stoat_str copy_str(stoat_ctx *cx, const char *p, size_t n)
{
	char *dst;
	stoat_str r = alloc_str(cx, n, &dst);
	if (n)
		memcpy(dst, p, n);
	return r;
}

/*
 * Writes s into buf (cap bytes) as a double-quoted, escaped string for an
 * error message: at most QUOTE_MAX bytes of s, then "..." if it was longer.
 * Returns buf.  cap must be at least QUOTE_MAX * 4 + 8.
 */
static const char *quote(char *buf, size_t cap, stoat_str s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = s.len < QUOTE_MAX ? s.len : QUOTE_MAX;
	size_t o = 0;
	(void)cap;
	buf[o++] = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s.ptr[i];
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o++] = '"';
	if (s.len > n) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* A buffer big enough for quote(). */
#define QUOTE_BUF char qbuf[QUOTE_MAX * 4 + 8]
#define Q(s) quote(qbuf, sizeof(qbuf), (s))

/*
 * Returns the byte offset of the first occurrence of needle in h at or
 * after byte `from`, or -1.  An empty needle matches at `from`.
 */
static int64_t find(stoat_str h, size_t from, stoat_str needle)
{
	if (from > h.len)
		return -1;
	if (needle.len == 0)
		return (int64_t)from;
	if (needle.len > h.len - from)
		return -1;
	const char *p = memmem(h.ptr + from, h.len - from, needle.ptr, needle.len);
	return p ? (int64_t)(p - h.ptr) : -1;
}

/* Counts the non-overlapping occurrences of a non-empty needle in h. */
static size_t count_occurrences(stoat_str h, stoat_str needle)
{
	size_t count = 0;
	int64_t at = find(h, 0, needle);
	while (at >= 0) {
		count++;
		at = find(h, (size_t)at + needle.len, needle);
	}
	return count;
}

/*
 * Writes v in decimal into out, zero-padded to at least min_digits digits,
 * and returns the number of bytes written (at most 20; no NUL).
 */
static size_t put_digits(char *out, uint64_t v, int min_digits)
{
	char tmp[20];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < min_digits && n < 20)
		tmp[n++] = '0';
	for (int k = 0; k < n; k++)
		out[k] = tmp[n - 1 - k];
	return (size_t)n;
}

/* Floor division for a positive divisor (rounds toward minus infinity). */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if (a % b < 0)
		q--;
	return q;
}

/* Floor modulo for a positive divisor: the result is in [0, b). */
static int64_t floor_mod(int64_t a, int64_t b)
{
	int64_t r = a % b;
	return r < 0 ? r + b : r;
}

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

/* Returns the length of s in bytes. */
int64_t stoat_std_len(stoat_ctx *cx, stoat_str s)
{
	(void)cx;
	return (int64_t)s.len;
}

/* Returns the length of a bytes value. */
int64_t stoat_std_len_bytes(stoat_ctx *cx, stoat_str b)
{
	(void)cx;
	return (int64_t)b.len;
}

/* Returns the number of elements of a string array. */
int64_t stoat_std_len_arr_str(stoat_ctx *cx, stoat_arr_str a)
{
	(void)cx;
	return (int64_t)a.len;
}

/*
 * Returns the number of Unicode code points in s.  Each byte that does not
 * start a well-formed UTF-8 sequence counts as one (as if it were replaced
 * by U+FFFD).
 */
int64_t stoat_std_char_len(stoat_ctx *cx, stoat_str s)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	int64_t count = 0;
	size_t i = 0;
	(void)cx;
	while (i < s.len) {
		size_t n = stoat_utf8_sequence_len(p + i, s.len - i);
		i += n ? n : 1;
		count++;
	}
	return count;
}

/*
 * Maps the ASCII letters of s between cases: to lower case when `to_lower`,
 * else to upper case.  Returns s itself when nothing changes.
 */
static stoat_str change_case(stoat_ctx *cx, stoat_str s, bool to_lower)
{
	char from_lo = to_lower ? 'A' : 'a', from_hi = to_lower ? 'Z' : 'z';
	size_t i = 0;
	char *dst;
	stoat_str r;

	s = nonnull(s);
	while (i < s.len && !(s.ptr[i] >= from_lo && s.ptr[i] <= from_hi))
		i++;
	if (i == s.len)
		return s;
	r = alloc_str(cx, s.len, &dst);
	memcpy(dst, s.ptr, s.len);
	for (; i < s.len; i++)
		if (dst[i] >= from_lo && dst[i] <= from_hi)
			dst[i] = (char)(dst[i] ^ 0x20);
	return r;
}

/* Lower-cases the ASCII letters A-Z of s; every other byte is unchanged. */
stoat_str stoat_std_lower(stoat_ctx *cx, stoat_str s)
{
	return change_case(cx, s, true);
}

/* Upper-cases the ASCII letters a-z of s; every other byte is unchanged. */
stoat_str stoat_std_upper(stoat_ctx *cx, stoat_str s)
{
	return change_case(cx, s, false);
}

/* True for the ASCII whitespace bytes: space, \t, \n, \v, \f, \r. */
static bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Returns s without leading ASCII whitespace (a slice of s). */
stoat_str stoat_std_trim_start(stoat_ctx *cx, stoat_str s)
{
	(void)cx;
	s = nonnull(s);
	while (s.len && is_space(s.ptr[0])) {
		s.ptr++;
		s.len--;
	}
	return s;
}

/* Returns s without trailing ASCII whitespace (a slice of s). */
stoat_str stoat_std_trim_end(stoat_ctx *cx, stoat_str s)
{
	(void)cx;
	s = nonnull(s);
	while (s.len && is_space(s.ptr[s.len - 1]))
		s.len--;
	return s;
}

/* Returns s without leading and trailing ASCII whitespace (a slice of s). */
stoat_str stoat_std_trim(stoat_ctx *cx, stoat_str s)
{
	return stoat_std_trim_end(cx, stoat_std_trim_start(cx, s));
}

/*
 * Returns up to `count` bytes of s starting at byte offset `start`, clamped
 * to the end of s.  A negative start or count is an error.
 */
stoat_str stoat_std_substr(stoat_ctx *cx, stoat_str s, int64_t start, int64_t count)
{
	s = nonnull(s);
	if (start < 0) {
		stoat_error(cx, "substr: negative start %" PRId64, start);
		return empty_str();
	}
	if (count < 0) {
		stoat_error(cx, "substr: negative count %" PRId64, count);
		return empty_str();
	}
	if ((uint64_t)start >= s.len)
		return (stoat_str){ s.ptr + s.len, 0 };
	size_t rest = s.len - (size_t)start;
	size_t n = (uint64_t)count < rest ? (size_t)count : rest;
	return (stoat_str){ s.ptr + start, n };
}

/* True if needle occurs in s (an empty needle always does). */
bool stoat_std_contains(stoat_ctx *cx, stoat_str s, stoat_str needle)
{
	(void)cx;
	return find(s, 0, needle) >= 0;
}

/* True if s begins with prefix. */
bool stoat_std_starts_with(stoat_ctx *cx, stoat_str s, stoat_str prefix)
{
	(void)cx;
	return prefix.len <= s.len && (prefix.len == 0 || memcmp(s.ptr, prefix.ptr, prefix.len) == 0);
}

/* True if s ends with suffix. */
bool stoat_std_ends_with(stoat_ctx *cx, stoat_str s, stoat_str suffix)
{
	(void)cx;
	return suffix.len <= s.len &&
	       (suffix.len == 0 || memcmp(s.ptr + s.len - suffix.len, suffix.ptr, suffix.len) == 0);
}

/* Returns the byte offset of the first occurrence of needle in s, or -1. */
int64_t stoat_std_index_of(stoat_ctx *cx, stoat_str s, stoat_str needle)
{
	(void)cx;
	return find(s, 0, needle);
}

/*
 * Replaces every non-overlapping occurrence of `from` in s (scanning left
 * to right) with `to`.  An empty `from` is an error, and so is a result
 * longer than STOAT_STD_MAX_STRING.  Returns s itself if `from` is absent.
 */
stoat_str stoat_std_replace(stoat_ctx *cx, stoat_str s, stoat_str from, stoat_str to)
{
	s = nonnull(s);
	if (from.len == 0) {
		stoat_error(cx, "replace: the string to replace is empty");
		return empty_str();
	}
	size_t count = count_occurrences(s, from);
	if (count == 0)
		return s;
	size_t base = s.len - count * from.len;
	if (to.len && count > (STOAT_STD_MAX_STRING - base) / to.len) {
		stoat_error(cx, "replace: the result would be longer than 16 MiB");
		return empty_str();
	}
	char *dst;
	stoat_str r = alloc_str(cx, base + count * to.len, &dst);
	size_t pos = 0;
	int64_t at;
	while ((at = find(s, pos, from)) >= 0) {
		size_t n = (size_t)at - pos;
		if (n)
			memcpy(dst, s.ptr + pos, n);
		dst += n;
		if (to.len)
			memcpy(dst, to.ptr, to.len);
		dst += to.len;
		pos = (size_t)at + from.len;
	}
	if (s.len > pos)
		memcpy(dst, s.ptr + pos, s.len - pos);
	return r;
}

/*
 * Splits s at every occurrence of the literal separator sep.  n separators
 * give n + 1 parts, empty ones included (leading, inner and trailing), so
 * split("", ",") is [""].  The parts are slices of s; the array is in the
 * arena.  An empty separator is an error.
 */
stoat_arr_str stoat_std_split(stoat_ctx *cx, stoat_str s, stoat_str sep)
{
	stoat_arr_str r = { NULL, 0 };
	s = nonnull(s);
	if (sep.len == 0) {
		stoat_error(cx, "split: the separator is empty");
		return r;
	}
	size_t n = count_occurrences(s, sep) + 1;
	r.items = stoat_arena_alloc(&cx->arena, n * sizeof(stoat_str));
	size_t pos = 0;
	int64_t at;
	while ((at = find(s, pos, sep)) >= 0) {
		r.items[r.len++] = (stoat_str){ s.ptr + pos, (size_t)at - pos };
		pos = (size_t)at + sep.len;
	}
	r.items[r.len++] = (stoat_str){ s.ptr + pos, s.len - pos };
	return r;
}

/* True for a byte that belongs to a word: an ASCII letter or digit, or any byte >= 0x80. */
static bool is_word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

/*
 * Returns the words of s: the maximal runs of ASCII letters, ASCII digits
 * and bytes >= 0x80 (so UTF-8 encoded letters stay inside their word).
 * Everything else (space, punctuation, apostrophes, '_', control bytes)
 * separates words.  The words are slices of s.
 */
stoat_arr_str stoat_std_split_words(stoat_ctx *cx, stoat_str s)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	stoat_arr_str r = { NULL, 0 };
	size_t words = 0;

	for (size_t i = 0; i < s.len; i++)
		if (is_word_byte(p[i]) && (i == 0 || !is_word_byte(p[i - 1])))
			words++;
	if (words == 0)
		return r;
	r.items = stoat_arena_alloc(&cx->arena, words * sizeof(stoat_str));
	for (size_t i = 0; i < s.len;) {
		if (!is_word_byte(p[i])) {
			i++;
			continue;
		}
		size_t start = i;
		while (i < s.len && is_word_byte(p[i]))
			i++;
		r.items[r.len++] = (stoat_str){ s.ptr + start, i - start };
	}
	return r;
}

/*
 * Concatenates parts with sep between neighbours.  A result longer than
 * STOAT_STD_MAX_STRING is an error.
 */
stoat_str stoat_std_join(stoat_ctx *cx, stoat_arr_str parts, stoat_str sep)
{
	size_t total = 0;
	for (size_t i = 0; i < parts.len; i++) {
		size_t add = parts.items[i].len + (i ? sep.len : 0);
		if (add > STOAT_STD_MAX_STRING - total) {
			stoat_error(cx, "join: the result would be longer than 16 MiB");
			return empty_str();
		}
		total += add;
	}
	if (total == 0)
		return empty_str();
	char *dst;
	stoat_str r = alloc_str(cx, total, &dst);
	for (size_t i = 0; i < parts.len; i++) {
		if (i && sep.len) {
			memcpy(dst, sep.ptr, sep.len);
			dst += sep.len;
		}
		if (parts.items[i].len) {
			memcpy(dst, parts.items[i].ptr, parts.items[i].len);
			dst += parts.items[i].len;
		}
	}
	return r;
}

/*
 * Returns s repeated n times.  A negative n is an error, and so is a
 * result longer than STOAT_STD_MAX_STRING.
 */
stoat_str stoat_std_repeat(stoat_ctx *cx, stoat_str s, int64_t n)
{
	if (n < 0) {
		stoat_error(cx, "repeat: negative count %" PRId64, n);
		return empty_str();
	}
	if (n == 0 || s.len == 0)
		return empty_str();
	if ((uint64_t)n > STOAT_STD_MAX_STRING / s.len) {
		stoat_error(cx, "repeat: the result (%" PRId64 " times %zu bytes) would be longer than 16 MiB",
			    n, s.len);
		return empty_str();
	}
	char *dst;
	stoat_str r = alloc_str(cx, (size_t)n * s.len, &dst);
	for (int64_t i = 0; i < n; i++, dst += s.len)
		memcpy(dst, s.ptr, s.len);
	return r;
}

/*
 * Pads s to `width` bytes with copies of fill, on the left when `left`,
 * else on the right.  The padding repeats fill and is cut to the exact
 * width.  `name` is the stoat function, for error messages.
 */
static stoat_str pad(stoat_ctx *cx, const char *name, stoat_str s, int64_t width, stoat_str fill, bool left)
{
	s = nonnull(s);
	if (fill.len == 0) {
		stoat_error(cx, "%s: the fill string is empty", name);
		return empty_str();
	}
	if (width <= (int64_t)s.len)
		return s;
	if ((uint64_t)width > STOAT_STD_MAX_STRING) {
		stoat_error(cx, "%s: width %" PRId64 " is larger than 16 MiB", name, width);
		return empty_str();
	}
	char *dst;
	stoat_str r = alloc_str(cx, (size_t)width, &dst);
	size_t padn = (size_t)width - s.len;
	char *padp = left ? dst : dst + s.len;
	for (size_t i = 0; i < padn; i++)
		padp[i] = fill.ptr[i % fill.len];
	if (s.len)
		memcpy(left ? dst + padn : dst, s.ptr, s.len);
	return r;
}

/*
 * Left-pads s with fill to width bytes; s is returned unchanged when it is
 * already at least that long.  An empty fill is an error.
 */
stoat_str stoat_std_pad_left(stoat_ctx *cx, stoat_str s, int64_t width, stoat_str fill)
{
	return pad(cx, "pad_left", s, width, fill, true);
}

/* Right-pads s with fill to width bytes; see stoat_std_pad_left. */
stoat_str stoat_std_pad_right(stoat_ctx *cx, stoat_str s, int64_t width, stoat_str fill)
{
	return pad(cx, "pad_right", s, width, fill, false);
}

/* Formats an i32 in decimal. */
stoat_str stoat_std_to_string_i32(stoat_ctx *cx, int32_t v)
{
	return stoat_std_to_string_i64(cx, v);
}

/* Formats an i64 in decimal ("-" sign, no leading zeros). */
stoat_str stoat_std_to_string_i64(stoat_ctx *cx, int64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	return copy_str(cx, p, (size_t)(buf + sizeof(buf) - p));
}

/*
 * Writes the shortest decimal form of v that reads back as exactly v into
 * out (at least 40 bytes) and returns its length.  The layout is the one
 * the runtime's JSON encoder uses (stoat_buf_put_f64): JavaScript's, except
 * that plain notation always has a fraction and the exponent has no '+':
 * plain for 1e-6 <= |v| < 1e21, exponent notation otherwise (ECMAScript's
 * Number::toString rule: 1e-7 is the first value with an exponent).
 * 1.0 -> "1.0", 0.1 -> "0.1", 1e21 -> "1e21", 1.5e-7 -> "1.5e-7",
 * -0.0 -> "-0.0".  JSON has no NaN or infinities; here they are "NaN",
 * "Infinity" and "-Infinity".
 */
static size_t format_f64(char *out, double v)
{
	char e[40], digits[20];
	size_t o = 0, nd = 0;
	int exp10, p;

	if (isnan(v)) {
		memcpy(out, "NaN", 4);
		return 3;
	}
	if (signbit(v))
		out[o++] = '-';
	v = fabs(v);
	if (isinf(v)) {
		memcpy(out + o, "Infinity", 9);
		return o + 8;
	}
	if (v == 0) {
		memcpy(out + o, "0.0", 4);
		return o + 3;
	}
	/* The fewest significant digits that round-trip (at most 17). */
	for (p = 1; p <= 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	/* e is "d.ddde[+-]xx" or "de[+-]xx". */
	const char *q = e;
	for (; *q != 'e'; q++)
		if (*q != '.')
			digits[nd++] = *q;
	exp10 = (int)strtol(q + 1, NULL, 10);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	/* The value is 0.digits * 10^n. */
	int n = exp10 + 1;
	if ((int)nd <= n && n <= 21) {
		memcpy(out + o, digits, nd);
		o += nd;
		for (int i = (int)nd; i < n; i++)
			out[o++] = '0';
		out[o++] = '.';
		out[o++] = '0';
	} else if (0 < n && n <= 21) {
		memcpy(out + o, digits, (size_t)n);
		o += (size_t)n;
		out[o++] = '.';
		memcpy(out + o, digits + n, nd - (size_t)n);
		o += nd - (size_t)n;
	} else if (-6 < n && n <= 0) {
		out[o++] = '0';
		out[o++] = '.';
		for (int i = n; i < 0; i++)
			out[o++] = '0';
		memcpy(out + o, digits, nd);
		o += nd;
	} else {
		out[o++] = digits[0];
		if (nd > 1) {
			out[o++] = '.';
			memcpy(out + o, digits + 1, nd - 1);
			o += nd - 1;
		}
		out[o++] = 'e';
		if (n - 1 < 0)
			out[o++] = '-';
		o += put_digits(out + o, (uint64_t)(n - 1 < 0 ? 1 - n : n - 1), 1);
	}
	out[o] = '\0';
	return o;
}

/*
 * Formats an f64 as the shortest decimal that reads back as the same
 * value; see format_f64 for the exact layout.
 */
stoat_str stoat_std_to_string_f64(stoat_ctx *cx, double v)
{
	char buf[40];
	size_t n = format_f64(buf, v);
	return copy_str(cx, buf, n);
}

/* Returns "true" or "false". */
stoat_str stoat_std_to_string_bool(stoat_ctx *cx, bool v)
{
	(void)cx;
	return v ? STOAT_STR_LIT("true") : STOAT_STR_LIT("false");
}

/*
 * Reinterprets bytes as a string after checking that they are well-formed
 * UTF-8; otherwise reports the offset of the first bad byte.
 */
stoat_str stoat_std_to_string_bytes(stoat_ctx *cx, stoat_str b)
{
	const unsigned char *p = (const unsigned char *)b.ptr;
	b = nonnull(b);
	for (size_t i = 0; i < b.len;) {
		size_t n = stoat_utf8_sequence_len(p + i, b.len - i);
		if (n == 0) {
			stoat_error(cx, "to_string: the bytes are not valid UTF-8 (byte %zu is 0x%02x)", i, p[i]);
			return empty_str();
		}
		i += n;
	}
	return b;
}

/* Returns the UTF-8 bytes of s (the same slice, typed as bytes). */
stoat_str stoat_std_to_bytes(stoat_ctx *cx, stoat_str s)
{
	(void)cx;
	return nonnull(s);
}

/*
 * Parses a decimal i64: an optional '+' or '-', then one or more ASCII
 * digits, nothing else.  Returns 0 and stores the value, 1 for bad syntax,
 * 2 for a value outside the i64 range.
 */
static int parse_i64_core(stoat_str s, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	int64_t acc = 0; /* accumulated negatively, to reach INT64_MIN */

	if (i < s.len && (s.ptr[i] == '+' || s.ptr[i] == '-'))
		neg = s.ptr[i++] == '-';
	if (i == s.len)
		return 1;
	for (size_t j = i; j < s.len; j++)
		if (s.ptr[j] < '0' || s.ptr[j] > '9')
			return 1;
	for (; i < s.len; i++) {
		if (__builtin_mul_overflow(acc, 10, &acc) || __builtin_sub_overflow(acc, s.ptr[i] - '0', &acc))
			return 2;
	}
	if (!neg) {
		if (acc == INT64_MIN)
			return 2;
		acc = -acc;
	}
	*out = acc;
	return 0;
}

/*
 * Parses a decimal integer ([+-]digits, no spaces).  Bad syntax and values
 * outside the i64 range are errors that quote the text.
 */
int64_t stoat_std_parse_i64(stoat_ctx *cx, stoat_str s)
{
	QUOTE_BUF;
	int64_t v = 0;
	switch (parse_i64_core(s, &v)) {
	case 0:
		return v;
	case 1:
		stoat_error(cx, "parse_i64: %s is not an integer", Q(s));
		return 0;
	default:
		stoat_error(cx, "parse_i64: %s is out of range for i64", Q(s));
		return 0;
	}
}

/* Like parse_i64, but returns null instead of reporting an error. */
stoat_opt_i64 stoat_std_try_parse_i64(stoat_ctx *cx, stoat_str s)
{
	stoat_opt_i64 r = { false, 0 };
	(void)cx;
	if (parse_i64_core(s, &r.v) == 0)
		r.has = true;
	else
		r.v = 0;
	return r;
}

/*
 * Parses a decimal floating-point number: [+-] digits [. digits]
 * [e|E [+-] digits], where the mantissa has at least one digit on either
 * side of the point ("1.", ".5" are accepted).  No spaces, no hex, no
 * NaN or Infinity.  Returns 0 and stores the (correctly rounded) value,
 * 1 for bad syntax, 2 when the magnitude overflows to infinity.  Values
 * too small for an f64 round to zero or a subnormal.
 */
static int parse_f64_core(stoat_ctx *cx, stoat_str s, double *out)
{
	size_t i = 0, mant = 0;
	char small[128];
	char *z;

	if (i < s.len && (s.ptr[i] == '+' || s.ptr[i] == '-'))
		i++;
	for (; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9'; i++)
		mant++;
	if (i < s.len && s.ptr[i] == '.')
		for (i++; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9'; i++)
			mant++;
	if (mant == 0)
		return 1;
	if (i < s.len && (s.ptr[i] == 'e' || s.ptr[i] == 'E')) {
		size_t expd = 0;
		i++;
		if (i < s.len && (s.ptr[i] == '+' || s.ptr[i] == '-'))
			i++;
		for (; i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9'; i++)
			expd++;
		if (expd == 0)
			return 1;
	}
	if (i != s.len)
		return 1;
	/* strtod needs a NUL-terminated copy. */
	z = s.len < sizeof(small) ? small : stoat_arena_alloc(&cx->arena, s.len + 1);
	memcpy(z, s.ptr, s.len);
	z[s.len] = '\0';
	double v = strtod(z, NULL);
	if (isinf(v))
		return 2;
	*out = v;
	return 0;
}

/*
 * Parses a decimal floating-point number (see parse_f64_core for the
 * syntax).  Bad syntax and overflow are errors that quote the text.
 */
double stoat_std_parse_f64(stoat_ctx *cx, stoat_str s)
{
	QUOTE_BUF;
	double v = 0;
	switch (parse_f64_core(cx, s, &v)) {
	case 0:
		return v;
	case 1:
		stoat_error(cx, "parse_f64: %s is not a number", Q(s));
		return 0;
	default:
		stoat_error(cx, "parse_f64: %s is out of range for f64", Q(s));
		return 0;
	}
}

/* Like parse_f64, but returns null instead of reporting an error. */
stoat_opt_f64 stoat_std_try_parse_f64(stoat_ctx *cx, stoat_str s)
{
	stoat_opt_f64 r = { false, 0 };
	if (parse_f64_core(cx, s, &r.v) == 0)
		r.has = true;
	else
		r.v = 0;
	return r;
}

/*
 * 64-bit FNV-1a of the bytes of s (offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3), reinterpreted as a two's-complement i64.  It depends only
 * on the bytes, so it is the same across runs, machines and versions.
 */
int64_t stoat_std_hash(stoat_ctx *cx, stoat_str s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	(void)cx;
	for (size_t i = 0; i < s.len; i++) {
		h ^= (unsigned char)s.ptr[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h <= (uint64_t)INT64_MAX ? (int64_t)h : -(int64_t)(~h) - 1;
}

/* FNV-1a of a bytes value; the same function as stoat_std_hash. */
int64_t stoat_std_hash_bytes(stoat_ctx *cx, stoat_str b)
{
	return stoat_std_hash(cx, b);
}

/* ------------------------------------------------------------------ */
/* Numbers                                                             */
/* ------------------------------------------------------------------ */

/* Absolute value; INT64_MIN has none in i64 and is an error. */
int64_t stoat_std_abs_i64(stoat_ctx *cx, int64_t x)
{
	if (x == INT64_MIN) {
		stoat_error(cx, "abs: %" PRId64 " has no absolute value in i64", x);
		return 0;
	}
	return x < 0 ? -x : x;
}

/* Absolute value of an f64 (NaN stays NaN, -0.0 becomes 0.0). */
double stoat_std_abs_f64(stoat_ctx *cx, double x)
{
	(void)cx;
	return fabs(x);
}

/* The smaller of a and b. */
int64_t stoat_std_min_i64(stoat_ctx *cx, int64_t a, int64_t b)
{
	(void)cx;
	return a < b ? a : b;
}

/* The larger of a and b. */
int64_t stoat_std_max_i64(stoat_ctx *cx, int64_t a, int64_t b)
{
	(void)cx;
	return a > b ? a : b;
}

/* The smaller of a and b; NaN if either is NaN; -0.0 is below 0.0. */
double stoat_std_min_f64(stoat_ctx *cx, double a, double b)
{
	(void)cx;
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

/* The larger of a and b; NaN if either is NaN; 0.0 is above -0.0. */
double stoat_std_max_f64(stoat_ctx *cx, double a, double b)
{
	(void)cx;
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

/* Limits x to [lo, hi]; lo > hi is an error. */
int64_t stoat_std_clamp_i64(stoat_ctx *cx, int64_t x, int64_t lo, int64_t hi)
{
	if (lo > hi) {
		stoat_error(cx, "clamp: lower bound %" PRId64 " is greater than upper bound %" PRId64, lo, hi);
		return 0;
	}
	return x < lo ? lo : x > hi ? hi : x;
}

/* Limits x to [lo, hi]; lo > hi or a NaN bound is an error; NaN x stays NaN. */
double stoat_std_clamp_f64(stoat_ctx *cx, double x, double lo, double hi)
{
	if (isnan(lo) || isnan(hi) || lo > hi) {
		char a[40], b[40];
		format_f64(a, lo);
		format_f64(b, hi);
		stoat_error(cx, "clamp: bounds [%s, %s] are not an interval", a, b);
		return 0;
	}
	return x < lo ? lo : x > hi ? hi : x;
}

/* The largest integral value not greater than x. */
double stoat_std_floor(stoat_ctx *cx, double x)
{
	(void)cx;
	return floor(x);
}

/* The smallest integral value not less than x. */
double stoat_std_ceil(stoat_ctx *cx, double x)
{
	(void)cx;
	return ceil(x);
}

/* The nearest integral value, halves rounded away from zero. */
double stoat_std_round(stoat_ctx *cx, double x)
{
	(void)cx;
	return round(x);
}

/* Truncates x toward zero; NaN, infinities and values outside i64 are errors. */
int64_t stoat_std_to_i64(stoat_ctx *cx, double x)
{
	/* -2^63 is exact in a double, and no double lies in (-2^63 - 1, -2^63). */
	if (!(x >= -0x1p63 && x < 0x1p63)) {
		char a[40];
		format_f64(a, x);
		stoat_error(cx, "to_i64: %s is out of range for i64", a);
		return 0;
	}
	return (int64_t)x;
}

/* Widens an i32 to i64 (never fails). */
int64_t stoat_std_to_i64_i32(stoat_ctx *cx, int32_t x)
{
	(void)cx;
	return x;
}

/* Narrows an i64 to i32; values outside the i32 range are errors. */
int32_t stoat_std_to_i32(stoat_ctx *cx, int64_t x)
{
	if (x < INT32_MIN || x > INT32_MAX) {
		stoat_error(cx, "to_i32: %" PRId64 " is out of range for i32", x);
		return 0;
	}
	return (int32_t)x;
}

/* Converts an i64 to the nearest f64 (exact up to 2^53 in magnitude). */
double stoat_std_to_f64(stoat_ctx *cx, int64_t x)
{
	(void)cx;
	return (double)x;
}

/* Square root; a negative argument is an error (sqrt(-0.0) is -0.0). */
double stoat_std_sqrt(stoat_ctx *cx, double x)
{
	if (x < 0) {
		char a[40];
		format_f64(a, x);
		stoat_error(cx, "sqrt: negative argument %s", a);
		return 0;
	}
	return sqrt(x);
}

/* x raised to the power y; a NaN or infinite result is an error. */
double stoat_std_pow(stoat_ctx *cx, double x, double y)
{
	double r = pow(x, y);
	if (!isfinite(r)) {
		char a[40], b[40];
		format_f64(a, x);
		format_f64(b, y);
		stoat_error(cx, "pow: pow(%s, %s) is not a finite number", a, b);
		return 0;
	}
	return r;
}

/*
 * x raised to the integer power n by repeated squaring; pow(0, 0) is 1.
 * A negative n and a result outside the i64 range are errors.
 */
int64_t stoat_std_pow_i64(stoat_ctx *cx, int64_t x, int64_t n)
{
	int64_t r = 1;
	if (n < 0) {
		stoat_error(cx, "pow: negative exponent %" PRId64, n);
		return 0;
	}
	/* A square is only taken while bits of n remain, so its overflow means the result's. */
	while (n) {
		if ((n & 1) && __builtin_mul_overflow(r, x, &r))
			goto overflow;
		n >>= 1;
		if (n && __builtin_mul_overflow(x, x, &x))
			goto overflow;
	}
	return r;
overflow:
	stoat_error(cx, "pow: the result is out of range for i64");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Time                                                                */
/* ------------------------------------------------------------------ */

/* A timestamp broken down into UTC calendar fields. */
typedef struct civil_time {
	int64_t year;
	int month;  /* 1..12 */
	int day;    /* 1..31 */
	int hour;   /* 0..23 */
	int minute; /* 0..59 */
	int second; /* 0..59 */
	int milli;  /* 0..999 */
	int64_t days; /* days since 1970-01-01 */
} civil_time;

/*
 * Breaks t (ms since the epoch) into proleptic-Gregorian UTC fields, with
 * Howard Hinnant's civil_from_days algorithm.  Valid for every int64.
 */
static civil_time civil_from_millis(int64_t t)
{
	civil_time c;
	int64_t days = floor_div(t, MS_PER_DAY);
	int64_t ms = floor_mod(t, MS_PER_DAY); /* not t - days * MS_PER_DAY: that overflows for INT64_MIN */

	c.days = days;
	c.hour = (int)(ms / MS_PER_HOUR);
	c.minute = (int)(ms / MS_PER_MINUTE % 60);
	c.second = (int)(ms / MS_PER_SECOND % 60);
	c.milli = (int)(ms % 1000);

	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;                                      /* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
	int64_t mp = (5 * doy + 2) / 153;                                    /* [0, 11] */
	c.day = (int)(doy - (153 * mp + 2) / 5 + 1);
	c.month = (int)(mp < 10 ? mp + 3 : mp - 9);
	c.year = yoe + era * 400 + (c.month <= 2);
	return c;
}

/* Days since 1970-01-01 of a proleptic-Gregorian date (Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* True for a Gregorian leap year. */
static bool is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The number of days in month m (1..12) of year y. */
static int days_in_month(int64_t y, int m)
{
	static const int dim[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return m == 2 && is_leap(y) ? 29 : dim[m - 1];
}

/*
 * Writes "YYYY-MM-DD" for c into out (at least 24 bytes) and returns its
 * length.  Years outside 0000..9999 use ISO 8601's expanded form with a
 * sign and at least six digits ("+010000", "-000001"), as JavaScript does.
 */
static size_t format_date(char *out, const civil_time *c)
{
	size_t o = 0;
	if (c->year >= 0 && c->year <= 9999) {
		o += put_digits(out, (uint64_t)c->year, 4);
	} else {
		out[o++] = c->year < 0 ? '-' : '+';
		/* |year| < 3e8 for any int64 timestamp, so the negation is safe. */
		o += put_digits(out + o, (uint64_t)(c->year < 0 ? -c->year : c->year), 6);
	}
	out[o++] = '-';
	o += put_digits(out + o, (uint64_t)c->month, 2);
	out[o++] = '-';
	o += put_digits(out + o, (uint64_t)c->day, 2);
	return o;
}

/*
 * Formats t as ISO 8601 in UTC, always with milliseconds:
 * "2026-11-30T09:04:14.123Z".
 */
stoat_str stoat_std_format_time(stoat_ctx *cx, int64_t t)
{
	char buf[48];
	civil_time c = civil_from_millis(t);
	size_t n = format_date(buf, &c);
	buf[n++] = 'T';
	n += put_digits(buf + n, (uint64_t)c.hour, 2);
	buf[n++] = ':';
	n += put_digits(buf + n, (uint64_t)c.minute, 2);
	buf[n++] = ':';
	n += put_digits(buf + n, (uint64_t)c.second, 2);
	buf[n++] = '.';
	n += put_digits(buf + n, (uint64_t)c.milli, 3);
	buf[n++] = 'Z';
	return copy_str(cx, buf, n);
}

/* Formats the UTC calendar date of t as "YYYY-MM-DD". */
stoat_str stoat_std_date(stoat_ctx *cx, int64_t t)
{
	char buf[24];
	civil_time c = civil_from_millis(t);
	size_t n = format_date(buf, &c);
	return copy_str(cx, buf, n);
}

/*
 * Reads exactly n ASCII digits of s at *i into *out and advances *i.
 * Returns false (and leaves *i) if there are fewer.
 */
static bool read_digits(stoat_str s, size_t *i, int n, int64_t *out)
{
	int64_t v = 0;
	if (s.len - *i < (size_t)n)
		return false;
	for (int k = 0; k < n; k++) {
		char c = s.ptr[*i + k];
		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (c - '0');
	}
	*i += (size_t)n;
	*out = v;
	return true;
}

/* True if the byte of s at i exists and equals c (then advances past it). */
static bool read_char(stoat_str s, size_t *i, char c)
{
	if (*i < s.len && s.ptr[*i] == c) {
		(*i)++;
		return true;
	}
	return false;
}

/*
 * Parses an ISO 8601 / RFC 3339 date or date-time:
 *   YYYY-MM-DD
 *   YYYY-MM-DDTHH:MM[:SS[.f...]][Z|+HH:MM|-HH:MM|+HHMM|-HHMM]
 * 'T' may also be 't' or a space, 'Z' may be 'z'; 1 to 9 fraction digits
 * are read and truncated to milliseconds; no zone means UTC.  The year may
 * also be a sign and six digits ("+010000").  Fields out of range
 * (2026-02-29, 24:00, 23:59:60, offset hour > 23) are errors.
 */
int64_t stoat_std_parse_time(stoat_ctx *cx, stoat_str s)
{
	QUOTE_BUF;
	size_t i = 0;
	int64_t year, month, day, hour = 0, minute = 0, second = 0, milli = 0, offset = 0;

	if (i < s.len && (s.ptr[0] == '+' || s.ptr[0] == '-')) {
		bool neg = s.ptr[0] == '-';
		i++;
		if (!read_digits(s, &i, 6, &year) || (neg && year == 0))
			goto syntax;
		if (neg)
			year = -year;
	} else if (!read_digits(s, &i, 4, &year)) {
		goto syntax;
	}
	if (!read_char(s, &i, '-') || !read_digits(s, &i, 2, &month) || !read_char(s, &i, '-') ||
	    !read_digits(s, &i, 2, &day))
		goto syntax;
	if (i < s.len) {
		if (!read_char(s, &i, 'T') && !read_char(s, &i, 't') && !read_char(s, &i, ' '))
			goto syntax;
		if (!read_digits(s, &i, 2, &hour) || !read_char(s, &i, ':') || !read_digits(s, &i, 2, &minute))
			goto syntax;
		if (read_char(s, &i, ':')) {
			if (!read_digits(s, &i, 2, &second))
				goto syntax;
			if (read_char(s, &i, '.')) {
				int nfrac = 0;
				while (i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9') {
					if (nfrac < 3)
						milli = milli * 10 + (s.ptr[i] - '0');
					nfrac++;
					i++;
				}
				if (nfrac == 0 || nfrac > 9)
					goto syntax;
				for (int k = nfrac; k < 3; k++)
					milli *= 10;
			}
		}
		if (read_char(s, &i, 'Z') || read_char(s, &i, 'z')) {
			/* UTC */
		} else if (i < s.len && (s.ptr[i] == '+' || s.ptr[i] == '-')) {
			int64_t sign = s.ptr[i++] == '-' ? -1 : 1, oh, om;
			if (!read_digits(s, &i, 2, &oh))
				goto syntax;
			read_char(s, &i, ':');
			if (!read_digits(s, &i, 2, &om))
				goto syntax;
			if (oh > 23 || om > 59) {
				stoat_error(cx, "parse_time: %s has an out-of-range UTC offset", Q(s));
				return 0;
			}
			offset = sign * (oh * MS_PER_HOUR + om * MS_PER_MINUTE);
		}
		if (i != s.len)
			goto syntax;
	}
	if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, (int)month)) {
		stoat_error(cx, "parse_time: %s is not a valid date", Q(s));
		return 0;
	}
	if (hour > 23 || minute > 59 || second > 59) {
		stoat_error(cx, "parse_time: %s is not a valid time of day", Q(s));
		return 0;
	}
	/* |year| <= 999999, so none of this can overflow. */
	return days_from_civil(year, (int)month, (int)day) * MS_PER_DAY + hour * MS_PER_HOUR +
	       minute * MS_PER_MINUTE + second * MS_PER_SECOND + milli - offset;
syntax:
	stoat_error(cx,
		    "parse_time: %s is not an ISO 8601 date or time (expected YYYY-MM-DD or "
		    "YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM])",
		    Q(s));
	return 0;
}

/* Milliseconds since the epoch of timestamp t. */
int64_t stoat_std_millis(stoat_ctx *cx, int64_t t)
{
	(void)cx;
	return t;
}

/* The timestamp ms milliseconds after the epoch (negative: before it). */
int64_t stoat_std_from_millis(stoat_ctx *cx, int64_t ms)
{
	(void)cx;
	return ms;
}

/* The length of duration d in milliseconds. */
int64_t stoat_std_duration_millis(stoat_ctx *cx, int64_t d)
{
	(void)cx;
	return d;
}

/* The duration of ms milliseconds. */
int64_t stoat_std_duration_from_millis(stoat_ctx *cx, int64_t ms)
{
	(void)cx;
	return ms;
}

/* The UTC year of t (proleptic Gregorian; 0 is 1 BC). */
int64_t stoat_std_year(stoat_ctx *cx, int64_t t)
{
	(void)cx;
	return civil_from_millis(t).year;
}

/* The UTC month of t, 1 (January) to 12. */
int64_t stoat_std_month(stoat_ctx *cx, int64_t t)
{
	(void)cx;
	return civil_from_millis(t).month;
}

/* The UTC day of the month of t, 1 to 31. */
int64_t stoat_std_day_of_month(stoat_ctx *cx, int64_t t)
{
	(void)cx;
	return civil_from_millis(t).day;
}

/* The UTC hour of t, 0 to 23. */
int64_t stoat_std_hour_of_day(stoat_ctx *cx, int64_t t)
{
	(void)cx;
	return floor_mod(t, MS_PER_DAY) / MS_PER_HOUR;
}

/* The UTC minute of the hour of t, 0 to 59. */
int64_t stoat_std_minute_of_hour(stoat_ctx *cx, int64_t t)
{
	(void)cx;
	return floor_mod(t, MS_PER_HOUR) / MS_PER_MINUTE;
}

/* The ISO day of the week of t in UTC: 1 = Monday ... 7 = Sunday. */
int64_t stoat_std_day_of_week(stoat_ctx *cx, int64_t t)
{
	(void)cx;
	/* 1970-01-01 was a Thursday (4). */
	return floor_mod(floor_div(t, MS_PER_DAY) + 3, 7) + 1;
}

/*
 * Rounds t down to a multiple of unit since the epoch (so 1h gives the
 * start of the hour, 1d the start of the UTC day).  unit <= 0 is an error,
 * and so is a result below the smallest timestamp.
 */
int64_t stoat_std_truncate_time(stoat_ctx *cx, int64_t t, int64_t unit)
{
	int64_t r;
	if (unit <= 0) {
		stoat_error(cx, "truncate_time: the unit must be positive, not %" PRId64 "ms", unit);
		return 0;
	}
	if (__builtin_sub_overflow(t, floor_mod(t, unit), &r)) {
		stoat_error(cx, "truncate_time: the result is before the earliest timestamp");
		return 0;
	}
	return r;
}

/* ------------------------------------------------------------------ */
/* Record metadata                                                     */
/* ------------------------------------------------------------------ */

/* Reports an error if no input record is being processed; returns true if one is. */
static bool have_msg(stoat_ctx *cx, const char *name)
{
	if (cx->msg == NULL) {
		stoat_error(cx, "%s: there is no input record here", name);
		return false;
	}
	return true;
}

/* The Kafka timestamp of the record being processed. */
int64_t stoat_std_record_timestamp(stoat_ctx *cx)
{
	return have_msg(cx, "record_timestamp") ? cx->msg->timestamp : 0;
}

/* The partition the record being processed was read from. */
int32_t stoat_std_record_partition(stoat_ctx *cx)
{
	return have_msg(cx, "record_partition") ? cx->msg->partition : 0;
}

/* The offset of the record being processed in its partition. */
int64_t stoat_std_record_offset(stoat_ctx *cx)
{
	return have_msg(cx, "record_offset") ? cx->msg->offset : 0;
}

/* The topic the record being processed was read from (static storage). */
stoat_str stoat_std_record_topic(stoat_ctx *cx)
{
	if (!have_msg(cx, "record_topic"))
		return empty_str();
	if (cx->source == NULL || cx->source->topic == NULL) {
		stoat_error(cx, "record_topic: the record has no source topic");
		return empty_str();
	}
	return (stoat_str){ cx->source->topic, strlen(cx->source->topic) };
}

/*
 * The value of the record's last header named `name` (as Kafka's
 * Headers.lastHeader), or null if there is none or its value is null.
 */
stoat_opt_str stoat_std_record_header(stoat_ctx *cx, stoat_str name)
{
	stoat_opt_str r = { false, { NULL, 0 } };
	if (!have_msg(cx, "record_header"))
		return r;
	stoat_msg_load_headers(cx, cx->msg);
	for (size_t i = cx->msg->header_count; i-- > 0;) {
		const stoat_header *h = &cx->msg->headers[i];
		if (stoat_str_eq(h->key, name)) {
			if (h->value.ptr != NULL) {
				r.has = true;
				r.v = h->value;
			}
			return r;
		}
	}
	return r;
}

/*
 * try_parse_time: parse_time without failing the record.  A record that
 * has already failed stays failed; otherwise the error parse_time would
 * have raised is taken back and null returned.
 */
stoat_opt_i64 stoat_std_try_parse_time(stoat_ctx *cx, stoat_str s)
{
	stoat_opt_i64 r = { false, 0 };
	if (cx->error)
		return r;
	int64_t t = stoat_std_parse_time(cx, s);
	if (cx->error) {
		cx->error = false;
		cx->error_message[0] = '\0';
		return r;
	}
	r.has = true;
	r.v = t;
	return r;
}
