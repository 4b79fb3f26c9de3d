/*
 * stoat/std.h - the C side of the stoat standard library (stdlib/std.stoat).
 *
 * Every function the prelude declares with `extern fn ... as "stoat_std_..."`
 * is defined in stdlib/std.c with this calling convention, which the code
 * generator relies on:
 *
 *   - the first parameter is the task context, stoat_ctx *cx;
 *   - then the stoat parameters in order, mapped as
 *       bool -> bool, i32 -> int32_t, i64 -> int64_t, f64 -> double,
 *       string and bytes -> stoat_str,
 *       timestamp -> int64_t (milliseconds since 1970-01-01T00:00:00Z),
 *       duration -> int64_t (milliseconds),
 *       [string] -> stoat_arr_str, [i64] -> stoat_arr_i64, ...,
 *       string? -> stoat_opt_str, i64? -> stoat_opt_i64, ...;
 *   - the return type is mapped the same way.
 *
 * Run-time failures (a malformed number, an out-of-range argument) are
 * per-record errors: the function calls stoat_error(cx, ...) and returns a
 * zero value (0, false, "", an empty array).  The generated code checks
 * cx->error after the expression.  No function allocates with malloc:
 * results are slices of the arguments, static data, or live in cx->arena
 * (valid until the arena is reset at the end of the batch).
 *
 * Strings are byte sequences (UTF-8 by convention) and are never assumed to
 * be NUL-terminated.  A returned empty string has a non-NULL ptr; a returned
 * empty array has items == NULL and len == 0.
 */
#ifndef STOAT_STD_H
#define STOAT_STD_H

#include <stoat/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest string a standard-library function will build (16 MiB). */
#define STOAT_STD_MAX_STRING ((size_t)16 * 1024 * 1024)

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

int64_t stoat_std_len(stoat_ctx *cx, stoat_str s);
int64_t stoat_std_len_bytes(stoat_ctx *cx, stoat_str b);
int64_t stoat_std_len_arr_str(stoat_ctx *cx, stoat_arr_str a);
int64_t stoat_std_char_len(stoat_ctx *cx, stoat_str s);
stoat_str stoat_std_lower(stoat_ctx *cx, stoat_str s);
stoat_str stoat_std_upper(stoat_ctx *cx, stoat_str s);
stoat_str stoat_std_trim(stoat_ctx *cx, stoat_str s);
stoat_str stoat_std_trim_start(stoat_ctx *cx, stoat_str s);
stoat_str stoat_std_trim_end(stoat_ctx *cx, stoat_str s);
stoat_str stoat_std_substr(stoat_ctx *cx, stoat_str s, int64_t start, int64_t count);
bool stoat_std_contains(stoat_ctx *cx, stoat_str s, stoat_str needle);
bool stoat_std_starts_with(stoat_ctx *cx, stoat_str s, stoat_str prefix);
bool stoat_std_ends_with(stoat_ctx *cx, stoat_str s, stoat_str suffix);
int64_t stoat_std_index_of(stoat_ctx *cx, stoat_str s, stoat_str needle);
stoat_str stoat_std_replace(stoat_ctx *cx, stoat_str s, stoat_str from, stoat_str to);
stoat_arr_str stoat_std_split(stoat_ctx *cx, stoat_str s, stoat_str sep);
stoat_arr_str stoat_std_split_words(stoat_ctx *cx, stoat_str s);
stoat_str stoat_std_join(stoat_ctx *cx, stoat_arr_str parts, stoat_str sep);
stoat_str stoat_std_repeat(stoat_ctx *cx, stoat_str s, int64_t n);
stoat_str stoat_std_pad_left(stoat_ctx *cx, stoat_str s, int64_t width, stoat_str fill);
stoat_str stoat_std_pad_right(stoat_ctx *cx, stoat_str s, int64_t width, stoat_str fill);
stoat_str stoat_std_to_string_i32(stoat_ctx *cx, int32_t v);
stoat_str stoat_std_to_string_i64(stoat_ctx *cx, int64_t v);
stoat_str stoat_std_to_string_f64(stoat_ctx *cx, double v);
stoat_str stoat_std_to_string_bool(stoat_ctx *cx, bool v);
stoat_str stoat_std_to_string_bytes(stoat_ctx *cx, stoat_str b);
stoat_str stoat_std_to_bytes(stoat_ctx *cx, stoat_str s);
int64_t stoat_std_parse_i64(stoat_ctx *cx, stoat_str s);
double stoat_std_parse_f64(stoat_ctx *cx, stoat_str s);
stoat_opt_i64 stoat_std_try_parse_i64(stoat_ctx *cx, stoat_str s);
stoat_opt_f64 stoat_std_try_parse_f64(stoat_ctx *cx, stoat_str s);
int64_t stoat_std_hash(stoat_ctx *cx, stoat_str s);
int64_t stoat_std_hash_bytes(stoat_ctx *cx, stoat_str b);

