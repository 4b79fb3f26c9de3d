/*
 * json.c - the strict (RFC 8259) JSON reader that generated decoders and the
 * replay driver's envelope parser are built from.  It never builds a tree:
 * callers pull exactly the tokens they expect.  Strings without escapes are
 * slices of the input; escaped strings are decoded into the arena.
 */
#include "util.h"

#include <assert.h>
#include <inttypes.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Nesting deeper than this is refused (skip recurses once per level). */
#define STOAT_JSON_MAX_DEPTH 64

/* Byte offset of the reader within its input, for error messages. */
static size_t json_offset(const stoat_json *j)
{
	return (size_t)(j->p - j->start);
}

/* Records "invalid JSON at byte N: expected <what>"; returns false. */
bool stoat_json_fail(stoat_json *j, const char *what)
{
	stoat_error(j->cx, "invalid JSON at byte %zu: expected %s", json_offset(j), what);
	return false;
}

/*
 * Writes the field path of the value at j->p ("lines[1].sku") into out,
 * empty at the top level, by reading the input again from its start:
 * everything before j->p was read, and so validated, on the way there, so
 * a small scanner that follows the open containers, the member name in
 * each object and the element index in each array is enough.  Only error
 * messages call this: the reader itself keeps no path, and costs nothing
 * more per value.  Long member names are cut; the path is for people.
 */
static void json_path(const stoat_json *j, char *out, size_t n)
{
	struct level {
		bool array;
		uint32_t index;
		const char *name;
		size_t name_len;
	} stack[STOAT_JSON_MAX_DEPTH];
	int depth = 0;
	const char *p = j->start, *at = j->p;
	const char *last = NULL; /* the last string's body, a member name before ':' */
	size_t last_len = 0;
	while (p < at) {
		switch (*p) {
		case '"': {
			const char *body = ++p;
			while (p < at && *p != '"')
				p += *p == '\\' ? 2 : 1;
			last = body;
			last_len = (size_t)(p - body);
			break;
		}
		case '{':
		case '[':
			if (depth < STOAT_JSON_MAX_DEPTH)
				stack[depth] = (struct level){ *p == '[', 0, NULL, 0 };
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			break;
		case ':':
			if (depth > 0 && depth <= STOAT_JSON_MAX_DEPTH && !stack[depth - 1].array) {
				stack[depth - 1].name = last;
				stack[depth - 1].name_len = last_len;
			}
			break;
		case ',':
			if (depth > 0 && depth <= STOAT_JSON_MAX_DEPTH && stack[depth - 1].array)
				stack[depth - 1].index++;
			break;
		}
		p++;
	}
	size_t len = 0;
	out[0] = '\0';
	for (int level = 0; level < depth && level < STOAT_JSON_MAX_DEPTH && len + 48 < n; level++) {
		const struct level *l = &stack[level];
		if (l->array) {
			len += (size_t)snprintf(out + len, n - len, "[%" PRIu32 "]", l->index);
		} else if (l->name) {
			int shown = l->name_len > 40 ? 40 : (int)l->name_len;
			len += (size_t)snprintf(out + len, n - len, "%s%.*s", len ? "." : "", shown, l->name);
		}
	}
}

/* "field <path>: " for a message, or "" at the top level (out holds it). */
static const char *json_field_prefix(const stoat_json *j, char *out, size_t n)
{
	char path[200];
	json_path(j, path, sizeof path);
	if (!path[0])
		return "";
	snprintf(out, n, "%s %s: ", path[0] == '[' ? "element" : "field", path);
	return out;
}

/*
 * What the next token is, when it starts a valid JSON value ("a number",
 * "null", ...), so that a value of the wrong type is told apart from
 * malformed JSON; NULL when it starts none.
 */
static const char *json_token_kind(const stoat_json *j)
{
	size_t left = (size_t)(j->end - j->p);
	if (left == 0)
		return NULL;
	switch (*j->p) {
	case '"': return "a string";
	case '{': return "an object";
	case '[': return "an array";
	case 't': return left >= 4 && memcmp(j->p, "true", 4) == 0 ? "true" : NULL;
	case 'f': return left >= 5 && memcmp(j->p, "false", 5) == 0 ? "false" : NULL;
	case 'n': return left >= 4 && memcmp(j->p, "null", 4) == 0 ? "null" : NULL;
	default: return *j->p == '-' || (*j->p >= '0' && *j->p <= '9') ? "a number" : NULL;
	}
}

