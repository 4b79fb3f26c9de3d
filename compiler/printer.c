/*
 * printer.c - indenting output buffer.
 */
#include "printer.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* An empty printer at indent 0, at the start of a line. */
void pr_init(Printer *p)
{
	memset(p, 0, sizeof *p);
	p->at_line_start = 1;
}

/* Appends n bytes, keeping the buffer NUL-terminated. */
static void put(Printer *p, const char *s, size_t n)
{
	if (p->len + n + 1 > p->cap) {
		p->cap = (p->len + n + 1) * 2;
		p->buf = xrealloc(p->buf, p->cap);
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

/* Appends text as it is (already indented), counting its lines. */
void pr_raw(Printer *p, const char *text, size_t len)
{
	put(p, text, len);
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			p->lines++;
	if (len)
		p->at_line_start = text[len - 1] == '\n';
}

/* Appends formatted text, indenting each line that starts in it. */
static void pr_v(Printer *p, const char *fmt, va_list ap)
{
	char small[1024];
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	char *text = small;
	if ((size_t)n >= sizeof small) {
		text = xmalloc((size_t)n + 1);
		vsnprintf(text, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	const char *s = text;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t seg = nl ? (size_t)(nl - s) : strlen(s);
		/* Preprocessor lines are written flush left. */
		if (seg && p->at_line_start && s[0] != '#') {
			for (int i = 0; i < p->indent; i++)
				put(p, "\t", 1);
		}
		if (seg) {
			put(p, s, seg);
			p->at_line_start = 0;
		}
		if (nl) {
			put(p, "\n", 1);
			p->lines++;
			p->at_line_start = 1;
			s = nl + 1;
		} else {
			s += seg;
		}
	}
	if (text != small)
		xfree(text);
}

/*
 * Inserts the line `text` (one line, ending in a newline) at byte offset
 * `at`, the start of a line written earlier, indented `indent` levels.
 * For what is known only once the code after it is written, such as a
 * declaration's "(void)x;" when nothing used x: writing that code to a
 * buffer of its own and copying it after would copy a long pipeline once
 * per operator.  Only lines are counted, so a #line written later is right.
 */
void pr_insert_line(Printer *p, size_t at, int indent, const char *text)
{
	size_t n = strlen(text);
	assert(at <= p->len && (at == 0 || p->buf[at - 1] == '\n'));
	assert(n > 0 && text[n - 1] == '\n' && !memchr(text, '\n', n - 1));
	size_t add = (size_t)indent + n;
	if (p->len + add + 1 > p->cap) {
		p->cap = (p->len + add + 1) * 2;
		p->buf = xrealloc(p->buf, p->cap);
	}
	memmove(p->buf + at + add, p->buf + at, p->len - at + 1);
	memset(p->buf + at, '\t', (size_t)indent);
	memcpy(p->buf + at + indent, text, n);
	p->len += add;
	p->lines++;
}

/* Appends formatted text at the current indent. */
void pr(Printer *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pr_v(p, fmt, ap);
	va_end(ap);
}

/* Appends formatted text one level deeper than the current indent. */
void pr_nested(Printer *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	p->indent++;
	pr_v(p, fmt, ap);
	p->indent--;
	va_end(ap);
}

/* The lines that follow go one level deeper. */
void pr_indent(Printer *p)
{
	p->indent++;
}

/* The lines that follow go one level shallower. */
void pr_dedent(Printer *p)
{
	assert(p->indent > 0);
	p->indent--;
}

/* Frees the text and leaves p empty, ready for reuse. */
void pr_free(Printer *p)
{
	xfree(p->buf);
	pr_init(p);
}
