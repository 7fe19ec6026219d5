/* Building the typed row program: hash-consed nodes in topological order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lang/ir.h"
#include "util/util.h"

rr_kernel *rr__kernel_new(const char *name)
{
	rr_kernel *kernel = calloc(1, sizeof *kernel);
	if (!kernel)
		return NULL;
	snprintf(kernel->name, sizeof kernel->name, "%s", name ? name : "");
	return kernel;
}

static int same_node(const rr__node *x, const rr__node *y)
{
	return x->op == y->op && x->shape == y->shape && x->a == y->a && x->b == y->b &&
	       x->input == y->input && x->index == y->index &&
	       memcmp(&x->value, &y->value, sizeof x->value) == 0 && x->reduce == y->reduce &&
	       x->exact == y->exact;
}

int rr__ir_add(rr_kernel *kernel, const rr__node *node)
{
	for (int i = 0; i < kernel->n_nodes; i++)
		if (same_node(&kernel->nodes[i], node))
			return i;
	if (kernel->n_nodes >= RR_MAX_NODES) {
		rr__fail(RR_ERR_INVALID_ARG, "kernel '%s' has more than %d distinct expressions",
		         kernel->name, RR_MAX_NODES);
		return -1;
	}
	if (kernel->n_nodes == kernel->cap_nodes) {
		int capacity = kernel->cap_nodes ? 2 * kernel->cap_nodes : 32;
		rr__node *nodes = realloc(kernel->nodes, (size_t)capacity * sizeof *nodes);
		if (!nodes) {
			rr__fail(RR_ERR_NOMEM, "out of memory building kernel '%s'", kernel->name);
			return -1;
		}
		kernel->nodes = nodes;
		kernel->cap_nodes = capacity;
	}
	kernel->nodes[kernel->n_nodes] = *node;
	return kernel->n_nodes++;
}

static rr__node blank(rr__op op)
{
	rr__node node = {0};
	node.op = op;
	node.a = node.b = node.input = node.index = -1;
	return node;
}

rr__shape rr__input_shape(rr_kind kind)
{
	switch (kind) {
	case RR_KIND_ROW:
	case RR_KIND_COL:
		return RR_SHAPE_ELEM;
	case RR_KIND_INDEX:
		return RR_SHAPE_INDEX;
	case RR_KIND_ROWSCALAR:
	case RR_KIND_PARAM:
		break;
	}
	return RR_SHAPE_SCALAR;
}

int rr__ir_input(rr_kernel *kernel, int input)
{
	rr__node node = blank(RR_OP_INPUT);
	node.input = input;
	node.shape = rr__input_shape(kernel->inputs[input].kind);
	return rr__ir_add(kernel, &node);
}

int rr__ir_const(rr_kernel *kernel, double value)
{
	rr__node node = blank(RR_OP_CONST);
	node.value = value;
	return rr__ir_add(kernel, &node);
}

int rr__ir_n(rr_kernel *kernel)
{
	rr__node node = blank(RR_OP_N);
	return rr__ir_add(kernel, &node);
}

int rr__ir_unary(rr_kernel *kernel, rr__op op, int a)
{
	rr__node node = blank(op);
	node.a = a;
	node.shape = kernel->nodes[a].shape;
	return rr__ir_add(kernel, &node);
}

int rr__ir_binary(rr_kernel *kernel, rr__op op, int a, int b)
{
	rr__node node = blank(op);
	node.a = a;
	node.b = b;
	node.shape =
	    (kernel->nodes[a].shape == RR_SHAPE_ELEM || kernel->nodes[b].shape == RR_SHAPE_ELEM)
	        ? RR_SHAPE_ELEM
	        : RR_SHAPE_SCALAR;
	return rr__ir_add(kernel, &node);
}

int rr__ir_reduce(rr_kernel *kernel, rr__reduce reduce, int exact, int a)
{
	rr__node node = blank(RR_OP_REDUCE);
	node.a = a;
	node.reduce = reduce;
	node.exact = exact ? 1 : 0;
	node.shape = RR_SHAPE_SCALAR;
	return rr__ir_add(kernel, &node);
}

int rr__ir_gather(rr_kernel *kernel, int row_input, int index_input)
{
	rr__node node = blank(RR_OP_GATHER);
	node.input = row_input;
	node.index = index_input;
	node.shape = RR_SHAPE_SCALAR;
	return rr__ir_add(kernel, &node);
}

const char *rr__op_name(rr__op op)
{
	switch (op) {
	case RR_OP_INPUT:
		return "input";
	case RR_OP_CONST:
		return "const";
	case RR_OP_N:
		return "N";
	case RR_OP_NEG:
		return "-";
	case RR_OP_EXP:
		return "exp";
	case RR_OP_LOG:
		return "log";
	case RR_OP_SQRT:
		return "sqrt";
	case RR_OP_RSQRT:
		return "rsqrt";
	case RR_OP_ABS:
		return "abs";
	case RR_OP_TANH:
		return "tanh";
	case RR_OP_ADD:
		return "+";
	case RR_OP_SUB:
		return "-";
	case RR_OP_MUL:
		return "*";
	case RR_OP_DIV:
		return "/";
	case RR_OP_MAX:
		return "max";
	case RR_OP_MIN:
		return "min";
	case RR_OP_REDUCE:
		return "reduce";
	case RR_OP_GATHER:
		return "gather";
	}
	return "?";
}

const char *rr__reduce_name(rr__reduce reduce)
{
	switch (reduce) {
	case RR_REDUCE_SUM:
		return "sum";
	case RR_REDUCE_MAX:
		return "max";
	case RR_REDUCE_MIN:
		return "min";
	}
	return "?";
}

static const char *binding_name(const rr_kernel *kernel, int id)
{
	for (int i = 0; i < kernel->n_bindings; i++)
		if (kernel->bindings[i].node == id)
			return kernel->bindings[i].name;
	return NULL;
}

static void print_expr(const rr_kernel *kernel, int id, FILE *out, int top)
{
	const rr__node *node = &kernel->nodes[id];
	const char *bound = top ? NULL : binding_name(kernel, id);
	if (bound) {
		fputs(bound, out);
		return;
	}
	switch (node->op) {
	case RR_OP_INPUT:
		fputs(kernel->inputs[node->input].name, out);
		return;
	case RR_OP_CONST:
		fprintf(out, "%.17g", node->value);
		return;
	case RR_OP_N:
		fputs("N", out);
		return;
	case RR_OP_NEG:
		fputs("-(", out);
		print_expr(kernel, node->a, out, 0);
		fputs(")", out);
		return;
	case RR_OP_EXP:
	case RR_OP_LOG:
	case RR_OP_SQRT:
	case RR_OP_RSQRT:
	case RR_OP_ABS:
	case RR_OP_TANH:
		fprintf(out, "%s(", rr__op_name(node->op));
		print_expr(kernel, node->a, out, 0);
		fputs(")", out);
		return;
	case RR_OP_ADD:
	case RR_OP_SUB:
	case RR_OP_MUL:
	case RR_OP_DIV:
		fputs("(", out);
		print_expr(kernel, node->a, out, 0);
		fprintf(out, " %s ", rr__op_name(node->op));
		print_expr(kernel, node->b, out, 0);
		fputs(")", out);
		return;
	case RR_OP_MAX:
	case RR_OP_MIN:
		fprintf(out, "%s(", rr__op_name(node->op));
		print_expr(kernel, node->a, out, 0);
		fputs(", ", out);
		print_expr(kernel, node->b, out, 0);
		fputs(")", out);
		return;
	case RR_OP_REDUCE:
		fprintf(out, "%s(", rr__reduce_name(node->reduce));
		print_expr(kernel, node->a, out, 0);
		fputs(node->exact ? ", exact)" : ")", out);
		return;
	case RR_OP_GATHER:
		fprintf(out, "%s[%s]", kernel->inputs[node->input].name,
		        kernel->inputs[node->index].name);
		return;
	}
}

void rr__ir_print_expr(const rr_kernel *kernel, int id, FILE *out)
{
	print_expr(kernel, id, out, 1);
}

void rr__ir_format_number(double value, char out[32])
{
	rr__format_real(value, out);
}

/* Binding strength: sums 1, products 2, unary minus (and negative numbers) 3, the rest 4. */
static int precedence(const rr__node *node)
{
	switch (node->op) {
	case RR_OP_ADD:
	case RR_OP_SUB:
		return 1;
	case RR_OP_MUL:
	case RR_OP_DIV:
		return 2;
	case RR_OP_NEG:
		return 3;
	case RR_OP_CONST:
		return signbit(node->value) ? 3 : 4;
	default:
		return 4;
	}
}

