/*
 * stoat.y - the grammar of .stoat files (pure bison, with locations).
 *
 * Builds the AST of compiler/ast.h.  Precedence, lowest first: lambda
 * bodies, if/else, |>, ??, or, and, not, comparisons, + -, * / %, unary
 * minus, postfix.  Syntax errors are reported through compiler/diag.h with
 * a caret, and parsing resumes after the next ';' so that one run reports
 * independent errors.
 */
%code requires {
#include "ast.h"
typedef void *yyscan_t;
typedef struct ParseState {
	SourceFile *src;
	File *file;
	/* A word after a source that is not "timestamp" was reported as a
	 * missing ';': the syntax error that follows it says nothing more. */
	bool quiet_next_syntax_error;
} ParseState;
}

%code provides {
int yylex(YYSTYPE *lvalp, YYLTYPE *llocp, yyscan_t scanner);
Span span_of(ParseState *ps, YYLTYPE loc);
}

%code {
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPAN(loc) span_of(ps, (loc))

static Node *mk(ParseState *ps, NodeKind kind, YYLTYPE loc)
{
	return node_new(kind, SPAN(loc));
}

/*
 * -a.  Written directly before the literal 9223372036854775808 (2^63, which
 * the lexer lets through as INT64_MIN, marked), the minus makes the
 * literal -2^63, the smallest i64: no other way to write it.  In
 * parentheses, -(9223372036854775808), the literal stays on its own, and
 * sema refuses it as too large, as it does 2^63 anywhere else.
 */
static Node *mk_negation(ParseState *ps, Node *a, YYLTYPE a_loc, YYLTYPE loc)
{
	Span written = SPAN(a_loc);
	if (a->kind == N_INT && a->int_literal_overflow && a->span.line == written.line &&
	    a->span.col == written.col && a->span.end_col == written.end_col) {
		a->int_literal_overflow = false;
		a->span = SPAN(loc);
		return a;
	}
	Node *n = mk(ps, N_UNARY, loc);
	n->op = OP_NEG;
	n->a = a;
	return n;
}

/* The depth of the deepest expression of a list (0 for none). */
static int list_depth(const Node *list)
{
	int d = 0;
	for (; list; list = list->next)
		if (list->depth > d)
			d = list->depth;
	return d;
}

/*
 * Sets n's nesting depth from its children's, once they are in place, and
 * reports an expression nesting deeper than MAX_EXPR_DEPTH (ast.h) at
 * `at` (a binary operator's own token, so the caret shows where the limit
 * was crossed); false then, and the action gives the item up with YYERROR
 * so that no later phase sees the tree.  Each child is looked at once, by
 * its parent: linear in the size of the file.  The steps of a pipeline do
 * not nest (a |> f |> g is as deep as its deepest step).
 */
static bool nest(ParseState *ps, Node *n, YYLTYPE at)
{
	int d = n->kind == N_PIPE ? 0 : n->a ? n->a->depth : 0;
	if (n->b && n->b->depth > d)
		d = n->b->depth;
	if (n->c && n->c->depth > d)
		d = n->c->depth;
	int l = list_depth(n->list);
	if (l > d)
		d = l;
	n->depth = d + 1;
	if (n->kind == N_PIPE && n->a->depth > n->depth)
		n->depth = n->a->depth;
	if (n->depth <= MAX_EXPR_DEPTH)
		return true;
	error_hint(SPAN(at), "split it: name a part with let x = ... in ..., or compute it in several steps",
	           "expression nests deeper than %d levels", MAX_EXPR_DEPTH);
	return false;
}

/* Gives up the item being parsed when n nests too deeply (see nest). */
#define NEST(n, at) do { if (!nest(ps, (n), (at))) YYERROR; } while (0)

static Node *mk_binary(ParseState *ps, int op, Node *a, Node *b, YYLTYPE loc)
{
	Node *n = mk(ps, N_BINARY, loc);
	n->op = op;
	n->a = a;
	n->b = b;
	return n;
}

static void yyerror(YYLTYPE *loc, yyscan_t scanner, ParseState *ps, const char *msg);
static Span span_before(SourceFile *src, Span at);
}

%define api.pure full
%initial-action {
	@$.first_line = @$.last_line = 1;
	@$.first_column = 1;
	@$.last_column = 0;
}
%define parse.error custom
%locations
%expect 0
%param { yyscan_t scanner }
%parse-param { ParseState *ps }

