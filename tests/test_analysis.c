/* Tests of the analysis: rounds, the online max/sum rewrite, exact counts, and the per-round
 * views (elem nodes needed, inputs read, scalars ready, storage need) on the built-ins and on
 * hand-built kernels that probe the edges (exact sum, three rounds, a pair at level 2). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "harness.h"
#include "spec/ir.h"

/* ---------------------------------------------------------------- hand-built kernels */

static int add_input(rr_kernel *k, const char *name, rr_kind kind)
{
	int i = k->n_inputs++;
	snprintf(k->inputs[i].name, RR_MAX_NAME, "%s", name);
	k->inputs[i].kind = kind;
	k->inputs[i].node = rr__ir_input(k, i);
	return k->inputs[i].node;
}

static void add_output(rr_kernel *k, const char *name, rr_kind kind, int node)
{
	int j = k->n_outputs++;
	snprintf(k->outputs[j].name, RR_MAX_NAME, "%s", name);
	k->outputs[j].kind = kind;
	k->outputs[j].node = node;
}

static void free_kernel(rr_kernel *k)
{
	if (!k)
		return;
	rr__analysis_free(&k->analysis);
	free(k->nodes);
	free(k->bindings);
	free(k->text);
	free(k);
}

#define BIN(op, a, b) rr__ir_binary(k, RR_OP_##op, (a), (b))
#define UN(op, a) rr__ir_unary(k, RR_OP_##op, (a))
#define RED(r, exact, a) rr__ir_reduce(k, RR_REDUCE_##r, (exact), (a))

/* Shared by layernorm and add_layernorm: y = (h - mean) * rsqrt(var + eps) * w + b */
static int layer_norm_body(rr_kernel *k, int h, int w, int b, int eps)
{
	int n = rr__ir_n(k);
	int mean = BIN(DIV, RED(SUM, 0, h), n);
	int d = BIN(SUB, h, mean);
	int var = BIN(DIV, RED(SUM, 0, BIN(MUL, d, d)), n);
	int inv = UN(RSQRT, BIN(ADD, var, eps));
	return BIN(ADD, BIN(MUL, BIN(MUL, d, inv), w), b);
}

/* The six built-in specs (the files of the specs folder), built node by node. */
static rr_kernel *build_builtin(const char *name)
{
	rr_kernel *k = rr__kernel_new(name);
	if (strcmp(name, "sum") == 0) {
		int x = add_input(k, "x", RR_KIND_ROW);
		add_output(k, "s", RR_KIND_ROWSCALAR, RED(SUM, 0, x));
	} else if (strcmp(name, "softmax") == 0) {
		int x = add_input(k, "x", RR_KIND_ROW);
		int m = RED(MAX, 0, x);
		int e = UN(EXP, BIN(SUB, x, m));
		add_output(k, "y", RR_KIND_ROW, BIN(DIV, e, RED(SUM, 0, e)));
	} else if (strcmp(name, "rmsnorm") == 0) {
		int x = add_input(k, "x", RR_KIND_ROW);
		int w = add_input(k, "w", RR_KIND_COL);
		int eps = add_input(k, "eps", RR_KIND_PARAM);
		int ss = RED(SUM, 0, BIN(MUL, x, x));
		int inv = UN(RSQRT, BIN(ADD, BIN(DIV, ss, rr__ir_n(k)), eps));
		add_output(k, "y", RR_KIND_ROW, BIN(MUL, BIN(MUL, x, inv), w));
	} else if (strcmp(name, "layernorm") == 0) {
		int x = add_input(k, "x", RR_KIND_ROW);
		int w = add_input(k, "w", RR_KIND_COL);
		int b = add_input(k, "b", RR_KIND_COL);
		int eps = add_input(k, "eps", RR_KIND_PARAM);
		add_output(k, "y", RR_KIND_ROW, layer_norm_body(k, x, w, b, eps));
	} else if (strcmp(name, "add_layernorm") == 0) {
		int x = add_input(k, "x", RR_KIND_ROW);
		int r = add_input(k, "r", RR_KIND_ROW);
		int w = add_input(k, "w", RR_KIND_COL);
		int b = add_input(k, "b", RR_KIND_COL);
		int eps = add_input(k, "eps", RR_KIND_PARAM);
		int h = BIN(ADD, x, r);
		add_output(k, "y", RR_KIND_ROW, layer_norm_body(k, h, w, b, eps));
		add_output(k, "h", RR_KIND_ROW, h);
	} else if (strcmp(name, "cross_entropy") == 0) {
		int x = add_input(k, "x", RR_KIND_ROW);
		add_input(k, "t", RR_KIND_INDEX);
		int m = RED(MAX, 0, x);
		int s = RED(SUM, 0, UN(EXP, BIN(SUB, x, m)));
		int g = rr__ir_gather(k, 0, 1);
		add_output(k, "loss", RR_KIND_ROWSCALAR, BIN(SUB, BIN(ADD, m, UN(LOG, s)), g));
	}
	return k;
}

