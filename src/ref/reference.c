/* The float64 reference: evaluates a kernel's nodes in id order, one row at a time, with every
 * reduction a single accumulator in index order and no rewrites (softmax is max, then a second
 * pass for sum(exp(x - m))). Every backend is validated against it, on up to 2^28 elements a
 * call, so rows are spread over threads; each row is computed exactly as on one thread. On
 * request each node also carries the bound of an f32 evaluation's error (ref/reference.h),
 * computed right after its values, in the same pass. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/ir.h"
#include "ref/bound.h"
#include "ref/reference.h"
#include "util/util.h"

/* Below this many elements a call stays on the calling thread: starting threads would cost more
 * than they save. */
#define REF_MIN_THREADED_ELEMENTS ((int64_t)1 << 16)
#define REF_MAX_THREADS 256
/* Rows are handed out in grabs of about this many elements, so a thread slowed by a busy
 * machine takes fewer of them instead of holding up the others. */
#define REF_GRAB_ELEMENTS ((int64_t)1 << 16)

/* What every thread of a call shares. Nodes no output depends on are in neither list. */
typedef struct ref_plan {
	const rr_kernel *kernel;
	int64_t rows, cols;
	const rr_arg *inputs;
	double *const *outputs;
	double *const *bounds; /* NULL: no error bounds wanted */
	int *setup;   /* nodes equal for every row (consts, N, params, col inputs, and what is
	               * computed from those alone), evaluated once per thread, in id order */
	int *per_row; /* the other nodes, evaluated for every row, in id order */
	int n_setup, n_per_row;
	int64_t rows_per_grab;
	_Atomic int64_t next_row;
} ref_plan;

/* One thread's scratch: one N-double array per elem node, one double per scalar node; as
 * many again for their error bounds when the plan wants them. */
