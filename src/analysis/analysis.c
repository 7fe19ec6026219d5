/* Analysis of a type-checked kernel: the level (round) of every node, the online max/sum pairs,
 * counts of reductions, and the per-round views emitters need (which elem nodes to evaluate,
 * which inputs are read, which scalars become known, whether the row must be kept). */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/util.h"

void rr__analysis_free(rr__analysis *analysis)
{
	if (!analysis)
		return;
	free(analysis->level);
	free(analysis->online_partner);
	memset(analysis, 0, sizeof *analysis);
}

/* Operands must precede their users; everything below relies on that order. */
static rr_status check_topological(const rr_kernel *kernel)
{
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		if (node->a >= id || node->b >= id || node->a < -1 || node->b < -1)
			return rr__fail(
			    RR_ERR_INTERNAL,
			    "kernel '%s': node %d has an operand that is not an earlier node "
			    "(a = %d, b = %d)",
			    kernel->name, id, node->a, node->b);
	}
	return RR_OK;
}

/* The max m = max(e), non-exact, whose non-exact sum `sum_id` reduces exactly exp(e - m);
 * -1 when `sum_id` is not such a sum. Hash-consing makes structural equality id equality. */
static int online_max_of(const rr_kernel *kernel, int sum_id)
{
	const rr__node *sum = &kernel->nodes[sum_id];
	if (sum->op != RR_OP_REDUCE || sum->reduce != RR_REDUCE_SUM || sum->exact || sum->a < 0)
		return -1;
	const rr__node *exp_node = &kernel->nodes[sum->a];
	if (exp_node->op != RR_OP_EXP || exp_node->a < 0)
		return -1;
	const rr__node *sub = &kernel->nodes[exp_node->a];
	if (sub->op != RR_OP_SUB || sub->a < 0 || sub->b < 0)
		return -1;
	const rr__node *max = &kernel->nodes[sub->b];
	if (max->op != RR_OP_REDUCE || max->reduce != RR_REDUCE_MAX || max->exact ||
	    max->a != sub->a || kernel->nodes[sub->a].shape != RR_SHAPE_ELEM)
		return -1;
	return sub->b;
}

static int node_level(const rr_kernel *kernel, const int *level, int id)
{
	const rr__node *node = &kernel->nodes[id];
	switch (node->op) {
	case RR_OP_INPUT:
	case RR_OP_CONST:
	case RR_OP_N:
	case RR_OP_GATHER:
		return 0;
	case RR_OP_REDUCE:
		return node->a >= 0 ? level[node->a] + 1 : 1;
	default: {
		int l = node->a >= 0 ? level[node->a] : 0;
		if (node->b >= 0 && level[node->b] > l)
			l = level[node->b];
		return l;
	}
	}
}

rr_status rr__analyze(rr_kernel *kernel)
{
	if (!kernel)
		return rr__fail(RR_ERR_INVALID_ARG, "rr__analyze: kernel is NULL");
	rr__analysis_free(&kernel->analysis);
	rr_status status = check_topological(kernel);
	if (status != RR_OK)
		return status;
	size_t n = kernel->n_nodes > 0 ? (size_t)kernel->n_nodes : 1;
	rr__analysis *analysis = &kernel->analysis;
	analysis->level = calloc(n, sizeof *analysis->level);
	analysis->online_partner = malloc(n * sizeof *analysis->online_partner);
	if (!analysis->level || !analysis->online_partner) {
		rr__analysis_free(analysis);
		return rr__fail(RR_ERR_NOMEM, "out of memory analysing kernel '%s'", kernel->name);
	}
	for (int id = 0; id < kernel->n_nodes; id++)
		analysis->online_partner[id] = -1;
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		int max_id = online_max_of(kernel, id);
		if (max_id >= 0 && analysis->online_partner[max_id] < 0) {
			/* The pair accumulates (max, rescaled sum) in one pass over e. */
			analysis->online_partner[max_id] = id;
			analysis->online_partner[id] = max_id;
			analysis->level[id] = analysis->level[max_id];
			analysis->online_rewrites++;
		} else {
			analysis->level[id] = node_level(kernel, analysis->level, id);
		}
		if (node->op != RR_OP_REDUCE)
			continue;
		if (analysis->level[id] > analysis->rounds)
			analysis->rounds = analysis->level[id];
		if (node->exact)
			analysis->exact_reductions++;
		analysis->reductions++;
	}
	analysis->reductions -= analysis->online_rewrites;
	return RR_OK;
}

