/* The realisation of a plan: one function, rr__realise, works out what a layout means for one
 * kernel, element type, row length and target. Every consumer (legality, cost model, emitters,
 * launchers) reads its record, so they cannot drift apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "layout/layout.h"
#include "layout/realise.h"
#include "util/util.h"

/* Kept row bytes an SM should hold in flight (rows_in_flight_blocks). */
enum { ROW_BYTES_IN_FLIGHT = 64 * 1024 };

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* ---------------------------------------------------------------- the map's bounds */

int64_t rr__slot_bound(int64_t n, int workers, int vec)
{
	int64_t span = (int64_t)workers * vec;
	int64_t rest = n % span;
	/* Worker 0 owns V slots of every full chunk and the first V of the last, partial one. */
	return (n / span) * vec + (rest < vec ? rest : vec);
}

/* Elements `worker` owns in the body of a row of b elements. */
static int64_t body_count(int64_t b, int workers, int vec, int worker)
{
	return rr__complete_packs(b, workers, vec, worker) * vec +
	       (rr__has_partial_pack(b, workers, vec, worker) ? b % vec : 0);
}

int64_t rr__serial_length(int64_t n, int workers, int vec, int head_align)
{
	int64_t most = rr__slot_bound(n, workers, vec); /* h = 0: worker 0's slots */
	for (int64_t h = 1; h < head_align && h <= n; h++) {
		/* Worker 0 has the most body elements; the head's workers (the last h, at most
		 * a - 1 of them) add theirs to their body share. */
		int64_t length = rr__head_count(h, workers, 0) + body_count(n - h, workers, vec, 0);
		most = length > most ? length : most;
		for (int64_t j = 0; j < h && j < workers; j++) {
			int w = workers - 1 - (int)j;
			length = rr__head_count(h, workers, w) + body_count(n - h, workers, vec, w);
			most = length > most ? length : most;
		}
	}
	return most;
}

int rr__tree_offsets(int workers, int warp_size, int offsets[16])
{
	int count = 0;
	int within = workers < warp_size ? workers : warp_size;
	for (int offset = within / 2; offset >= 1 && count < 16; offset /= 2)
		offsets[count++] = offset;
	for (int offset = workers / 2; offset >= warp_size && count < 16; offset /= 2)
		offsets[count++] = offset;
	return count;
}

static int kept_fallback(const rr_kernel *kernel, int phases_read[RR_MAX_IO])
{
	int rounds = kernel->analysis.rounds > 0 ? kernel->analysis.rounds : 1;
	int row_outputs = 0, kept = 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		row_outputs += kernel->outputs[j].kind == RR_KIND_ROW;
	for (int i = 0; i < kernel->n_inputs; i++) {
		rr_kind kind = kernel->inputs[i].kind;
		if (kind != RR_KIND_ROW && kind != RR_KIND_COL)
			continue;
		/* Assume every row and col input is read in every round and in the output phase. */
		phases_read[i] = rounds + (row_outputs > 0);
		kept += kind == RR_KIND_ROW && phases_read[i] > 1;
	}
	return kept;
}

int rr__layout_kept_inputs(const rr_kernel *kernel, int phases_read[RR_MAX_IO])
{
	memset(phases_read, 0, RR_MAX_IO * sizeof phases_read[0]);
	if (!kernel)
		return 0;
	if (!kernel->analysis.level) /* a hand-built kernel whose analysis was never run */
		return kept_fallback(kernel, phases_read);
	for (int phase = 1; phase <= kernel->analysis.rounds + 1; phase++) {
		unsigned char read[RR_MAX_IO] = {0};
		rr__analysis_inputs_read(kernel, phase, read);
		for (int i = 0; i < kernel->n_inputs; i++)
			phases_read[i] += read[i] != 0;
	}
	int kept = 0;
	for (int i = 0; i < kernel->n_inputs; i++)
		kept += kernel->inputs[i].kind == RR_KIND_ROW && phases_read[i] > 1;
	return kept;
}

int64_t rr__block_segment(int64_t cols, int blocks, int vec, int elem_bytes)
{
	if (blocks <= 1)
		return cols;
	int64_t unit = elem_bytes > 0 && 16 / elem_bytes > vec ? 16 / elem_bytes : vec;
	return ceil_div(ceil_div(cols, blocks), unit) * unit;
}

int64_t rr__layout_smem_bytes(int partials, int64_t cols, int elem_bytes, const rr_layout *l,
                              int warp_size, int kept_bytes)
{
	int64_t W = l->workers_per_row, V = l->vec, R = l->rows_per_group;
	int64_t segment = rr__block_segment(cols, l->blocks_per_row, l->vec, elem_bytes);
	int64_t chunks = ceil_div(segment, W * V);
	int64_t warps = warp_size > 0 && W > warp_size ? W / warp_size : 1;
	/* The block tree's scratch, and a cluster's partials: the larger of a mailbox with its
	 * barriers (at most one a partial) and the block's own partials, which go with the tree's
	 * scratch (rr__cluster_mailbox; S=grid's blocks have neither). */
	int64_t tree = W > warp_size ? 2 * partials * R * warps * 4 : 0, scratch = tree;
	if (l->blocks_per_row > 1 && l->storage != RR_STORAGE_GRID) {
		int64_t mailbox = 2 * partials * warps * l->blocks_per_row * 4 + 2 * partials * 8;
		scratch = mailbox > tree + 2 * partials * 4 ? mailbox : tree + 2 * partials * 4;
	}
	return kept_bytes * chunks * V * W * R + scratch;
}

int rr__register_slots(const rr__target *target, const rr_layout *layout)
{
	int budget = target->register_slots;
	if (target->cc_major > 0) {
		int threads = layout->workers_per_row * layout->rows_per_group;
		int fit = threads > 0 ? 65536 / threads - 40 : budget;
		if (fit < budget)
			budget = fit > 0 ? fit : 0;
	}
	return budget;
}

/* ---------------------------------------------------------------- reductions */

