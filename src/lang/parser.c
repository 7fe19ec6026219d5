/* The recursive-descent parser of the kernel language (DESIGN.md §2): a `kernel NAME` line,
 * declarations, then single assignments, one statement per line. Binary operators are parsed
 * by loops, so recursion only follows parentheses, calls and unary minus, and stops at
 * RR_MAX_NESTING levels. */
#include <string.h>

#include "lang/parser.h"
#include "util/util.h"

static int parse_expr(rr__parser *p);

static rr_status advance(rr__parser *p)
{
	rr_status status = rr__lexer_next(&p->lexer, &p->token);
	if (status != RR_OK)
		p->failed = status;
	return status;
}

/* "found <token>; expected <what>" at the current token. */
static rr_status expected(rr__parser *p, const char *what)
{
	char shown[48];
	rr__token_describe(&p->token, shown, sizeof shown);
	return rr__parser_fail(p, RR_ERR_PARSE, &p->token, "found %s; expected %s", shown, what);
}

static rr_status expect_closing(rr__parser *p, rr__token_type type, const rr__token *open)
{
	if (p->token.type == type)
		return advance(p);
	char shown[48], what[64];
	rr__token_describe(&p->token, shown, sizeof shown);
	snprintf(what, sizeof what, "'%c' to close the '%c' at %d:%d",
	         type == RR_TOK_RPAREN ? ')' : ']', type == RR_TOK_RPAREN ? '(' : '[', open->line,
	         open->column);
	return rr__parser_fail(p, RR_ERR_PARSE, &p->token, "found %s; expected %s", shown, what);
}

static int enter(rr__parser *p, const rr__token *at)
{
	if (++p->depth <= RR_MAX_NESTING)
		return 0;
	rr__parser_fail(p, RR_ERR_PARSE, at,
	                "expression nested deeper than %d levels; expected at most %d levels of "
	                "parentheses, calls and unary minus",
	                RR_MAX_NESTING, RR_MAX_NESTING);
	return -1;
}

static const struct {
	const char *name;
	rr__op op;
} unary_functions[] = {
    {"exp", RR_OP_EXP},     {"log", RR_OP_LOG}, {"sqrt", RR_OP_SQRT},
    {"rsqrt", RR_OP_RSQRT}, {"abs", RR_OP_ABS}, {"tanh", RR_OP_TANH},
};

/* Reads "(args)" after a function name; at most two expressions are kept, all are counted. */
static int parse_arguments(rr__parser *p, const rr__token *open, int args[2], int *count,
                           int *exact)
{
	*count = 0;
	*exact = 0;
	if (p->token.type == RR_TOK_RPAREN)
		return advance(p) == RR_OK ? 0 : -1;
	for (;;) {
		if (*count > 0 && rr__token_is(&p->token, "exact")) {
			if (advance(p) != RR_OK)
				return -1;
			if (p->token.type != RR_TOK_RPAREN) {
				expected(p, "')' after 'exact' (it must be the last argument)");
				return -1;
			}
			*exact = 1;
			break;
		}
		int value = parse_expr(p);
		if (value < 0)
			return -1;
		if (*count < 2)
			args[*count] = value;
		(*count)++;
		if (p->token.type != RR_TOK_COMMA)
			break;
		if (advance(p) != RR_OK)
			return -1;
	}
	if (p->token.type != RR_TOK_RPAREN) {
		char what[64];
		snprintf(what, sizeof what, "',' or ')' to close the '(' at %d:%d", open->line,
		         open->column);
		expected(p, what);
		return -1;
	}
	return advance(p) == RR_OK ? 0 : -1;
}

static int arity_error(rr__parser *p, const rr__token *name, int count, const char *allowed)
{
	rr__parser_fail(p, RR_ERR_TYPE, name, "%.*s(...) with %d argument%s; expected %s",
	                (int)name->length, name->start, count, count == 1 ? "" : "s", allowed);
	return -1;
}

static int exact_error(rr__parser *p, const rr__token *name)
{
	rr__parser_fail(p, RR_ERR_TYPE, name,
	                "'exact' in %.*s(...); expected it only as the last argument of the "
	                "reductions sum(e, exact), max(e, exact) and min(e, exact)",
	                (int)name->length, name->start);
	return -1;
}