/* ------------------------------------------------------------------ */
/* Numbers                                                             */
/* ------------------------------------------------------------------ */

int64_t stoat_std_abs_i64(stoat_ctx *cx, int64_t x);
double stoat_std_abs_f64(stoat_ctx *cx, double x);
int64_t stoat_std_min_i64(stoat_ctx *cx, int64_t a, int64_t b);
double stoat_std_min_f64(stoat_ctx *cx, double a, double b);
int64_t stoat_std_max_i64(stoat_ctx *cx, int64_t a, int64_t b);
double stoat_std_max_f64(stoat_ctx *cx, double a, double b);
int64_t stoat_std_clamp_i64(stoat_ctx *cx, int64_t x, int64_t lo, int64_t hi);
double stoat_std_clamp_f64(stoat_ctx *cx, double x, double lo, double hi);
double stoat_std_floor(stoat_ctx *cx, double x);
double stoat_std_ceil(stoat_ctx *cx, double x);
double stoat_std_round(stoat_ctx *cx, double x);
int64_t stoat_std_to_i64(stoat_ctx *cx, double x);
int64_t stoat_std_to_i64_i32(stoat_ctx *cx, int32_t x);
int32_t stoat_std_to_i32(stoat_ctx *cx, int64_t x);
double stoat_std_to_f64(stoat_ctx *cx, int64_t x);
double stoat_std_sqrt(stoat_ctx *cx, double x);
double stoat_std_pow(stoat_ctx *cx, double x, double y);
int64_t stoat_std_pow_i64(stoat_ctx *cx, int64_t x, int64_t n);

/* ------------------------------------------------------------------ */
/* Time (timestamps and durations are milliseconds; calendar is UTC)   */
/* ------------------------------------------------------------------ */

int64_t stoat_std_millis(stoat_ctx *cx, int64_t t);
int64_t stoat_std_from_millis(stoat_ctx *cx, int64_t ms);
int64_t stoat_std_duration_millis(stoat_ctx *cx, int64_t d);
int64_t stoat_std_duration_from_millis(stoat_ctx *cx, int64_t ms);
stoat_str stoat_std_format_time(stoat_ctx *cx, int64_t t);
int64_t stoat_std_parse_time(stoat_ctx *cx, stoat_str s);
stoat_opt_i64 stoat_std_try_parse_time(stoat_ctx *cx, stoat_str s);
stoat_str stoat_std_date(stoat_ctx *cx, int64_t t);
int64_t stoat_std_year(stoat_ctx *cx, int64_t t);
int64_t stoat_std_month(stoat_ctx *cx, int64_t t);
int64_t stoat_std_day_of_month(stoat_ctx *cx, int64_t t);
int64_t stoat_std_hour_of_day(stoat_ctx *cx, int64_t t);
int64_t stoat_std_minute_of_hour(stoat_ctx *cx, int64_t t);
int64_t stoat_std_day_of_week(stoat_ctx *cx, int64_t t);
int64_t stoat_std_truncate_time(stoat_ctx *cx, int64_t t, int64_t unit);

/* ------------------------------------------------------------------ */
/* The record being processed (cx->msg, cx->source)                   */
/* ------------------------------------------------------------------ */

int64_t stoat_std_record_timestamp(stoat_ctx *cx);
int32_t stoat_std_record_partition(stoat_ctx *cx);
int64_t stoat_std_record_offset(stoat_ctx *cx);
stoat_str stoat_std_record_topic(stoat_ctx *cx);
stoat_opt_str stoat_std_record_header(stoat_ctx *cx, stoat_str name);

#ifdef __cplusplus
}
#endif

#endif /* STOAT_STD_H */
