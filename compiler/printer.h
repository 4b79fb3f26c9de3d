/*
 * printer.h - an indenting text buffer for emitting C.
 *
 * pr() appends formatted text; at the start of each line it writes one tab
 * per indent level, so emitters never count tabs.  Lines are counted so
 * that #line directives can point back into the generated file.
 */
#ifndef STOAT_PRINTER_H
#define STOAT_PRINTER_H

#include <stdarg.h>
#include <stddef.h>

typedef struct Printer {
	char *buf;
	size_t len, cap;
	int indent;
	int at_line_start;
	int lines; /* newlines written so far */
} Printer;

void pr_init(Printer *p);
void pr(Printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends text verbatim (already indented), e.g. another printer's buffer. */
void pr_raw(Printer *p, const char *text, size_t len);
/* One indent level deeper / shallower for the lines that follow. */
void pr_indent(Printer *p);
void pr_dedent(Printer *p);
/* Like pr(), one level deeper: the body of an if or loop without braces. */
void pr_nested(Printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Inserts a line (ending in a newline) at byte offset at, the start of an earlier line, indent levels deep. */
void pr_insert_line(Printer *p, size_t at, int indent, const char *text);
void pr_free(Printer *p);

#endif