static rr_kernel *analysed(rr_kernel *k)
{
	rr_status status = rr__analyze(k);
	CHECKF(status == RR_OK, "rr__analyze(%s) failed: %d", k->name, (int)status);
	return k;
}

/* ---------------------------------------------------------------- views as bit strings */

/* The names of the inputs read in `round`, e.g. "x,w". */
static const char *inputs_read(const rr_kernel *k, int round, char *buf, size_t size)
{
	unsigned char read[RR_MAX_IO];
	int count = rr__analysis_inputs_read(k, round, read);
	int listed = 0;
	buf[0] = 0;
	for (int i = 0; i < k->n_inputs; i++) {
		if (!read[i])
			continue;
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s%s", listed ? "," : "", k->inputs[i].name);
		listed++;
	}
	CHECK(count == listed);
	return buf;
}

#define CHECK_READS(k, round, expect)                                                              \
	do {                                                                                       \
		char got_[128];                                                                    \
		inputs_read((k), (round), got_, sizeof got_);                                      \
		CHECKF(strcmp(got_, (expect)) == 0, "%s round %d reads '%s', expected '%s'",       \
		       (k)->name, (round), got_, (expect));                                        \
	} while (0)

static int count_marked(const unsigned char *marks, int n)
{
	int count = 0;
	for (int i = 0; i < n; i++)
		count += marks[i];
	return count;
}

/* ---------------------------------------------------------------- the built-ins */

static void check_counts(const char *name, int rounds, int rewrites, int reductions, int storage)
{
	rr_kernel *k = analysed(build_builtin(name));
	const rr__analysis *a = &k->analysis;
	CHECKF(a->rounds == rounds, "%s: rounds %d, expected %d", name, a->rounds, rounds);
	CHECKF(a->online_rewrites == rewrites, "%s: rewrites %d, expected %d", name,
	       a->online_rewrites, rewrites);
	CHECKF(a->reductions == reductions, "%s: reductions %d, expected %d", name, a->reductions,
	       reductions);
	CHECKF(a->exact_reductions == 0, "%s: %d exact reductions", name, a->exact_reductions);
	CHECKF(rr__analysis_needs_storage(k) == storage, "%s: needs_storage should be %d", name,
	       storage);
	/* Recomputing gives the same answer (and frees the old arrays: ASan would see a leak). */
	CHECK(rr__analyze(k) == RR_OK);
	CHECK(k->analysis.rounds == rounds && k->analysis.online_rewrites == rewrites);
	free_kernel(k);
}

static void test_builtin_counts(void)
{
	check_counts("sum", 1, 0, 1, 0);
	check_counts("softmax", 1, 1, 1, 1);
	check_counts("rmsnorm", 1, 0, 1, 1);
	check_counts("layernorm", 2, 0, 2, 1);
	check_counts("add_layernorm", 2, 0, 2, 1);
	check_counts("cross_entropy", 1, 1, 1, 0);
}

static void test_softmax_views(void)
{
	rr_kernel *k = analysed(build_builtin("softmax"));
	unsigned char needed[RR_MAX_NODES];
	int x = k->inputs[0].node;
	/* Round 1 accumulates (max, sum) from x alone: exp(x - m) is not evaluated there. */
	CHECK(rr__analysis_elem_needs(k, 1, needed) == 1);
	CHECK(needed[x] == 1);
	/* Output phase: x, x - m, exp(x - m), and the division. */
	CHECK(rr__analysis_elem_needs(k, 2, needed) == 4);
	CHECK(needed[x] && needed[k->outputs[0].node]);
	for (int id = 0; id < k->n_nodes; id++) {
		const rr__node *node = &k->nodes[id];
		if (node->op == RR_OP_REDUCE) {
			CHECK(k->analysis.level[id] == 1);
			CHECK(k->analysis.online_partner[id] >= 0);
			CHECK(k->analysis.online_partner[k->analysis.online_partner[id]] == id);
		} else {
			CHECK(k->analysis.online_partner[id] == -1);
		}
	}
	CHECK(rr__analysis_elem_needs(k, 0, needed) == 0);
	CHECK(rr__analysis_elem_needs(k, 3, needed) == 0);
	free_kernel(k);
}