/*
 * The reader is at something other than `expected`: a value of another
 * type ("field qty: expected an integer (i64) at byte 9, got a string"),
 * or malformed JSON (stoat_json_fail with `syntax`, what the grammar
 * wanted there).  Returns false.
 */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static bool json_wrong_type(stoat_json *j, const char *expected, const char *syntax)
{
	const char *got = json_token_kind(j);
	if (!got)
		return stoat_json_fail(j, syntax);
	char prefix[240];
	stoat_error(j->cx, "%sexpected %s at byte %zu, got %s", json_field_prefix(j, prefix, sizeof prefix), expected,
		    json_offset(j), got);
	return false;
}

/* Records "missing field "f" in T"; returns false. */
bool stoat_json_missing(stoat_json *j, const char *type, const char *field)
{
	stoat_error(j->cx, "missing field \"%s\" in %s", field, type);
	return false;
}

/* Consumes the character c after optional whitespace, or fails. */
static bool json_expect(stoat_json *j, char c, const char *what)
{
	stoat_json_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return stoat_json_fail(j, what);
}

/* Enters one level of nesting, refusing to go deeper than the limit. */
static bool json_enter(stoat_json *j)
{
	if (j->depth >= STOAT_JSON_MAX_DEPTH)
		return stoat_json_fail(j, "at most 64 levels of nesting");
	j->depth++;
	return true;
}

/*
 * Consumes the opening bracket `open` of a container (`what`: "an object"
 * or "an array", for a value of another type; `syntax`: "'{'" or "'['"
 * for malformed JSON).
 */
static bool json_open(stoat_json *j, char open, const char *what, const char *syntax)
{
	stoat_json_ws(j);
	if (j->p >= j->end || *j->p != open)
		return json_wrong_type(j, what, syntax);
	if (!json_enter(j))
		return false;
	j->p++;
	return true;
}

/* Consumes '{'. */
bool stoat_json_object_begin(stoat_json *j)
{
	return json_open(j, '{', "an object", "'{'");
}

/* Consumes '['. */
bool stoat_json_array_begin(stoat_json *j)
{
	return json_open(j, '[', "an array", "'['");
}

static inline bool json_string_at(stoat_json *j, stoat_str *out);

/*
 * Moves to the next member of an object: the name goes to *name and the
 * ':' is consumed, leaving the reader at the value.  Returns false after
 * consuming the closing '}', or on error (j->cx->error tells which).
 */
bool stoat_json_object_next(stoat_json *j, bool *first, stoat_str *name)
{
	stoat_json_ws(j);
	if (j->p >= j->end)
		return stoat_json_fail(j, *first ? "a string or '}'" : "',' or '}'");
	if (*j->p == '}') {
		assert(j->depth > 0);
		j->p++;
		j->depth--;
		return false;
	}
	if (!*first) {
		if (*j->p != ',')
			return stoat_json_fail(j, "',' or '}'");
		j->p++;
		stoat_json_ws(j);
	}
	if (j->p >= j->end || *j->p != '"')
		return stoat_json_fail(j, *first ? "a string or '}'" : "a string");
	if (!json_string_at(j, name))
		return false;
	/* The colon, usually right after the name (compact JSON). */
	if (j->p < j->end && *j->p == ':')
		j->p++;
	else if (!json_expect(j, ':', "':'"))
		return false;
	*first = false;
	return true;
}

/* Like stoat_json_object_next for arrays: leaves the reader at the next
 * element, or consumes ']' and returns false. */
bool stoat_json_array_next(stoat_json *j, bool *first)
{
	stoat_json_ws(j);
	if (j->p >= j->end)
		return stoat_json_fail(j, *first ? "a value or ']'" : "',' or ']'");
	if (*j->p == ']') {
		assert(j->depth > 0);
		j->p++;
		j->depth--;
		return false;
	}
	if (!*first) {
		if (*j->p != ',')
			return stoat_json_fail(j, "',' or ']'");
		j->p++;
	}
	*first = false;
	return true;
}

/* The value of one hex digit, or -1. */
static int hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads the 4 hex digits after "\u" at p (bounds already checked), or -1. */
static long hex4(const char *p)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hex_value((unsigned char)p[i]);
		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* Does the word hold a byte that is '"', '\\', below 0x20 or above 0x7f? */