int rr__is_online_sum(const rr_kernel *kernel, int id)
{
	return kernel->analysis.online_partner[id] >= 0 &&
	       kernel->nodes[id].reduce == RR_REDUCE_SUM;
}

int rr__cpu_lanes_max_n(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_cpu_supports("avx512f"))
		return RR_CPU_LANES_MAX_N;
#endif
	return RR_CPU_LANES_NARROW_MAX_N;
}

int rr__cpu_rows_as_lanes(const rr__realisation *r)
{
	const char *env = getenv("RR_CPU_ROWS_AS_LANES");
	if (env && strcmp(env, "0") == 0)
		return 0;
	return r->layout.workers_per_row == 1 && r->cols <= rr__cpu_lanes_max_n();
}

int rr__reduced_in(const rr_kernel *kernel, int id, int round)
{
	return kernel->nodes[id].op == RR_OP_REDUCE && kernel->analysis.level[id] == round &&
	       !rr__is_online_sum(kernel, id);
}

/* The one reduction of `round` (a rounding sum, not an online pair's), or -1. */
static int only_sum_of(const rr_kernel *kernel, int round)
{
	int found = -1;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (kernel->nodes[id].op != RR_OP_REDUCE || kernel->analysis.level[id] != round)
			continue;
		if (found >= 0 || kernel->nodes[id].reduce != RR_REDUCE_SUM ||
		    kernel->nodes[id].exact || kernel->analysis.online_partner[id] >= 0 ||
		    rr__is_online_sum(kernel, id))
			return -1;
		found = id;
	}
	return found;
}

rr__variance_shift rr__variance_shift_of(const rr_kernel *kernel)
{
	rr__variance_shift v = {-1, -1, -1, -1};
	if (!kernel || !kernel->analysis.level || kernel->analysis.rounds != 2)
		return v;
	const rr__node *nodes = kernel->nodes;
	int sum = only_sum_of(kernel, 1), sq = only_sum_of(kernel, 2);
	if (sum < 0 || sq < 0)
		return v;
	const rr__node *p = &nodes[nodes[sq].a];
	if (p->op != RR_OP_MUL || p->a != p->b || p->a < 0)
		return v;
	int d = p->a, e = nodes[sum].a;
	const rr__node *dn = &nodes[d];
	if (dn->op != RR_OP_SUB || dn->shape != RR_SHAPE_ELEM || dn->a != e || dn->b < 0 ||
	    kernel->analysis.level[e] != 0)
		return v;
	int c = dn->b;
	const rr__node *cn = &nodes[c];
	if (cn->op != RR_OP_DIV || cn->a != sum || cn->b < 0 || nodes[cn->b].op != RR_OP_N)
		return v;
	v = (rr__variance_shift){sum, c, d, sq};
	return v;
}

/* ---------------------------------------------------------------- what is kept */

static int is_elem(const rr_kernel *kernel, int id)
{
	return id >= 0 && kernel->nodes[id].shape == RR_SHAPE_ELEM;
}

void rr__phase_roots(const rr_kernel *kernel, int phase, unsigned char *mark)
{
	memset(mark, 0, (size_t)kernel->n_nodes);
	if (phase <= kernel->analysis.rounds) {
		for (int id = 0; id < kernel->n_nodes; id++)
			if (rr__reduced_in(kernel, id, phase) &&
			    is_elem(kernel, kernel->nodes[id].a))
				mark[kernel->nodes[id].a] = 1;
		return;
	}
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW &&
		    is_elem(kernel, kernel->outputs[j].node))
			mark[kernel->outputs[j].node] = 1;
}

/* Operands have smaller ids than their users, so one downward sweep reaches every operand. */
void rr__mark_operands(const rr_kernel *kernel, unsigned char *mark, const unsigned char *stop)
{
	for (int id = kernel->n_nodes - 1; id >= 0; id--) {
		const rr__node *node = &kernel->nodes[id];
		if (!mark[id] || node->shape != RR_SHAPE_ELEM || (stop && stop[id]))
			continue;
		if (is_elem(kernel, node->a))
			mark[node->a] = 1;
		if (is_elem(kernel, node->b))
			mark[node->b] = 1;
	}
}

/* Elem nodes that depend on a row input. */
static void mark_row_dependence(const rr_kernel *kernel, unsigned char *rowdep)
{
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		if (node->shape != RR_SHAPE_ELEM)
			rowdep[id] = 0;
		else if (node->op == RR_OP_INPUT)
			rowdep[id] = kernel->inputs[node->input].kind == RR_KIND_ROW;
		else
			rowdep[id] =
			    (node->a >= 0 && rowdep[node->a]) || (node->b >= 0 && rowdep[node->b]);
	}
}

/* The topmost values later phases need that depend on row inputs but on no reduction (level
 * 0), when a row input below them is read in more than one phase (a value whose rows are read
 * once is computed where it is needed). Keeping those values (e.g. h = x + r of
 * add_layernorm) costs at most as much as keeping the multi-phase row inputs below them; when
 * it would cost more, those inputs are kept instead. Either way the count stays within
 * kept_inputs, which legality budgets the storage by. */
static void keep_derived_values(const rr_kernel *kernel, const rr__kernel_facts *r,
                                unsigned char *kept)
{
	unsigned char mark[RR_MAX_NODES], below[RR_MAX_NODES], multi[RR_MAX_NODES] = {0};
	unsigned char rowdep[RR_MAX_NODES];
	mark_row_dependence(kernel, rowdep);
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		multi[id] =
		    node->op == RR_OP_INPUT && rowdep[id] && r->phases_read[node->input] > 1;
	}
	for (int phase = 2; phase <= r->phases; phase++) {
		rr__phase_roots(kernel, phase, mark);
		for (int id = kernel->n_nodes - 1; id >= 0; id--) {
			const rr__node *node = &kernel->nodes[id];
			if (!mark[id] || node->shape != RR_SHAPE_ELEM)
				continue;
			if (kernel->analysis.level[id] == 0 && rowdep[id]) {
				memset(below, 0, (size_t)kernel->n_nodes);
				below[id] = 1;
				rr__mark_operands(kernel, below, NULL);
				for (int k = 0; k <= id && !kept[id]; k++)
					kept[id] = below[k] && multi[k];
				if (kept[id])
					continue;
			}
			if (is_elem(kernel, node->a))
				mark[node->a] = 1;
			if (is_elem(kernel, node->b))
				mark[node->b] = 1;
		}
	}
	memcpy(below, kept, (size_t)kernel->n_nodes);
	rr__mark_operands(kernel, below, NULL);
	int values = 0, inputs = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		values += kept[id];
		inputs += below[id] && multi[id];
	}
	if (inputs < values)
		for (int id = 0; id < kernel->n_nodes; id++)
			kept[id] = below[id] && multi[id];
}

