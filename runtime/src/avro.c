/*
 * avro.c - the out-of-line part of Avro's binary encoding (stoat/avro.h):
 * the message for bytes that are not a valid encoding.
 */
#include <stoat/avro.h>

bool stoat_avro_malformed(stoat_ctx *cx, const stoat_avro_reader *r, const char *where)
{
	stoat_error(cx, "not valid Avro for the compiled schema: %s at byte %zu of %zu", where, (size_t)(r->p - r->start),
		    (size_t)(r->end - r->start));
	return false;
}