%union {
	Node *node;
	char *name;
	struct { char *s; size_t len; } str;
	int64_t ival;
	double fval;
}

%token <name> IDENT "identifier"
%token <str> STRING "string literal"
%token <ival> INT "integer literal" DURATION "duration literal"
%token <fval> FLOAT "float literal"
%token APP "app" TYPE "type" STREAM "stream" FROM "from" FORMAT "format"
%token EXTERN "extern" FN "fn" AS "as" IF "if" THEN "then" ELSE "else"
%token NULL_ "null" TRUE "true" FALSE "false" AND "and" OR "or" NOT "not"
%token TO "to" BRANCH "branch" DEFAULT "default" ON "on"
%token FOR "for" IN "in" LET "let" TABLE "table" UNDERSCORE "_"
%token PIPE "|>" FATARROW "=>" ARROW "->" COALESCE "??" EQ "==" NE "!="
%token LE "<=" GE ">=" ELLIPSIS "..."

%type <node> item app_decl settings setting setting_value type_decl field_decls
%type <node> field_decl type source_decl source_opts format_spec format_name out_timestamp
%type <node> policy stream_def extern_decl params param_list param extern_opts
%type <node> stmt branches branch expr postfix primary expr_list args step
%type <node> record_inits record_init_list record_init placement versioning
%type <node> step_args step_arg_list step_arg window_arg window_word
%type <name> field_name app_name

%precedence FATARROW
%precedence ELSE
%precedence PIPE
%precedence TO
%precedence FORMAT IDENT /* to ... format ... and to ... timestamp ...: the nearest to takes them */
%right COALESCE
%left OR
%left AND
%precedence NOT
%nonassoc EQ NE '<' LE '>' GE
%left '+' '-'
%left '*' '/' '%'
%precedence UMINUS

%%

file
	: %empty
	| file item { if ($2) node_append(&ps->file->items, $2); }
	;

item
	: app_decl
	| type_decl
	| source_decl
	| stream_def
	| extern_decl
	| stmt
	| error ';' { $$ = NULL; yyerrok; }
	| error '}' { $$ = NULL; yyerrok; }
	;

/* ---- app header ---------------------------------------------------- */

