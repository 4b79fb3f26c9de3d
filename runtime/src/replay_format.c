/*
 * replay_format.c - the replay format (docs/replay-format.md): writing a
 * record as one JSON line (the replay driver's output and `dump`), and
 * parsing an input line (an envelope) into the record a Kafka consumer
 * would have received (the replay driver's input and `load`).
 */
#include "replay.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* True when bytes form exactly one JSON value (whitespace around allowed). */
static bool json_valid(stoat_ctx *check_cx, stoat_str bytes)
{
	stoat_json j;
	check_cx->error = false;
	stoat_json_init(&j, check_cx, bytes);
	bool ok = stoat_json_skip(&j) && stoat_json_end(&j);
	check_cx->error = false;
	stoat_arena_reset(&check_cx->arena);
	return ok;
}

/* Writes ,"<field>_base64":"..." for bytes JSON cannot show as they are. */
static void put_base64_field(stoat_buf *b, const char *field, stoat_str bytes)
{
	stoat_buf_lit(b, ",\"");
	stoat_buf_put(b, field, strlen(field));
	stoat_buf_lit(b, "_base64\":\"");
	stoat_base64_encode(b, bytes);
	stoat_buf_putc(b, '"');
}

/* Writes ,"<field>":<JSON string>, or the base64 field if not UTF-8. */
static void put_string_field(stoat_buf *b, const char *field, stoat_str bytes)
{
	if (!stoat_utf8_valid(bytes)) {
		put_base64_field(b, field, bytes);
		return;
	}
	stoat_buf_lit(b, ",\"");
	stoat_buf_put(b, field, strlen(field));
	stoat_buf_lit(b, "\":");
	stoat_buf_put_json_str(b, bytes);
}

/* Writes ,"<field>": and returns the buffer for the value. */
static void put_field_name(stoat_buf *b, const char *field)
{
	stoat_buf_lit(b, ",\"");
	stoat_buf_put(b, field, strlen(field));
	stoat_buf_lit(b, "\":");
}

/*
 * Writes a key or value as its sink format presents it: JSON text embedded
 * raw, numbers decoded, text as a string.  Bytes that do not fit their
 * format (wrong length, invalid JSON or UTF-8) are written so that nothing
 * is lost: as a string when UTF-8, else as "<field>_base64".
 */
static void put_payload(stoat_buf *b, stoat_ctx *check_cx, const char *field, stoat_format format,
			stoat_str bytes)
{
	if (bytes.ptr == NULL) {
		put_field_name(b, field);
		stoat_buf_lit(b, "null");
		return;
	}
	switch (format) {
	case STOAT_FMT_TEXT:
	case STOAT_FMT_BYTES:
		put_string_field(b, field, bytes);
		return;
	case STOAT_FMT_JSON:
		if (!json_valid(check_cx, bytes))
			break;
		put_field_name(b, field);
		/* Newlines can only be whitespace in valid JSON; keep one line. */
		if (memchr(bytes.ptr, '\n', bytes.len) || memchr(bytes.ptr, '\r', bytes.len)) {
			stoat_buf_reserve(b, bytes.len);
			for (size_t i = 0; i < bytes.len; i++) {
				char c = bytes.ptr[i];
				b->data[b->len++] = c == '\n' || c == '\r' ? ' ' : c;
			}
		} else {
			stoat_buf_put(b, bytes.ptr, bytes.len);
		}
		return;
	case STOAT_FMT_I32:
		if (bytes.len != 4)
			break;
		{
			int32_t v;
			bool ok = stoat_decode_be32(check_cx, bytes, &v);
			assert(ok);
			(void)ok;
			put_field_name(b, field);
			stoat_buf_put_i64(b, v);
		}
		return;
	case STOAT_FMT_I64:
		if (bytes.len != 8)
			break;
		{
			int64_t v;
			bool ok = stoat_decode_be64(check_cx, bytes, &v);
			assert(ok);
			(void)ok;
			put_field_name(b, field);
			stoat_buf_put_i64(b, v);
		}
		return;
	case STOAT_FMT_F64:
		if (bytes.len != 8)
			break;
		{
			double v;
			char text[32];
			bool ok = stoat_decode_be_f64(check_cx, bytes, &v);
			assert(ok);
			(void)ok;
			size_t n = stoat_format_f64(text, v);
			if (n == 0)
				break; /* NaN or infinity */
			put_field_name(b, field);
			stoat_buf_put(b, text, n);
		}
		return;
	case STOAT_FMT_AVRO_RAW:
	case STOAT_FMT_AVRO:
		break; /* binary: below, as <field>_base64 (or a string when it happens to be UTF-8) */
	}
	put_string_field(b, field, bytes);
}

