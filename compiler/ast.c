/*
 * ast.c - AST construction helpers and the parser entry point.
 */
#include "ast.h"

#include "stoat.tab.h"
#include "stoat.lex.h"

Node *node_new(NodeKind kind, Span span)
{
	Node *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->span = span;
	n->slot = -1;
	return n;
}

/*
 * (ast.h)  The head remembers the last item it was given, so a list of n
 * items (a file's, a call's arguments, a record's fields) is built in
 * O(n), not O(n^2); the walk from there is only a safeguard, in case
 * something linked items behind the head's back.
 */
void node_append(Node **head, Node *item)
{
	if (!*head) {
		*head = item;
		item->tail = item;
		return;
	}
	Node *p = (*head)->tail ? (*head)->tail : *head;
	while (p->next)
		p = p->next;
	p->next = item;
	(*head)->tail = item;
}

int node_list_len(const Node *list)
{
	int n = 0;
	for (; list; list = list->next)
		n++;
	return n;
}

File *parse_file(SourceFile *src)
{
	File *file = xcalloc(1, sizeof *file);
	file->source = src;
	ParseState ps = { .src = src, .file = file };
	yyscan_t scanner;
	if (yylex_init_extra(&ps, &scanner) != 0)
		fatal("cannot initialise the lexer");
	YY_BUFFER_STATE buf = yy_scan_bytes(src->text, (int)src->len, scanner);
	yyparse(scanner, &ps);
	yy_delete_buffer(buf, scanner);
	yylex_destroy(scanner);
	return file;
}
