/* The type checker of the kernel language, applied while parsing: names in scope, the shape
 * rules (scalar, elem, index) of every operation, and hash-consed node building. Lookups go
 * through hash tables so a megabyte of text stays linear. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/parser.h"
#include "util/util.h"

#define RR_NAME_SLOTS 16384 /* > 2 * (RR_MAX_BINDINGS + 2 * RR_MAX_IO), a power of two */
#define RR_MEMO_SLOTS 16384 /* > 2 * RR_MAX_NODES, a power of two */

static const char *const reserved_words[] = {"kernel", "in",   "param", "out", "N",
                                             "exact",  "sum",  "max",   "min", "exp",
                                             "log",    "sqrt", "rsqrt", "abs", "tanh"};

rr_status rr__parser_fail(rr__parser *p, rr_status status, const rr__token *at, const char *fmt,
                          ...)
{
	char message[1024];
	va_list args;
	va_start(args, fmt);
	vsnprintf(message, sizeof message, fmt, args);
	va_end(args);
	p->failed = status;
	return rr__spec_error(status, p->file, at->line, at->column, "%s", message);
}

int rr__is_reserved(const rr__token *token)
{
	for (size_t i = 0; i < sizeof reserved_words / sizeof reserved_words[0]; i++)
		if (rr__token_is(token, reserved_words[i]))
			return 1;
	return 0;
}

rr_status rr__scope_init(rr__parser *p)
{
	p->names = calloc(RR_NAME_SLOTS, sizeof *p->names);
	p->memo = malloc(RR_MEMO_SLOTS * sizeof *p->memo);
	if (!p->names || !p->memo) {
		rr__scope_free(p);
		return rr__fail(RR_ERR_NOMEM, "out of memory parsing '%s'", p->file);
	}
	for (int i = 0; i < RR_MEMO_SLOTS; i++)
		p->memo[i] = -1;
	return RR_OK;
}

void rr__scope_free(rr__parser *p)
{
	free(p->names);
	free(p->memo);
	p->names = NULL;
	p->memo = NULL;
}

static uint64_t mix(uint64_t hash, uint64_t value)
{
	hash ^= value;
	return hash * 0x100000001b3ull;
}

static uint64_t hash_text(const char *text, size_t length)
{
	uint64_t hash = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < length; i++)
		hash = mix(hash, (unsigned char)text[i]);
	return hash;
}

rr__name *rr__scope_find(rr__parser *p, const char *text, size_t length)
{
	for (uint64_t slot = hash_text(text, length);; slot++) {
		rr__name *name = &p->names[slot & (RR_NAME_SLOTS - 1)];
		if (name->kind == RR_NAME_NONE)
			return NULL;
		if ((size_t)name->length == length && memcmp(name->text, text, length) == 0)
			return name;
	}
}

rr_status rr__scope_add(rr__parser *p, const rr__token *at, rr__name_kind kind, int index, int node)
{
	if (kind == RR_NAME_BINDING && p->n_bound++ >= RR_MAX_BINDINGS)
		return rr__parser_fail(p, RR_ERR_PARSE, at,
		                       "more than %d assignments; expected at most %d",
		                       RR_MAX_BINDINGS, RR_MAX_BINDINGS);
	for (uint64_t slot = hash_text(at->start, at->length);; slot++) {
		rr__name *name = &p->names[slot & (RR_NAME_SLOTS - 1)];
		if (name->kind != RR_NAME_NONE)
			continue;
		name->text = at->start;
		name->length = (int)at->length;
		name->kind = kind;
		name->index = index;
		name->node = node;
		name->line = at->line;
		name->column = at->column;
		p->n_names++;
		return RR_OK;
	}
}

rr__node rr__node_blank(rr__op op)
{
	rr__node node;
	memset(&node, 0, sizeof node);
	node.op = op;
	node.a = node.b = node.input = node.index = -1;
	return node;
}