/* A record line's head (see replay.h). */
void stoat_format_record_head(stoat_buf *b, stoat_str topic, int32_t partition, int64_t offset, int64_t timestamp)
{
	stoat_buf_lit(b, "{\"topic\":");
	stoat_buf_put_json_str(b, topic);
	stoat_buf_lit(b, ",\"partition\":");
	stoat_buf_put_i64(b, partition);
	stoat_buf_lit(b, ",\"offset\":");
	stoat_buf_put_i64(b, offset);
	stoat_buf_lit(b, ",\"timestamp\":");
	stoat_buf_put_i64(b, timestamp);
}

/*
 * Appends one record as a replay-format JSON line: topic, partition,
 * offset, timestamp, key, value (presented by their formats), then the
 * headers and the extra headers, if any.
 */
void stoat_format_record_line(stoat_buf *b, stoat_ctx *check_cx, stoat_str topic, int32_t partition,
			      int64_t offset, int64_t timestamp, stoat_format key_format, stoat_str key,
			      stoat_format value_format, stoat_str value, const stoat_header *headers,
			      size_t header_count, const stoat_header *extra, size_t extra_count)
{
	stoat_format_record_head(b, topic, partition, offset, timestamp);
	put_payload(b, check_cx, "key", key_format, key);
	put_payload(b, check_cx, "value", value_format, value);
	if (header_count + extra_count) {
		stoat_buf_lit(b, ",\"headers\":{");
		for (size_t i = 0; i < header_count + extra_count; i++) {
			const stoat_header *h = i < header_count ? &headers[i] : &extra[i - header_count];
			if (i)
				stoat_buf_putc(b, ',');
			stoat_buf_put_json_str(b, h->key);
			stoat_buf_putc(b, ':');
			if (h->value.ptr)
				stoat_buf_put_json_str(b, h->value);
			else
				stoat_buf_lit(b, "null");
		}
		stoat_buf_putc(b, '}');
	}
	stoat_buf_lit(b, "}\n");
}

/* The envelope fields, as bits for duplicate detection. */
enum {
	F_TOPIC = 1 << 0,
	F_PARTITION = 1 << 1,
	F_OFFSET = 1 << 2,
	F_TIMESTAMP = 1 << 3,
	F_KEY = 1 << 4,
	F_VALUE = 1 << 5,
	F_KEY_BASE64 = 1 << 6,
	F_VALUE_BASE64 = 1 << 7,
	F_HEADERS = 1 << 8,
};

/* Where a key or value was found in the line, before its topic is known. */
typedef struct payload_span {
	const char *at; /* start of the JSON value; NULL: not given */
	const char *end; /* just past the JSON value */
	stoat_str base64_bytes; /* decoded "<field>_base64", if that was given */
	bool from_base64;
} payload_span;

/* Reads "<field>_base64": a base64 string (or null) decoded into the arena. */
static bool parse_base64_field(stoat_json *j, const char *field, payload_span *span)
{
	span->from_base64 = true;
	if (stoat_json_null(j)) {
		span->base64_bytes = (stoat_str){ NULL, 0 };
		return true;
	}
	stoat_str text;
	if (!stoat_json_string(j, &text))
		return false;
	char *out = stoat_arena_alloc(&j->cx->arena, text.len / 4 * 3 + 3);
	size_t n;
	if (!stoat_base64_decode(text, out, &n)) {
		stoat_error(j->cx, "\"%s_base64\" is not valid base64", field);
		return false;
	}
	span->base64_bytes = (stoat_str){ out, n };
	return true;
}

