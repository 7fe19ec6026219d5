/* Tests of the analysis: rounds, the online max/sum rewrite, exact counts, and the per-round
 * views (elem nodes needed, inputs read, scalars ready, storage need) on the built-ins and on
 * small kernel texts that probe the edges (exact reductions, three rounds, a pair at level 2). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "harness.h"
#include "lang/ir.h"

/* ---------------------------------------------------------------- kernels */

static rr_kernel *load_builtin(const char *name)
{
	rr_kernel *k = NULL;
	rr_status status = rr_kernel_load_builtin(name, &k);
	CHECKF(status == RR_OK, "loading built-in %s: %s", name, rr_last_error());
	return k;
}

static rr_kernel *load_text(const char *text)
{
	rr_kernel *k = NULL;
	rr_status status = rr_kernel_load_string(text, strlen(text), "<test>", &k);
	CHECKF(status == RR_OK, "loading test kernel: %s", rr_last_error());
	return k;
}

/* The node of a named intermediate, input or output. */
static int node_of(const rr_kernel *k, const char *name)
{
	for (int i = 0; i < k->n_bindings; i++)
		if (strcmp(k->bindings[i].name, name) == 0)
			return k->bindings[i].node;
	for (int i = 0; i < k->n_inputs; i++)
		if (strcmp(k->inputs[i].name, name) == 0)
			return k->inputs[i].node;
	for (int i = 0; i < k->n_outputs; i++)
		if (strcmp(k->outputs[i].name, name) == 0)
			return k->outputs[i].node;
	CHECKF(0, "kernel %s has no name '%s'", k->name, name);
	return 0;
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
	rr_kernel *k = load_builtin(name);
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
	rr_kernel_free(k);
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
	rr_kernel *k = load_builtin("softmax");
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
	rr_kernel_free(k);
}

static void test_rmsnorm_views(void)
{
	rr_kernel *k = load_builtin("rmsnorm");
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
	rr_kernel_free(k);
}

static void test_add_layernorm_views(void)
{
	rr_kernel *k = load_builtin("add_layernorm");
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
	rr_kernel_free(k);
}

static void test_cross_entropy_views(void)
{
	rr_kernel *k = load_builtin("cross_entropy");
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
	rr_kernel_free(k);
}

/* ---------------------------------------------------------------- edges */

static void test_exact(void)
{
	rr_kernel *k = load_text("kernel exact_sum\n in x : row\n out s : rowscalar\n"
	                         " s = sum(x, exact)\n");
	CHECK(k->analysis.exact_reductions == 1 && k->analysis.rounds == 1);
	CHECK(k->analysis.reductions == 1 && k->analysis.online_rewrites == 0);
	rr_kernel_free(k);

	/* An exact sum may not be reordered into an online pair: two rounds, no rewrite. */
	k = load_text("kernel exact_softmax_sum\n in x : row\n out s : rowscalar\n"
	              " m = max(x)\n s = sum(exp(x - m), exact)\n");
	int m = node_of(k, "m"), s = node_of(k, "s");
	CHECK(k->analysis.online_rewrites == 0);
	CHECK(k->analysis.rounds == 2);
	CHECK(k->analysis.reductions == 2);
	CHECK(k->analysis.exact_reductions == 1);
	CHECK(k->analysis.online_partner[m] == -1 && k->analysis.online_partner[s] == -1);
	CHECK(k->analysis.level[m] == 1 && k->analysis.level[s] == 2);
	CHECK_READS(k, 1, "x");
	CHECK_READS(k, 2, "x");
	CHECK(rr__analysis_needs_storage(k) == 1); /* x is read in both rounds */
	rr_kernel_free(k);

	/* Nor may an exact max. */
	k = load_text("kernel exact_max\n in x : row\n out s : rowscalar\n"
	              " m = max(x, exact)\n s = sum(exp(x - m))\n");
	CHECK(k->analysis.online_rewrites == 0 && k->analysis.rounds == 2);
	CHECK(k->analysis.exact_reductions == 1);
	rr_kernel_free(k);
}