/* Which values are kept between rounds when a layout keeps any, with their ordinals: derived
 * values on a target that keeps them (in node order), else the multi-phase row inputs (in
 * input order). */
static void choose_kept(const rr_kernel *kernel, const rr__target *target, rr__kernel_facts *f)
{
	f->kept_values = 0;
	if (f->kept_inputs == 0)
		return;
	if (!kernel || !kernel->analysis.level) {
		f->kept_values = f->kept_inputs; /* a hand-built kernel: the budget's count */
		return;
	}
	if (target->keeps_derived_values) {
		unsigned char kept[RR_MAX_NODES] = {0};
		keep_derived_values(kernel, f, kept);
		for (int id = 0; id < kernel->n_nodes && f->kept_values < RR_MAX_IO; id++)
			if (kept[id])
				f->kept_node[f->kept_values++] = id;
		return;
	}
	for (int k = 0; k < kernel->n_inputs; k++)
		if (kernel->inputs[k].kind == RR_KIND_ROW && f->phases_read[k] > 1 &&
		    kernel->inputs[k].node >= 0)
			f->kept_node[f->kept_values++] = kernel->inputs[k].node;
}

/* Whether every kept value is a row input as it is in memory (what a keep can hold raw). */
static int kept_raw_of(const rr_kernel *kernel, const rr__kernel_facts *f)
{
	if (!kernel || !kernel->analysis.level || f->kept_values == 0)
		return 0;
	for (int k = 0; k < f->kept_values; k++) {
		const rr__node *node = &kernel->nodes[f->kept_node[k]];
		if (node->op != RR_OP_INPUT || node->shape != RR_SHAPE_ELEM ||
		    kernel->inputs[node->input].kind != RR_KIND_ROW)
			return 0;
	}
	return 1;
}

int rr__kept_ordinal(const rr__realisation *r, int id)
{
	for (int k = 0; r->keep != RR_KEEP_NONE && k < r->kept_values; k++)
		if (r->kept_node[k] == id)
			return k;
	return -1;
}

/* ---------------------------------------------------------------- access and geometry */

static int lowest_bit_bytes(int64_t bytes)
{
	int a = 16;
	while (a > 1 && bytes % a != 0)
		a /= 2;
	return a;
}

int rr__access_bytes(const rr_layout *l, int64_t segment, int elem_bytes)
{
	int a = lowest_bit_bytes((int64_t)l->vec * elem_bytes);
	int by_segment = lowest_bit_bytes(segment * elem_bytes);
	if (l->blocks_per_row > 1 && by_segment < a)
		a = by_segment;
	return a > elem_bytes ? a : elem_bytes;
}

/* The widest access of a pack (rr__access_bytes), the head it implies and whether col inputs
 * share the body's alignment. */
static void realise_access(rr__realisation *r)
{
	const rr_layout *l = &r->layout;
	r->pack_bytes = l->vec * r->elem_bytes;
	r->access_bytes = rr__access_bytes(l, r->segment, r->elem_bytes);
	r->has_vec_entry = r->access_bytes > r->elem_bytes;
	r->head_align = r->access_bytes / r->elem_bytes;
	r->head_slots = rr__head_slots(r->head_align, l->workers_per_row);
	r->cols_vec = r->has_vec_entry && (r->cols * r->elem_bytes) % r->access_bytes == 0;
	r->has_aligned_entry = r->cols_vec;
}

/* Whether an S=grid or cluster plan gets the aligned entry's twin (has_twin_entry): its body
 * of FULL complete chunks a block, U < FULL < 16 and at most four iterations of U, is what
 * the twin unrolls (cuda_emit_row.c, emit_full_chunks); elsewhere the twin would be the same
 * code. */
static int twin_entry(const rr__realisation *r)
{
	const rr_layout *l = &r->layout;
	int64_t full = r->segment / ((int64_t)l->workers_per_row * l->vec);
	return r->has_aligned_entry && l->blocks_per_row > 1 && r->threads <= 256 &&
	       !(r->keep == RR_KEEP_REGS && r->kept_values > 0) && l->unroll < full && full < 16 &&
	       full / l->unroll <= 4;
}

static void name_entries(const rr_kernel *kernel, rr__kernel_facts *r)
{
	char base[80];
	size_t n = 0;
	for (const char *p = kernel ? kernel->name : "kernel"; *p && n + 1 < sizeof base; p++) {
		char ch = *p;
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		         (ch >= '0' && ch <= '9');
		base[n++] = ok ? ch : '_';
	}
	base[n] = 0;
	snprintf(r->entry_vec, sizeof r->entry_vec, "rr_%s_vec", base);
	snprintf(r->entry_head, sizeof r->entry_head, "rr_%s_head", base);
	snprintf(r->entry_scalar, sizeof r->entry_scalar, "rr_%s_scalar", base);
	snprintf(r->entry_twin, sizeof r->entry_twin, "rr_%s_vecu", base);
	snprintf(r->entry_cols, sizeof r->entry_cols, "rr_%s_cols", base);
}

/* The blocks of realisation `r` an SM holds at `registers` a thread: registers are allocated
 * per warp (a block of fewer threads holds a whole warp's), at most 2048 threads and 32 blocks
 * an SM, at least one block. */
