/*
 * encoding.c - byte-level helpers: Kafka's murmur2 partitioner hash,
 * base64 and UTF-8 validation.
 */
#include "util.h"

#include <assert.h>

/*
 * Kafka's org.apache.kafka.common.utils.Utils.murmur2, bit for bit, so the
 * replay driver (and later the producer) put a key in the partition a Java
 * client would.  Java ints wrap, so the arithmetic is done in uint32_t.
 */
int32_t stoat_murmur2(const void *data, size_t len)
{
	const unsigned char *p = data;
	const uint32_t seed = 0x9747b28cu;
	const uint32_t m = 0x5bd1e995u;
	const int r = 24;
	uint32_t h = seed ^ (uint32_t)len;
	size_t len4 = len / 4;
	for (size_t i = 0; i < len4; i++) {
		const unsigned char *q = p + i * 4;
		uint32_t k = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
			     (uint32_t)q[3] << 24;
		k *= m;
		k ^= k >> r;
		k *= m;
		h *= m;
		h ^= k;
	}
	const unsigned char *tail = p + (len & ~(size_t)3);
	switch (len % 4) {
	case 3:
		h ^= (uint32_t)tail[2] << 16;
		/* fall through */
	case 2:
		h ^= (uint32_t)tail[1] << 8;
		/* fall through */
	case 1:
		h ^= (uint32_t)tail[0];
		h *= m;
	}
	h ^= h >> 13;
	h *= m;
	h ^= h >> 15;
	int32_t out;
	memcpy(&out, &h, sizeof out);
	return out;
}

/* Kafka's BuiltInPartitioner.partitionForKey for serialized key bytes. */
int32_t stoat_partition_for_key(stoat_str key, int32_t partitions)
{
	assert(partitions > 0);
	uint32_t positive = (uint32_t)stoat_murmur2(key.ptr, key.len) & 0x7fffffffu;
	return (int32_t)(positive % (uint32_t)partitions);
}

static const char base64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Appends the padded base64 encoding of s. */
void stoat_base64_encode(stoat_buf *b, stoat_str s)
{
	if (s.len == 0)
		return;
	const unsigned char *p = (const unsigned char *)s.ptr;
	stoat_buf_reserve(b, stoat_base64_encoded_len(s.len));
	char *o = b->data + b->len;
	size_t i = 0;
	for (; i + 3 <= s.len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = base64_alphabet[v >> 18];
		*o++ = base64_alphabet[(v >> 12) & 63];
		*o++ = base64_alphabet[(v >> 6) & 63];
		*o++ = base64_alphabet[v & 63];
	}
	if (i < s.len) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < s.len)
			v |= (uint32_t)p[i + 1] << 8;
		*o++ = base64_alphabet[v >> 18];
		*o++ = base64_alphabet[(v >> 12) & 63];
		*o++ = i + 1 < s.len ? base64_alphabet[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	b->len = (size_t)(o - b->data);
}

/* The 6-bit value of a base64 character, or -1. */
static int base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Decodes standard base64.  Padding may be left out, but if present it must
 * complete the last group; a group of one character is impossible.
 */
bool stoat_base64_decode(stoat_str in, char *out, size_t *out_len)
{
	const unsigned char *p = (const unsigned char *)in.ptr;
	size_t n = in.len;
	if (n % 4 == 0 && n >= 2 && p[n - 1] == '=')
		n -= p[n - 2] == '=' ? 2 : 1;
	if (n % 4 == 1)
		return false;
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = base64_value(p[i]);
		if (v < 0)
			return false;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	/* Leftover bits must be zero, as a canonical encoder writes them. */
	if (bits > 0 && (acc & ((1u << bits) - 1)) != 0)
		return false;
	*out_len = o;
	return true;
}

/*
 * The length of the UTF-8 sequence at p, checked per RFC 3629 (the table
 * in its section 4): no overlong forms, no surrogates, nothing above
 * U+10FFFF.  Returns 0 when malformed.
 */
size_t stoat_utf8_sequence_len(const unsigned char *p, size_t avail)
{
	assert(avail > 0);
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++) {
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	}
	return n;
}

/* True when every byte of s belongs to a well-formed UTF-8 sequence. */
bool stoat_utf8_valid(stoat_str s)
{
	const unsigned char *p = (const unsigned char *)s.ptr;
	size_t i = 0;
	while (i < s.len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t n = stoat_utf8_sequence_len(p + i, s.len - i);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}