/*
 * Turns the JSON value of "key" or "value" into the bytes a Kafka record
 * would hold, per the reading source's format: null stays null, a string
 * is its UTF-8 bytes, JSON format takes other values' raw text, numeric
 * formats encode numbers big-endian.
 */
static bool convert_payload(stoat_ctx *pcx, stoat_str line, const char *field, stoat_format format,
			    const payload_span *span, stoat_str *out)
{
	if (span->from_base64) {
		*out = span->base64_bytes;
		return true;
	}
	if (span->at == NULL) {
		*out = (stoat_str){ NULL, 0 };
		return true;
	}
	stoat_json j;
	stoat_json_init(&j, pcx, line);
	j.p = span->at;
	if (stoat_json_null(&j)) {
		*out = (stoat_str){ NULL, 0 };
		return true;
	}
	if (*j.p == '"')
		return stoat_json_string(&j, out);
	bool is_number = *j.p == '-' || (*j.p >= '0' && *j.p <= '9');
	switch (format) {
	case STOAT_FMT_JSON:
		/* The envelope parser skipped (and so validated) the value already. */
		assert(span->end && span->end >= j.p);
		*out = (stoat_str){ j.p, (size_t)(span->end - j.p) };
		return true;
	case STOAT_FMT_I32:
	case STOAT_FMT_I64:
	case STOAT_FMT_F64:
		if (!is_number)
			break;
		{
			char *bytes;
			if (format == STOAT_FMT_I32) {
				int32_t v;
				if (!stoat_json_i32(&j, &v))
					return false;
				bytes = stoat_arena_alloc(&pcx->arena, 4);
				uint32_t u = (uint32_t)v;
				for (int i = 0; i < 4; i++)
					bytes[i] = (char)(u >> (24 - 8 * i));
				*out = (stoat_str){ bytes, 4 };
			} else {
				uint64_t u;
				if (format == STOAT_FMT_I64) {
					int64_t v;
					if (!stoat_json_i64(&j, &v))
						return false;
					u = (uint64_t)v;
				} else {
					double v;
					if (!stoat_json_f64(&j, &v))
						return false;
					memcpy(&u, &v, sizeof u);
				}
				bytes = stoat_arena_alloc(&pcx->arena, 8);
				for (int i = 0; i < 8; i++)
					bytes[i] = (char)(u >> (56 - 8 * i));
				*out = (stoat_str){ bytes, 8 };
			}
			return true;
		}
	case STOAT_FMT_TEXT:
	case STOAT_FMT_BYTES:
	case STOAT_FMT_AVRO_RAW:
	case STOAT_FMT_AVRO:
		break;
	}
	stoat_error(pcx, "\"%s\" must be %s or null for its source's %s format", field,
		    format == STOAT_FMT_TEXT || format == STOAT_FMT_BYTES ? "a string"
		    : format == STOAT_FMT_JSON                        ? "a JSON value"
		    : format == STOAT_FMT_AVRO_RAW || format == STOAT_FMT_AVRO ? "a string (binary bytes go in key_base64 and value_base64)"
									      : "a number, a string",
		    stoat_format_name(format));
	return false;
}

/* The source reading topic, or SIZE_MAX. */
static size_t source_for_topic(const stoat_app *app, stoat_str topic)
{
	for (size_t i = 0; i < app->source_count; i++) {
		const char *t = app->sources[i].topic;
		if (strlen(t) == topic.len && memcmp(t, topic.ptr, topic.len) == 0)
			return i;
	}
	return SIZE_MAX;
}

/* Reads the "headers" object: names to strings or null, order kept. */
static bool parse_headers(stoat_json *j, stoat_msg *m)
{
	stoat_vec headers = { 0 };
	bool first = true;
	stoat_str name;
	if (!stoat_json_object_begin(j))
		return false;
	while (stoat_json_object_next(j, &first, &name)) {
		stoat_header *h = stoat_vec_push(&j->cx->arena, &headers, sizeof(stoat_header));
		h->key = name;
		if (stoat_json_null(j)) {
			h->value = (stoat_str){ NULL, 0 };
		} else if (!stoat_json_string(j, &h->value)) {
			stoat_error(j->cx, "header values must be strings or null");
			return false;
		}
	}
	if (j->cx->error)
		return false;
	m->headers = headers.data;
	m->header_count = headers.len;
	return true;
}