static int blocks_at(const rr__realisation *r, int64_t registers)
{
	int64_t threads = (r->threads + 31) / 32 * 32;
	int64_t blocks = 65536 / (threads * registers);
	int64_t most = 2048 / r->threads;
	if (blocks > most)
		blocks = most;
	if (blocks > 32)
		blocks = 32;
	return blocks < 1 ? 1 : (int)blocks;
}

/* `blocks`, raised to `wanted` blocks an SM where the threads fit them at 64 registers a
 * thread or more (the raised launch bounds below). */
static int raised_blocks(const rr__realisation *r, int64_t wanted, int blocks)
{
	int most = blocks_at(r, 64);
	if (wanted > most)
		wanted = most;
	return wanted > blocks ? (int)wanted : blocks;
}

int64_t rr__blocks_by_smem(const rr__target *target, int64_t smem_bytes)
{
	return (target->smem_per_group + 1024) / (smem_bytes + 1024);
}

/* A kernel of two rounds or more over 16-bit rows, one row a block kept in registers: at least
 * the blocks that hold ROW_BYTES_IN_FLIGHT of kept row an SM, down to 64 registers a thread.
 * The cap below left ptxas free to take 95-167 registers for LayerNorm's bf16 rows of
 * 4096-16384 (one block of 256 threads an SM at 16384), so an SM had 32 KB of row in flight
 * and none while its blocks met at the two rounds' barriers; asked for 2-4 blocks, ptxas
 * fitted them without spilling and the rows ran 0.69-0.87 of the time (8192x8192 92.6 -> 67.8
 * µs, 2048x16384 54.6 -> 37.6, 16384x4096 78.8 -> 68.3 on the H200). More blocks did not pay
 * for f32 rows (rmsnorm 8192x8192 and add_layernorm 16384x4096 1.01-1.02x the time, layernorm
 * 16384x4096 level) nor for one-round kernels (softmax bf16 8192x8192 level, rmsnorm bf16
 * 2048x16384 at 3 blocks 1.04x), and rows split over a cluster or the grid were not measured,
 * so those keep the cap (bench/NOTES.md, session 21). ptxas does not always fit the raised
 * count without spilling (add_layernorm, whose kept h = x + r comes from two rows; U = 2
 * plans): the source keeps the capped counts beside the raised ones, and the cuda backend
 * compiles it again with them where ptxas reports local memory (cuda_emit.c,
 * rr__cuda_compile). */
static int rows_in_flight_blocks(const rr__realisation *r, int blocks)
{
	if (r->keep != RR_KEEP_REGS || r->layout.rows_per_group != 1 ||
	    r->layout.blocks_per_row != 1 || r->kept_values < 1 || r->rounds < 2 ||
	    r->elem_bytes != 2)
		return blocks;
	int64_t row_bytes = r->segment * r->elem_bytes * r->kept_values;
	if (row_bytes < 4096) /* short rows: no measurement, and the cap already allows many */
		return blocks;
	return raised_blocks(r, ceil_div(ROW_BYTES_IN_FLIGHT, row_bytes), blocks);
}

/* A kernel of two rounds or more keeping its row inputs raw in shared memory (S=smem, or a
 * cluster of four blocks or more): at least the blocks an SM that the kept row's shared memory
 * allows, down to 64 registers a thread. Under min_blocks's cap ptxas is free to take more than
 * 64 registers at W = 512 and then one block an SM runs where the shared memory holds two or
 * three: layernorm bf16 4096x32000 (W = 512, V = 8, U = 2, S=smem) took 80 registers and ran
 * 232 µs on the H200, 157 µs at the raised count (64 registers), 2048x128256 (C = 4) 510 ->
 * 351, the C = 8 clusters at 131072-151936 columns 0.88-0.97 of the time. Not raised where the
 * H200 measured it slower: clusters of two (layernorm bf16 1000x50265 and 2048x50257 1.03-1.04,
 * whose entries already held four blocks an SM), and keeps of computed values (add_layernorm's
 * h: 1.006-1.025 on six of its eleven picks; bench/NOTES.md, session 37 GPU). Where ptxas
 * spills at the raised count the backend compiles the capped one (rows_in_flight_blocks). */
static int smem_rows_blocks(const rr__target *target, const rr__realisation *r, int blocks)
{
	if (r->keep != RR_KEEP_SMEM || !r->keep_raw || r->grid_split || r->rounds < 2 ||
	    r->layout.blocks_per_row == 2 || r->layout.rows_per_group != 1 ||
	    target->smem_per_group <= 0 || r->smem_bytes <= 0)
		return blocks;
	return raised_blocks(r, rr__blocks_by_smem(target, r->smem_bytes), blocks);
}

/* The blocks per SM that __launch_bounds__ asks ptxas to fit: without it ptxas may aim for
 * full occupancy and spill. The cap leaves room for the kept slots and one value derived from
 * each (LayerNorm's x - mean), one phase's loads in flight (the unrolled loops let ptxas hoist
 * all of a worker's loads: U chunks of every row and col input) and a working set; ptxas
 * spilled with less (bench/NOTES.md). */
static int min_blocks(const rr__kernel_facts *f, const rr__realisation *r)
{
	int64_t kept = r->keep == RR_KEEP_REGS ? r->kept_values : 0;
	int inputs = f->row_and_col_inputs;
	int64_t wanted =
	    48 + 2 * r->slots * kept + (int64_t)r->layout.vec * r->layout.unroll * inputs;
	return blocks_at(r, wanted);
}

/* The entries with a head: a quarter fewer blocks than min_blocks, leaving registers for the
 * per-row head and body bounds; but in one-block rows where a worker's kept values and loads in
 * flight come to at most 28, at least the blocks that 64 registers a thread allow (with 32 to
 * 64 of them, layernorm and add_layernorm at N = 4096 spilled under that cap: emit --check-all).
 * Left to the looser cap, ptxas gave those entries more registers than the entry without a head and
 * lost a block an SM (softmax f32 2047x6143: 70 against 63, 3 blocks of 256 instead of 4; 43 %
 * slower per element than 2048x6144 on the H200), while it fits them in 48-64 without spilling
 * (bench/NOTES.md, session 7). */
