/*
 * stoat/avro.h - Avro's binary encoding, the pieces generated serdes
 * compose (https://avro.apache.org/docs/current/specification/, "Binary
 * Encoding").
 *
 * int and long are zigzag varints; float and double 4 and 8 bytes of
 * IEEE 754, little-endian; boolean one byte, 0 or 1; bytes and string a
 * long length, then the bytes; a union the branch index as a long, then
 * the value; an enum the symbol's index as an int; fixed its bytes; an
 * array or a map a series of blocks, each a long count and that many
 * items (a negative count: -count items, preceded by the block's size in
 * bytes), ended by a block of count 0.  A record is its fields in order,
 * nothing else.
 *
 * Writers append to a stoat_buf.  Readers take a cursor over the message
 * and return false, recording nothing and leaving the cursor where the
 * item began, when the bytes are cut short or cannot be a valid encoding
 * (a varint over 10 bytes, a boolean byte other than 0 and 1, a negative
 * length, an int out of range); the generated decoder reports the error.  Strings and bytes are slices of
 * the message, never copies.  Everything is static inline: it is the
 * per-record path.
 */
#ifndef STOAT_AVRO_H
#define STOAT_AVRO_H

#include <stoat/runtime.h>

#include <inttypes.h> /* PRId64, in the generated writers' messages */
#include <stdint.h>
#include <string.h>

/* ---- writing -------------------------------------------------------- */

static inline void stoat_avro_put_long(stoat_buf *b, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
	char bytes[10];
	size_t n = 0;
	while (u >= 0x80) {
		bytes[n++] = (char)(u | 0x80);
		u >>= 7;
	}
	bytes[n++] = (char)u;
	stoat_buf_put(b, bytes, n);
}

static inline void stoat_avro_put_int(stoat_buf *b, int32_t v)
{
	stoat_avro_put_long(b, v);
}

static inline void stoat_avro_put_bool(stoat_buf *b, bool v)
{
	stoat_buf_putc(b, v ? 1 : 0);
}

static inline void stoat_avro_put_double(stoat_buf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	char bytes[8];
	for (int i = 0; i < 8; i++)
		bytes[i] = (char)(u >> (8 * i));
	stoat_buf_put(b, bytes, 8);
}

/* A float on the wire: v rounded to the nearest float. */
static inline void stoat_avro_put_float(stoat_buf *b, double v)
{
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	char bytes[4];
	for (int i = 0; i < 4; i++)
		bytes[i] = (char)(u >> (8 * i));
	stoat_buf_put(b, bytes, 4);
}

/* string and bytes: the length, then the bytes. */
static inline void stoat_avro_put_str(stoat_buf *b, stoat_str s)
{
	stoat_avro_put_long(b, (int64_t)s.len);
	stoat_buf_put(b, s.ptr, s.len);
}

/* fixed: the bytes alone (the caller checked their number). */
static inline void stoat_avro_put_fixed(stoat_buf *b, stoat_str s)
{
	stoat_buf_put(b, s.ptr, s.len);
}

/* An array's or a map's items as one block: the count before them (none for no items). */
static inline void stoat_avro_put_block(stoat_buf *b, size_t count)
{
	if (count > 0)
		stoat_avro_put_long(b, (int64_t)count);
}

/* The end of an array or a map: a block of 0 items. */
static inline void stoat_avro_put_end(stoat_buf *b)
{
	stoat_buf_putc(b, 0);
}

/* ---- reading -------------------------------------------------------- */

typedef struct stoat_avro_reader {
	const char *p;
	const char *end;
	const char *start; /* for the offset in messages */
} stoat_avro_reader;

static inline stoat_avro_reader stoat_avro_reader_of(stoat_str s)
{
	stoat_avro_reader r = { s.ptr, s.ptr ? s.ptr + s.len : s.ptr, s.ptr };
	return r;
}

/*
 * Reports that the bytes at the reader are no valid encoding of where (a
 * field's path, say) for the compiled schema, with the byte offset;
 * returns false, for `return stoat_avro_malformed(...)`.
 */