/*
 * Skips one JSON value at j->p without validating it: strings to their
 * closing quote (memchr, so long payloads cost little), objects and
 * arrays to their matching bracket.  Exact for valid JSON; for anything
 * else it stops somewhere within the line and the full parse that
 * follows reports the real error.  False at the end of the line.
 */
static bool json_skip_fast(stoat_json *j)
{
	const char *p = j->p, *end = j->end;
	int depth = 0;
	do {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (p == end)
			return false;
		char c = *p;
		if (c == '"') {
			for (p++;;) {
				const char *q = memchr(p, '"', (size_t)(end - p));
				if (!q)
					return false;
				size_t slashes = 0;
				while (q - slashes > p && *(q - 1 - slashes) == '\\')
					slashes++;
				p = q + 1;
				if (slashes % 2 == 0)
					break;
			}
		} else if (c == '{' || c == '[') {
			depth++;
			p++;
		} else if (c == '}' || c == ']') {
			depth--;
			p++;
		} else if (c == ',' || c == ':') {
			p++;
		} else {
			/* A number, true, false or null: up to the next delimiter. */
			while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
			       *p != '\r' && *p != '\n')
				p++;
		}
	} while (depth > 0);
	j->p = p;
	return depth == 0;
}

/*
 * Parses one envelope line into *out.  full: everything (slices into the
 * line, decoded bytes in pcx's arena); else only what orders the record
 * (topic and source, partition, offset, timestamp), skipping key, value
 * and headers unchecked (stoat_scan_envelope).
 */