static int build_call(rr__parser *p, const rr__token *name, const int args[2], int count, int exact)
{
	for (size_t i = 0; i < sizeof unary_functions / sizeof unary_functions[0]; i++) {
		if (!rr__token_is(name, unary_functions[i].name))
			continue;
		if (exact)
			return exact_error(p, name);
		if (count != 1)
			return arity_error(p, name, count, "exactly 1");
		return rr__check_unary(p, name, unary_functions[i].op, args[0]);
	}
	if (rr__token_is(name, "sum")) {
		if (count != 1)
			return arity_error(p, name, count, "1, as in sum(e) or sum(e, exact)");
		return rr__check_reduce(p, name, RR_REDUCE_SUM, exact, args[0]);
	}
	int is_max = rr__token_is(name, "max");
	if (count == 1)
		return rr__check_reduce(p, name, is_max ? RR_REDUCE_MAX : RR_REDUCE_MIN, exact,
		                        args[0]);
	if (count != 2)
		return arity_error(p, name, count,
		                   "1 (a reduction over the row) or 2 (elementwise)");
	if (exact)
		return exact_error(p, name);
	return rr__check_binary(p, name, is_max ? RR_OP_MAX : RR_OP_MIN, args[0], args[1]);
}

static int is_function(const rr__token *name)
{
	for (size_t i = 0; i < sizeof unary_functions / sizeof unary_functions[0]; i++)
		if (rr__token_is(name, unary_functions[i].name))
			return 1;
	return rr__token_is(name, "sum") || rr__token_is(name, "max") || rr__token_is(name, "min");
}

/* NAME '(' ... ')' with the current token on the '('. */
static int parse_call(rr__parser *p, const rr__token *name)
{
	if (!is_function(name)) {
		char shown[48];
		rr__token_describe(name, shown, sizeof shown);
		rr__parser_fail(p, RR_ERR_TYPE, name,
		                "call of %s, which is not a function; expected one of exp, log, "
		                "sqrt, rsqrt, abs, tanh, sum, max, min",
		                shown);
		return -1;
	}
	rr__token open = p->token;
	if (enter(p, &open) < 0 || advance(p) != RR_OK)
		return -1;
	int args[2] = {-1, -1}, count, exact;
	if (parse_arguments(p, &open, args, &count, &exact) < 0)
		return -1;
	p->depth--;
	return build_call(p, name, args, count, exact);
}

/* NAME '[' NAME ']' with the current token on the '['. */
static int parse_gather(rr__parser *p, const rr__token *row)
{
	rr__token open = p->token;
	if (advance(p) != RR_OK)
		return -1;
	rr__token index = p->token;
	int id = rr__check_gather(p, row, &index);
	if (id < 0 || advance(p) != RR_OK || expect_closing(p, RR_TOK_RBRACKET, &open) != RR_OK)
		return -1;
	return id;
}

static int parse_primary(rr__parser *p)
{
	rr__token at = p->token;
	switch (at.type) {
	case RR_TOK_NUMBER: {
		rr__node node = rr__node_blank(RR_OP_CONST);
		node.value = at.number;
		int id = rr__check_node(p, &at, node);
		return id < 0 || advance(p) != RR_OK ? -1 : id;
	}
	case RR_TOK_LPAREN: {
		if (enter(p, &at) < 0 || advance(p) != RR_OK)
			return -1;
		int id = parse_expr(p);
		if (id < 0 || expect_closing(p, RR_TOK_RPAREN, &at) != RR_OK)
			return -1;
		p->depth--;
		return id;
	}
	case RR_TOK_NAME:
		if (advance(p) != RR_OK)
			return -1;
		if (p->token.type == RR_TOK_LPAREN)
			return parse_call(p, &at);
		if (p->token.type == RR_TOK_LBRACKET)
			return parse_gather(p, &at);
		return rr__check_name_value(p, &at);
	default:
		expected(p, "an expression (a name, a number, N, a call or '(')");
		return -1;
	}
}

/* Unary minus is counted in a loop; each one still counts as a nesting level. */
static int parse_unary(rr__parser *p)
{
	int minus = 0;
	rr__token sign = p->token;
	while (p->token.type == RR_TOK_MINUS) {
		sign = p->token;
		if (enter(p, &sign) < 0 || advance(p) != RR_OK)
			return -1;
		minus++;
	}
	int id = parse_primary(p);
	for (int i = 0; i < minus && id >= 0; i++)
		id = rr__check_unary(p, &sign, RR_OP_NEG, id);
	p->depth -= minus;
	return id;
}