bool stoat_avro_malformed(stoat_ctx *cx, const stoat_avro_reader *r, const char *where);

/* True when every byte was read. */
static inline bool stoat_avro_end(const stoat_avro_reader *r)
{
	return r->p == r->end;
}

static inline bool stoat_avro_get_long(stoat_avro_reader *r, int64_t *out)
{
	uint64_t u = 0;
	const char *p = r->p;
	for (int shift = 0; shift < 64; shift += 7) {
		if (p == r->end)
			return false;
		unsigned char c = (unsigned char)*p++;
		if (shift == 63 && c > 1)
			return false; /* more than 64 bits */
		u |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
			r->p = p;
			return true;
		}
	}
	return false;
}

static inline bool stoat_avro_get_int(stoat_avro_reader *r, int32_t *out)
{
	int64_t v;
	const char *at = r->p;
	if (!stoat_avro_get_long(r, &v))
		return false;
	if (v < INT32_MIN || v > INT32_MAX) {
		r->p = at;
		return false;
	}
	*out = (int32_t)v;
	return true;
}

static inline bool stoat_avro_get_bool(stoat_avro_reader *r, bool *out)
{
	if (r->p == r->end || (unsigned char)*r->p > 1)
		return false;
	*out = *r->p++ == 1;
	return true;
}

static inline bool stoat_avro_get_double(stoat_avro_reader *r, double *out)
{
	if (r->end - r->p < 8)
		return false;
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)(unsigned char)r->p[i] << (8 * i);
	r->p += 8;
	memcpy(out, &u, sizeof u);
	return true;
}

/* A float, widened to a double (exactly). */
static inline bool stoat_avro_get_float(stoat_avro_reader *r, double *out)
{
	if (r->end - r->p < 4)
		return false;
	uint32_t u = 0;
	for (int i = 0; i < 4; i++)
		u |= (uint32_t)(unsigned char)r->p[i] << (8 * i);
	r->p += 4;
	float f;
	memcpy(&f, &u, sizeof f);
	*out = f;
	return true;
}

/* string and bytes: a slice of the message. */
static inline bool stoat_avro_get_str(stoat_avro_reader *r, stoat_str *out)
{
	int64_t n;
	const char *at = r->p;
	if (!stoat_avro_get_long(r, &n))
		return false;
	if (n < 0 || (uint64_t)n > (uint64_t)(r->end - r->p)) {
		r->p = at;
		return false;
	}
	out->ptr = r->p;
	out->len = (size_t)n;
	r->p += n;
	return true;
}

/* fixed: size bytes, a slice of the message. */
static inline bool stoat_avro_get_fixed(stoat_avro_reader *r, size_t size, stoat_str *out)
{
	if ((size_t)(r->end - r->p) < size)
		return false;
	out->ptr = r->p;
	out->len = size;
	r->p += size;
	return true;
}

/* A union's branch or an enum's symbol: an index below n. */
static inline bool stoat_avro_get_index(stoat_avro_reader *r, int n, int *out)
{
	int64_t v;
	const char *at = r->p;
	if (!stoat_avro_get_long(r, &v))
		return false;
	if (v < 0 || v >= n) {
		r->p = at;
		return false;
	}
	*out = (int)v;
	return true;
}

/*
 * The next block of an array or a map: its item count (0 at the end).  A
 * negative count (-count items) comes with the block's size in bytes,
 * read and checked against what is left.  A count above max_items is
 * refused: the caller passes how many items the bytes left could hold
 * (one per byte for items that take a byte at least), so that a hostile
 * count cannot make the decoder allocate without bound.
 */
static inline bool stoat_avro_get_block(stoat_avro_reader *r, size_t max_items, size_t *count)
{
	int64_t n;
	const char *at = r->p;
	if (!stoat_avro_get_long(r, &n))
		return false;
	bool ok = true;
	if (n < 0) {
		int64_t size;
		ok = n != INT64_MIN && stoat_avro_get_long(r, &size) && size >= 0 &&
		     (uint64_t)size <= (uint64_t)(r->end - r->p);
		n = -n;
	}
	if (!ok || (uint64_t)n > max_items) {
		r->p = at;
		return false;
	}
	*count = (size_t)n;
	return true;
}