static void print_tidy(const rr_kernel *kernel, int id, FILE *out, int top, int min_precedence)
{
	const rr__node *node = &kernel->nodes[id];
	const char *bound = top ? NULL : binding_name(kernel, id);
	if (bound) {
		fputs(bound, out);
		return;
	}
	int own = precedence(node);
	if (own < min_precedence)
		fputc('(', out);
	char number[32];
	switch (node->op) {
	case RR_OP_CONST:
		rr__ir_format_number(node->value, number);
		fputs(number, out);
		break;
	case RR_OP_NEG:
		fputc('-', out);
		print_tidy(kernel, node->a, out, 0, 3);
		break;
	case RR_OP_ADD:
	case RR_OP_SUB:
	case RR_OP_MUL:
	case RR_OP_DIV:
		print_tidy(kernel, node->a, out, 0, own);
		fprintf(out, " %s ", rr__op_name(node->op));
		print_tidy(kernel, node->b, out, 0, own + 1);
		break;
	case RR_OP_EXP:
	case RR_OP_LOG:
	case RR_OP_SQRT:
	case RR_OP_RSQRT:
	case RR_OP_ABS:
	case RR_OP_TANH:
		fprintf(out, "%s(", rr__op_name(node->op));
		print_tidy(kernel, node->a, out, 0, 0);
		fputc(')', out);
		break;
	case RR_OP_MAX:
	case RR_OP_MIN:
		fprintf(out, "%s(", rr__op_name(node->op));
		print_tidy(kernel, node->a, out, 0, 0);
		fputs(", ", out);
		print_tidy(kernel, node->b, out, 0, 0);
		fputc(')', out);
		break;
	case RR_OP_REDUCE:
		fprintf(out, "%s(", rr__reduce_name(node->reduce));
		print_tidy(kernel, node->a, out, 0, 0);
		fputs(node->exact ? ", exact)" : ")", out);
		break;
	default:
		print_expr(kernel, id, out, top);
		break;
	}
	if (own < min_precedence)
		fputc(')', out);
}

void rr__ir_print_expr_tidy(const rr_kernel *kernel, int id, FILE *out)
{
	print_tidy(kernel, id, out, 1, 0);
}