/* The fields rr__ir_add compares, so the memo agrees with its notion of "the same node". */
static uint64_t hash_node(const rr__node *node)
{
	uint64_t bits;
	memcpy(&bits, &node->value, sizeof bits);
	uint64_t hash = 0xcbf29ce484222325ull;
	hash = mix(hash, (uint64_t)node->op);
	hash = mix(hash, (uint64_t)node->shape);
	hash = mix(hash, (uint64_t)(uint32_t)node->a);
	hash = mix(hash, (uint64_t)(uint32_t)node->b);
	hash = mix(hash, (uint64_t)(uint32_t)node->input);
	hash = mix(hash, (uint64_t)(uint32_t)node->index);
	hash = mix(hash, bits);
	hash = mix(hash, (uint64_t)node->reduce);
	hash = mix(hash, (uint64_t)node->exact);
	return hash ^ (hash >> 29);
}

static int same_node(const rr__node *x, const rr__node *y)
{
	return x->op == y->op && x->shape == y->shape && x->a == y->a && x->b == y->b &&
	       x->input == y->input && x->index == y->index &&
	       memcmp(&x->value, &y->value, sizeof x->value) == 0 && x->reduce == y->reduce &&
	       x->exact == y->exact;
}

static int *memo_slot(rr__parser *p, const rr__node *node)
{
	for (uint64_t slot = hash_node(node);; slot++) {
		int *entry = &p->memo[slot & (RR_MEMO_SLOTS - 1)];
		if (*entry < 0 || same_node(&p->kernel->nodes[*entry], node))
			return entry;
	}
}

int rr__check_node(rr__parser *p, const rr__token *at, rr__node node)
{
	int *entry = memo_slot(p, &node);
	if (*entry >= 0)
		return *entry;
	node.line = at->line;
	node.column = at->column;
	int id = rr__ir_add(p->kernel, &node);
	if (id < 0) {
		if (p->kernel->n_nodes >= RR_MAX_NODES)
			rr__parser_fail(p, RR_ERR_PARSE, at,
			                "expression needs more than %d distinct sub-expressions in "
			                "the kernel; expected a smaller kernel",
			                RR_MAX_NODES);
		else
			p->failed = RR_ERR_NOMEM;
		return -1;
	}
	*entry = id;
	return id;
}

int rr__check_unary(rr__parser *p, const rr__token *at, rr__op op, int a)
{
	const rr__node *operand = &p->kernel->nodes[a];
	if (op == RR_OP_NEG && operand->op == RR_OP_CONST) {
		rr__node folded = rr__node_blank(RR_OP_CONST);
		folded.value = -operand->value;
		return rr__check_node(p, at, folded);
	}
	rr__node node = rr__node_blank(op);
	node.a = a;
	node.shape = operand->shape;
	return rr__check_node(p, at, node);
}

int rr__check_binary(rr__parser *p, const rr__token *at, rr__op op, int a, int b)
{
	rr__node node = rr__node_blank(op);
	node.a = a;
	node.b = b;
	node.shape = (p->kernel->nodes[a].shape == RR_SHAPE_ELEM ||
	              p->kernel->nodes[b].shape == RR_SHAPE_ELEM)
	                 ? RR_SHAPE_ELEM
	                 : RR_SHAPE_SCALAR;
	return rr__check_node(p, at, node);
}

int rr__check_reduce(rr__parser *p, const rr__token *at, rr__reduce reduce, int exact, int a)
{
	const char *name = rr__reduce_name(reduce);
	if (p->kernel->nodes[a].shape != RR_SHAPE_ELEM) {
		rr__parser_fail(p, RR_ERR_TYPE, at,
		                "%s(...) of a per-row scalar; expected a row expression inside "
		                "%s(...) (a scalar has nothing to reduce)",
		                name, name);
		return -1;
	}
	rr__node node = rr__node_blank(RR_OP_REDUCE);
	node.a = a;
	node.reduce = reduce;
	node.exact = exact ? 1 : 0;
	node.shape = RR_SHAPE_SCALAR;
	return rr__check_node(p, at, node);
}

static int unknown_name(rr__parser *p, const rr__token *at)
{
	char shown[48];
	rr__token_describe(at, shown, sizeof shown);
	rr__parser_fail(p, RR_ERR_TYPE, at,
	                "unknown name %s; expected an input, a param, N or an earlier assignment",
	                shown);
	return -1;
}