static void test_not_a_pair(void)
{
	/* sum(exp(y - max(x))): the max is of another row, so no online pair. */
	rr_kernel *k = load_text("kernel other_row\n in x : row\n in y : row\n out s : rowscalar\n"
	                         " m = max(x)\n s = sum(exp(y - m))\n");
	CHECK(k->analysis.online_rewrites == 0 && k->analysis.rounds == 2);
	CHECK(k->analysis.reductions == 2);
	CHECK_READS(k, 1, "x");
	CHECK_READS(k, 2, "y");
	CHECK(rr__analysis_needs_storage(k) == 0); /* each row input is read in one round only */
	rr_kernel_free(k);

	/* sum(exp(m - x)) has the operands the other way round. */
	k = load_text("kernel reversed\n in x : row\n out s : rowscalar\n"
	              " m = max(x)\n s = sum(exp(m - x))\n");
	CHECK(k->analysis.online_rewrites == 0 && k->analysis.rounds == 2);
	rr_kernel_free(k);
}

/* mean = sum(x) / N; c = x - mean; (max, sum(exp(c - m))) fuse at level 2; then a third round. */
static void test_three_rounds(void)
{
	rr_kernel *k = load_text("kernel three\n in x : row\n in w : col\n"
	                         " out y : row\n out q : rowscalar\n"
	                         " mean = sum(x) / N\n c = x - mean\n m = max(c)\n"
	                         " s = sum(exp(c - m))\n p = exp(c - m) / s * w\n"
	                         " q = min(p)\n y = p - q\n");
	int x = node_of(k, "x"), w = node_of(k, "w"), mean = node_of(k, "mean");
	int c = node_of(k, "c"), m = node_of(k, "m"), s = node_of(k, "s");
	int p = node_of(k, "p"), q = node_of(k, "q");
	const rr__analysis *a = &k->analysis;
	CHECK(a->rounds == 3);
	CHECK(a->online_rewrites == 1 && a->reductions == 3);
	CHECK(a->level[m] == 2 && a->level[s] == 2 && a->level[q] == 3);
	CHECK(a->online_partner[m] == s && a->online_partner[s] == m);
	CHECK(a->level[p] == 2);
	unsigned char needed[RR_MAX_NODES];
	CHECK(rr__analysis_elem_needs(k, 1, needed) == 1 && needed[x]);
	CHECK(rr__analysis_elem_needs(k, 2, needed) == 2 && needed[x] && needed[c]);
	/* p = exp(c - m) / s * w: p, the division, exp, c - m, c, x, w */
	CHECK(rr__analysis_elem_needs(k, 3, needed) == 7 && needed[p] && needed[w]);
	CHECK(rr__analysis_elem_needs(k, 4, needed) == 8);
	CHECK(count_marked(needed, k->n_nodes) == 8);
	CHECK_READS(k, 1, "x");
	CHECK_READS(k, 2, "x");
	CHECK_READS(k, 3, "x,w");
	CHECK_READS(k, 4, "x,w");
	unsigned char ready[RR_MAX_NODES];
	CHECK(rr__analysis_scalars_after(k, 1, ready) == 1 && ready[mean]);
	CHECK(rr__analysis_scalars_after(k, 3, ready) == 0);
	CHECK(rr__analysis_needs_storage(k) == 1);
	rr_kernel_free(k);
}

static void test_no_reduction(void)
{
	rr_kernel *k = load_text("kernel scale\n in x : row\n param alpha = 2\n out y : row\n"
	                         " y = x * alpha\n");
	CHECK(k->analysis.rounds == 0 && k->analysis.reductions == 0);
	CHECK_READS(k, 1, "x"); /* round 1 is the output phase */
	CHECK(rr__analysis_needs_storage(k) == 0);
	rr_kernel_free(k);
}

/* Hand-built kernels with operands after their users are refused, not read out of bounds. */
static void test_malformed(void)
{
	rr_kernel *k = load_builtin("sum");
	rr__node saved = k->nodes[0];
	k->nodes[0].a = k->n_nodes - 1;
	CHECK(rr__analyze(k) == RR_ERR_INTERNAL);
	CHECK(k->analysis.level == NULL);
	k->nodes[0] = saved;
	CHECK(rr__analyze(k) == RR_OK && k->analysis.rounds == 1);
	rr_kernel_free(k);
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
	test_malformed();
	return rr_test_finish("test_analysis");
}
