/*
 * sema_window.c - event time: a source's timestamp extractor and a sink's
 * output timestamp (the windows of issue 12 are to join them here).
 *
 * Both are lambdas over the record's key and value that must give a
 * timestamp; the null and negative checks that Kafka Streams'
 * FailOnInvalidTimestamp makes happen at run time (codegen_ops.c).
 */
#include "sema_int.h"

/*
 * timestamp (k, v) => ...: a stream source's event time, typed timestamp or
 * timestamp? (null, like a negative time, fails the record at run time).
 */
void check_timestamp_extractor(Sema *sema, Node *it, IrNode *src)
{
	if (it->ival) {
		error_hint(it->timestamp->span, "read the table as a stream, or drop the extractor",
		           "a table source cannot name a timestamp extractor yet");
		return;
	}
	Type *t = check_lambda(sema, it->timestamp, src->key, src->val, ty_timestamp, "timestamp");
	if (!t)
		return;
	if (t != ty_timestamp && t != ty_nullable(ty_timestamp)) {
		error_hint(it->timestamp->a->span, "convert it: from_millis(v.ms)",
		           "a timestamp extractor must return timestamp, found %s", type_str(t));
		return;
	}
	src->timestamp = it->timestamp;
}

/*
 * to "t" timestamp (k, v) => ...: the timestamp of the sink's records,
 * a timestamp (not timestamp?: an output needs one).
 */
void check_output_timestamp(Sema *sema, Node *to, IrNode *parent, IrNode *sink)
{
	Type *t = check_lambda(sema, to->timestamp, parent->key, parent->val, ty_timestamp, "timestamp");
	if (!t)
		return;
	if (t != ty_timestamp) {
		error_hint(to->timestamp->a->span, t->kind == TY_NULLABLE ? "give a default: (t ?? from_millis(0))" : NULL,
		           "an output timestamp must be timestamp, found %s", type_str(t));
		return;
	}
	sink->timestamp = to->timestamp;
}
