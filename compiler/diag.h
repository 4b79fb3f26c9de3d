/*
 * diag.h - source files, spans and diagnostics.
 *
 * Every AST node carries a Span; every error the compiler reports points at
 * one.  Diagnostics print as
 *
 *     file:line:col: error: message
 *      12 |   views |> filter(v => v.url)
 *         |                        ^~~~~
 *     hint: ...
 *
 * and are collected, so one run reports every independent error.
 */
#ifndef STOAT_DIAG_H
#define STOAT_DIAG_H

#include <stdbool.h>
#include <stddef.h>

/* A source file held in memory for the life of the compilation. */
typedef struct SourceFile {
	const char *path; /* as given on the command line (or "<stdlib>/...") */
	const char *text; /* NUL-terminated contents */
	size_t len;
} SourceFile;

/* A range in a source file: 1-based lines and columns, end inclusive. */
typedef struct Span {
	const SourceFile *file;
	int line, col;
	int end_line, end_col;
} Span;

typedef enum DiagLevel { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

typedef struct Diagnostics {
	int errors;
	int warnings;
	int max_errors;   /* stop printing after this many errors (0: no limit) */
	bool color;       /* ANSI colours on a terminal */
	bool suppress;    /* count but do not print (fuzzing) */
} Diagnostics;

extern Diagnostics diag;

/* Spans covering both a and b (a must come first). */
Span span_join(Span a, Span b);

/*
 * Reports a diagnostic at span; hint (may be NULL) is printed after the
 * caret line.  Errors make the compilation fail at the end of the phase.
 */
void diag_at(DiagLevel level, Span span, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define error_at(span, ...) diag_at(DIAG_ERROR, (span), NULL, __VA_ARGS__)
#define error_hint(span, hint, ...) diag_at(DIAG_ERROR, (span), (hint), __VA_ARGS__)
#define warning_at(span, ...) diag_at(DIAG_WARNING, (span), NULL, __VA_ARGS__)
#define note_at(span, ...) diag_at(DIAG_NOTE, (span), NULL, __VA_ARGS__)

/* An error with no source position (bad command line, unreadable file). */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void error_plain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads a whole file; NULL (and errno) on failure. */
SourceFile *source_read(const char *path);
SourceFile *source_from_string(const char *path, const char *text);

/* Allocation that never fails (the compiler is a short-lived process). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
void xfree(void *p);
/* Frees every allocation made through these functions. */
void xfree_all(void);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