static const char *what_is(const rr__parser *p, const rr__name *name)
{
	if (name->kind == RR_NAME_OUTPUT)
		return "an output";
	if (name->kind == RR_NAME_BINDING)
		return "an assigned name";
	switch (p->kernel->inputs[name->index].kind) {
	case RR_KIND_ROW:
		return "a row input";
	case RR_KIND_COL:
		return "a col input";
	case RR_KIND_ROWSCALAR:
		return "a rowscalar input";
	case RR_KIND_INDEX:
		return "an index input";
	case RR_KIND_PARAM:
		return "a param";
	}
	return "a name";
}

int rr__check_gather(rr__parser *p, const rr__token *row, const rr__token *index)
{
	char shown[48];
	rr__name *x = rr__scope_find(p, row->start, row->length);
	if (!x)
		return unknown_name(p, row);
	if (x->kind != RR_NAME_INPUT || p->kernel->inputs[x->index].kind != RR_KIND_ROW) {
		rr__token_describe(row, shown, sizeof shown);
		rr__parser_fail(p, RR_ERR_TYPE, row,
		                "gather from %s, %s; expected a row input before '[' as in "
		                "x[t]",
		                shown, what_is(p, x));
		return -1;
	}
	rr__token_describe(index, shown, sizeof shown);
	rr__name *t =
	    index->type == RR_TOK_NAME ? rr__scope_find(p, index->start, index->length) : NULL;
	if (!t || t->kind != RR_NAME_INPUT || p->kernel->inputs[t->index].kind != RR_KIND_INDEX) {
		rr__parser_fail(p, RR_ERR_TYPE, index,
		                "%s inside '[ ]'; expected the name of an index input as in x[t]",
		                shown);
		return -1;
	}
	rr__node node = rr__node_blank(RR_OP_GATHER);
	node.input = x->index;
	node.index = t->index;
	node.shape = RR_SHAPE_SCALAR;
	return rr__check_node(p, row, node);
}

static int reserved_as_value(rr__parser *p, const rr__token *at)
{
	char shown[48];
	rr__token_describe(at, shown, sizeof shown);
	if (rr__token_is(at, "exact"))
		rr__parser_fail(
		    p, RR_ERR_PARSE, at,
		    "found 'exact'; expected an expression ('exact' may only be the last "
		    "argument of sum, max or min)");
	else if (rr__token_is(at, "kernel") || rr__token_is(at, "in") ||
	         rr__token_is(at, "param") || rr__token_is(at, "out"))
		rr__parser_fail(p, RR_ERR_PARSE, at, "found the keyword %s; expected an expression",
		                shown);
	else
		rr__parser_fail(p, RR_ERR_PARSE, at,
		                "function %s without arguments; expected %.*s(...)", shown,
		                (int)at->length, at->start);
	return -1;
}

int rr__check_name_value(rr__parser *p, const rr__token *at)
{
	if (rr__token_is(at, "N"))
		return rr__check_node(p, at, rr__node_blank(RR_OP_N));
	if (rr__is_reserved(at))
		return reserved_as_value(p, at);
	rr__name *name = rr__scope_find(p, at->start, at->length);
	if (!name)
		return unknown_name(p, at);
	switch (name->kind) {
	case RR_NAME_INPUT:
		if (p->kernel->inputs[name->index].kind == RR_KIND_INDEX) {
			rr__parser_fail(p, RR_ERR_TYPE, at,
			                "index input '%.*s' used as a value; expected it only "
			                "inside a gather such as x[%.*s]",
			                (int)at->length, at->start, (int)at->length, at->start);
			return -1;
		}
		return p->kernel->inputs[name->index].node;
	case RR_NAME_OUTPUT:
		if (!p->assigned[name->index]) {
			rr__parser_fail(
			    p, RR_ERR_TYPE, at,
			    "output '%.*s' used before it is assigned; expected an input, "
			    "a param, N or an earlier assignment",
			    (int)at->length, at->start);
			return -1;
		}
		return p->kernel->outputs[name->index].node;
	case RR_NAME_BINDING:
		return name->node;
	case RR_NAME_NONE:
		break;
	}
	return unknown_name(p, at);
}