static bool parse_envelope(const stoat_app *app, stoat_ctx *pcx, stoat_envelope_cache *cache, stoat_str line,
			   stoat_envelope *out, bool full)
{
	pcx->error = false;
	stoat_msg m = { 0 };
	stoat_str topic = { NULL, 0 };
	payload_span key = { 0 }, value = { 0 };
	unsigned seen = 0;
	stoat_json j;
	stoat_json_init(&j, pcx, line);
	bool first = true;
	stoat_str name;
	if (!stoat_json_object_begin(&j))
		return false;
	while (stoat_json_object_next(&j, &first, &name)) {
		unsigned bit;
		bool ok;
		stoat_json_ws(&j);
		if (stoat_str_eq(name, STOAT_STR_LIT("topic"))) {
			bit = F_TOPIC;
			ok = stoat_json_string(&j, &topic);
		} else if (stoat_str_eq(name, STOAT_STR_LIT("partition"))) {
			bit = F_PARTITION;
			ok = stoat_json_i32(&j, &m.partition);
			if (ok && m.partition < 0) {
				stoat_error(pcx, "\"partition\" must not be negative");
				return false;
			}
		} else if (stoat_str_eq(name, STOAT_STR_LIT("offset"))) {
			bit = F_OFFSET;
			ok = stoat_json_i64(&j, &m.offset);
			if (ok && m.offset < 0) {
				stoat_error(pcx, "\"offset\" must not be negative");
				return false;
			}
		} else if (stoat_str_eq(name, STOAT_STR_LIT("timestamp"))) {
			bit = F_TIMESTAMP;
			ok = stoat_json_i64(&j, &m.timestamp);
		} else if (stoat_str_eq(name, STOAT_STR_LIT("key"))) {
			bit = F_KEY;
			key.at = j.p;
			ok = full ? stoat_json_skip(&j) : json_skip_fast(&j);
			key.end = j.p;
		} else if (stoat_str_eq(name, STOAT_STR_LIT("value"))) {
			bit = F_VALUE;
			value.at = j.p;
			ok = full ? stoat_json_skip(&j) : json_skip_fast(&j);
			value.end = j.p;
		} else if (stoat_str_eq(name, STOAT_STR_LIT("key_base64"))) {
			bit = F_KEY_BASE64;
			ok = full ? parse_base64_field(&j, "key", &key) : json_skip_fast(&j);
		} else if (stoat_str_eq(name, STOAT_STR_LIT("value_base64"))) {
			bit = F_VALUE_BASE64;
			ok = full ? parse_base64_field(&j, "value", &value) : json_skip_fast(&j);
		} else if (stoat_str_eq(name, STOAT_STR_LIT("headers"))) {
			bit = F_HEADERS;
			ok = full ? parse_headers(&j, &m) : json_skip_fast(&j);
		} else {
			int shown = name.len > 60 ? 60 : (int)name.len;
			stoat_error(pcx,
				    "unknown field \"%.*s\" (expected topic, partition, offset, timestamp, "
				    "key, value, key_base64, value_base64, headers)",
				    shown, name.ptr);
			return false;
		}
		if (!ok)
			return false;
		if (seen & bit) {
			int shown = name.len > 60 ? 60 : (int)name.len;
			stoat_error(pcx, "field \"%.*s\" given twice", shown, name.ptr);
			return false;
		}
		seen |= bit;
	}
	if (pcx->error || !stoat_json_end(&j))
		return false;
	if (!(seen & F_TOPIC)) {
		stoat_error(pcx, "missing field \"topic\"");
		return false;
	}
	if ((seen & F_KEY) && (seen & F_KEY_BASE64)) {
		stoat_error(pcx, "give \"key\" or \"key_base64\", not both");
		return false;
	}
	if ((seen & F_VALUE) && (seen & F_VALUE_BASE64)) {
		stoat_error(pcx, "give \"value\" or \"value_base64\", not both");
		return false;
	}

	size_t source;
	if (cache->topic.ptr && stoat_str_eq(cache->topic, topic)) {
		source = cache->source;
	} else {
		source = source_for_topic(app, topic);
		if (source == SIZE_MAX) {
			int shown = topic.len > 100 ? 100 : (int)topic.len;
			stoat_error(pcx, "no source of application %s reads topic \"%.*s\"", app->app_id,
				    shown, topic.ptr);
			return false;
		}
		/* The cache must not point into the arena, which is reset. */
		cache->topic = (stoat_str){ app->sources[source].topic, topic.len };
		cache->source = source;
	}
	const stoat_source *src = &app->sources[source];
	if (full && (!convert_payload(pcx, line, "key", src->key_format, &key, &m.key) ||
		     !convert_payload(pcx, line, "value", src->value_format, &value, &m.value)))
		return false;
	out->msg = m;
	out->source = source;
	out->offset_given = (seen & F_OFFSET) != 0;
	out->partition_given = (seen & F_PARTITION) != 0;
	return true;
}

/*
 * Parses one envelope line into *out (slices into the line, decoded
 * bytes in pcx's arena).  On failure the message is in
 * pcx->error_message.  Parsing is pure: parsing the same line again
 * after an arena reset gives the same record.
 */
bool stoat_parse_envelope(const stoat_app *app, stoat_ctx *pcx, stoat_envelope_cache *cache, stoat_str line,
			  stoat_envelope *out)
{
	return parse_envelope(app, pcx, cache, line, out, true);
}

/*
 * The quick first look at a line the replay driver takes before it runs
 * anything (to find every partition's records): out gets the source, the
 * partition, the offset and the timestamp, and no key, value or headers.
 * When it fails, the full parse gives the message, so that a malformed
 * line is reported in the same words whenever it is found; a line it
 * accepts may still fail the full parse later (a bad payload).
 */
bool stoat_scan_envelope(const stoat_app *app, stoat_ctx *pcx, stoat_envelope_cache *cache, stoat_str line,
			 stoat_envelope *out)
{
	if (parse_envelope(app, pcx, cache, line, out, false))
		return true;
	if (!parse_envelope(app, pcx, cache, line, out, true))
		return false;
	/* The quick look stumbled over what the full parse accepts. */
	out->msg.key = out->msg.value = (stoat_str){ NULL, 0 };
	out->msg.headers = NULL;
	out->msg.header_count = 0;
	return true;
}
