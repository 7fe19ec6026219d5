/* The float64 reference: evaluates a kernel's nodes in id order, one row at a time, with every
 * reduction a single accumulator in index order and no rewrites (softmax is max, then a second
 * pass for sum(exp(x - m))). Every backend is validated against it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec/ir.h"
#include "util/util.h"

/* Per-call state: one N-double array per elem node, one double per scalar node. */
typedef struct ref_state {
	const rr_kernel *kernel;
	int64_t rows, cols;
	const rr_arg *inputs;
	double **elem;   /* per node: its row of values, NULL for scalars */
	double *scalar;  /* per node */
	double *scratch; /* the arrays elem[] points into */
} ref_state;

static rr_status check_inputs(const rr_kernel *kernel, int64_t rows, int64_t cols,
                              const rr_arg *inputs)
{
	for (int i = 0; i < kernel->n_inputs; i++) {
		const rr__io *io = &kernel->inputs[i];
		if (io->kind == RR_KIND_PARAM)
			continue;
		if (!inputs[i].data)
			return rr__fail(RR_ERR_INVALID_ARG,
			                "reference run of '%s': input '%s' has no data pointer "
			                "(only params may omit it)",
			                kernel->name, io->name);
		if (io->kind == RR_KIND_INDEX) {
			if (inputs[i].dtype != RR_I64)
				return rr__fail(
				    RR_ERR_INVALID_ARG,
				    "reference run of '%s': index input '%s' must be i64, "
				    "not %s",
				    kernel->name, io->name, rr_dtype_name(inputs[i].dtype));
			const int64_t *index = inputs[i].data;
			for (int64_t r = 0; r < rows; r++)
				if (index[r] < 0 || index[r] >= cols)
					return rr__fail(
					    RR_ERR_INVALID_ARG,
					    "reference run of '%s': index input '%s' is %lld "
					    "at row %lld; allowed are 0..%lld (the row length "
					    "minus one)",
					    kernel->name, io->name, (long long)index[r],
					    (long long)r, (long long)(cols - 1));
			continue;
		}
		rr_dtype dtype = inputs[i].dtype;
		if (dtype != RR_F32 && dtype != RR_BF16 && dtype != RR_F16 && dtype != RR_F64)
			return rr__fail(
			    RR_ERR_INVALID_ARG,
			    "reference run of '%s': input '%s' has dtype %s; allowed are "
			    "f32, bf16, f16, f64",
			    kernel->name, io->name, rr_dtype_name(dtype));
	}
	return RR_OK;
}

/* The type checker guarantees these; a hand-built kernel might not, and a bad id would read
 * out of bounds. */
static rr_status check_nodes(const rr_kernel *kernel)
{
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		int bad = node->a >= id || node->b >= id;
		if (node->op == RR_OP_INPUT || node->op == RR_OP_GATHER)
			bad |= node->input < 0 || node->input >= kernel->n_inputs;
		if (node->op == RR_OP_GATHER)
			bad |= node->index < 0 || node->index >= kernel->n_inputs ||
			       kernel->inputs[node->index].kind != RR_KIND_INDEX;
		if (node->op != RR_OP_INPUT && node->op != RR_OP_CONST && node->op != RR_OP_N &&
		    node->op != RR_OP_GATHER)
			bad |= node->a < 0;
		if (node->op >= RR_OP_ADD && node->op <= RR_OP_MIN)
			bad |= node->b < 0;
		if (bad)
			return rr__fail(RR_ERR_INTERNAL,
			                "reference run of '%s': node %d (%s) is malformed",
			                kernel->name, id, rr__op_name(node->op));
	}
	return RR_OK;
}

