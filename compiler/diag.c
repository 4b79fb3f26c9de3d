/*
 * diag.c - diagnostics with source line and caret, and small utilities.
 */
#include "diag.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Diagnostics diag;

Span span_join(Span a, Span b)
{
	Span s = a;
	if (b.end_line > a.end_line || (b.end_line == a.end_line && b.end_col > a.end_col)) {
		s.end_line = b.end_line;
		s.end_col = b.end_col;
	}
	return s;
}

/* Finds the start of 1-based line `line` in f, or NULL past the end. */
static const char *line_start(const SourceFile *f, int line)
{
	const char *p = f->text;
	for (int l = 1; l < line; l++) {
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
	return p;
}

/*
 * Prints the source line of span and a caret (with tildes to the end of the
 * span, or of the line when the span runs over several lines).  Tabs are
 * kept in the padding so the caret lines up in a terminal.
 */
static void print_caret(FILE *out, Span span)
{
	if (!span.file || span.line <= 0)
		return;
	const char *ls = line_start(span.file, span.line);
	if (!ls)
		return;
	const char *le = strchr(ls, '\n');
	if (!le)
		le = ls + strlen(ls);
	int width = (int)(le - ls);
	fprintf(out, "%5d | %.*s\n", span.line, width, ls);
	fprintf(out, "      | ");
	int col = span.col < 1 ? 1 : span.col;
	for (int i = 1; i < col && i <= width; i++)
		fputc(ls[i - 1] == '\t' ? '\t' : ' ', out);
	int end = span.end_line == span.line ? span.end_col : width;
	if (end > width)
		end = width;
	if (diag.color)
		fputs("\033[1;32m", out);
	fputc('^', out);
	for (int i = col + 1; i <= end; i++)
		fputc('~', out);
	if (diag.color)
		fputs("\033[0m", out);
	fputc('\n', out);
}

void diag_at(DiagLevel level, Span span, const char *hint, const char *fmt, ...)
{
	static const char *names[] = { "error", "warning", "note" };
	static const char *colors[] = { "\033[1;31m", "\033[1;35m", "\033[1;36m" };
	if (level == DIAG_ERROR)
		diag.errors++;
	else if (level == DIAG_WARNING)
		diag.warnings++;
	if (diag.suppress)
		return;
	if (level == DIAG_ERROR && diag.max_errors && diag.errors > diag.max_errors) {
		if (diag.errors == diag.max_errors + 1)
			fprintf(stderr, "stoatc: too many errors, stopping here\n");
		return;
	}
	FILE *out = stderr;
	if (span.file)
		fprintf(out, "%s:%d:%d: ", span.file->path, span.line, span.col);
	else
		fprintf(out, "stoatc: ");
	if (diag.color)
		fputs(colors[level], out);
	fprintf(out, "%s:", names[level]);
	if (diag.color)
		fputs("\033[0m", out);
	fputc(' ', out);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	print_caret(out, span);
	if (hint)
		fprintf(out, "      = hint: %s\n", hint);
}

void error_plain(const char *fmt, ...)
{
	diag.errors++;
	fprintf(stderr, "stoatc: error: ");
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void fatal(const char *fmt, ...)
{
	fprintf(stderr, "stoatc: error: ");
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

SourceFile *source_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0)
			buf = xrealloc(buf, cap *= 2);
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		xfree(buf);
		errno = EIO;
		return NULL;
	}
	buf[len] = '\0';
	SourceFile *sf = xcalloc(1, sizeof *sf);
	sf->path = xstrdup(path);
	sf->text = buf;
	sf->len = len;
	return sf;
}

SourceFile *source_from_string(const char *path, const char *text)
{
	SourceFile *sf = xcalloc(1, sizeof *sf);
	sf->path = path;
	sf->text = text;
	sf->len = strlen(text);
	return sf;
}

/*
 * Every allocation of the compiler is linked into one list, so that a
 * long-lived caller (the fuzz target) can release a whole compilation with
 * xfree_all().  stoatc itself exits and never needs to.
 */
typedef struct Block {
	struct Block *prev, *next;
	_Alignas(max_align_t) char data[];
} Block;

static Block all_blocks = { &all_blocks, &all_blocks };

static void *link_block(Block *b)
{
	if (!b)
		fatal("out of memory");
	b->next = all_blocks.next;
	b->prev = &all_blocks;
	all_blocks.next->prev = b;
	all_blocks.next = b;
	return b->data;
}

static Block *unlink_block(void *p)
{
	Block *b = (Block *)((char *)p - offsetof(Block, data));
	b->prev->next = b->next;
	b->next->prev = b->prev;
	return b;
}

void *xmalloc(size_t n)
{
	return link_block(malloc(sizeof(Block) + (n ? n : 1)));
}

void *xcalloc(size_t n, size_t size)
{
	size_t total = (n ? n : 1) * (size ? size : 1);
	if (size && total / size != (n ? n : 1))
		fatal("out of memory");
	return link_block(calloc(1, sizeof(Block) + total));
}

void *xrealloc(void *p, size_t n)
{
	if (!p)
		return xmalloc(n);
	Block *b = unlink_block(p);
	return link_block(realloc(b, sizeof(Block) + (n ? n : 1)));
}

void xfree(void *p)
{
	if (p)
		free(unlink_block(p));
}

void xfree_all(void)
{
	while (all_blocks.next != &all_blocks)
		free(unlink_block(all_blocks.next->data));
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