/* ---- logical types ---------------------------------------------------- */

/* Microseconds to milliseconds, rounding down (toward the past). */
static inline int64_t stoat_avro_micros_to_millis(int64_t us)
{
	return us / 1000 - (us % 1000 < 0);
}

/* Milliseconds to microseconds; false when the result does not fit a long. */
static inline bool stoat_avro_millis_to_micros(int64_t ms, int64_t *us)
{
	return !__builtin_mul_overflow(ms, (int64_t)1000, us);
}

/* A date (days since the epoch) as the timestamp of its 00:00 UTC. */
static inline int64_t stoat_avro_days_to_millis(int32_t days)
{
	return (int64_t)days * 86400000;
}

/* A timestamp's day (rounding down); false when it does not fit an int. */
static inline bool stoat_avro_millis_to_days(int64_t ms, int32_t *days)
{
	int64_t d = ms / 86400000 - (ms % 86400000 < 0);
	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*days = (int32_t)d;
	return true;
}

/* ---- Confluent's wire format (format avro) ---------------------------- */

/*
 * A frame: the byte 0, the schema's registry id (4 bytes, big-endian),
 * then the Avro binary of the value.  Writers put the sink's id
 * (stoat_avro_sink_id); readers take it off, after checking the id.
 */
static inline void stoat_avro_put_frame(stoat_buf *b, int32_t id)
{
	uint32_t u = (uint32_t)id;
	char frame[5] = { 0, (char)(u >> 24), (char)(u >> 16), (char)(u >> 8), (char)u };
	stoat_buf_put(b, frame, sizeof frame);
}

/*
 * The writer schemas a format-avro decoder has met, in a static of the
 * decoder's own (one per compiled reader schema): reader_schema is the
 * compiled schema's JSON; same_id, once has_same, the last id found to
 * stand for that schema (the fast path); state the runtime's record of
 * every id met so far.
 */
typedef struct stoat_avro_writers {
	const char *reader_schema;
	bool has_same;
	int32_t same_id;
	void *state;
} stoat_avro_writers;

/*
 * The slow path of stoat_avro_unframe: whether id (new to w, or not the
 * same) stands for a schema this decoder reads; asks the registry once
 * per id.  False with the error recorded for what ("key", "value").
 */
bool stoat_avro_check_writer(stoat_ctx *cx, stoat_avro_writers *w, int32_t id, const char *what);

/* Records that bytes are no frame (too short, another magic byte); returns false. */
bool stoat_avro_bad_frame(stoat_ctx *cx, stoat_str bytes, const char *what);

/*
 * Takes the frame off *bytes (leaving the Avro binary), after checking
 * that its id stands for the schema w reads; false with the error
 * recorded.
 */
static inline bool stoat_avro_unframe(stoat_ctx *cx, stoat_avro_writers *w, stoat_str *bytes, const char *what)
{
	if (STOAT_UNLIKELY(bytes->len < 5 || bytes->ptr[0] != 0))
		return stoat_avro_bad_frame(cx, *bytes, what);
	const unsigned char *p = (const unsigned char *)bytes->ptr;
	int32_t id = (int32_t)((uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | (uint32_t)p[4]);
	if (STOAT_UNLIKELY(!w->has_same || id != w->same_id) && !stoat_avro_check_writer(cx, w, id, what))
		return false;
	bytes->ptr += 5;
	bytes->len -= 5;
	return true;
}

/*
 * The registry id sink number sink writes its key's (key) or value's
 * schema under, for topic (ptr NULL: the sink's own topic, settled at the
 * start); -1 with the error recorded when the registry refuses the
 * subject.
 */
int32_t stoat_avro_sink_id(stoat_ctx *cx, int sink, bool key, stoat_str topic);

#endif
