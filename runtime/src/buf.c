/*
 * buf.c - the growable output buffer generated encoders write into, and the
 * number and string formatting they use.
 */
#include "util.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* An empty buffer; the first write mallocs. */
void stoat_buf_init(stoat_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

/* Frees the buffer's memory and leaves it empty and reusable. */
void stoat_buf_free(stoat_buf *b)
{
	free(b->data);
	stoat_buf_init(b);
}

/*
 * Makes room for `extra` more bytes, at least doubling the capacity so a
 * task reaches its steady-state size after a few records.
 */
void stoat_buf_reserve_slow(stoat_buf *b, size_t extra)
{
	assert(b->len <= b->cap);
	if (extra > SIZE_MAX / 4 - b->len) {
		stoat_out_of_memory("an output buffer too large", extra);
	}
	size_t need = b->len + extra;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	b->data = stoat_xrealloc(b->data, cap, 1);
	b->cap = cap;
}

/* Writes v in decimal; INT64_MIN is handled by working in unsigned. */
void stoat_buf_put_i64(stoat_buf *b, int64_t v)
{
	char tmp[20];
	size_t n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	stoat_buf_reserve(b, n + 1);
	if (v < 0)
		b->data[b->len++] = '-';
	memcpy(b->data + b->len, tmp + sizeof(tmp) - n, n);
	b->len += n;
}

/*
 * Writes the shortest decimal that parses back to v, laid out as JSON and
 * JavaScript do: plain notation for 1e-6 <= |v| < 1e21 (always with a
 * fraction, "1.0"), exponent notation ("1e21", "1e-7", "1.5e-7") otherwise:
 * ECMAScript's Number::toString rule (decimal exponent from -6 to 20).
 *
 * Shortest digits: if any precision up to 15 round-trips, %.15e does too
 * and shows the same digits once trailing zeros are dropped (every decimal
 * of at most 15 digits survives a trip through a double), so trying 15, 16
 * and 17 digits in turn finds the shortest.  Subnormals have fewer
 * significant bits, so for them every precision from 1 up is tried.
 */
/* Powers of ten that doubles hold exactly. */
static const double exact_pow10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/*
 * The fast path of stoat_format_f64's digits, for the common case of a
 * value with at most 15 significant digits between 1e-7 and 1e15: the
 * first k (fewest digits) for which some integer m next to v * 10^k gives
 * m / 10^k == v.  Both operands are exact and IEEE division rounds
 * correctly, so that test is "the decimal m * 10^-k parses back to v"; and
 * at most one decimal of 15 or fewer digits parses to a given double, so
 * this finds the same digits as the slow path.  Writes digits (no
 * trailing zeros) and the decimal exponent; false when it does not apply.
 */
static bool shortest_digits_fast(double v, char *digits, int *ndigits, int *exponent)
{
	double a = fabs(v);
	if (!(a >= 1e-7 && a < 1e15))
		return false;
	for (int k = 0; k <= 22; k++) {
		double scaled = a * exact_pow10[k];
		if (scaled >= 1e15)
			return false; /* 16 digits or more: the slow path */
		double base = floor(scaled + 0.5);
		for (int d = -1; d <= 1; d++) {
			double m = base + d;
			if (m < 1 || m / exact_pow10[k] != a)
				continue;
			char tmp[24];
			int n = 0;
			for (uint64_t u = (uint64_t)m; u; u /= 10)
				tmp[n++] = (char)('0' + u % 10);
			*exponent = n - 1 - k;
			*ndigits = 0;
			for (int i = n - 1; i >= 0; i--)
				digits[(*ndigits)++] = tmp[i];
			while (*ndigits > 1 && digits[*ndigits - 1] == '0')
				(*ndigits)--;
			return true;
		}
	}
	return false;
}

/* The slow path: printf's correctly rounded digits, shortest that round-trip. */
static void shortest_digits_slow(double v, char *digits, int *ndigits, int *exponent)
{
	char tmp[40];
	int precision;
	for (precision = fabs(v) < DBL_MIN ? 1 : 15; precision < 17; precision++) {
		snprintf(tmp, sizeof(tmp), "%.*e", precision - 1, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	if (precision == 17)
		snprintf(tmp, sizeof(tmp), "%.*e", precision - 1, v);
	/* Split "-d.ddde+XX" into digits (no trailing zeros) and exponent. */
	const char *p = tmp;
	if (*p == '-')
		p++;
	*ndigits = 0;
	for (; *p != 'e'; p++) {
		if (*p != '.')
			digits[(*ndigits)++] = *p;
	}
	*exponent = atoi(p + 1);
	while (*ndigits > 1 && digits[*ndigits - 1] == '0')
		(*ndigits)--;
}

/* The shortest JSON number for v, with the fast path (see below). */
size_t stoat_format_f64(char *out, double v)
{
	return stoat_format_f64_with(out, v, true);
}

/* stoat_format_f64, with the fast path or (for tests) without it. */
size_t stoat_format_f64_with(char *out, double v, bool fast)
{
	if (!isfinite(v))
		return 0;
	bool negative = signbit(v); /* -0.0 prints as "-0.0", as before */
	char digits[24] = { 0 };
	int ndigits = 0, exponent = 0;
	if (v == 0) {
		digits[0] = '0';
		ndigits = 1;
	} else if (!fast || !shortest_digits_fast(v, digits, &ndigits, &exponent)) {
		shortest_digits_slow(v, digits, &ndigits, &exponent);
	}
	assert(ndigits >= 1 && ndigits <= 17);

	char *o = out;
	if (negative)
		*o++ = '-';
	if (exponent >= 21 || exponent < -6) {
		*o++ = digits[0];
		if (ndigits > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, (size_t)ndigits - 1);
			o += ndigits - 1;
		}
		o += sprintf(o, "e%d", exponent);
	} else if (exponent >= 0) {
		int int_digits = exponent + 1;
		for (int i = 0; i < int_digits; i++)
			*o++ = i < ndigits ? digits[i] : '0';
		*o++ = '.';
		if (ndigits > int_digits) {
			memcpy(o, digits + int_digits, (size_t)(ndigits - int_digits));
			o += ndigits - int_digits;
		} else {
			*o++ = '0';
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -exponent - 1; i++)
			*o++ = '0';
		memcpy(o, digits, (size_t)ndigits);
		o += ndigits;
	}
	return (size_t)(o - out);
}

/* Writes v as a JSON number; false (nothing written) for NaN and inf. */
bool stoat_buf_put_f64(stoat_buf *b, double v)
{
	stoat_buf_reserve(b, 32);
	size_t n = stoat_format_f64(b->data + b->len, v);
	b->len += n;
	return n != 0;
}

/*
 * Writes s as a JSON string literal.  Bytes >= 0x80 pass through (the
 * caller decides what to do with invalid UTF-8); ", \ and control bytes are
 * escaped.  Runs of plain bytes are copied in one go.
 */
void stoat_buf_put_json_str(stoat_buf *b, stoat_str s)
{
	static const char hex[] = "0123456789abcdef";
	stoat_buf_reserve(b, s.len + 2);
	b->data[b->len++] = '"';
	const unsigned char *p = (const unsigned char *)s.ptr;
	size_t run = 0;
	for (size_t i = 0; i < s.len; i++) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
			continue;
		if (c >= 0x80) {
			/*
			 * Valid UTF-8 passes through; anything else becomes U+FFFD,
			 * as a Java StringDeserializer would have made it, so the
			 * output is always valid JSON.
			 */
			size_t n = stoat_utf8_sequence_len(p + i, s.len - i);
			if (n > 0) {
				i += n - 1;
				continue;
			}
			stoat_buf_put(b, p + run, i - run);
			run = i + 1;
			stoat_buf_lit(b, "\\ufffd");
			continue;
		}
		stoat_buf_put(b, p + run, i - run);
		run = i + 1;
		char esc[6] = { '\\', 0, 0, 0, 0, 0 };
		size_t n = 2;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\t': esc[1] = 't'; break;
		case '\r': esc[1] = 'r'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
			break;
		}
		stoat_buf_put(b, esc, n);
	}
	stoat_buf_put(b, p + run, s.len - run);
	stoat_buf_putc(b, '"');
}

/* Kafka's IntegerSerializer: 4 bytes, most significant first. */
void stoat_buf_put_be32(stoat_buf *b, int32_t v)
{
	uint32_t u = (uint32_t)v;
	unsigned char out[4] = { (unsigned char)(u >> 24), (unsigned char)(u >> 16),
				 (unsigned char)(u >> 8), (unsigned char)u };
	stoat_buf_put(b, out, 4);
}

/* Appends the 8 bytes of u, most significant first. */
static void buf_put_be_u64(stoat_buf *b, uint64_t u)
{
	unsigned char out[8];
	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char)(u >> (56 - 8 * i));
	stoat_buf_put(b, out, 8);
}

/* Kafka's LongSerializer: 8 bytes, most significant first. */
void stoat_buf_put_be64(stoat_buf *b, int64_t v)
{
	buf_put_be_u64(b, (uint64_t)v);
}

/* Kafka's DoubleSerializer: the IEEE 754 bits, big-endian. */
void stoat_buf_put_be_f64(stoat_buf *b, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	buf_put_be_u64(b, bits);
}