app_decl
	: APP app_name '{' settings '}' {
		$$ = mk(ps, N_APP, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->list = $4;
	}
	;

app_name
	: IDENT
	| STRING {
		$$ = $1.s;
		/* The id is a C string from here on: a NUL would cut it short. */
		if (strlen($1.s) != $1.len)
			error_hint(SPAN(@1), "Kafka allows letters, digits, '.', '_' and '-'",
			           "invalid application id: it holds a NUL byte");
	}
	;

settings
	: %empty { $$ = NULL; }
	| settings setting { $$ = $1; node_append(&$$, $2); }
	| settings ',' { $$ = $1; }
	| settings ';' { $$ = $1; }
	;

setting
	: IDENT '=' setting_value {
		$$ = mk(ps, N_SETTING, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->a = $3;
	}
	;

setting_value
	: IDENT { $$ = mk(ps, N_IDENT, @$); $$->name = $1; }
	| IDENT STRING {
		$$ = mk(ps, N_IDENT, @$);
		$$->name = $1;
		$$->str = $2.s;
		$$->len = $2.len;
	}
	| INT { $$ = mk(ps, N_INT, @$); $$->ival = $1; }
	| DURATION { $$ = mk(ps, N_DURATION, @$); $$->ival = $1; }
	| STRING { $$ = mk(ps, N_STR, @$); $$->str = $1.s; $$->len = $1.len; }
	| TRUE { $$ = mk(ps, N_BOOL, @$); $$->ival = 1; }
	| FALSE { $$ = mk(ps, N_BOOL, @$); $$->ival = 0; }
	;

/* ---- record types -------------------------------------------------- */

type_decl
	: TYPE IDENT '{' field_decls '}' {
		$$ = mk(ps, N_TYPE_DECL, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->list = $4;
	}
	| TYPE IDENT '=' IDENT STRING ';' {
		$$ = mk(ps, N_TYPE_IMPORT, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->a = mk(ps, N_IDENT, @4);
		$$->a->name = $4;
		$$->b = mk(ps, N_STR, @5);
		$$->b->str = $5.s;
		$$->b->len = $5.len;
	}
	;

field_decls
	: %empty { $$ = NULL; }
	| field_decls field_decl { $$ = $1; node_append(&$$, $2); }
	| field_decls ',' { $$ = $1; }
	;

field_decl
	: field_name ':' type {
		$$ = mk(ps, N_FIELD_DECL, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->a = $3;
	}
	;

field_name
	: IDENT
	| TYPE { $$ = xstrdup("type"); }
	| FROM { $$ = xstrdup("from"); }
	| TO { $$ = xstrdup("to"); }
	| FORMAT { $$ = xstrdup("format"); }
	| APP { $$ = xstrdup("app"); }
	| STREAM { $$ = xstrdup("stream"); }
	| IN { $$ = xstrdup("in"); }
	| DEFAULT { $$ = xstrdup("default"); }
	| BRANCH { $$ = xstrdup("branch"); }
	| ON { $$ = xstrdup("on"); }
	| AS { $$ = xstrdup("as"); }
	| FN { $$ = xstrdup("fn"); }
	| EXTERN { $$ = xstrdup("extern"); }
	| FOR { $$ = xstrdup("for"); }
	| LET { $$ = xstrdup("let"); }
	| TABLE { $$ = xstrdup("table"); }
	| IF { $$ = xstrdup("if"); }
	| THEN { $$ = xstrdup("then"); }
	| ELSE { $$ = xstrdup("else"); }
	| NULL_ { $$ = xstrdup("null"); }
	| TRUE { $$ = xstrdup("true"); }
	| FALSE { $$ = xstrdup("false"); }
	| AND { $$ = xstrdup("and"); }
	| OR { $$ = xstrdup("or"); }
	| NOT { $$ = xstrdup("not"); }
	;

type
	: IDENT { $$ = mk(ps, N_TY_NAME, @$); $$->name = $1; }
	| '[' type ']' { $$ = mk(ps, N_TY_ARRAY, @$); $$->a = $2; }
	| type '?' { $$ = mk(ps, N_TY_NULLABLE, @$); $$->a = $1; }
	;

/* ---- streams ------------------------------------------------------- */

source_decl
	: STREAM IDENT ':' type ARROW type FROM STRING source_opts ';' {
		$$ = $9;
		$$->span = SPAN(@$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->a = $4;
		$$->b = $6;
		$$->str = $8.s;
		$$->len = $8.len;
		$$->c = mk(ps, N_STR, @8);
	}
	| STREAM IDENT ':' type FROM STRING source_opts ';' {
		$$ = $7;
		$$->span = SPAN(@$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->a = NULL;
		$$->b = $4;
		$$->str = $6.s;
		$$->len = $6.len;
		$$->c = mk(ps, N_STR, @6);
	}
	| TABLE IDENT placement versioning ':' type ARROW type FROM STRING source_opts ';' {
		$$ = $11;
		$$->span = SPAN(@$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->place = $3;
		$$->versioned = $4;
		$$->a = $6;
		$$->b = $8;
		$$->str = $10.s;
		$$->len = $10.len;
		$$->c = mk(ps, N_STR, @10);
		$$->ival = 1; /* a table */
	}
	| IDENT TABLE IDENT placement versioning ':' type ARROW type FROM STRING source_opts ';' {
		/* global table g: K -> V from "topic": ival 2 (a global table); sema refuses versioning. */
		if (strcmp($1, "global") != 0)
			error_hint(SPAN(@1), "write 'global table NAME: K -> V from \"topic\";', or drop the word",
			           "unexpected '%s' before 'table'", $1);
		$$ = $12;
		$$->span = SPAN(@$);
		$$->name = $3;
		$$->name_span = SPAN(@3);
		$$->place = $4;
		$$->versioned = $5;
		$$->a = $7;
		$$->b = $9;
		$$->str = $11.s;
		$$->len = $11.len;
		$$->c = mk(ps, N_STR, @11);
		$$->ival = 2; /* a global table */
	}
	| TABLE IDENT placement versioning ':' type FROM STRING source_opts ';' {
		/* Parsed so that sema can say a table needs a key type. */
		$$ = $9;
		$$->span = SPAN(@$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->place = $3;
		$$->versioned = $4;
		$$->a = NULL;
		$$->b = $6;
		$$->str = $8.s;
		$$->len = $8.len;
		$$->c = mk(ps, N_STR, @8);
		$$->ival = 1;
	}
	;

/*
 * A versioned table (KIP-889): table t versioned(history = 1h): ...; the
 * word and the parameter are checked by sema (an N_WINDOW_ARG: c the
 * word "versioned", name the parameter, a its value).
 */
versioning
	: %empty { $$ = NULL; }
	| IDENT '(' IDENT '=' expr ')' {
		$$ = mk(ps, N_WINDOW_ARG, @$);
		$$->c = mk(ps, N_IDENT, @1);
		$$->c->name = $1;
		$$->name = $3;
		$$->name_span = SPAN(@3);
		$$->a = $5;
	}
	;

/* Where a table's store lives: table name in memory = ... */
placement
	: %empty { $$ = NULL; }
	| IN IDENT { $$ = mk(ps, N_IDENT, @2); $$->name = $2; }
	;

source_opts
	: %empty { $$ = mk(ps, N_SOURCE, @$); }
	| source_opts FORMAT format_spec {
		$$ = $1;
		if ($3->kind == N_TUPLE) {
			$$->fmt_key = $3->a;
			$$->fmt_value = $3->b;
		} else {
			$$->fmt_value = $3;
		}
	}
	| source_opts ON IDENT policy {
		$$ = $1;
		if (strcmp($3, "error") != 0)
			error_hint(SPAN(@3), "write 'on error <policy>'", "expected 'error' after 'on'");
		$$->policy = $4;
	}
	| source_opts IDENT {
		/*
		 * timestamp <lambda>: "timestamp" is a type name, so an IDENT here.
		 * Another word on a later line is most likely the next statement
		 * after a forgotten ';': say so, as a syntax error would.
		 */
		if (strcmp($2, "timestamp") != 0) {
			Span prev = span_before(ps->src, SPAN(@2));
			if (prev.line > 0 && prev.line < @2.first_line) {
				diag_at(DIAG_ERROR, prev, "every declaration and statement ends with ';'",
				        "syntax error: expected ';' at the end of the line, found identifier on the next");
				ps->quiet_next_syntax_error = true;
			} else {
				error_hint(SPAN(@2), "write 'timestamp v => v.field' or 'on error <policy>'",
				           "unexpected '%s' in a source", $2);
			}
		}
	} expr {
		/* It parsed after all (x y;): no syntax error follows to quiet. */
		ps->quiet_next_syntax_error = false;
		$$ = $1;
		if (strcmp($2, "timestamp") == 0)
			$$->timestamp = $4;
	}
	;

format_spec
	: format_name
	| '(' format_name ',' format_name ')' {
		$$ = mk(ps, N_TUPLE, @$);
		$$->a = $2;
		$$->b = $4;
	}
	;

format_name
	: IDENT { $$ = mk(ps, N_FORMAT, @$); $$->name = $1; }
	;

policy
	: IDENT { $$ = mk(ps, N_IDENT, @$); $$->name = $1; }
	| IDENT STRING {
		$$ = mk(ps, N_IDENT, @$);
		$$->name = $1;
		$$->str = $2.s;
		$$->len = $2.len;
	}
	;

stream_def
	: STREAM IDENT '=' expr ';' {
		$$ = mk(ps, N_STREAM_DEF, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->a = $4;
	}
	| STREAM IDENT IN IDENT '=' expr ';' {
		error_hint(span_join(SPAN(@3), SPAN(@4)), "declare it as a table, or drop the placement",
		           "a stream has no store to place");
		$$ = mk(ps, N_STREAM_DEF, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->a = $6;
	}
	| TABLE IDENT placement '=' expr ';' {
		$$ = mk(ps, N_STREAM_DEF, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->place = $3;
		$$->a = $5;
		$$->ival = 1; /* a table */
	}
	| STREAM IDENT '=' expr PIPE IDENT '{' branches '}' ';' {
		error_hint(SPAN(@2), "write the split as a statement: its branch names are the streams",
		           "a split cannot be bound to a name");
		$$ = mk(ps, N_SPLIT, @$);
		$$->a = $4;
		$$->list = $8;
		$$->name_span = SPAN(@6);
	}
	;

/* ---- extern functions ---------------------------------------------- */

extern_decl
	: EXTERN FN IDENT '(' params ')' ARROW type extern_opts ';' {
		$$ = $9;
		$$->span = SPAN(@$);
		$$->name = $3;
		$$->name_span = SPAN(@3);
		$$->list = $5;
		$$->a = $8;
	}
	;

params
	: %empty { $$ = NULL; }
	| param_list
	;

param_list
	: param
	| param_list ',' param { $$ = $1; node_append(&$$, $3); }
	;

param
	: IDENT ':' type {
		$$ = mk(ps, N_PARAM, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->a = $3;
	}
	;

extern_opts
	: %empty { $$ = mk(ps, N_EXTERN, @$); }
	| extern_opts FROM STRING { $$ = $1; $$->str = $3.s; $$->len = $3.len; }
	| extern_opts AS STRING { $$ = $1; $$->cname = $3.s; }
	;

/* ---- statements ---------------------------------------------------- */

stmt
	: expr ';' { $$ = mk(ps, N_STMT, @1); $$->a = $1; }
	| expr PIPE IDENT '{' branches '}' ';' {
		if (strcmp($3, "split") != 0)
			error_hint(SPAN(@3), "only split takes a { ... } block of branches",
			           "unknown block operator '%s'", $3);
		$$ = mk(ps, N_SPLIT, @$);
		$$->a = $1;
		$$->list = $5;
		$$->name_span = SPAN(@3);
	}
	| expr PIPE IDENT '{' branches '}' PIPE step ';' {
		error_hint(SPAN(@7), "continue from the branch streams, e.g. name |> to \"topic\"",
		           "nothing can follow split");
		$$ = mk(ps, N_SPLIT, @$);
		$$->a = $1;
		$$->list = $5;
		$$->name_span = SPAN(@3);
	}
	;

branches
	: %empty { $$ = NULL; }
	| branches branch { $$ = $1; node_append(&$$, $2); }
	;

branch
	: BRANCH IDENT '=' expr ';' {
		$$ = mk(ps, N_BRANCH, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->a = $4;
	}
	| DEFAULT IDENT ';' {
		$$ = mk(ps, N_BRANCH, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
	}
	;

/* ---- expressions --------------------------------------------------- */

expr
	: expr PIPE step { $$ = mk(ps, N_PIPE, @$); $$->a = $1; $$->b = $3; NEST($$, @2); }
	| IDENT FATARROW expr {
		$$ = mk(ps, N_LAMBDA, @$);
		Node *p = mk(ps, N_IDENT, @1);
		p->name = $1;
		$$->list = p;
		$$->a = $3;
		NEST($$, @2);
	}
	| UNDERSCORE FATARROW expr {
		$$ = mk(ps, N_LAMBDA, @$);
		$$->list = mk(ps, N_UNDERSCORE, @1);
		$$->a = $3;
		NEST($$, @2);
	}
	| '(' expr_list ')' FATARROW expr {
		$$ = mk(ps, N_LAMBDA, @$);
		$$->list = $2;
		$$->a = $5;
		NEST($$, @4);
	}
	| '(' ')' FATARROW expr {
		$$ = mk(ps, N_LAMBDA, @$);
		$$->a = $4;
		NEST($$, @3);
	}
	| LET IDENT '=' expr IN expr %prec FATARROW {
		$$ = mk(ps, N_LET, @$);
		$$->name = $2;
		$$->name_span = SPAN(@2);
		$$->a = $4;
		$$->b = $6;
		NEST($$, @1);
	}
	| IF expr THEN expr ELSE expr {
		$$ = mk(ps, N_IF, @$);
		$$->a = $2;
		$$->b = $4;
		$$->c = $6;
		NEST($$, @1);
	}
	| expr COALESCE expr { $$ = mk(ps, N_COALESCE, @$); $$->a = $1; $$->b = $3; NEST($$, @2); }
	| expr OR expr { $$ = mk_binary(ps, OP_OR, $1, $3, @$); NEST($$, @2); }
	| expr AND expr { $$ = mk_binary(ps, OP_AND, $1, $3, @$); NEST($$, @2); }
	| NOT expr { $$ = mk(ps, N_UNARY, @$); $$->op = OP_NOT; $$->a = $2; NEST($$, @1); }
	| expr EQ expr { $$ = mk_binary(ps, OP_EQ, $1, $3, @$); NEST($$, @2); }
	| expr NE expr { $$ = mk_binary(ps, OP_NE, $1, $3, @$); NEST($$, @2); }
	| expr '<' expr { $$ = mk_binary(ps, OP_LT, $1, $3, @$); NEST($$, @2); }
	| expr LE expr { $$ = mk_binary(ps, OP_LE, $1, $3, @$); NEST($$, @2); }
	| expr '>' expr { $$ = mk_binary(ps, OP_GT, $1, $3, @$); NEST($$, @2); }
	| expr GE expr { $$ = mk_binary(ps, OP_GE, $1, $3, @$); NEST($$, @2); }
	| expr '+' expr { $$ = mk_binary(ps, OP_ADD, $1, $3, @$); NEST($$, @2); }
	| expr '-' expr { $$ = mk_binary(ps, OP_SUB, $1, $3, @$); NEST($$, @2); }
	| expr '*' expr { $$ = mk_binary(ps, OP_MUL, $1, $3, @$); NEST($$, @2); }
	| expr '/' expr { $$ = mk_binary(ps, OP_DIV, $1, $3, @$); NEST($$, @2); }
	| expr '%' expr { $$ = mk_binary(ps, OP_MOD, $1, $3, @$); NEST($$, @2); }
	| '-' expr %prec UMINUS { $$ = mk_negation(ps, $2, @2, @$); NEST($$, @1); }
	| postfix
	;

step
	: IDENT '(' step_args ')' {
		$$ = mk(ps, N_OP, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->list = $3;
		NEST($$, @1);
	}
	| TO expr %prec TO {
		$$ = mk(ps, N_TO, @$);
		$$->a = $2;
		$$->name_span = SPAN(@1);
		NEST($$, @1);
	}
	| TO expr FORMAT format_spec %prec TO {
		$$ = mk(ps, N_TO, @$);
		$$->a = $2;
		$$->name_span = SPAN(@1);
		if ($4->kind == N_TUPLE) {
			$$->fmt_key = $4->a;
			$$->fmt_value = $4->b;
		} else {
			$$->fmt_value = $4;
		}
		NEST($$, @1);
	}
	| TO expr out_timestamp %prec TO {
		$$ = mk(ps, N_TO, @$);
		$$->a = $2;
		$$->timestamp = $3;
		$$->name_span = SPAN(@1);
		NEST($$, @1);
	}
	| TO expr FORMAT format_spec out_timestamp %prec TO {
		$$ = mk(ps, N_TO, @$);
		$$->a = $2;
		$$->timestamp = $5;
		$$->name_span = SPAN(@1);
		if ($4->kind == N_TUPLE) {
			$$->fmt_key = $4->a;
			$$->fmt_value = $4->b;
		} else {
			$$->fmt_value = $4;
		}
		NEST($$, @1);
	}
	;

/*
 * A step's arguments: expressions, window-style arguments and key
 * selectors, in any order (sema says which each operator takes).
 * window(tumbling 1m, grace 10s, emit final) takes words and durations,
 * not expressions (sema_window.c says which words mean what): kind D,
 * kind D every D, kind word D, option D, option word; a word followed by
 * a duration or a word is what tells one from an expression.  Joins mix
 * them: join(other, within 5m, grace 1m, (a, b) => ...) for stream-stream
 * joins, join(t, on (k, v) => key, (v, x) => ...) for a global table's or
 * a foreign-key join's key selector (docs/language.md, Joins).  A named
 * argument, name: expr, is an aggregation's combiner (merge: (a, b) => ...).
 */
step_args
	: %empty { $$ = NULL; }
	| step_arg_list
	| step_arg_list ',' { $$ = $1; } /* a trailing comma, for arguments on several lines */
	;

step_arg_list
	: step_arg
	| step_arg_list ',' step_arg { $$ = $1; node_append(&$$, $3); }
	;

step_arg
	: expr
	| window_arg
	| IDENT ':' expr {
		$$ = mk(ps, N_NAMED_ARG, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->a = $3;
		NEST($$, @1);
	}
	| ON expr {
		$$ = mk(ps, N_ON_ARG, @$);
		$$->a = $2;
		$$->name_span = SPAN(@1);
		NEST($$, @1);
	}
	;

window_arg
	: IDENT DURATION {
		$$ = mk(ps, N_WINDOW_ARG, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->a = mk(ps, N_DURATION, @2);
		$$->a->ival = $2;
	}
	| IDENT DURATION window_word DURATION {
		$$ = mk(ps, N_WINDOW_ARG, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->a = mk(ps, N_DURATION, @2);
		$$->a->ival = $2;
		$$->c = $3;
		$$->b = mk(ps, N_DURATION, @4);
		$$->b->ival = $4;
	}
	| IDENT window_word {
		$$ = mk(ps, N_WINDOW_ARG, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->c = $2;
	}
	| IDENT window_word DURATION {
		$$ = mk(ps, N_WINDOW_ARG, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->c = $2;
		$$->a = mk(ps, N_DURATION, @3);
		$$->a->ival = $3;
	}
	;

window_word
	: IDENT { $$ = mk(ps, N_IDENT, @$); $$->name = $1; }
	;

/* to "t" timestamp (k, v) => ...: "timestamp" is a type name, so an IDENT. */
out_timestamp
	: IDENT expr %prec TO {
		$$ = $2;
		if (strcmp($1, "timestamp") != 0)
			error_hint(SPAN(@1), "write 'timestamp (k, v) => ...' to set the output timestamp",
			           "unexpected '%s' after 'to'", $1);
	}
	;

postfix
	: primary
	| postfix '.' field_name {
		$$ = mk(ps, N_FIELD, @$);
		$$->a = $1;
		$$->name = $3;
		$$->name_span = SPAN(@3);
		NEST($$, @2);
	}
	| postfix '[' expr ']' { $$ = mk(ps, N_INDEX, @$); $$->a = $1; $$->b = $3; NEST($$, @2); }
	;

primary
	: INT { $$ = mk(ps, N_INT, @$); $$->ival = $1; $$->int_literal_overflow = $1 == INT64_MIN; }
	| FLOAT { $$ = mk(ps, N_FLOAT, @$); $$->fval = $1; }
	| DURATION { $$ = mk(ps, N_DURATION, @$); $$->ival = $1; }
	| STRING { $$ = mk(ps, N_STR, @$); $$->str = $1.s; $$->len = $1.len; }
	| TRUE { $$ = mk(ps, N_BOOL, @$); $$->ival = 1; }
	| FALSE { $$ = mk(ps, N_BOOL, @$); $$->ival = 0; }
	| NULL_ { $$ = mk(ps, N_NULL, @$); }
	| IDENT { $$ = mk(ps, N_IDENT, @$); $$->name = $1; }
	| UNDERSCORE { $$ = mk(ps, N_UNDERSCORE, @$); }
	| IDENT '(' args ')' {
		$$ = mk(ps, N_CALL, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->list = $3;
		NEST($$, @1);
	}
	| '(' expr_list ')' {
		if ($2->next) {
			$$ = mk(ps, N_TUPLE, @$);
			$$->list = $2;
			NEST($$, @1);
		} else {
			$$ = $2;
		}
	}
	| '{' record_inits '}' { $$ = mk(ps, N_RECORD, @$); $$->list = $2; NEST($$, @1); }
	| IDENT '{' record_inits '}' {
		$$ = mk(ps, N_RECORD, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->list = $3;
		NEST($$, @2);
	}
	| '[' ']' { $$ = mk(ps, N_ARRAY, @$); }
	| '[' expr_list ']' { $$ = mk(ps, N_ARRAY, @$); $$->list = $2; NEST($$, @1); }
	| '[' expr_list ',' ']' { $$ = mk(ps, N_ARRAY, @$); $$->list = $2; NEST($$, @1); }
	| '[' expr FOR IDENT IN expr ']' {
		$$ = mk(ps, N_COMPREHENSION, @$);
		$$->a = $2;
		$$->name = $4;
		$$->name_span = SPAN(@4);
		$$->b = $6;
		NEST($$, @1);
	}
	| '[' expr FOR IDENT IN expr IF expr ']' {
		$$ = mk(ps, N_COMPREHENSION, @$);
		$$->a = $2;
		$$->name = $4;
		$$->name_span = SPAN(@4);
		$$->b = $6;
		$$->c = $8;
		NEST($$, @1);
	}
	;

expr_list
	: expr
	| expr_list ',' expr { $$ = $1; node_append(&$$, $3); }
	;

args
	: %empty { $$ = NULL; }
	| expr_list
	| expr_list ',' { $$ = $1; } /* a trailing comma, for arguments on several lines */
	;

record_inits
	: %empty { $$ = NULL; }
	| record_init_list
	| record_init_list ',' { $$ = $1; }
	;

record_init_list
	: record_init
	| record_init_list ',' record_init { $$ = $1; node_append(&$$, $3); }
	;

record_init
	: field_name ':' expr {
		$$ = mk(ps, N_FIELD_INIT, @$);
		$$->name = $1;
		$$->name_span = SPAN(@1);
		$$->a = $3;
		NEST($$, @2);
	}
	| ELLIPSIS expr { $$ = mk(ps, N_SPREAD, @$); $$->a = $2; NEST($$, @1); }
	;

%%

Span span_of(ParseState *ps, YYLTYPE loc)
{
	Span s = { ps->src, loc.first_line, loc.first_column, loc.last_line, loc.last_column };
	return s;
}

/* The position just after the last non-blank byte before `at`. */
static Span span_before(SourceFile *src, Span at)
{
	Span none = { 0 };
	const char *p = src->text;
	int line = 1;
	while (line < at.line && *p)
		if (*p++ == '\n')
			line++;
	const char *pos = p + (at.col - 1);
	const char *q = pos;
	while (q > src->text && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r'))
		q--;
	if (q == src->text)
		return none;
	/* q points just after the previous token: find its line and column. */
	int l = 1, c = 1;
	for (const char *r = src->text; r < q; r++) {
		if (*r == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	Span s = { src, l, c, l, c };
	return s;
}

/* Hints for the most common slips, keyed by what was expected. */
static const char *syntax_hint(yysymbol_kind_t unexpected, const yysymbol_kind_t *expected, int n)
{
	const char *found = yysymbol_name(unexpected);
	for (int i = 0; i < n; i++) {
		if (strcmp(yysymbol_name(expected[i]), "';'") == 0 && n <= 3)
			return "every declaration and statement ends with ';'";
	}
	if (strcmp(found, "\"->\"") == 0)
		return "lambdas use '=>'; '->' separates key and value types";
	if (strcmp(found, "\"=\"") == 0 || strcmp(found, "'='") == 0)
		return "comparison is '=='";
	if (strcmp(found, "';'") == 0 || strcmp(found, "')'") == 0 || strcmp(found, "']'") == 0)
		return "the expression ended early; is an operand missing?";
	return NULL;
}

/*
 * Reports a syntax error as "expected X or Y, found Z" at the offending
 * token, listing at most five expected tokens.
 */
static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, ParseState *ps)
{
	(void)scanner;
	enum { MAX_EXPECTED = 5 };
	yysymbol_kind_t expected[MAX_EXPECTED];
	int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
	yysymbol_kind_t unexpected = yypcontext_token(ctx);
	if (ps->quiet_next_syntax_error) {
		ps->quiet_next_syntax_error = false;
		return 0;
	}
	char msg[512];
	size_t len = 0;
	msg[0] = '\0';
	if (n > 0) {
		len += (size_t)snprintf(msg + len, sizeof msg - len, "expected ");
		for (int i = 0; i < n && len < sizeof msg; i++)
			len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
			                        i == 0 ? "" : i == n - 1 ? " or " : ", ",
			                        yysymbol_name(expected[i]));
		if (len < sizeof msg)
			len += (size_t)snprintf(msg + len, sizeof msg - len, ", found ");
	} else {
		len += (size_t)snprintf(msg + len, sizeof msg - len, "unexpected ");
	}
	if (len < sizeof msg)
		snprintf(msg + len, sizeof msg - len, "%s",
		         unexpected == YYSYMBOL_YYEOF ? "end of file" : yysymbol_name(unexpected));
	const char *hint = syntax_hint(unexpected, expected, n > 0 ? n : 0);
	Span at = SPAN(*yypcontext_location(ctx));
	bool wants_semicolon = false;
	for (int i = 0; i < n; i++)
		wants_semicolon |= strcmp(yysymbol_name(expected[i]), "';'") == 0;
	if (wants_semicolon && n <= 3 && unexpected != YYSYMBOL_YYEOF) {
		/* Point just after the previous token, where the ';' belongs. */
		Span prev = span_before(ps->src, at);
		if (prev.line > 0 && prev.line < at.line) {
			diag_at(DIAG_ERROR, prev, hint, "syntax error: expected ';' at the end of the line, found %s on the next",
			        yysymbol_name(unexpected));
			return 0;
		}
	}
	diag_at(DIAG_ERROR, at, hint, "syntax error: %s", msg);
	return 0;
}

/*
 * Bison's own errors.  The only one it reports here is a full parser
 * stack ("memory exhausted", YYMAXDEPTH symbols): constructs that nest to
 * the right (not, unary minus, if/else, let, lambdas, parentheses) stack
 * one or more symbols per level before anything is reduced, so past
 * YYMAXDEPTH they end here before nest() can count them.  It is the same
 * mistake as a too deep expression and is told so; parsing stops.
 */
static void yyerror(YYLTYPE *loc, yyscan_t scanner, ParseState *ps, const char *msg)
{
	(void)scanner;
	if (strcmp(msg, "memory exhausted") == 0) {
		error_hint(SPAN(*loc), "split it: name a part with let x = ... in ..., or compute it in several steps",
		           "expression nests too deeply (the parser holds at most %d open levels)", YYMAXDEPTH);
		return;
	}
	error_at(SPAN(*loc), "%s", msg);
}