static inline bool json_word_special(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t quote = x ^ (ones * '"');
	uint64_t backslash = x ^ (ones * '\\');
	uint64_t control = (x - ones * 0x20) & ~x;
	uint64_t has_quote = (quote - ones) & ~quote;
	uint64_t has_backslash = (backslash - ones) & ~backslash;
	return ((control | has_quote | has_backslash | x) & highs) != 0;
}

/*
 * The first byte in [p, end) that json_word_special would flag, or end.
 * With SSE2 (every x86-64) 32 and then 16 bytes a compare: a JSON text is
 * mostly string bodies (a ~1 KiB event spends most of its reading time
 * here), and a vector compare finds the end of a plain run about three
 * times faster than the 8-byte SWAR test, which is what other targets use.
 */
static inline const unsigned char *json_plain_run(const unsigned char *p, const unsigned char *end)
{
#if defined(__SSE2__)
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
	/* Special: a quote, a backslash, or below 0x20 as a signed byte (a
	 * control byte, or non-ASCII: 0x80-0xff are negative). */
#define JSON_SPECIAL(x)                                                                                      \
	_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8((x), quote), _mm_cmpeq_epi8((x), backslash)),              \
		     _mm_cmpgt_epi8(space, (x)))
	while (end - p >= 32) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
		unsigned mask = (unsigned)_mm_movemask_epi8(JSON_SPECIAL(a)) |
				(unsigned)_mm_movemask_epi8(JSON_SPECIAL(b)) << 16;
		if (mask)
			return p + __builtin_ctz(mask);
		p += 32;
	}
	if (end - p >= 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned mask = (unsigned)_mm_movemask_epi8(JSON_SPECIAL(a));
		if (mask)
			return p + __builtin_ctz(mask);
		p += 16;
	}
#undef JSON_SPECIAL
#endif
	while (end - p >= 8) {
		uint64_t x;
		memcpy(&x, p, sizeof x);
		if (json_word_special(x))
			break;
		p += 8;
	}
	while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	return p;
}

/*
 * Checks the string whose opening quote is at j->p and finds its end,
 * without decoding: every escape is well-formed (surrogates paired), no raw
 * control characters, the bytes are UTF-8.  The bytes before `from` are
 * known to be plain (json_scan_string looked at them).  On success j->p is
 * past the closing quote, *body_end at it, and *escaped says whether
 * decoding is needed.
 */
static bool json_scan_string_slow(stoat_json *j, const unsigned char *from, const char **body_end, bool *escaped)
{
	assert(j->p < j->end && *j->p == '"');
	const unsigned char *p = from;
	const unsigned char *end = (const unsigned char *)j->end;
	*escaped = false;
	for (;;) {
		/* Past the plain bytes: not a quote, a backslash, a control
		 * byte or a non-ASCII byte. */
		p = json_plain_run(p, end);
		if (p >= end) {
			j->p = (const char *)p;
			return stoat_json_fail(j, "'\"' to close the string");
		}
		if (*p == '"')
			break;
		if (*p < 0x20) {
			j->p = (const char *)p;
			return stoat_json_fail(j, "an escape sequence instead of a control character");
		}
		if (*p >= 0x80) {
			size_t n = stoat_utf8_sequence_len(p, (size_t)(end - p));
			if (n == 0) {
				j->p = (const char *)p;
				return stoat_json_fail(j, "valid UTF-8");
			}
			p += n;
			continue;
		}
		/* A backslash. */
		*escaped = true;
		const unsigned char *esc = p;
		if (p + 1 >= end) {
			j->p = (const char *)p;
			return stoat_json_fail(j, "an escape sequence");
		}
		switch (p[1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			p += 2;
			continue;
		case 'u':
			break;
		default:
			j->p = (const char *)p;
			return stoat_json_fail(j, "an escape sequence");
		}
		long cp = end - p >= 6 ? hex4((const char *)p + 2) : -1;
		if (cp < 0) {
			j->p = (const char *)esc;
			return stoat_json_fail(j, "four hex digits after \\u");
		}
		p += 6;
		if (cp >= 0xdc00 && cp <= 0xdfff) {
			j->p = (const char *)esc;
			return stoat_json_fail(j, "a high surrogate before a low surrogate");
		}
		if (cp >= 0xd800 && cp <= 0xdbff) {
			long lo = end - p >= 6 && p[0] == '\\' && p[1] == 'u' ? hex4((const char *)p + 2) : -1;
			if (lo < 0xdc00 || lo > 0xdfff) {
				j->p = (const char *)p;
				return stoat_json_fail(j, "a low surrogate (\\udc00-\\udfff) after a high surrogate");
			}
			p += 6;
		}
	}
	*body_end = (const char *)p;
	j->p = (const char *)p + 1;
	return true;
}

/*
 * json_scan_string_slow's result for the string at j->p.  Most strings are
 * short and plain (every member name, most values): with SSE2, one
 * 16-byte compare finds the closing quote of one under 16 bytes with
 * nothing to check, here, inline, without the call; the rest go on from
 * where this left off.
 */
static inline bool json_scan_string(stoat_json *j, const char **body_end, bool *escaped)
{
	assert(j->p < j->end && *j->p == '"');
	const unsigned char *p = (const unsigned char *)j->p + 1;
#if defined(__SSE2__)
	if ((const unsigned char *)j->end - p >= 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
							     _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
					       _mm_cmpgt_epi8(_mm_set1_epi8(0x20), x));
		unsigned mask = (unsigned)_mm_movemask_epi8(special);
		if (!mask)
			return json_scan_string_slow(j, p + 16, body_end, escaped);
		p += __builtin_ctz(mask);
		if (*p == '"') {
			*escaped = false;
			*body_end = (const char *)p;
			j->p = (const char *)p + 1;
			return true;
		}
	}
#endif
	return json_scan_string_slow(j, p, body_end, escaped);
}