static rr_status check_args(const rr_kernel *kernel, int64_t rows, int64_t cols,
                            const rr_arg *inputs, double *const *outputs)
{
	if (!kernel)
		return rr__fail(RR_ERR_INVALID_ARG, "reference run: the kernel is NULL");
	if (rows < 1 || cols < 1)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "reference run of '%s': rows and cols must be at least 1 (got %lld "
		                "rows, %lld cols)",
		                kernel->name, (long long)rows, (long long)cols);
	if (rows > INT64_MAX / cols || (uint64_t)cols > SIZE_MAX / sizeof(double) / RR_MAX_NODES)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "reference run of '%s': %lld rows of %lld elements is too large",
		                kernel->name, (long long)rows, (long long)cols);
	if (!kernel->nodes || kernel->n_nodes < 1)
		return rr__fail(RR_ERR_INVALID_ARG, "reference run of '%s': the kernel has no body",
		                kernel->name);
	if (kernel->n_inputs > 0 && !inputs)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "reference run of '%s': inputs is NULL but the kernel has %d inputs",
		    kernel->name, kernel->n_inputs);
	if (!outputs)
		return rr__fail(RR_ERR_INVALID_ARG, "reference run of '%s': outputs is NULL",
		                kernel->name);
	for (int j = 0; j < kernel->n_outputs; j++) {
		const rr__io *io = &kernel->outputs[j];
		if (!outputs[j])
			return rr__fail(RR_ERR_INVALID_ARG,
			                "reference run of '%s': output '%s' has no buffer",
			                kernel->name, io->name);
		if (io->node < 0 || io->node >= kernel->n_nodes)
			return rr__fail(RR_ERR_INTERNAL,
			                "reference run of '%s': output '%s' is not assigned",
			                kernel->name, io->name);
		if (io->kind == RR_KIND_ROWSCALAR &&
		    kernel->nodes[io->node].shape != RR_SHAPE_SCALAR)
			return rr__fail(
			    RR_ERR_INTERNAL,
			    "reference run of '%s': rowscalar output '%s' is assigned a "
			    "per-element value",
			    kernel->name, io->name);
	}
	rr_status status = check_nodes(kernel);
	return status != RR_OK ? status : check_inputs(kernel, rows, cols, inputs);
}

static rr_status state_init(ref_state *state)
{
	const rr_kernel *kernel = state->kernel;
	size_t n = (size_t)kernel->n_nodes, elem_nodes = 0;
	for (size_t id = 0; id < n; id++)
		elem_nodes += kernel->nodes[id].shape == RR_SHAPE_ELEM;
	state->elem = calloc(n, sizeof *state->elem);
	state->scalar = calloc(n, sizeof *state->scalar);
	state->scratch =
	    malloc((elem_nodes ? elem_nodes : 1) * (size_t)state->cols * sizeof(double));
	if (!state->elem || !state->scalar || !state->scratch)
		return rr__fail(RR_ERR_NOMEM,
		                "reference run of '%s': out of memory for %zu rows of %lld doubles",
		                kernel->name, elem_nodes, (long long)state->cols);
	double *next = state->scratch;
	for (size_t id = 0; id < n; id++) {
		if (kernel->nodes[id].shape != RR_SHAPE_ELEM)
			continue;
		state->elem[id] = next;
		next += state->cols;
	}
	return RR_OK;
}

static void state_free(ref_state *state)
{
	free(state->elem);
	free(state->scalar);
	free(state->scratch);
}

static double apply_unary(rr__op op, double a)
{
	switch (op) {
	case RR_OP_NEG:
		return -a;
	case RR_OP_EXP:
		return exp(a);
	case RR_OP_LOG:
		return log(a);
	case RR_OP_SQRT:
		return sqrt(a);
	case RR_OP_RSQRT:
		return 1.0 / sqrt(a);
	case RR_OP_ABS:
		return fabs(a);
	case RR_OP_TANH:
		return tanh(a);
	default:
		return NAN;
	}
}

static double apply_binary(rr__op op, double a, double b)
{
	switch (op) {
	case RR_OP_ADD:
		return a + b;
	case RR_OP_SUB:
		return a - b;
	case RR_OP_MUL:
		return a * b;
	case RR_OP_DIV:
		return a / b;
	case RR_OP_MAX:
		return fmax(a, b);
	case RR_OP_MIN:
		return fmin(a, b);
	default:
		return NAN;
	}
}

/* Operand `id` at element i: its own array for elem nodes, its one value (broadcast) else. */
static double operand(const ref_state *state, int id, int64_t i)
{
	return state->elem[id] ? state->elem[id][i] : state->scalar[id];
}

static double reduce_row(const ref_state *state, const rr__node *node)
{
	double acc = node->reduce == RR_REDUCE_SUM   ? 0.0
	             : node->reduce == RR_REDUCE_MAX ? -INFINITY
	                                             : INFINITY;
	for (int64_t i = 0; i < state->cols; i++) {
		double v = operand(state, node->a, i);
		switch (node->reduce) {
		case RR_REDUCE_SUM:
			acc += v;
			break;
		case RR_REDUCE_MAX:
			acc = fmax(acc, v);
			break;
		case RR_REDUCE_MIN:
			acc = fmin(acc, v);
			break;
		}
	}
	return acc;
}