static int min_blocks_head(const rr__kernel_facts *f, const rr__realisation *r)
{
	int blocks = r->min_blocks - r->min_blocks / 4;
	int64_t kept = r->keep == RR_KEEP_REGS ? r->kept_values : 0;
	int64_t live =
	    r->slots * kept + (int64_t)r->layout.vec * r->layout.unroll * f->row_and_col_inputs;
	if (live <= 28 && r->layout.blocks_per_row == 1 && blocks_at(r, 64) > blocks)
		blocks = blocks_at(r, 64);
	/* flat rows of one pack a worker: ptxas gave their headed entries 46-47 registers where the
	 * aligned entry took 32 (10 blocks of 128 threads an SM against 16); asked for 40, they fit
	 * without spilling (at 32 softmax bf16 spilled) and cross_entropy bf16 8191x1023 at
	 * W = 128, V = 8 ran 0.884 of the time, softmax f32 at W = 256, V = 4 0.921, no pick
	 * slower (H100, bench/NOTES.md session 48) */
	if (r->flat && live <= 8 && blocks_at(r, 40) > blocks)
		blocks = blocks_at(r, 40);
	return blocks < 1 ? 1 : blocks;
}

/* On a GPU the U chunks of one loop iteration are loaded before they are used: V·U values of
 * every row and col input a phase reads are live at once. */
static void realise_in_flight(const rr__kernel_facts *f, const rr__target *target,
                              rr__realisation *r)
{
	const rr_layout *l = &r->layout;
	int64_t span = (int64_t)l->workers_per_row * l->vec * l->blocks_per_row;
	int64_t chunks = ceil_div(r->cols, span);
	int64_t unrolled = l->unroll < chunks ? l->unroll : chunks;
	r->in_flight_inputs = f->in_flight_inputs;
	r->in_flight_values = (int64_t)l->vec * unrolled * r->in_flight_inputs;
	r->in_flight_budget = target->cc_major > 0 ? 3 * (int64_t)r->register_slots / 2 : 0;
	/* S=grid re-reading three or more inputs in a phase holds them beside the grid's combine
	 * and workspace addressing: ptxas spilled add_layernorm bf16 2x4000037 at W = 1024, V = 8,
	 * U = 1, C = 64 (32 values of 4 inputs in flight against 24 slots; emit --check-all), where
	 * rmsnorm's 32 values of 2 inputs did not. No margin there. */
	if (r->grid_split && r->keep == RR_KEEP_NONE && r->in_flight_inputs >= 3 &&
	    r->in_flight_budget > 0)
		r->in_flight_budget = r->register_slots;
}

int rr__reduction_slots(const rr_kernel *kernel, short *slot_of)
{
	int slots = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (slot_of)
			slot_of[id] = -1;
		if (!rr__reduced_in(kernel, id, kernel->analysis.level[id]))
			continue;
		if (slot_of)
			slot_of[id] = (short)slots;
		slots += kernel->analysis.online_partner[id] >= 0 ? 2 : 1;
	}
	return slots;
}

/* Whether kept values may be kept raw (rr__realisation.keep_raw): row inputs as stored, in
 * packs of one 16-byte asynchronous copy, on sm_80 or later, in groups of one row; not in blocks
 * of many rows, whose raw keeps have not run on a GPU (their plans stay as measured before).
 * S=grid segments keep raw too: a bf16 block of 65536 elements keeps its 128 KiB where f32
 * (256 KiB) re-read, so the four rows of layernorm bf16 4x2097152 fit the H200 at once (C = 32
 * and 64: 17.3-19.2 µs against 36.9 for one row at a time; f32 segments copied so ran level:
 * layernorm f32 4x2097152 49.9 against 50.1; bench/NOTES.md session 27). */
static int raw_keep_allowed(const rr__kernel_facts *f, const rr__realisation *r,
                            const rr__target *target)
{
	return f->kept_raw && r->pack_bytes == 16 && target->cc_major >= 8 &&
	       r->rows_per_group == 1;
}

int rr__cluster_mailbox(const rr__realisation *r)
{
	return r->layout.blocks_per_row > 1 && !r->grid_split && r->keep != RR_KEEP_REGS &&
	       r->red_slots >= 2;
}

/* The shared memory of the tree and the kept packs. */
static void realise_smem(const rr__kernel_facts *f, const rr__target *target, rr__realisation *r)
{
	const rr_layout *l = &r->layout;
	int warp = target->warp_size > 0 ? target->warp_size : 32;
	r->red_slots = f->red_slots + (r->grid_shift ? RR_GRID_SHIFT_SLOTS : 0);
	r->warps = l->workers_per_row > warp ? l->workers_per_row / warp : 1;
	int kept_bytes =
	    r->keep != RR_KEEP_SMEM ? 0 : r->kept_values * (r->keep_raw ? r->elem_bytes : 4);
	r->dynamic_smem = (int64_t)kept_bytes * r->chunks * l->vec * r->threads;
	/* What cuda_emit.c declares: rr_red for the block's tree, rr_cl (a mailbox, or the
	 * block's partials) and rr_mbar for a cluster. */
	int mailbox = rr__cluster_mailbox(r);
	r->static_smem = l->workers_per_row > warp && !mailbox
	                     ? 2 * r->red_slots * r->rows_per_group * r->warps * 4
	                     : 0;
	if (mailbox)
		r->static_smem += 2 * r->red_slots * r->warps * l->blocks_per_row * 4 +
		                  2 * (r->rounds > 0 ? r->rounds : 1) * 8;
	else if (l->blocks_per_row > 1 && !r->grid_split)
		r->static_smem += 2 * r->red_slots * 4;
	r->smem_bytes =
	    rr__layout_smem_bytes(f->partials + (r->grid_shift ? RR_GRID_SHIFT_SLOTS : 0), r->cols,
	                          r->elem_bytes, l, warp, kept_bytes);
}