/* Writes code point cp as UTF-8 at o; returns the bytes written. */
static size_t utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * Decodes the escaped string body [p, end), already validated by
 * json_scan_string, into the arena.  The result is never longer than the
 * escaped text, so one allocation of that size is enough.
 */
static stoat_str json_unescape(stoat_arena *a, const char *p, const char *end)
{
	size_t escaped_len = (size_t)(end - p);
	char *out = stoat_arena_alloc(a, escaped_len);
	char *o = out;
	while (p < end) {
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		char c = p[1];
		p += 2;
		switch (c) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			uint32_t cp = (uint32_t)hex4(p);
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				uint32_t lo = (uint32_t)hex4(p + 2);
				p += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			o += utf8_put(o, cp);
			break;
		}
		default: *o++ = c; break; /* " \ / */
		}
	}
	assert((size_t)(o - out) <= escaped_len);
	return (stoat_str){ out, (size_t)(o - out) };
}

/* Reads a string: a slice of the input, or decoded into the arena. */
/* The string whose opening quote is at j->p, decoded if it has escapes:
 * stoat_json_string's work once it has found the quote, inline in both it
 * and stoat_json_object_next (every member name). */
static inline bool json_string_at(stoat_json *j, stoat_str *out)
{
	const char *body = j->p + 1;
	const char *body_end;
	bool escaped;
	if (!json_scan_string(j, &body_end, &escaped))
		return false;
	if (escaped)
		*out = json_unescape(&j->cx->arena, body, body_end);
	else
		*out = (stoat_str){ body, (size_t)(body_end - body) };
	return true;
}

bool stoat_json_string(stoat_json *j, stoat_str *out)
{
	stoat_json_ws(j);
	if (j->p >= j->end || *j->p != '"')
		return json_wrong_type(j, "a string", "a string");
	return json_string_at(j, out);
}

/*
 * Checks the number grammar at j->p (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?)
 * and moves past it.  *integral tells whether it had neither fraction
 * nor exponent.
 */
static bool json_scan_number(stoat_json *j, bool *integral)
{
	const char *p = j->p;
	const char *end = j->end;
	*integral = true;
	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9') {
		if (p == j->p)
			return json_wrong_type(j, "a number", "a number");
		j->p = p;
		return stoat_json_fail(j, "a number");
	}
	if (*p == '0') {
		p++;
	} else {
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && *p == '.') {
		*integral = false;
		p++;
		if (p >= end || *p < '0' || *p > '9') {
			j->p = p;
			return stoat_json_fail(j, "a digit after '.'");
		}
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		*integral = false;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || *p < '0' || *p > '9') {
			j->p = p;
			return stoat_json_fail(j, "a digit in the exponent");
		}
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	j->p = p;
	return true;
}