typedef struct ref_state {
	ref_plan *plan;
	double **elem;         /* per node: its row of values, NULL for scalars */
	double *scalar;        /* per node */
	double *broadcast;     /* a spare row, see operand_row */
	double *scratch;       /* the arrays elem[] and broadcast point into */
	double **elem_bound;   /* per node: its row of bounds, NULL for scalars or without bounds */
	double *scalar_bound;  /* per node, NULL without bounds */
	double *bound_scratch; /* zeroed: the bounds of row inputs stay 0 */
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
		if (dtype != RR_F64 && rr_dtype_check_element(dtype) != RR_OK)
			return rr__fail_context(
			    RR_ERR_INVALID_ARG,
			    "reference run of '%s', input '%s' (f64 also allowed)", kernel->name,
			    io->name);
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
                            const rr_arg *inputs, double *const *outputs, double *const *bounds)
{
	if (!kernel)
		return rr__fail(RR_ERR_INVALID_ARG, "reference run: the kernel is NULL");
	if (rows < 0 || cols < 1)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "reference run of '%s': rows must be 0 or more and cols at least 1 "
		                "(got %lld rows, %lld cols)",
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
		if (bounds && !bounds[j])
			return rr__fail(RR_ERR_INVALID_ARG,
			                "reference run of '%s': output '%s' has no buffer for its "
			                "error bounds",
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

/* ---------------------------------------------------------------- the plan */

/* A node is row-invariant when it reads no row, rowscalar or index input, directly or through
 * its operands; computing it once per thread gives the same double as computing it per row. */
static int row_invariant(const rr_kernel *kernel, const rr__node *node, const char *invariant)
{
	switch (node->op) {
	case RR_OP_CONST:
	case RR_OP_N:
		return 1;
	case RR_OP_INPUT:
		return kernel->inputs[node->input].kind == RR_KIND_COL ||
		       kernel->inputs[node->input].kind == RR_KIND_PARAM;
	case RR_OP_GATHER:
		return 0;
	default:
		return invariant[node->a] && (node->b < 0 || invariant[node->b]);
	}
}

static rr_status plan_init(ref_plan *plan)
{
	const rr_kernel *kernel = plan->kernel;
	int n = kernel->n_nodes;
	char *live = calloc((size_t)n, 2); /* live[n], then invariant[n] */
	plan->setup = malloc((size_t)n * sizeof *plan->setup);
	plan->per_row = malloc((size_t)n * sizeof *plan->per_row);
	if (!live || !plan->setup || !plan->per_row) {
		free(live);
		return rr__fail(RR_ERR_NOMEM, "reference run of '%s': out of memory for %d nodes",
		                kernel->name, n);
	}
	char *invariant = live + n;
	for (int j = 0; j < kernel->n_outputs; j++)
		live[kernel->outputs[j].node] = 1;
	for (int id = n - 1; id >= 0; id--) {
		const rr__node *node = &kernel->nodes[id];
		if (live[id] && node->a >= 0)
			live[node->a] = 1;
		if (live[id] && node->b >= 0)
			live[node->b] = 1;
	}
	for (int id = 0; id < n; id++) {
		invariant[id] = (char)row_invariant(kernel, &kernel->nodes[id], invariant);
		if (live[id] && invariant[id])
			plan->setup[plan->n_setup++] = id;
		else if (live[id])
			plan->per_row[plan->n_per_row++] = id;
	}
	free(live);
	return RR_OK;
}

static void plan_free(ref_plan *plan)
{
	free(plan->setup);
	free(plan->per_row);
}

/* Online CPUs, capped by $RR_THREADS and by the rows; one when the call is small. */
static int thread_count(int64_t rows, int64_t cols)
{
	if (rows < 2 || rows * cols < REF_MIN_THREADED_ELEMENTS)
		return 1;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = cpus < 1 ? 1 : cpus > REF_MAX_THREADS ? REF_MAX_THREADS : (int)cpus;
	const char *env = getenv("RR_THREADS");
	if (env && atoi(env) > 0 && atoi(env) < threads)
		threads = atoi(env);
	return rows < threads ? (int)rows : threads;
}

/* ---------------------------------------------------------------- per-thread scratch */

static int state_init(ref_state *state, ref_plan *plan)
{
	const rr_kernel *kernel = plan->kernel;
	size_t n = (size_t)kernel->n_nodes, elem_nodes = 0;
	int *lists[2] = {plan->setup, plan->per_row};
	int counts[2] = {plan->n_setup, plan->n_per_row};
	state->plan = plan;
	state->elem = calloc(n, sizeof *state->elem);
	state->scalar = calloc(n, sizeof *state->scalar);
	for (int l = 0; l < 2; l++)
		for (int k = 0; k < counts[l]; k++)
			elem_nodes += kernel->nodes[lists[l][k]].shape == RR_SHAPE_ELEM;
	if (elem_nodes + 1 <= SIZE_MAX / sizeof(double) / (size_t)plan->cols)
		state->scratch = malloc((elem_nodes + 1) * (size_t)plan->cols * sizeof(double));
	if (!state->elem || !state->scalar || !state->scratch)
		return 0;
	if (plan->bounds) {
		state->elem_bound = calloc(n, sizeof *state->elem_bound);
		state->scalar_bound = calloc(n, sizeof *state->scalar_bound);
		state->bound_scratch =
		    calloc(elem_nodes ? elem_nodes * (size_t)plan->cols : 1, sizeof(double));
		if (!state->elem_bound || !state->scalar_bound || !state->bound_scratch)
			return 0;
	}
	state->broadcast = state->scratch;
	double *next = state->scratch + plan->cols, *next_bound = state->bound_scratch;
	for (int l = 0; l < 2; l++)
		for (int k = 0; k < counts[l]; k++) {
			int id = lists[l][k];
			if (kernel->nodes[id].shape != RR_SHAPE_ELEM)
				continue;
			state->elem[id] = next;
			next += plan->cols;
			if (plan->bounds) {
				state->elem_bound[id] = next_bound;
				next_bound += plan->cols;
			}
		}
	return 1;
}

static void state_free(ref_state *state)
{
	free(state->elem);
	free(state->scalar);
	free(state->scratch);
	free(state->elem_bound);
	free(state->scalar_bound);
	free(state->bound_scratch);
}

/* ---------------------------------------------------------------- evaluation */

/* `count` elements of a typed array from `offset`, as doubles; the dtype is switched on once
 * per row rather than once per element. */
static void load_doubles(double *out, const rr_arg *arg, size_t offset, int64_t count)
{
	switch (arg->dtype) {
	case RR_F32: {
		const float *in = (const float *)arg->data + offset;
		for (int64_t i = 0; i < count; i++)
			out[i] = in[i];
		return;
	}
	case RR_BF16: {
		const uint16_t *in = (const uint16_t *)arg->data + offset;
		for (int64_t i = 0; i < count; i++)
			out[i] = rr__bf16_to_f32(in[i]);
		return;
	}
	case RR_F16: {
		const uint16_t *in = (const uint16_t *)arg->data + offset;
		for (int64_t i = 0; i < count; i++)
			out[i] = rr__f16_to_f32(in[i]);
		return;
	}
	case RR_F64:
		memcpy(out, (const double *)arg->data + offset, (size_t)count * sizeof *out);
		return;
	default: /* not reached: check_inputs allows only the four above for these inputs */
		for (int64_t i = 0; i < count; i++)
			out[i] = rr__load_as_double(arg->data, arg->dtype, offset + (size_t)i);
		return;
	}
}

/* Node `id` as a row: its own array, or for a scalar its value broadcast into the thread's
 * spare row (a unary op or reduction over a scalar happens only in a hand-built kernel). */
static const double *operand_row(ref_state *state, int id)
{
	if (state->elem[id])
		return state->elem[id];
	for (int64_t i = 0; i < state->plan->cols; i++)
		state->broadcast[i] = state->scalar[id];
	return state->broadcast;
}

#define EACH_ELEMENT(expr)                                                                         \
	do {                                                                                       \
		for (int64_t i = 0; i < n; i++)                                                    \
			out[i] = (expr);                                                           \
	} while (0)

static void unary_row(rr__op op, double *out, const double *a, int64_t n)
{
	switch (op) {
	case RR_OP_NEG:
		EACH_ELEMENT(-a[i]);
		return;
	case RR_OP_EXP:
		EACH_ELEMENT(exp(a[i]));
		return;
	case RR_OP_LOG:
		EACH_ELEMENT(log(a[i]));
		return;
	case RR_OP_SQRT:
		EACH_ELEMENT(sqrt(a[i]));
		return;
	case RR_OP_RSQRT:
		EACH_ELEMENT(1.0 / sqrt(a[i]));
		return;
	case RR_OP_ABS:
		EACH_ELEMENT(fabs(a[i]));
		return;
	case RR_OP_TANH:
		EACH_ELEMENT(tanh(a[i]));
		return;
	default:
		EACH_ELEMENT(NAN);
		return;
	}
}

/* `expr` over x and y, where either operand may be a scalar (a_row or b_row NULL, its value
 * a or b), seen broadcast over the row. */
#define BINARY_ROW(expr)                                                                           \
	do {                                                                                       \
		double x = a, y = b;                                                               \
		if (a_row && b_row)                                                                \
			for (int64_t i = 0; i < n; i++) {                                          \
				x = a_row[i];                                                      \
				y = b_row[i];                                                      \
				out[i] = (expr);                                                   \
			}                                                                          \
		else if (a_row)                                                                    \
			for (int64_t i = 0; i < n; i++) {                                          \
				x = a_row[i];                                                      \
				out[i] = (expr);                                                   \
			}                                                                          \
		else if (b_row)                                                                    \
			for (int64_t i = 0; i < n; i++) {                                          \
				y = b_row[i];                                                      \
				out[i] = (expr);                                                   \
			}                                                                          \
		else                                                                               \
			EACH_ELEMENT(expr);                                                        \
	} while (0)

static void binary_row(rr__op op, double *out, const double *a_row, double a, const double *b_row,
                       double b, int64_t n)
{
	switch (op) {
	case RR_OP_ADD:
		BINARY_ROW(x + y);
		return;
	case RR_OP_SUB:
		BINARY_ROW(x - y);
		return;
	case RR_OP_MUL:
		BINARY_ROW(x * y);
		return;
	case RR_OP_DIV:
		BINARY_ROW(x / y);
		return;
	case RR_OP_MAX:
		BINARY_ROW(fmax(x, y));
		return;
	case RR_OP_MIN:
		BINARY_ROW(fmin(x, y));
		return;
	default:
		EACH_ELEMENT(NAN);
		return;
	}
}

static double apply_unary(rr__op op, double a)
{
	double out;
	unary_row(op, &out, &a, 1);
	return out;
}

static double apply_binary(rr__op op, double a, double b)
{
	double out;
	binary_row(op, &out, &a, 0, &b, 0, 1);
	return out;
}

/* One accumulator in index order. */
static double reduce_row(rr__reduce reduce, const double *a, int64_t n)
{
	double acc = reduce == RR_REDUCE_SUM ? 0.0 : reduce == RR_REDUCE_MAX ? -INFINITY : INFINITY;
	switch (reduce) {
	case RR_REDUCE_SUM:
		for (int64_t i = 0; i < n; i++)
			acc += a[i];
		break;
	case RR_REDUCE_MAX:
		for (int64_t i = 0; i < n; i++)
			acc = fmax(acc, a[i]);
		break;
	case RR_REDUCE_MIN:
		for (int64_t i = 0; i < n; i++)
			acc = fmin(acc, a[i]);
		break;
	}
	return acc;
}

static void eval_input(ref_state *state, int id, int64_t row)
{
	const ref_plan *plan = state->plan;
	const rr__node *node = &plan->kernel->nodes[id];
	const rr_arg *arg = &plan->inputs[node->input];
	switch (plan->kernel->inputs[node->input].kind) {
	case RR_KIND_ROW:
		load_doubles(state->elem[id], arg, (size_t)(row * plan->cols), plan->cols);
		break;
	case RR_KIND_COL:
		load_doubles(state->elem[id], arg, 0, plan->cols);
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
	const ref_plan *plan = state->plan;
	const rr__node *node = &plan->kernel->nodes[id];
	const rr_arg *source = &plan->inputs[node->input];
	int64_t at = ((const int64_t *)plan->inputs[node->index].data)[row];
	int64_t offset =
	    plan->kernel->inputs[node->input].kind == RR_KIND_COL ? at : row * plan->cols + at;
	state->scalar[id] = rr__load_as_double(source->data, source->dtype, (size_t)offset);
}

static void eval_node(ref_state *state, int id, int64_t row)
{
	const rr__node *node = &state->plan->kernel->nodes[id];
	double *out = state->elem[id];
	int64_t cols = state->plan->cols;
	switch (node->op) {
	case RR_OP_INPUT:
		eval_input(state, id, row);
		return;
	case RR_OP_CONST:
		state->scalar[id] = node->value;
		return;
	case RR_OP_N:
		state->scalar[id] = (double)cols;
		return;
	case RR_OP_GATHER:
		eval_gather(state, id, row);
		return;
	case RR_OP_REDUCE:
		state->scalar[id] = reduce_row(node->reduce, operand_row(state, node->a), cols);
		return;
	case RR_OP_NEG:
	case RR_OP_EXP:
	case RR_OP_LOG:
	case RR_OP_SQRT:
	case RR_OP_RSQRT:
	case RR_OP_ABS:
	case RR_OP_TANH:
		if (out)
			unary_row(node->op, out, operand_row(state, node->a), cols);
		else
			state->scalar[id] = apply_unary(node->op, state->scalar[node->a]);
		return;
	default:
		if (out)
			binary_row(node->op, out, state->elem[node->a], state->scalar[node->a],
			           state->elem[node->b], state->scalar[node->b], cols);
		else
			state->scalar[id] =
			    apply_binary(node->op, state->scalar[node->a], state->scalar[node->b]);
		return;
	}
}

/* ---------------------------------------------------------------- error bounds */

/* Node `id` as an operand of the bound rules: its values and bounds, a row or a scalar. */
static rr__bound_operand bound_operand(const ref_state *state, int id)
{
	if (state->elem[id])
		return (rr__bound_operand){state->elem[id], state->elem_bound[id], 1};
	return (rr__bound_operand){&state->scalar[id], &state->scalar_bound[id], 0};
}

/* The bound of node `id`, whose values eval_node has just computed (rules: ref/reference.h). */
static void bound_node(ref_state *state, int id)
{
	const ref_plan *plan = state->plan;
	const rr__node *node = &plan->kernel->nodes[id];
	int is_row = state->elem[id] != NULL;
	double *bound = is_row ? state->elem_bound[id] : &state->scalar_bound[id];
	const double *value = is_row ? state->elem[id] : &state->scalar[id];
	switch (node->op) {
	case RR_OP_INPUT: /* exact in their dtype (row and col inputs' rows stay zeroed) */
	case RR_OP_GATHER:
		if (!is_row)
			*bound = plan->kernel->inputs[node->input].kind == RR_KIND_PARAM
			             ? rr__bound_representation(*value)
			             : 0.0;
		return;
	case RR_OP_CONST:
	case RR_OP_N:
		*bound = rr__bound_representation(*value);
		return;
	case RR_OP_REDUCE:
		*bound = rr__bound_reduce(node->reduce, *value, bound_operand(state, node->a),
		                          plan->cols);
		return;
	case RR_OP_NEG:
	case RR_OP_EXP:
	case RR_OP_LOG:
	case RR_OP_SQRT:
	case RR_OP_RSQRT:
	case RR_OP_ABS:
	case RR_OP_TANH:
		rr__bound_unary(node->op, bound, value, bound_operand(state, node->a),
		                is_row ? plan->cols : 1);
		return;
	default:
		rr__bound_binary(node->op, bound, value, bound_operand(state, node->a),
		                 bound_operand(state, node->b), is_row ? plan->cols : 1);
		return;
	}
}

/* Row `row` of `outputs`, from per-node rows `elem` (NULL for a scalar) and `scalar`. */
static void store_row(const ref_state *state, double *const *outputs, double *const *elem,
                      const double *scalar, int64_t row)
{
	const rr_kernel *kernel = state->plan->kernel;
	int64_t cols = state->plan->cols;
	for (int j = 0; j < kernel->n_outputs; j++) {
		int id = kernel->outputs[j].node;
		double *out = outputs[j];
		if (kernel->outputs[j].kind == RR_KIND_ROWSCALAR) {
			out[row] = scalar[id];
			continue;
		}
		out += row * cols;
		if (elem[id])
			memcpy(out, elem[id], (size_t)cols * sizeof *out);
		else
			for (int64_t i = 0; i < cols; i++)
				out[i] = scalar[id];
	}
}

/* Node `id`'s values for `row`, then its bounds when the plan wants them. */
static void evaluate(ref_state *state, int id, int64_t row)
{
	eval_node(state, id, row);
	if (state->plan->bounds)
		bound_node(state, id);
}

static void store_outputs(const ref_state *state, int64_t row)
{
	store_row(state, state->plan->outputs, state->elem, state->scalar, row);
	if (state->plan->bounds)
		store_row(state, state->plan->bounds, state->elem_bound, state->scalar_bound, row);
}

/* ---------------------------------------------------------------- threads */

/* The body of every thread, the caller's included: the row-invariant nodes once, then grabs
 * of rows until none are left. Nothing here can fail. */
static void *run_rows(void *arg)
{
	ref_state *state = arg;
	ref_plan *plan = state->plan;
	for (int k = 0; k < plan->n_setup; k++)
		evaluate(state, plan->setup[k], 0);
	for (;;) {
		int64_t first = atomic_fetch_add(&plan->next_row, plan->rows_per_grab);
		if (first >= plan->rows)
			return NULL;
		int64_t end = plan->rows - first < plan->rows_per_grab
		                  ? plan->rows
		                  : first + plan->rows_per_grab;
		for (int64_t row = first; row < end; row++) {
			for (int k = 0; k < plan->n_per_row; k++)
				evaluate(state, plan->per_row[k], row);
			store_outputs(state, row);
		}
	}
}

uint64_t rr__reference_scratch_bytes(const rr_kernel *kernel, int64_t cols, int bounds)
{
	uint64_t elem_nodes = 0;
	for (int id = 0; id < kernel->n_nodes; id++)
		elem_nodes += kernel->nodes[id].shape == RR_SHAPE_ELEM;
	return (1 + elem_nodes * (bounds ? 2 : 1)) * (uint64_t)cols * sizeof(double);
}

/* Scratch for up to `wanted` threads, all allocated here on the calling thread; fewer when
 * memory runs out, failing only when not even one thread's fits. */
static rr_status states_init(ref_plan *plan, int wanted, ref_state **states, int *count)
{
	/* Each thread's rows of doubles, against the memory available before any is taken:
	 * malloc on an overcommitting system would not say no, the machine would swap instead. */
	uint64_t per_thread =
	    rr__reference_scratch_bytes(plan->kernel, plan->cols, plan->bounds != NULL);
	int64_t available = rr__host_memory_available();
	if (available >= 0 && (uint64_t)available / per_thread < (uint64_t)wanted)
		wanted = (int)((uint64_t)available / per_thread);
	if (wanted < 1) {
		char what[160];
		snprintf(what, sizeof what,
		         "the reference run of '%s' (scratch rows of %lld doubles)",
		         plan->kernel->name, (long long)plan->cols);
		return rr__host_memory_check(per_thread, what);
	}
	*states = calloc((size_t)wanted, sizeof **states);
	*count = 0;
	while (*states && *count < wanted && state_init(&(*states)[*count], plan))
		++*count;
	if (*states && *count < wanted)
		state_free(&(*states)[*count]); /* the one that did not fit */
	if (*count > 0)
		return RR_OK;
	free(*states);
	*states = NULL;
	return rr__fail(RR_ERR_NOMEM,
	                "reference run of '%s': out of memory for the scratch rows of %lld doubles",
	                plan->kernel->name, (long long)plan->cols);
}

static void run_threads(ref_state *states, int count)
{
	pthread_t threads[REF_MAX_THREADS];
	int started = 0;
	while (started < count - 1 &&
	       pthread_create(&threads[started], NULL, run_rows, &states[started + 1]) == 0)
		started++;
	/* If a thread could not start, the ones that did and the caller share all the rows. */
	run_rows(&states[0]);
	for (int t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
}

rr_status rr__reference_run_bounds(const rr_kernel *kernel, int64_t rows, int64_t cols,
                                   const rr_arg *inputs, double *const *outputs,
                                   double *const *bounds)
{
	rr_status status = check_args(kernel, rows, cols, inputs, outputs, bounds);
	if (status != RR_OK || rows == 0)
		return status;
	ref_plan plan = {.kernel = kernel,
	                 .rows = rows,
	                 .cols = cols,
	                 .inputs = inputs,
	                 .outputs = outputs,
	                 .bounds = bounds};
	status = plan_init(&plan);
	int threads = thread_count(rows, cols), count = 0;
	ref_state *states = NULL;
	if (status == RR_OK)
		status = states_init(&plan, threads, &states, &count);
	if (status == RR_OK) {
		int64_t grab = REF_GRAB_ELEMENTS / cols, fair = rows / (4 * (int64_t)count);
		plan.rows_per_grab = grab < 1 ? 1 : grab < fair ? grab : fair < 1 ? 1 : fair;
		atomic_init(&plan.next_row, 0);
		run_threads(states, count);
	}
	for (int t = 0; t < count; t++)
		state_free(&states[t]);
	free(states);
	plan_free(&plan);
	return status;
}

rr_status rr_reference_run(const rr_kernel *kernel, int64_t rows, int64_t cols,
                           const rr_arg *inputs, double *const *outputs)
{
	return rr__reference_run_bounds(kernel, rows, cols, inputs, outputs, NULL);
}