/* S=grid's workspace per row group, in 4-byte words: RR_GRID_HEAD_WORDS for the barrier (its
 * own 128-byte line, apart from the partials the blocks write), then [parity][slot][block]
 * partials (every reduction slot of every round; the parity alternates between rows, as the
 * cluster's scratch does), rounded up to whole 128-byte lines so groups share no line. */
static void realise_workspace(rr__realisation *r)
{
	if (!r->grid_split)
		return;
	int64_t slots = r->red_slots > 0 ? r->red_slots : 1;
	int64_t words = RR_GRID_HEAD_WORDS + 2 * slots * r->blocks_per_row;
	r->workspace_per_group = (words + 31) / 32 * 128;
}

/* Why 2^15 in f32. A chain of S additions in round-to-nearest with unit roundoff u = 2^-24
 * errs, relative to the sum of magnitudes, by at most (S - 1)·u in the worst case and by about
 * lambda·sqrt(S)·u when the roundings behave as independent, zero-mean errors (the
 * probabilistic bound; lambda = 6 holds with probability 1 - 2·exp(-18)). Validation allows an
 * f32 output a relative error of 1e-4 (plus 1e-5 of the row's largest value): at S = 2^15,
 * 6·sqrt(S)·u = 6.5e-5 leaves a third of it for the tree and what the output computes from
 * the reduced value; 2^16 (9.2e-5) leaves almost nothing. Measured on the CPU backend: a row
 * sum of 10^6 zero-mean values, whose result is ~800 times smaller than the sum of magnitudes,
 * errs by 4.2e-5 relative at S = 31250 and 8.1e-5 at S = 62500; over a row of 2^24 at
 * S = 2^15 rmsnorm errs by 1.1e-6 relative and add_layernorm by 6.2e-6 absolute; at S = 2^19
 * layernorm fails, and at S = 10^6 (W = 1 on rows of a million) rmsnorm, layernorm, softmax
 * and sum all fail. Far past the bound a large accumulator also stagnates: small terms lose
 * most of their bits and the errors stop cancelling. The CPU's W <= 1024 keeps rows up to
 * 2^25 elements within the bound (legality lets longer rows run at the widest W). */
int64_t rr__serial_bound(rr_dtype accum)
{
	(void)accum; /* every element type accumulates in f32 */
	return (int64_t)1 << 15;
}

void rr__kernel_facts_of(const rr_kernel *kernel, const rr__target *target, rr__kernel_facts *out)
{
	rr__kernel_facts *f = out;
	memset(f, 0, sizeof *f);
	f->rounds = kernel ? kernel->analysis.rounds : 0;
	for (int j = 0; kernel && j < kernel->n_outputs; j++)
		f->row_outputs += kernel->outputs[j].kind == RR_KIND_ROW;
	f->phases = f->rounds + (f->row_outputs > 0);
	f->kept_inputs = rr__layout_kept_inputs(kernel, f->phases_read);
	choose_kept(kernel, target, f);
	f->kept_raw = kept_raw_of(kernel, f);
	for (int round = 1; kernel && round <= kernel->analysis.rounds + 1; round++) {
		unsigned char read[RR_MAX_IO];
		int n = rr__analysis_inputs_read(kernel, round, read);
		f->in_flight_inputs = n > f->in_flight_inputs ? n : f->in_flight_inputs;
	}
	for (int i = 0; kernel && i < kernel->n_inputs; i++) {
		f->row_and_col_inputs +=
		    kernel->inputs[i].kind == RR_KIND_ROW || kernel->inputs[i].kind == RR_KIND_COL;
		f->col_inputs += kernel->inputs[i].kind == RR_KIND_COL;
	}
	for (int id = 0; kernel && id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		f->rounding_sums +=
		    node->op == RR_OP_REDUCE && node->reduce == RR_REDUCE_SUM && !node->exact;
	}
	if (!kernel)
		f->rounding_sums = 1; /* a hand-built kernel: assume it sums */
	const char *shift_env = getenv("RR_GRID_SHIFT"); /* "0": two grid barriers (A/B, tests) */
	f->shift = shift_env && strcmp(shift_env, "0") == 0 ? rr__variance_shift_of(NULL)
	                                                    : rr__variance_shift_of(kernel);
	f->red_slots = kernel && kernel->analysis.level ? rr__reduction_slots(kernel, NULL) : 0;
	/* Partials of every reduction, an online pair counting two; one more pair as margin. */
	f->partials =
	    kernel ? kernel->analysis.reductions + 2 * kernel->analysis.online_rewrites : 1;
	f->partials = f->partials > 0 ? f->partials + 1 : 2;
	name_entries(kernel, f);
}