static int parse_term(rr__parser *p)
{
	int left = parse_unary(p);
	while (left >= 0 && (p->token.type == RR_TOK_STAR || p->token.type == RR_TOK_SLASH)) {
		rr__token op = p->token;
		if (advance(p) != RR_OK)
			return -1;
		int right = parse_unary(p);
		if (right < 0)
			return -1;
		left = rr__check_binary(p, &op, op.type == RR_TOK_STAR ? RR_OP_MUL : RR_OP_DIV,
		                        left, right);
	}
	return left;
}

static int parse_expr(rr__parser *p)
{
	int left = parse_term(p);
	while (left >= 0 && (p->token.type == RR_TOK_PLUS || p->token.type == RR_TOK_MINUS)) {
		rr__token op = p->token;
		if (advance(p) != RR_OK)
			return -1;
		int right = parse_term(p);
		if (right < 0)
			return -1;
		left = rr__check_binary(p, &op, op.type == RR_TOK_PLUS ? RR_OP_ADD : RR_OP_SUB,
		                        left, right);
	}
	return left;
}

static rr_status end_of_statement(rr__parser *p)
{
	if (p->token.type == RR_TOK_NEWLINE)
		return advance(p);
	if (p->token.type == RR_TOK_END)
		return RR_OK;
	return expected(p, "end of line (one statement per line)");
}

/* The name being declared or assigned: a new, non-reserved name. */
static rr_status new_name(rr__parser *p, const char *role)
{
	char what[96];
	if (p->token.type != RR_TOK_NAME) {
		snprintf(what, sizeof what, "a name for the %s", role);
		return expected(p, what);
	}
	if (rr__is_reserved(&p->token)) {
		snprintf(what, sizeof what, "a name for the %s that is not a reserved word", role);
		return expected(p, what);
	}
	return RR_OK;
}

static const struct {
	const char *name;
	rr_kind kind;
	int for_output;
} kinds[] = {
    {"row", RR_KIND_ROW, 1},
    {"col", RR_KIND_COL, 0},
    {"rowscalar", RR_KIND_ROWSCALAR, 1},
    {"index", RR_KIND_INDEX, 0},
};

static rr_status parse_kind(rr__parser *p, int output, rr_kind *kind)
{
	const char *allowed = output ? "an output kind: row or rowscalar"
	                             : "an input kind: row, col, rowscalar or index";
	if (p->token.type != RR_TOK_COLON)
		return expected(p, output ? "':' and an output kind (row or rowscalar)"
		                          : "':' and an input kind (row, col, rowscalar or index)");
	rr_status status = advance(p);
	if (status != RR_OK)
		return status;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (rr__token_is(&p->token, kinds[i].name) && (!output || kinds[i].for_output)) {
			*kind = kinds[i].kind;
			return advance(p);
		}
	}
	return expected(p, allowed);
}

static rr_status parse_param_default(rr__parser *p, double *value)
{
	if (p->token.type != RR_TOK_EQUALS)
		return expected(p, "'=' and a default value, as in 'param eps = 1e-6'");
	rr_status status = advance(p);
	double sign = 1;
	if (status == RR_OK && p->token.type == RR_TOK_MINUS) {
		sign = -1;
		status = advance(p);
	}
	if (status != RR_OK)
		return status;
	if (p->token.type != RR_TOK_NUMBER)
		return expected(p, "a number as the param's default, like 1e-6 or -2");
	*value = sign * p->token.number;
	return advance(p);
}

/* in NAME : KIND | param NAME = NUMBER | out NAME : KIND */
static rr_status parse_declaration(rr__parser *p)
{
	rr__token keyword = p->token;
	int output = rr__token_is(&keyword, "out");
	int param = rr__token_is(&keyword, "param");
	rr_kernel *kernel = p->kernel;
	int count = output ? kernel->n_outputs : kernel->n_inputs;
	if (count >= RR_MAX_IO)
		return rr__parser_fail(p, RR_ERR_TYPE, &keyword,
		                       "more than %d %s; expected at most %d", RR_MAX_IO,
		                       output ? "outputs" : "inputs (params included)", RR_MAX_IO);
	rr_status status = advance(p);
	if (status == RR_OK)
		status = new_name(p, output ? "output" : param ? "param" : "input");
	if (status != RR_OK)
		return status;
	rr__token name = p->token;
	rr__name *earlier = rr__scope_find(p, name.start, name.length);
	if (earlier)
		return rr__parser_fail(p, RR_ERR_TYPE, &name,
		                       "'%.*s' is declared twice (first at %d:%d); expected a new "
		                       "name",
		                       (int)name.length, name.start, earlier->line,
		                       earlier->column);
	rr__io io;
	memset(&io, 0, sizeof io);
	snprintf(io.name, sizeof io.name, "%.*s", (int)name.length, name.start);
	io.line = name.line;
	io.column = name.column;
	io.node = -1;
	io.kind = RR_KIND_PARAM;
	if ((status = advance(p)) != RR_OK)
		return status;
	status =
	    param ? parse_param_default(p, &io.default_value) : parse_kind(p, output, &io.kind);
	if (status != RR_OK)
		return status;
	if (output) {
		kernel->outputs[kernel->n_outputs] = io;
		return rr__scope_add(p, &name, RR_NAME_OUTPUT, kernel->n_outputs++, -1);
	}
	int index = kernel->n_inputs++;
	kernel->inputs[index] = io;
	kernel->inputs[index].node = rr__check_input(p, &name, index);
	if (kernel->inputs[index].node < 0)
		return p->failed;
	return rr__scope_add(p, &name, RR_NAME_INPUT, index, kernel->inputs[index].node);
}