/*
 * Reads an integer in [min, max] (an integer literal: no fraction or
 * exponent).  Accumulates negatively so INT64_MIN parses.
 */
static bool json_integer(stoat_json *j, int64_t min, int64_t max, const char *type, int64_t *out)
{
	stoat_json_ws(j);
	const char *start = j->p;
	/*
	 * The common case in one pass: -?[1-9][0-9]{0,17} or 0, followed by
	 * neither a fraction, an exponent nor another digit.  18 digits
	 * cannot overflow an int64_t; anything else (longer, a leading zero,
	 * not a number) takes the checked path below.
	 */
	{
		const char *p = start, *end = j->end;
		bool negative = p < end && *p == '-';
		p += negative;
		const char *digits = p;
		int64_t v = 0;
		while (p < end && p - digits < 18 && *p >= '0' && *p <= '9')
			v = v * 10 + (*p++ - '0');
		size_t n = (size_t)(p - digits);
		if (n > 0 && (n == 1 || *digits != '0') &&
		    (p >= end || ((*p < '0' || *p > '9') && *p != '.' && *p != 'e' && *p != 'E'))) {
			v = negative ? -v : v;
			if (v >= min && v <= max) {
				j->p = p;
				*out = v;
				return true;
			}
		}
	}
	char prefix[240];
	bool integral;
	if (!json_scan_number(j, &integral))
		return false;
	if (!integral) {
		/* Valid JSON, but not what the field's type takes. */
		stoat_error(j->cx, "%snumber %.*s at byte %zu is not an integer (%s expected)",
			    json_field_prefix(j, prefix, sizeof prefix), (int)(j->p - start > 32 ? 32 : j->p - start), start,
			    (size_t)(start - j->start), type);
		j->p = start;
		return false;
	}
	const char *p = start;
	bool negative = *p == '-';
	if (negative)
		p++;
	int64_t v = 0; /* minus the magnitude */
	for (; p < j->p; p++) {
		int digit = *p - '0';
		if (v < (INT64_MIN + digit) / 10) {
			v = INT64_MIN;
			goto out_of_range;
		}
		v = v * 10 - digit;
	}
	if (!negative) {
		if (v == INT64_MIN)
			goto out_of_range;
		v = -v;
	}
	if (v < min || v > max)
		goto out_of_range;
	*out = v;
	return true;
out_of_range:
	stoat_error(j->cx, "%snumber at byte %zu is out of range for %s", json_field_prefix(j, prefix, sizeof prefix),
		    (size_t)(start - j->start), type);
	j->p = start;
	return false;
}

/* Reads a JSON integer that fits in an i32. */
bool stoat_json_i32(stoat_json *j, int32_t *out)
{
	int64_t v = 0;
	if (!json_integer(j, INT32_MIN, INT32_MAX, "i32", &v))
		return false;
	*out = (int32_t)v;
	return true;
}

/* Reads a JSON integer that fits in an i64. */
bool stoat_json_i64(stoat_json *j, int64_t *out)
{
	return json_integer(j, INT64_MIN, INT64_MAX, "i64", out);
}

/*
 * Clinger's fast path: a decimal of at most 15 significant digits with a
 * power of ten up to 22 is m * 10^e or m / 10^e with both exact, and one
 * IEEE operation rounds correctly: the same double strtod gives.  The
 * text is a valid JSON number (json_scan_number checked it) shorter than
 * 64 bytes.
 */
double stoat_parse_f64(const char *text, size_t len, bool fast)
{
	char copy[64];
	assert(len < sizeof copy);
	if (fast) {
		const char *p = text, *end = text + len;
		bool negative = p < end && *p == '-';
		if (negative)
			p++;
		uint64_t m = 0;
		int digits = 0, scale = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (m || *p != '0')
				digits++;
			m = m * 10 + (uint64_t)(*p - '0');
			if (digits > 15)
				goto slow;
		}
		if (p < end && *p == '.') {
			for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
				if (m || *p != '0')
					digits++;
				m = m * 10 + (uint64_t)(*p - '0');
				scale--;
				if (digits > 15)
					goto slow;
			}
		}
		if (p < end && (*p == 'e' || *p == 'E')) {
			p++;
			bool eneg = p < end && *p == '-';
			if (p < end && (*p == '-' || *p == '+'))
				p++;
			int e = 0;
			for (; p < end && *p >= '0' && *p <= '9'; p++) {
				e = e * 10 + (*p - '0');
				if (e > 1000)
					goto slow;
			}
			scale += eneg ? -e : e;
		}
		if (p == end && scale >= -22 && scale <= 22) {
			static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
							1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
							1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
			double v = (double)m;
			v = scale >= 0 ? v * pow10[scale] : v / pow10[-scale];
			return negative ? -v : v;
		}
	}