rr_status rr__realise_with(const rr__kernel_facts *f, rr_dtype dtype, int64_t cols,
                           const rr_layout *layout, const rr__target *target, rr__realisation *out)
{
	const rr_layout *l = layout;
	if (!l || l->workers_per_row < 1 || l->vec < 1 || l->unroll < 1 || l->rows_per_group < 1 ||
	    l->blocks_per_row < 1 || l->storage == RR_STORAGE_AUTO || l->grid == RR_GRID_AUTO ||
	    cols < 1 || !target)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "a realisation needs a complete layout, a target and N >= 1 (got N "
		                "= %lld)",
		                (long long)cols);
	memset(out, 0, sizeof *out);
	rr__realisation *r = out;
	r->layout = *l;
	r->dtype = dtype;
	r->cols = cols;
	r->elem_bytes = (int)rr_dtype_size(dtype);
	r->rounds = f->rounds;
	r->row_outputs = f->row_outputs;
	r->phases = f->phases;
	memcpy(r->phases_read, f->phases_read, sizeof r->phases_read);
	r->kept_inputs = f->kept_inputs;

	r->threads = l->workers_per_row * l->rows_per_group;
	r->rows_per_group = l->rows_per_group;
	r->blocks_per_row = l->blocks_per_row;
	r->persistent = l->grid == RR_GRID_PERSISTENT;
	r->grid_split = l->storage == RR_STORAGE_GRID;
	r->grid_shift = r->grid_split && f->shift.sq >= 0 && f->row_outputs > 0;
	/* Segments are whole 16-byte units and whole packs, so every block's packs stay aligned. */
	r->segment = rr__block_segment(cols, l->blocks_per_row, l->vec, r->elem_bytes);
	r->chunks = ceil_div(r->segment, (int64_t)l->workers_per_row * l->vec);
	realise_access(r);
	r->slots = rr__slot_bound(r->segment, l->workers_per_row, l->vec);
	r->serial_length = rr__serial_length(r->segment, l->workers_per_row, l->vec, r->head_align);
	/* Max and min do not round, and an exact sum was asked to run in index order: the bound
	 * is for sums that may be split. */
	r->serial_bound = f->rounding_sums > 0 ? rr__serial_bound(RR_F32) : 0;
	r->register_slots = rr__register_slots(target, l);

	if (l->storage != RR_STORAGE_REREAD) {
		r->kept_values = f->kept_values;
		memcpy(r->kept_node, f->kept_node, sizeof r->kept_node);
	}
	if (r->kept_values == 0)
		r->keep = RR_KEEP_NONE;
	else if (l->storage == RR_STORAGE_SMEM)
		r->keep = RR_KEEP_SMEM;
	else if (l->storage == RR_STORAGE_CLUSTER && r->slots * r->kept_inputs > r->register_slots)
		r->keep = RR_KEEP_SMEM; /* the cluster's segment does not fit the registers */
	else if (l->storage == RR_STORAGE_CLUSTER && r->elem_bytes < 4 &&
	         raw_keep_allowed(f, r, target))
		/* 16-bit segments kept raw in shared memory rather than in registers (where they
		 * are f32): the H200 measured layernorm bf16 1024x65536 at W = 512, C = 2 99.1 µs
		 * against 105.8 in registers, and raw clusters of W = 256 0.82-0.95x the time of
		 * the planner's registers or re-read at 131072-262144 (bench/NOTES.md session 16).
		 * f32 clusters stay in registers: kept raw they ran 1.08-1.33x as long. */
		r->keep = RR_KEEP_SMEM;
	else if (l->storage == RR_STORAGE_GRID &&
	         r->slots * r->kept_inputs + (int64_t)l->vec * l->unroll * f->in_flight_inputs >
	             r->register_slots)
		/* S=grid counts the loads in flight beside the kept slots: ptxas spilled layernorm
		 * bf16 2x4000037 at W = 512, V = 8, U = 4, C = 128 with 64 kept slots and 32 loads
		 * in flight in registers (emit --check-all). */
		r->keep = RR_KEEP_SMEM;
	else
		r->keep = RR_KEEP_REGS;

	r->keep_raw = r->keep == RR_KEEP_SMEM && raw_keep_allowed(f, r, target);
	realise_smem(f, target, r);
	/* S=grid re-reads its segment (from L2, where it was read a barrier ago) when keeping it
	 * would take more shared memory than a block may have: few rows over few blocks each,
	 * all of them resident in one wave, instead of many waves of small kept segments. */
	if (r->grid_split && r->keep == RR_KEEP_SMEM && target->smem_per_group > 0 &&
	    r->smem_bytes > target->smem_per_group) {
		r->keep = RR_KEEP_NONE;
		r->kept_values = 0;
		r->keep_raw = 0;
		realise_smem(f, target, r);
	}
	r->flat = l->blocks_per_row == 1 && l->rows_per_group == 1 && r->keep != RR_KEEP_SMEM &&
	          r->chunks <= l->unroll;
	realise_workspace(r);
	if (target->cc_major > 0 && f->col_inputs > 0 && r->head_slots > 0 && !r->cols_vec &&
	    r->elem_bytes == 2 && r->cols >= COPIES_MIN_COLS) {
		r->col_copies = f->col_inputs;
		r->col_copy_stride = ceil_div(r->cols + r->head_align, r->head_align) * r->head_align;
		r->col_copies_bytes =
		    (int64_t)r->col_copies * r->head_align * r->col_copy_stride * r->elem_bytes;
	}
	realise_in_flight(f, target, r);
	r->min_blocks = min_blocks(f, r);
	r->min_blocks_head = min_blocks_head(f, r);
	r->min_blocks_capped = r->min_blocks;
	r->min_blocks_head_capped = r->min_blocks_head;
	if (target->cc_major > 0) {
		r->min_blocks = rows_in_flight_blocks(r, r->min_blocks);
		r->min_blocks = smem_rows_blocks(target, r, r->min_blocks);
		if (r->min_blocks != r->min_blocks_capped)
			r->min_blocks_head = min_blocks_head(f, r);
	}
	/* S=grid holds a row group's blocks at once: where the entries take more registers than
	 * the cost model counts (gpu_occupancy, 32 + packs in flight), fewer groups are resident
	 * and a persistent grid runs its rows one after another. ptxas gave rmsnorm bf16
	 * 2x2000003's headed entry at W = 512, C = 128 96 registers under MIN_BLOCKS_HEAD = 1,
	 * one block an SM, where the model counted 64 and two; ncu: a grid of 128 blocks looping
	 * over both rows, 16.0 µs, where W = 1024, C = 64 (48 registers, both rows at once) ran
	 * 12.6 (H100, bench/NOTES.md session 53). At least the blocks 64 registers allow: that
	 * pick then ran in 0.75 of the time, the 7x777777 norms and loss in 0.71-0.75, the other
	 * few-wide picks level (bench/results/2026-12-06-h100-grid-regs-s54). */
	if (target->cc_major > 0 && r->grid_split) {
		int grid_blocks = blocks_at(r, 64);
		if (grid_blocks > r->min_blocks)
			r->min_blocks = grid_blocks;
		if (grid_blocks > r->min_blocks_head)
			r->min_blocks_head = grid_blocks;
	}
	r->min_blocks_head_shifted = r->min_blocks_head;
	/* Col inputs read from their copies load as the aligned entry's do, all together, and
	 * ptxas then took more registers than it did for the shifted loads under the same cap
	 * (rmsnorm bf16 2047x6143 at W = 128: 102 against 63, 4 blocks an SM against 8, 8 %
	 * slower); layernorm bf16 there ran 28.2 µs at 96, 27.2 at 80 and 25.7 at 64 (H100,
	 * bench/NOTES.md session 51): at least the blocks 64 registers allow. Where ptxas spills
	 * at that (rmsnorm f16 1024x12289 at W = 256, U = 4), the backend's second compile takes
	 * the capped bound. */
	if (r->col_copies > 0 && blocks_at(r, 64) > r->min_blocks_head)
		r->min_blocks_head = blocks_at(r, 64);
	r->has_twin_entry = twin_entry(r);
	r->n_tree_offsets = rr__tree_offsets(
	    l->workers_per_row, target->warp_size > 0 ? target->warp_size : 32, r->tree_offsets);
	memcpy(r->entry_vec, f->entry_vec, sizeof r->entry_vec);
	memcpy(r->entry_head, f->entry_head, sizeof r->entry_head);
	memcpy(r->entry_scalar, f->entry_scalar, sizeof r->entry_scalar);
	memcpy(r->entry_twin, f->entry_twin, sizeof r->entry_twin);
	memcpy(r->entry_cols, f->entry_cols, sizeof r->entry_cols);
	return RR_OK;
}

