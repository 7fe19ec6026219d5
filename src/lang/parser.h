/* The front end of the kernel language: parser.c reads statements and expressions, check.c
 * holds the names in scope, builds hash-consed nodes and enforces the shape rules. Both share
 * the state below; kernel.c only calls rr__parse_kernel. */
#ifndef RR_LANG_PARSER_H
#define RR_LANG_PARSER_H

#include "lang/ir.h"
#include "lang/lexer.h"

#define RR_MAX_NESTING 256   /* parentheses, calls and unary minus inside one expression */
#define RR_MAX_BINDINGS 4096 /* named intermediates per kernel */

/* What a name in scope refers to. */
typedef enum rr__name_kind {
	RR_NAME_NONE = 0,
	RR_NAME_INPUT,  /* kernel->inputs[index] (params included) */
	RR_NAME_OUTPUT, /* kernel->outputs[index] */
	RR_NAME_BINDING /* an assignment to a new name; node in `node` */
} rr__name_kind;

typedef struct rr__name {
	const char *text; /* into the kernel's own copy of the source */
	int length;
	rr__name_kind kind;
	int index, node;
	int line, column; /* where it was declared or first assigned */
} rr__name;

typedef struct rr__parser {
	rr__lexer lexer;
	rr__token token; /* the current token */
	rr_kernel *kernel;
	const char *file;
	int depth;               /* current expression nesting */
	int assigned[RR_MAX_IO]; /* per output: 1 once assigned */
	int header_line, header_column;
	rr__name *names; /* open-addressing table, RR_NAME_SLOTS entries */
	int n_names;
	int n_bound;      /* names bound by assignment (not declared) */
	int *memo;        /* open-addressing table of node ids, RR_MEMO_SLOTS entries, -1 empty */
	rr_status failed; /* the status of the first error, for functions that return -1 */
} rr__parser;

/* Parses and type-checks kernel->text (kernel->text_length bytes), filling kernel->name,
 * inputs, outputs, nodes and bindings. Errors are RR_ERR_PARSE or RR_ERR_TYPE with
 * "FILE:LINE:COL: error: ..." (RR_ERR_NOMEM on out of memory). */
rr_status rr__parse_kernel(rr_kernel *kernel, const char *file);

/* check.c: the scope and the typed node builders. */
/* rr__spec_error at token `at`, also remembered in p->failed. */
rr_status rr__parser_fail(rr__parser *p, rr_status status, const rr__token *at, const char *fmt,
                          ...) __attribute__((format(printf, 4, 5)));
rr_status rr__scope_init(rr__parser *p);
void rr__scope_free(rr__parser *p);
/* The entry for a name, or NULL. */
rr__name *rr__scope_find(rr__parser *p, const char *text, size_t length);
/* Adds a name (which must not be in scope yet). */
rr_status rr__scope_add(rr__parser *p, const rr__token *at, rr__name_kind kind, int index,
                        int node);
/* Interns a node written at token `at`, through the memo, then rr__ir_add; returns the id, or
 * -1 with the error set. */
int rr__check_node(rr__parser *p, const rr__token *at, rr__node node);
/* 1 for the words the language keeps for itself (kernel, in, N, exact, sum, exp, ...). */
int rr__is_reserved(const rr__token *token);
/* The INPUT node of kernel->inputs[input], declared at `at`. */
int rr__check_input(rr__parser *p, const rr__token *at, int input);
/* A blank node of `op` (operands -1). */
rr__node rr__node_blank(rr__op op);
/* Typed builders: each checks its rule and reports at `at`. -1 with the error set. */
int rr__check_unary(rr__parser *p, const rr__token *at, rr__op op, int a);
int rr__check_binary(rr__parser *p, const rr__token *at, rr__op op, int a, int b);
int rr__check_reduce(rr__parser *p, const rr__token *at, rr__reduce reduce, int exact, int a);
int rr__check_gather(rr__parser *p, const rr__token *row, const rr__token *index);
/* The value of a name used in an expression. */
int rr__check_name_value(rr__parser *p, const rr__token *at);
/* An assignment `name = <node>` whose expression started at `expr`. */
rr_status rr__check_assign(rr__parser *p, const rr__token *name, const rr__token *expr, int node);
/* The checks that need the whole kernel: outputs present and assigned. */
rr_status rr__check_finish(rr__parser *p);

#endif