/* Marks `root` and, walking down in id order, every elem operand of a marked elem node.
 * Scalar operands are values already known when the elem nodes are evaluated. */
static void mark_elem_dag(const rr_kernel *kernel, int root, unsigned char *needed)
{
	if (root < 0 || kernel->nodes[root].shape != RR_SHAPE_ELEM)
		return;
	needed[root] = 1;
	for (int id = root; id >= 0; id--) {
		const rr__node *node = &kernel->nodes[id];
		if (!needed[id] || node->shape != RR_SHAPE_ELEM)
			continue;
		if (node->a >= 0 && kernel->nodes[node->a].shape == RR_SHAPE_ELEM)
			needed[node->a] = 1;
		if (node->b >= 0 && kernel->nodes[node->b].shape == RR_SHAPE_ELEM)
			needed[node->b] = 1;
	}
}

int rr__analysis_elem_needs(const rr_kernel *kernel, int round, unsigned char *needed)
{
	const rr__analysis *analysis = &kernel->analysis;
	memset(needed, 0, (size_t)kernel->n_nodes);
	if (!analysis->level || round < 1 || round > analysis->rounds + 1)
		return 0;
	if (round == analysis->rounds + 1) {
		for (int j = 0; j < kernel->n_outputs; j++)
			if (kernel->outputs[j].kind == RR_KIND_ROW)
				mark_elem_dag(kernel, kernel->outputs[j].node, needed);
	} else {
		for (int id = 0; id < kernel->n_nodes; id++) {
			const rr__node *node = &kernel->nodes[id];
			if (node->op != RR_OP_REDUCE || analysis->level[id] != round)
				continue;
			int partner = analysis->online_partner[id];
			if (partner >= 0 && node->reduce == RR_REDUCE_SUM)
				continue; /* accumulated with its max, from the max's operand */
			mark_elem_dag(kernel, node->a, needed);
		}
	}
	int count = 0;
	for (int id = 0; id < kernel->n_nodes; id++)
		count += needed[id];
	return count;
}

int rr__analysis_inputs_read(const rr_kernel *kernel, int round, unsigned char *read)
{
	unsigned char needed[RR_MAX_NODES];
	memset(read, 0, (size_t)kernel->n_inputs);
	rr__analysis_elem_needs(kernel, round, needed);
	int count = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		if (!needed[id] || node->op != RR_OP_INPUT || node->input < 0)
			continue;
		rr_kind kind = kernel->inputs[node->input].kind;
		if ((kind == RR_KIND_ROW || kind == RR_KIND_COL) && !read[node->input]) {
			read[node->input] = 1;
			count++;
		}
	}
	return count;
}

int rr__analysis_scalars_after(const rr_kernel *kernel, int round, unsigned char *ready)
{
	const rr__analysis *analysis = &kernel->analysis;
	memset(ready, 0, (size_t)kernel->n_nodes);
	if (!analysis->level)
		return 0;
	int count = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		if (node->shape != RR_SHAPE_SCALAR || node->op == RR_OP_INPUT ||
		    node->op == RR_OP_REDUCE || analysis->level[id] != round)
			continue;
		ready[id] = 1;
		count++;
	}
	return count;
}

int rr__analysis_needs_storage(const rr_kernel *kernel)
{
	const rr__analysis *analysis = &kernel->analysis;
	unsigned char read[RR_MAX_IO];
	unsigned char seen[RR_MAX_IO] = {0};
	if (!analysis->level)
		return 0;
	for (int round = 1; round <= analysis->rounds + 1; round++) {
		rr__analysis_inputs_read(kernel, round, read);
		for (int i = 0; i < kernel->n_inputs; i++) {
			if (!read[i] || kernel->inputs[i].kind != RR_KIND_ROW)
				continue;
			if (seen[i])
				return 1;
			seen[i] = 1;
		}
	}
	return 0;
}