slow:
	memcpy(copy, text, len);
	copy[len] = '\0';
	return strtod(copy, NULL);
}

/*
 * Reads any JSON number as a double.  strtod needs a terminated string, so
 * the token is copied (to the stack, or the arena if it is very long).
 * Numbers beyond the double range are errors, not infinities.
 */
bool stoat_json_f64(stoat_json *j, double *out)
{
	stoat_json_ws(j);
	const char *start = j->p;
	bool integral;
	if (!json_scan_number(j, &integral))
		return false;
	size_t len = (size_t)(j->p - start);
	double v;
	if (len < 64) {
		v = stoat_parse_f64(start, len, true);
	} else {
		char *copy = stoat_arena_alloc(&j->cx->arena, len + 1);
		memcpy(copy, start, len);
		copy[len] = '\0';
		v = strtod(copy, NULL);
	}
	if (!isfinite(v)) {
		char prefix[240];
		stoat_error(j->cx, "%snumber at byte %zu is out of range for f64", json_field_prefix(j, prefix, sizeof prefix),
			    (size_t)(start - j->start));
		j->p = start;
		return false;
	}
	*out = v;
	return true;
}

/* Reads true or false. */
bool stoat_json_bool(stoat_json *j, bool *out)
{
	stoat_json_ws(j);
	size_t left = (size_t)(j->end - j->p);
	if (left >= 4 && memcmp(j->p, "true", 4) == 0) {
		j->p += 4;
		*out = true;
		return true;
	}
	if (left >= 5 && memcmp(j->p, "false", 5) == 0) {
		j->p += 5;
		*out = false;
		return true;
	}
	return json_wrong_type(j, "true or false", "true or false");
}

/* Skips one value of any kind, validating it; recursion is bounded by the
 * nesting limit. */
bool stoat_json_skip(stoat_json *j)
{
	stoat_json_ws(j);
	if (j->p >= j->end)
		return stoat_json_fail(j, "a value");
	bool first = true;
	switch (*j->p) {
	case '{':
		/* Like stoat_json_object_next, but member names are only checked,
		 * never decoded: skipping allocates nothing. */
		if (!stoat_json_object_begin(j))
			return false;
		for (;;) {
			stoat_json_ws(j);
			if (j->p < j->end && *j->p == '}') {
				j->p++;
				j->depth--;
				return true;
			}
			if (!first && !json_expect(j, ',', "',' or '}'"))
				return false;
			stoat_json_ws(j);
			if (j->p >= j->end || *j->p != '"')
				return stoat_json_fail(j, first ? "a string or '}'" : "a string");
			const char *body_end;
			bool escaped;
			if (!json_scan_string(j, &body_end, &escaped))
				return false;
			if (!json_expect(j, ':', "':'"))
				return false;
			if (!stoat_json_skip(j))
				return false;
			first = false;
		}
	case '[':
		if (!stoat_json_array_begin(j))
			return false;
		for (;;) {
			stoat_json_ws(j);
			if (j->p < j->end && *j->p == ']') {
				j->p++;
				j->depth--;
				return true;
			}
			if (!first && !json_expect(j, ',', "',' or ']'"))
				return false;
			if (!stoat_json_skip(j))
				return false;
			first = false;
		}
	case '"': {
		const char *body_end;
		bool escaped;
		return json_scan_string(j, &body_end, &escaped);
	}
	case 't':
	case 'f': {
		bool b;
		return stoat_json_bool(j, &b);
	}
	case 'n':
		if (stoat_json_null(j))
			return true;
		return stoat_json_fail(j, "a value");
	default: {
		if (*j->p != '-' && (*j->p < '0' || *j->p > '9'))
			return stoat_json_fail(j, "a value");
		bool integral;
		return json_scan_number(j, &integral);
	}
	}
}

/* Succeeds when nothing but whitespace is left. */
bool stoat_json_end(stoat_json *j)
{
	stoat_json_ws(j);
	if (j->p != j->end)
		return stoat_json_fail(j, "the end of the input");
	return true;
}