static rr_status add_binding(rr__parser *p, const rr__token *at, int node)
{
	rr_kernel *kernel = p->kernel;
	if (kernel->nodes[node].op == RR_OP_INPUT)
		return RR_OK; /* an alias of an input: printing keeps the input's own name */
	if (kernel->n_bindings == kernel->cap_bindings) {
		int capacity = kernel->cap_bindings ? 2 * kernel->cap_bindings : 16;
		rr__binding *grown = realloc(kernel->bindings, (size_t)capacity * sizeof *grown);
		if (!grown)
			return rr__fail(RR_ERR_NOMEM, "out of memory parsing '%s'", p->file);
		kernel->bindings = grown;
		kernel->cap_bindings = capacity;
	}
	rr__binding *binding = &kernel->bindings[kernel->n_bindings++];
	snprintf(binding->name, sizeof binding->name, "%.*s", (int)at->length, at->start);
	binding->node = node;
	return RR_OK;
}

static rr_status assign_output(rr__parser *p, const rr__name *name, const rr__token *expr, int node)
{
	rr__io *output = &p->kernel->outputs[name->index];
	rr__shape shape = p->kernel->nodes[node].shape;
	if (output->kind == RR_KIND_ROW && shape != RR_SHAPE_ELEM)
		return rr__parser_fail(p, RR_ERR_TYPE, expr,
		                       "scalar assigned to row output '%s'; expected a row "
		                       "expression",
		                       output->name);
	if (output->kind == RR_KIND_ROWSCALAR && shape != RR_SHAPE_SCALAR)
		return rr__parser_fail(p, RR_ERR_TYPE, expr,
		                       "row used where a scalar is needed: rowscalar output '%s' "
		                       "gets a row expression; expected a scalar (reduce the row "
		                       "with sum, max or min)",
		                       output->name);
	output->node = node;
	p->assigned[name->index] = 1;
	return RR_OK;
}

rr_status rr__check_assign(rr__parser *p, const rr__token *at, const rr__token *expr, int node)
{
	rr__name *name = rr__scope_find(p, at->start, at->length);
	if (name && name->kind == RR_NAME_INPUT)
		return rr__parser_fail(p, RR_ERR_TYPE, at,
		                       "assignment to input '%.*s' (declared at %d:%d); expected a "
		                       "new name (inputs and params are read-only)",
		                       (int)at->length, at->start, name->line, name->column);
	if (name && (name->kind == RR_NAME_BINDING ||
	             (name->kind == RR_NAME_OUTPUT && p->assigned[name->index])))
		return rr__parser_fail(
		    p, RR_ERR_TYPE, at,
		    "'%.*s' is assigned twice (first at %d:%d); expected each name "
		    "to be assigned once",
		    (int)at->length, at->start, name->line, name->column);
	rr_status status;
	if (name) {
		status = assign_output(p, name, expr, node);
		/* From now on, "first at" points at the assignment, not the declaration. */
		name->line = at->line;
		name->column = at->column;
	} else {
		status = rr__scope_add(p, at, RR_NAME_BINDING, -1, node);
	}
	return status != RR_OK ? status : add_binding(p, at, node);
}

rr_status rr__check_finish(rr__parser *p)
{
	rr_kernel *kernel = p->kernel;
	if (kernel->n_outputs == 0)
		return rr__spec_error(RR_ERR_TYPE, p->file, p->header_line, p->header_column,
		                      "kernel '%s' declares no outputs; expected at least one 'out "
		                      "NAME : row' or 'out NAME : rowscalar'",
		                      kernel->name);
	for (int i = 0; i < kernel->n_outputs; i++)
		if (!p->assigned[i])
			return rr__spec_error(
			    RR_ERR_TYPE, p->file, kernel->outputs[i].line,
			    kernel->outputs[i].column,
			    "output '%s' is never assigned; expected an assignment "
			    "'%s = ...'",
			    kernel->outputs[i].name, kernel->outputs[i].name);
	return RR_OK;
}

int rr__check_input(rr__parser *p, const rr__token *at, int input)
{
	rr__node node = rr__node_blank(RR_OP_INPUT);
	node.input = input;
	node.shape = rr__input_shape(p->kernel->inputs[input].kind);
	return rr__check_node(p, at, node);
}