static void test_rmsnorm_views(void)
{
	rr_kernel *k = analysed(build_builtin("rmsnorm"));
	unsigned char needed[RR_MAX_NODES], ready[RR_MAX_NODES];
	CHECK_READS(k, 1, "x");
	CHECK_READS(k, 2, "x,w");
	CHECK(rr__analysis_elem_needs(k, 1, needed) == 2); /* x, x * x */
	CHECK(rr__analysis_elem_needs(k, 2, needed) == 4); /* x, w, x * inv, (x * inv) * w */
	/* Before any reduction only N is known (params are inputs, not computed). */
	CHECK(rr__analysis_scalars_after(k, 0, ready) == 1);
	for (int id = 0; id < k->n_nodes; id++)
		if (ready[id])
			CHECK(k->nodes[id].op == RR_OP_N);
	/* After round 1: ss / N, + eps, rsqrt. */
	CHECK(rr__analysis_scalars_after(k, 1, ready) == 3);
	for (int id = 0; id < k->n_nodes; id++)
		if (ready[id])
			CHECK(k->nodes[id].shape == RR_SHAPE_SCALAR &&
			      k->nodes[id].op != RR_OP_REDUCE);
	CHECK(rr__analysis_scalars_after(k, 2, ready) == 0);
	free_kernel(k);
}

static void test_add_layernorm_views(void)
{
	rr_kernel *k = analysed(build_builtin("add_layernorm"));
	unsigned char needed[RR_MAX_NODES], ready[RR_MAX_NODES];
	CHECK_READS(k, 1, "x,r");
	CHECK_READS(k, 2, "x,r");
	CHECK_READS(k, 3, "x,r,w,b");
	CHECK_READS(k, 4, "");
	CHECK(rr__analysis_elem_needs(k, 1, needed) == 3); /* x, r, h */
	CHECK(rr__analysis_elem_needs(k, 2, needed) == 5); /* + d, d * d */
	int h = k->outputs[1].node;
	CHECK(needed[h] && k->analysis.level[h] == 0);
	CHECK(rr__analysis_scalars_after(k, 1, ready) == 1); /* mean */
	CHECK(rr__analysis_scalars_after(k, 2, ready) == 3); /* var, var + eps, rsqrt */
	for (int id = 0; id < k->n_nodes; id++) {
		if (k->nodes[id].op != RR_OP_REDUCE)
			continue;
		int operand_level = k->analysis.level[k->nodes[id].a];
		CHECK(k->analysis.level[id] == operand_level + 1);
	}
	free_kernel(k);
}

static void test_cross_entropy_views(void)
{
	rr_kernel *k = analysed(build_builtin("cross_entropy"));
	unsigned char needed[RR_MAX_NODES], ready[RR_MAX_NODES];
	CHECK_READS(k, 1, "x");
	CHECK_READS(k, 2, ""); /* no row output: nothing elementwise after the pass */
	CHECK(rr__analysis_elem_needs(k, 2, needed) == 0);
	/* The gather x[t] needs no reduction: known before round 1. */
	CHECK(rr__analysis_scalars_after(k, 0, ready) == 1);
	for (int id = 0; id < k->n_nodes; id++)
		if (ready[id])
			CHECK(k->nodes[id].op == RR_OP_GATHER);
	CHECK(rr__analysis_scalars_after(k, 1, ready) == 3); /* log(s), m + log(s), loss */
	CHECK(ready[k->outputs[0].node]);
	free_kernel(k);
}

/* ---------------------------------------------------------------- edges */

static void test_exact(void)
{
	rr_kernel *k = rr__kernel_new("exact_sum");
	int x = add_input(k, "x", RR_KIND_ROW);
	add_output(k, "s", RR_KIND_ROWSCALAR, RED(SUM, 1, x));
	analysed(k);
	CHECK(k->analysis.exact_reductions == 1 && k->analysis.rounds == 1);
	CHECK(k->analysis.reductions == 1);
	free_kernel(k);

	/* An exact sum may not be reordered into an online pair: two rounds, no rewrite. */
	k = rr__kernel_new("exact_softmax_sum");
	x = add_input(k, "x", RR_KIND_ROW);
	int m = RED(MAX, 0, x);
	int s = RED(SUM, 1, UN(EXP, BIN(SUB, x, m)));
	add_output(k, "s", RR_KIND_ROWSCALAR, s);
	analysed(k);
	CHECK(k->analysis.online_rewrites == 0);
	CHECK(k->analysis.rounds == 2);
	CHECK(k->analysis.reductions == 2);
	CHECK(k->analysis.exact_reductions == 1);
	CHECK(k->analysis.online_partner[m] == -1 && k->analysis.online_partner[s] == -1);
	CHECK(k->analysis.level[m] == 1 && k->analysis.level[s] == 2);
	CHECK(rr__analysis_needs_storage(k) == 1); /* x is read in both rounds */
	free_kernel(k);

	/* Nor may an exact max. */
	k = rr__kernel_new("exact_max");
	x = add_input(k, "x", RR_KIND_ROW);
	m = RED(MAX, 1, x);
	add_output(k, "s", RR_KIND_ROWSCALAR, RED(SUM, 0, UN(EXP, BIN(SUB, x, m))));
	analysed(k);
	CHECK(k->analysis.online_rewrites == 0 && k->analysis.rounds == 2);
	free_kernel(k);
}