/* NAME = expr */
static rr_status parse_assignment(rr__parser *p)
{
	rr_status status = new_name(p, "assignment");
	if (status != RR_OK)
		return status;
	rr__token name = p->token;
	if ((status = advance(p)) != RR_OK)
		return status;
	if (p->token.type != RR_TOK_EQUALS) {
		char what[96];
		snprintf(what, sizeof what, "'=' after '%.*s' (statements are 'NAME = expression')",
		         (int)name.length, name.start);
		return expected(p, what);
	}
	if ((status = advance(p)) != RR_OK)
		return status;
	rr__token expr = p->token;
	p->depth = 0;
	int node = parse_expr(p);
	if (node < 0)
		return p->failed != RR_OK ? p->failed : RR_ERR_INTERNAL;
	return rr__check_assign(p, &name, &expr, node);
}

static int is_declaration(const rr__token *token)
{
	return rr__token_is(token, "in") || rr__token_is(token, "param") ||
	       rr__token_is(token, "out");
}

static rr_status parse_header(rr__parser *p)
{
	while (p->token.type == RR_TOK_NEWLINE) {
		rr_status status = advance(p);
		if (status != RR_OK)
			return status;
	}
	if (!rr__token_is(&p->token, "kernel"))
		return expected(p, "'kernel NAME' as the first line");
	p->header_line = p->token.line;
	p->header_column = p->token.column;
	rr_status status = advance(p);
	if (status != RR_OK)
		return status;
	if (p->token.type != RR_TOK_NAME)
		return expected(p, "the kernel's name after 'kernel'");
	snprintf(p->kernel->name, sizeof p->kernel->name, "%.*s", (int)p->token.length,
	         p->token.start);
	if ((status = advance(p)) != RR_OK)
		return status;
	return end_of_statement(p);
}

static rr_status parse_statements(rr__parser *p)
{
	int seen_assignment = 0;
	for (;;) {
		rr_status status = RR_OK;
		if (p->token.type == RR_TOK_END)
			return RR_OK;
		if (p->token.type == RR_TOK_NEWLINE) {
			status = advance(p);
		} else if (rr__token_is(&p->token, "kernel")) {
			return rr__parser_fail(p, RR_ERR_PARSE, &p->token,
			                       "a second 'kernel' line; expected one kernel per "
			                       "file");
		} else if (is_declaration(&p->token)) {
			if (seen_assignment)
				return expected(p, "an assignment (declarations in, param and out "
				                   "come before the first assignment)");
			status = parse_declaration(p);
			if (status == RR_OK)
				status = end_of_statement(p);
		} else {
			seen_assignment = 1;
			status = parse_assignment(p);
			if (status == RR_OK)
				status = end_of_statement(p);
		}
		if (status != RR_OK)
			return status;
	}
}

rr_status rr__parse_kernel(rr_kernel *kernel, const char *file)
{
	rr__parser parser;
	memset(&parser, 0, sizeof parser);
	parser.kernel = kernel;
	parser.file = file ? file : "<string>";
	rr_status status = rr__scope_init(&parser);
	if (status != RR_OK)
		return status;
	rr__lexer_init(&parser.lexer, kernel->text, kernel->text_length, parser.file);
	status = advance(&parser);
	if (status == RR_OK)
		status = parse_header(&parser);
	if (status == RR_OK)
		status = parse_statements(&parser);
	if (status == RR_OK)
		status = rr__check_finish(&parser);
	rr__scope_free(&parser);
	return status;
}