static void eval_input(ref_state *state, int id, int64_t row)
{
	const rr__node *node = &state->kernel->nodes[id];
	const rr__io *io = &state->kernel->inputs[node->input];
	const rr_arg *arg = &state->inputs[node->input];
	int64_t cols = state->cols;
	switch (io->kind) {
	case RR_KIND_ROW:
		for (int64_t i = 0; i < cols; i++)
			state->elem[id][i] =
			    rr__load_as_double(arg->data, arg->dtype, (size_t)(row * cols + i));
		break;
	case RR_KIND_COL:
		for (int64_t i = 0; i < cols; i++)
			state->elem[id][i] = rr__load_as_double(arg->data, arg->dtype, (size_t)i);
		break;
	case RR_KIND_ROWSCALAR:
		state->scalar[id] = rr__load_as_double(arg->data, arg->dtype, (size_t)row);
		break;
	case RR_KIND_INDEX:
		state->scalar[id] = (double)((const int64_t *)arg->data)[row];
		break;
	case RR_KIND_PARAM:
		state->scalar[id] = arg->value;
		break;
	}
}

static void eval_gather(ref_state *state, int id, int64_t row)
{
	const rr__node *node = &state->kernel->nodes[id];
	const rr_arg *source = &state->inputs[node->input];
	int64_t at = ((const int64_t *)state->inputs[node->index].data)[row];
	int64_t offset =
	    state->kernel->inputs[node->input].kind == RR_KIND_COL ? at : row * state->cols + at;
	state->scalar[id] = rr__load_as_double(source->data, source->dtype, (size_t)offset);
}

static void eval_node(ref_state *state, int id, int64_t row)
{
	const rr__node *node = &state->kernel->nodes[id];
	double *out = state->elem[id];
	switch (node->op) {
	case RR_OP_INPUT:
		eval_input(state, id, row);
		return;
	case RR_OP_CONST:
		state->scalar[id] = node->value;
		return;
	case RR_OP_N:
		state->scalar[id] = (double)state->cols;
		return;
	case RR_OP_GATHER:
		eval_gather(state, id, row);
		return;
	case RR_OP_REDUCE:
		state->scalar[id] = reduce_row(state, node);
		return;
	case RR_OP_NEG:
	case RR_OP_EXP:
	case RR_OP_LOG:
	case RR_OP_SQRT:
	case RR_OP_RSQRT:
	case RR_OP_ABS:
	case RR_OP_TANH:
		if (!out) {
			state->scalar[id] = apply_unary(node->op, state->scalar[node->a]);
			return;
		}
		for (int64_t i = 0; i < state->cols; i++)
			out[i] = apply_unary(node->op, operand(state, node->a, i));
		return;
	default:
		if (!out) {
			state->scalar[id] =
			    apply_binary(node->op, state->scalar[node->a], state->scalar[node->b]);
			return;
		}
		for (int64_t i = 0; i < state->cols; i++)
			out[i] = apply_binary(node->op, operand(state, node->a, i),
			                      operand(state, node->b, i));
		return;
	}
}

static void store_outputs(const ref_state *state, int64_t row, double *const *outputs)
{
	const rr_kernel *kernel = state->kernel;
	for (int j = 0; j < kernel->n_outputs; j++) {
		int id = kernel->outputs[j].node;
		if (kernel->outputs[j].kind == RR_KIND_ROWSCALAR) {
			outputs[j][row] = state->scalar[id];
			continue;
		}
		double *dst = outputs[j] + row * state->cols;
		for (int64_t i = 0; i < state->cols; i++)
			dst[i] = operand(state, id, i);
	}
}

rr_status rr_reference_run(const rr_kernel *kernel, int64_t rows, int64_t cols,
                           const rr_arg *inputs, double *const *outputs)
{
	rr_status status = check_args(kernel, rows, cols, inputs, outputs);
	if (status != RR_OK)
		return status;
	ref_state state = {.kernel = kernel, .rows = rows, .cols = cols, .inputs = inputs};
	status = state_init(&state);
	if (status == RR_OK) {
		for (int64_t row = 0; row < rows; row++) {
			for (int id = 0; id < kernel->n_nodes; id++)
				eval_node(&state, id, row);
			store_outputs(&state, row, outputs);
		}
	}
	state_free(&state);
	return status;
}