static void test_not_a_pair(void)
{
	/* sum(exp(y - max(x))): the max is of another row, so no online pair. */
	rr_kernel *k = rr__kernel_new("other_row");
	int x = add_input(k, "x", RR_KIND_ROW);
	int y = add_input(k, "y", RR_KIND_ROW);
	int m = RED(MAX, 0, x);
	add_output(k, "s", RR_KIND_ROWSCALAR, RED(SUM, 0, UN(EXP, BIN(SUB, y, m))));
	analysed(k);
	CHECK(k->analysis.online_rewrites == 0 && k->analysis.rounds == 2);
	CHECK(k->analysis.reductions == 2);
	CHECK_READS(k, 1, "x");
	CHECK_READS(k, 2, "y");
	CHECK(rr__analysis_needs_storage(k) == 0); /* each row input read in one round only */
	free_kernel(k);

	/* sum(exp(m - x)) has the operands the other way round. */
	k = rr__kernel_new("reversed");
	x = add_input(k, "x", RR_KIND_ROW);
	m = RED(MAX, 0, x);
	add_output(k, "s", RR_KIND_ROWSCALAR, RED(SUM, 0, UN(EXP, BIN(SUB, m, x))));
	analysed(k);
	CHECK(k->analysis.online_rewrites == 0 && k->analysis.rounds == 2);
	free_kernel(k);
}

/* mean = sum(x); c = x - mean; (max, sum(exp(c - m))) fuse at level 2; then a third round. */
static void test_three_rounds(void)
{
	rr_kernel *k = rr__kernel_new("three");
	int x = add_input(k, "x", RR_KIND_ROW);
	int w = add_input(k, "w", RR_KIND_COL);
	int mean = BIN(DIV, RED(SUM, 0, x), rr__ir_n(k));
	int c = BIN(SUB, x, mean);
	int m = RED(MAX, 0, c);
	int s = RED(SUM, 0, UN(EXP, BIN(SUB, c, m)));
	int p = BIN(MUL, BIN(DIV, UN(EXP, BIN(SUB, c, m)), s), w);
	int q = RED(MIN, 0, p);
	add_output(k, "y", RR_KIND_ROW, BIN(SUB, p, q));
	add_output(k, "q", RR_KIND_ROWSCALAR, q);
	analysed(k);
	const rr__analysis *a = &k->analysis;
	CHECK(a->rounds == 3);
	CHECK(a->online_rewrites == 1 && a->reductions == 3);
	CHECK(a->level[m] == 2 && a->level[s] == 2 && a->level[q] == 3);
	CHECK(a->online_partner[m] == s && a->online_partner[s] == m);
	CHECK(a->level[p] == 2);
	unsigned char needed[RR_MAX_NODES];
	CHECK(rr__analysis_elem_needs(k, 1, needed) == 1 && needed[x]);
	CHECK(rr__analysis_elem_needs(k, 2, needed) == 2 && needed[x] && needed[c]);
	CHECK(rr__analysis_elem_needs(k, 3, needed) == 7 && needed[p] && needed[w]);
	CHECK(rr__analysis_elem_needs(k, 4, needed) == 8);
	CHECK_READS(k, 1, "x");
	CHECK_READS(k, 2, "x");
	CHECK_READS(k, 3, "x,w");
	CHECK_READS(k, 4, "x,w");
	unsigned char ready[RR_MAX_NODES];
	CHECK(rr__analysis_scalars_after(k, 1, ready) == 1 && ready[mean]);
	CHECK(rr__analysis_scalars_after(k, 3, ready) == 0);
	CHECK(rr__analysis_needs_storage(k) == 1);
	CHECK(count_marked(needed, k->n_nodes) == 8);
	free_kernel(k);
}

static void test_no_reduction(void)
{
	rr_kernel *k = rr__kernel_new("scale");
	int x = add_input(k, "x", RR_KIND_ROW);
	int alpha = add_input(k, "alpha", RR_KIND_PARAM);
	add_output(k, "y", RR_KIND_ROW, BIN(MUL, x, alpha));
	analysed(k);
	CHECK(k->analysis.rounds == 0 && k->analysis.reductions == 0);
	CHECK_READS(k, 1, "x"); /* round 1 is the output phase */
	CHECK(rr__analysis_needs_storage(k) == 0);
	free_kernel(k);
}

int main(void)
{
	test_builtin_counts();
	test_softmax_views();
	test_rmsnorm_views();
	test_add_layernorm_views();
	test_cross_entropy_views();
	test_exact();
	test_not_a_pair();
	test_three_rounds();
	test_no_reduction();
	return rr_test_finish("test_analysis");
}