void rr__realisation_for_rows(rr__realisation *r, int64_t rows_hint)
{
	if (r->col_copies == 0 || rows_hint == 0 ||
	    (rows_hint >= (int64_t)COPIES_ROWS_PER_INPUT * r->col_copies &&
	     rows_hint * r->cols >= COPIES_MIN_ELEMENTS))
		return;
	r->col_copies = 0;
	r->col_copy_stride = 0;
	r->col_copies_bytes = 0;
	r->min_blocks_head = r->min_blocks_head_shifted;
}

rr_status rr__realise(const rr_kernel *kernel, rr_dtype dtype, int64_t cols,
                      const rr_layout *layout, const rr__target *target, rr__realisation *out)
{
	rr__kernel_facts facts;
	if (!target)
		return rr__fail(RR_ERR_INVALID_ARG, "a realisation needs a target");
	rr__kernel_facts_of(kernel, target, &facts);
	return rr__realise_with(&facts, dtype, cols, layout, target, out);
}

/* The byte phase of `p` modulo the access width, or -1 when p is not element-aligned. */
static int phase_of(const void *p, const rr__realisation *r)
{
	uintptr_t address = (uintptr_t)p;
	if (address % (uintptr_t)r->elem_bytes)
		return -1;
	return (int)(address % (uintptr_t)r->access_bytes);
}

int rr__head_reference(const rr_kernel *kernel, int *is_output)
{
	*is_output = 0;
	for (int k = 0; k < kernel->n_inputs; k++)
		if (kernel->inputs[k].kind == RR_KIND_ROW)
			return k;
	*is_output = 1;
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			return j;
	return -1;
}

int rr__realisation_one_pass(const rr__realisation *r)
{
	return !r->persistent && !r->grid_split && r->blocks_per_row == 1 &&
	       r->rows_per_group == 1 && r->min_blocks > 1 && r->min_blocks_head > 1;
}

int rr__realisation_short_rows(const rr__realisation *r)
{
	const rr_layout *l = &r->layout;
	return !r->persistent && !r->grid_split && l->blocks_per_row == 1 &&
	       l->workers_per_row == 1 && r->keep != RR_KEEP_SMEM && r->segment <= 8;
}

int rr__realisation_no_loop(const rr__realisation *r)
{
	return rr__realisation_one_pass(r) || rr__realisation_short_rows(r);
}

int rr__realisation_head_unroll(const rr__realisation *r)
{
	const rr_layout *l = &r->layout;
	int U = l->unroll, V = l->vec;
	int paired = r->elem_bytes < 4 && r->keep != RR_KEEP_NONE && r->kept_inputs >= 2 &&
	             r->kept_values < r->kept_inputs && l->blocks_per_row == 1;
	if (r->rounds == 1 && r->phases == r->rounds &&
	    (U * V <= 16 || (l->blocks_per_row == 1 && l->workers_per_row * l->rows_per_group <= 256 &&
	                     U * V * r->elem_bytes <= 64)))
		return U;
	return U > 1 && !paired ? U / 2 : U;
}

int rr__realisation_vec_allowed(const rr_kernel *kernel, const rr__realisation *r,
                                const rr_arg *inputs, void *const *outputs)
{
	if (!r->has_vec_entry)
		return 0;
	int is_output, at = rr__head_reference(kernel, &is_output);
	int ref = at < 0 ? 0 : phase_of(is_output ? outputs[at] : inputs[at].data, r);
	if (ref < 0)
		return 0;
	for (int k = 0; k < kernel->n_inputs; k++) {
		rr_kind kind = kernel->inputs[k].kind;
		if (kind != RR_KIND_ROW && kind != RR_KIND_COL)
			continue;
		int phase = phase_of(inputs[k].data, r);
		/* A col input read by vector is at the body's phase only when it is aligned as
		 * the reference row is (N·size is then a multiple of the access width). */
		if (phase < 0 || (kind == RR_KIND_ROW && phase != ref) ||
		    (kind == RR_KIND_COL && r->cols_vec && phase != ref))
			return 0;
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		int phase = kernel->outputs[j].kind == RR_KIND_ROW ? phase_of(outputs[j], r) : ref;
		if (phase != ref)
			return RR_ENTRY_SCALAR;
	}
	return ref == 0 && r->has_aligned_entry ? RR_ENTRY_VEC : RR_ENTRY_HEAD;
}
