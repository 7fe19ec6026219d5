/* Candidates and the automatic mapper: the product of the plan dimensions, canonicalised,
 * pruned by the legality check and deduplicated; the pick is the cost model's lowest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "util/util.h"

#define TIE_TOLERANCE RR__PLAN_TIE_TOLERANCE
/* The cluster size the rules between clusters and S=grid were measured at (grid_wanted,
 * prefer_grid): rows of at most C = 8 blocks each. */
#define PLANNED_CLUSTER 8
/* The largest cluster the planner offers: 16 blocks where the target allows them (sm_90,
 * non-portable), bounded by sixteen_wanted. */
#define OFFERED_CLUSTER 16

static int64_t next_pow2(int64_t x)
{
	int64_t p = 1;
	while (p < x)
		p *= 2;
	return p;
}

static void canonical_shape(const rr__plan_request *req, const rr_layout *fixed, int kept,
                            rr_layout *l)
{
	if (l->workers_per_row < 1 || l->vec < 1 || l->blocks_per_row < 1 || req->cols < 1)
		return; /* not a shape yet: the legality check will say which field is missing */
	int64_t share = (req->cols + l->blocks_per_row - 1) / l->blocks_per_row;
	int64_t cover = next_pow2(share);
	if (!fixed->vec)
		while (l->vec > 1 && (int64_t)l->workers_per_row * l->vec > cover)
			l->vec /= 2;
	int64_t span = (int64_t)l->workers_per_row * l->vec;
	int64_t chunks = (share + span - 1) / span;
	if (!fixed->unroll && l->unroll > chunks)
		l->unroll = (int)chunks;
	if (!fixed->storage && kept == 0 && l->storage != RR_STORAGE_GRID)
		l->storage = RR_STORAGE_REGS; /* nothing is kept: storage is never used */
}

static void canonical_grid(const rr__plan_request *req, const rr_layout *fixed, rr_layout *l)
{
	if (fixed->grid || req->rows <= 0 || !rr__layout_is_complete(l) ||
	    l->storage == RR_STORAGE_GRID) /* S=grid is persistent by construction */
		return;
	double groups =
	    (double)((req->rows + l->rows_per_group - 1) / l->rows_per_group) * l->blocks_per_row;
	if (groups <= rr__cost_resident_groups(req, l))
		l->grid = RR_GRID_ROWS; /* every group is resident at once: nothing to loop over */
}

void rr__plan_canonical(const rr__plan_request *req, const rr_layout *fixed, rr_layout *layout)
{
	static const rr_layout none;
	int phases[RR_MAX_IO];
	if (!fixed)
		fixed = &none;
	canonical_shape(req, fixed, rr__layout_kept_inputs(req->kernel, phases), layout);
	canonical_grid(req, fixed, layout);
}

static int compare_layouts(const void *pa, const void *pb)
{
	const rr_layout *a = pa, *b = pb;
	const int ka[7] = {a->workers_per_row, a->vec,          a->unroll,   a->rows_per_group,
	                   a->blocks_per_row,  (int)a->storage, (int)a->grid};
	const int kb[7] = {b->workers_per_row, b->vec,          b->unroll,   b->rows_per_group,
	                   b->blocks_per_row,  (int)b->storage, (int)b->grid};
	for (int i = 0; i < 7; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

/* 1 when a is the simpler kernel: one block per row, no persistent loop, less unrolling, fewer
 * rows per group, narrower vectors, fewer workers, in that order of importance. */
static int simpler(const rr_layout *a, const rr_layout *b)
{
	const int ka[6] = {a->blocks_per_row, (int)a->grid, a->unroll,
	                   a->rows_per_group, a->vec,       a->workers_per_row};
	const int kb[6] = {b->blocks_per_row, (int)b->grid, b->unroll,
	                   b->rows_per_group, b->vec,       b->workers_per_row};
	for (int i = 0; i < 6; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i];
	return 0;
}

int rr__plan_simpler(const rr_layout *a, const rr_layout *b)
{
	return simpler(a, b);
}

/* The values one dimension takes: the fixed one, or the listed ones. */
typedef struct values {
	int v[16];
	int n;
} values;

static values list_of(int fixed, const int *all, int count)
{
	values out = {{0}, 0};
	if (fixed) {
		out.v[out.n++] = fixed;
		return out;
	}
	for (int i = 0; i < count && out.n < 16; i++)
		out.v[out.n++] = all[i];
	return out;
}

static values widths(int fixed)
{
	values out = {{0}, 0};
	if (fixed) {
		out.v[out.n++] = fixed;
		return out;
	}
	for (int W = 1; W <= 1024; W *= 2)
		out.v[out.n++] = W;
	return out;
}

/* R > 1 only where a group's row is short: W below a warp, one chunk covering the row, or
 * (one-element packs on rows not a multiple of 16 bytes) at most 12 chunks, where a warp a row
 * of 127-321 elements in blocks of 4-16 rows measured fastest (bench/NOTES.md 2026-12-01
 * session 11). */
static values rows_per_group(const rr__plan_request *req, int fixed, int W, int V)
{
	values out = {{0}, 0};
	if (fixed) {
		out.v[out.n++] = fixed;
		return out;
	}
	int warp = req->target->warp_size > 0 ? req->target->warp_size : 32;
	int64_t elem = (int64_t)rr_dtype_size(req->dtype);
	int odd = req->cols * elem % 16 != 0;
	int short_row = W < warp || req->cols <= (int64_t)W * V * (V == 1 && odd ? 12 : 1);
	int row_of_chunks = W >= warp && req->cols > (int64_t)W * V; /* the V = 1 case above */
	for (int64_t R = 1; R * W <= req->target->max_workers && out.n < 16; R *= 2) {
		if (R > 1 && (!short_row || (req->rows > 0 && R / 2 >= req->rows)))
			break;
		if (R > 1 && row_of_chunks && R * W > 256) /* 512 threads and more: slower */
			break;
		out.v[out.n++] = (int)R;
	}
	if (out.n == 0)
		out.v[out.n++] = 1; /* W alone is over the device: let the check say so */
	return out;
}

/* The planner offers S=grid unless RR_PLAN_GRID=0 (a way back to clusters and re-reading for
 * a user who measures otherwise). Explicit S=grid layouts build and run regardless. */
int rr__plan_offers_grid(void)
{
	const char *v = getenv("RR_PLAN_GRID");
	return !(v && strcmp(v, "0") == 0);
}

/* Blocks in the largest cluster the planner offers on `t` (1 without clusters). */
static int planned_cluster(const rr__target *t)
{
	int most = t->has_clusters && t->max_cluster > 1 ? t->max_cluster : 1;
	return most < PLANNED_CLUSTER ? most : PLANNED_CLUSTER;
}

/* S=grid is offered where the other modes leave much of the device idle: M rows of at most a
 * cluster's blocks each fill no more than the SMs (a few very wide rows). Measured on the H200
 * (bench/results/2026-12-01-h200-wide-few-grid{0,1}): 2-5x faster at 2 rows, 1.1-1.7x at 4;
 * at 16 rows, once S=grid re-reads what it cannot keep (one wave of C = 16 instead of eight
 * waves of C = 128), 1.19-1.49x over 8-block clusters for all four norms and softmax in f32
 * and bf16 (bench/NOTES.md, 2026-12-01 session 5). */
static int grid_wanted(const rr__plan_request *req)
{
	const rr__target *t = req->target;
	if (!rr__plan_offers_grid())
		return 0;
	int most = planned_cluster(t);
	if (t->kind != RR_TARGET_GPU || req->rows <= 0 || t->multiprocessors <= 0)
		return 0;
	/* Without clusters (most = 1) the rule of the first measurement stays: under half. */
	if (most > 1 ? req->rows * most <= t->multiprocessors
	             : 2 * req->rows * most < t->multiprocessors)
		return 1;
	/* Rows whose kept values (f32) exceed what a cluster's shared memory holds, in any number:
	 * a cluster would re-read them, S=grid's groups of more blocks keep them. H200, 64x524288
	 * (bench/NOTES.md session 29): add_layernorm f32 re-read over 8-block clusters 297.8 µs,
	 * S=grid C = 16 182.8; bf16 123.8 against 108.9 at C = 32; layernorm f32 126.6 against
	 * 109.0. */
	int phases[RR_MAX_IO];
	return most > 1 && rr__layout_kept_inputs(req->kernel, phases) > 0 &&
	       (double)req->cols * 4 > (double)most * (double)t->smem_per_group;
}

/* Whether S=grid offers C where each block gets at least three quarters of a chunk (of one
 * pack a worker; the chunk partial, some workers idle) rather than a whole one: 16-bit rows,
 * and f32 rows of kernels with one kept row input and no online pair. One pack a worker is
 * what ran fastest on one row: bf16 1x128256 at C = 32 needs W = 512 (the whole-chunk bound
 * allowed W = 256 at U = 2), and the H100 ran rmsnorm, layernorm, softmax and add_layernorm
 * bf16 on 1-2 rows of 100000-200000 in 0.81-0.97x the time, rmsnorm and layernorm f32
 * 0.86-0.95x (24 picks, 0.89x geomean; 12 on shapes in no suite 0.90x); softmax f32 at W =
 * 1024 1.11-1.15x, add_layernorm f32 0.96-1.05x (bench/NOTES.md session 43). */
static int grid_part_chunks(const rr__plan_request *req)
{
	int phases[RR_MAX_IO];
	return rr_dtype_size(req->dtype) < 4 || (req->kernel->analysis.online_rewrites == 0 &&
	                                         rr__layout_kept_inputs(req->kernel, phases) <= 1);
}

/* Whether S=grid's filling C (SMs / M blocks a row, no power of two) is offered: for kernels
 * that write rows, where the largest power of two at or under it leaves a fifth of the SMs or
 * more idle (M = 3, 5 and 6 rows on 132 SMs). Offered wherever it qualifies, on two H100s
 * against the powers of two (bench/results/2026-12-07-h100-ab-grid-fill-s66): 1.05-1.28x as
 * fast for the f32 norms and softmax at 3 and 5 rows, but 0.93-0.99x where the power of two
 * leaves 4 SMs idle (C = 66, 33: the 64-bit count, and a partial chunk that each segment ends
 * on, cost what the SMs gain) and for sum and cross_entropy. As this rule, on seven shapes it
 * was not drawn from: 31 picks moved, 1.052x geomean (0.85-1.50). The tuner, which times what
 * it picks (`measured`: rr__plan_enumerate_measured), is offered it wherever it qualifies;
 * RR_GRID_FILL=1 offers it so to the planner too, RR_GRID_FILL=0 to neither. */
/* S=grid's filling C: the blocks a row when M rows share the SMs one block an SM. */
static int64_t grid_fill(const rr__plan_request *req)
{
	return req->target->multiprocessors / (req->rows > 0 ? req->rows : 1);
}

static int grid_fill_pays(const rr__plan_request *req, int measured)
{
	const char *env = getenv("RR_GRID_FILL");
	if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
		return env[0] == '1';
	if (measured)
		return 1;
	int writes_rows = 0;
	for (int j = 0; j < req->kernel->n_outputs; j++)
		writes_rows |= req->kernel->outputs[j].kind == RR_KIND_ROW;
	int64_t rows = req->rows > 0 ? req->rows : 1;
	int64_t fill = grid_fill(req), pow2 = 1;
	while (pow2 * 2 <= fill)
		pow2 *= 2;
	return writes_rows && 5 * rows * pow2 <= 4 * (int64_t)req->target->multiprocessors;
}

/* C > 1 on a target with clusters, for one row per group, when each block gets a chunk; with
 * S=grid wanted, C = 16 ... 1024 too (blocks of at least one warp, at most one per SM; three
 * quarters of a chunk a block where grid_part_chunks says). */
static values blocks(const rr__plan_request *req, int fixed, int grid, int W, int V, int R,
                     int offer_fill)
{
	values out = {{0}, 0};
	out.v[out.n++] = fixed ? fixed : 1;
	if (fixed || !req->target->has_clusters || R > 1)
		return out;
	int largest = 1; /* the largest cluster offered: S=grid's values start above it */
	for (int C = 2; C <= req->target->max_cluster && C <= OFFERED_CLUSTER; C *= 2)
		if (req->cols >= (int64_t)C * W * V) {
			out.v[out.n++] = C;
			largest = C;
		}
	/* S=grid needs all C blocks of a row resident at once; registers are known only after
	 * compiling, so the planner offers no more blocks than SMs (one block per SM always fits
	 * a block that fits at all). An explicit larger C is checked by the launcher. */
	int64_t part = grid && grid_part_chunks(req) ? 3 : 4; /* quarters of a chunk a block */
	for (int C = 16;
	     C <= 1024 && C <= req->target->multiprocessors && W >= 32 && grid && out.n < 16;
	     C *= 2)
		if (C > largest && 4 * req->cols >= part * C * W * V)
			out.v[out.n++] = C;
	/* And the C whose M x C blocks fill the SMs once, one block an SM (three rows: C = 44 on
	 * 132), where that is no power of two and grid_fill_pays said so (offer_fill). */
	int64_t fill = grid_fill(req);
	if (grid && W >= 32 && out.n < 16 && fill > largest && fill >= 16 &&
	    (fill & (fill - 1)) != 0 && 4 * req->cols >= part * fill * W * V && offer_fill)
		out.v[out.n++] = (int)fill;
	return out;
}

static values storages(const rr__plan_request *req, int fixed, int kept)
{
	values out = {{0}, 0};
	if (fixed) {
		out.v[out.n++] = fixed;
		return out;
	}
	out.v[out.n++] = RR_STORAGE_REGS;
	if (grid_wanted(req))
		out.v[out.n++] = RR_STORAGE_GRID;
	if (kept == 0)
		return out;
	if (req->target->smem_per_group > 0)
		out.v[out.n++] = RR_STORAGE_SMEM;
	if (req->target->has_clusters)
		out.v[out.n++] = RR_STORAGE_CLUSTER;
	out.v[out.n++] = RR_STORAGE_REREAD;
	return out;
}

static rr_status push(rr__candidates *c, int *capacity, const rr_layout *l)
{
	if (c->count == *capacity) {
		int grown = *capacity ? 2 * *capacity : 256;
		rr_layout *items = realloc(c->items, (size_t)grown * sizeof *items);
		if (!items)
			return rr__fail(RR_ERR_NOMEM, "out of memory listing %d candidate layouts",
			                grown);
		c->items = items;
		*capacity = grown;
	}
	c->items[c->count++] = *l;
	return RR_OK;
}

static rr_status check_request(const rr__plan_request *req)
{
	if (!req || !req->kernel || !req->target || !req->target->backend)
		return rr__fail(RR_ERR_INVALID_ARG, "a plan request needs a kernel and a target");
	if (req->cols < 1 || req->rows < 0)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "cannot plan %s for M = %lld rows of N = %lld: N must be at least 1 and "
		    "M at least 0 (0 = unknown)",
		    req->kernel->name, (long long)req->rows, (long long)req->cols);
	return RR_OK;
}

/* A pack of V > 1 elements without a vector access is read as V separate element accesses
 * with a warp's lanes V elements apart: uncoalesced. The planner never picks such a kernel for
 * rows longer than this (a narrower V, or V = 1 whose lanes are adjacent, serves instead).
 * With the head (layout.h) every V > 1 has a vector access today; this keeps it so. */
#define SCALAR_PACK_ROW_LIMIT 256

static int uncoalesced(const rr__plan_request *req, const rr_layout *l)
{
	int elem = (int)rr_dtype_size(req->dtype);
	int64_t segment = rr__block_segment(req->cols, l->blocks_per_row, l->vec, elem);
	return l->vec > 1 && req->cols > SCALAR_PACK_ROW_LIMIT &&
	       rr__access_bytes(l, segment, elem) <= elem;
}

/* U = 8 is offered as "the whole row at once" on a launch of one-row blocks, one block a
 * row, no more rows than multiprocessors, where a worker owns 5-8 packs of at most 16 elements
 * together: such a row is flat (every load issued before any is used, cuda_emit.c), one trip
 * to memory instead of one per 4 chunks, and the launch waits on its trips (cost.c,
 * few_group_trips); to one-pass online reductions (cost.c, rr__online_stream); and to plain
 * streams of 16 packs a worker or more (cost.c, rr__plain_stream_deep), and to plain reductions
 * of shorter rows in 5-8 packs a worker, the whole row in flight (cost.c, rr__plain_flat).
 * Elsewhere U stays 1, 2 or 4, what the model was fitted with. */
#define WHOLE_ROW_UNROLL 8

static int whole_row_wanted(const rr__plan_request *req, const rr_layout *l)
{
	if (l->rows_per_group != 1 || l->blocks_per_row != 1 || l->storage == RR_STORAGE_GRID ||
	    req->target->kind != RR_TARGET_GPU || req->rows <= 0 ||
	    req->rows > req->target->multiprocessors)
		return 0;
	int64_t span = (int64_t)l->workers_per_row * l->vec;
	int64_t chunks = (req->cols + span - 1) / span;
	return chunks > 4 && chunks <= WHOLE_ROW_UNROLL && chunks * l->vec <= 16;
}

/* Clusters of 16 blocks for 16-bit rows of a kernel that keeps a computed value (add_layernorm's
 * h = x + r, kept in f32), where the same layout at C = 8 holds at most two blocks an SM by
 * shared memory: C = 16 halves the segment kept. The H200 ran add_layernorm bf16 1024x151936
 * (C = 8: 80 KB a block, two an SM) at W = 256, U = 2, C = 16 in 0.693 of the C = 8 pick's
 * time, and every f32 row C = 16 was offered for 1.07-1.72x slower (bench/results/
 * 2026-12-05-h200-ab-c16-s40); an H100 ran rows of 131072 (64 KB, three an SM) at C = 16 in
 * 1.09-1.89x C = 8's time (bench/NOTES.md session 38 GPU). U = 1, and U = 2 only where a
 * worker's segment holds SIXTEEN_U2_CHUNKS chunks or more: at 151936 (4.6 chunks), W = 256,
 * U = 2 holds two row inputs' packs of two chunks beside h, and ptxas gives its vector entry 108
 * registers (two blocks an SM) where U = 1 takes 56 (three); the H200 ran them in 447 and 384
 * µs (bench/NOTES.md session 37 GPU). From 6 chunks (196608-400000) ptxas gives U = 2's vector
 * entry 56-84, and an H100 ran the picks U = 2 moves (add_layernorm bf16 at 128-800 rows of
 * 196608-393216) in 0.847-0.927 of their old time, 96x400000 in 1.017
 * (bench/results/2026-12-05-h100-plans-c16-s42, 2026-12-05-h100-ab-c16u2-s42). At U = 1:
 * add_layernorm bf16 1024x151936, 400x160000 and 512x150000 in 0.652-0.785 of the C = 8 picks'
 * time on an H100 (bench/results/2026-12-05-h100-ab-c16-s41). */
#define SIXTEEN_U2_CHUNKS 6
static int sixteen_wanted(const rr__plan_request *req, const rr_layout *l)
{
	rr__kernel_facts own;
	const rr__kernel_facts *facts = req->facts;
	if (rr_dtype_size(req->dtype) != 2 || l->storage != RR_STORAGE_CLUSTER || l->unroll > 2 ||
	    req->target->smem_per_group <= 0)
		return 0;
	if (l->unroll == 2) {
		const int64_t segment = rr__block_segment(req->cols, OFFERED_CLUSTER, l->vec,
		                                          (int)rr_dtype_size(req->dtype));
		if (segment < SIXTEEN_U2_CHUNKS * (int64_t)l->workers_per_row * l->vec)
			return 0;
	}
	if (!facts) {
		rr__kernel_facts_of(req->kernel, req->target, &own);
		facts = &own;
	}
	if (facts->kept_inputs == 0 || facts->kept_raw)
		return 0;
	rr_layout eight = *l;
	eight.blocks_per_row = PLANNED_CLUSTER;
	rr__plan_features f;
	rr__plan_features_compute(req, &eight, &f);
	double smem = (double)req->target->smem_per_group;
	return f.smem_per_group > 0 && floor((smem + 1024) / (f.smem_per_group + 1024)) <= 2;
}

/* One raw layout of the product: canonicalise, check, keep. */
static rr_status consider(const rr__plan_request *req, const rr_layout *fixed, int kept,
                          rr_layout l, rr__candidates *out, int *capacity)
{
	char detail[256];
	/* The C values above OFFERED_CLUSTER are S=grid's: not offered as clusters. */
	if (!fixed->blocks_per_row && l.blocks_per_row > OFFERED_CLUSTER &&
	    l.storage != RR_STORAGE_GRID)
		return RR_OK;
	if (!fixed->unroll && l.unroll == WHOLE_ROW_UNROLL && !whole_row_wanted(req, &l) &&
	    !rr__online_stream(req, &l) && !rr__plain_stream_deep(req, &l) &&
	    !rr__plain_flat(req, &l))
		return RR_OK;
	out->considered++;
	canonical_shape(req, fixed, kept, &l);
	rr__illegal reason = rr__layout_check_with(req->kernel, req->facts, req->cols, req->dtype,
	                                           &l, req->target, detail, sizeof detail);
	if (reason != RR_LEGAL) {
		if (out->rejected++ == 0)
			snprintf(out->first_rejection, sizeof out->first_rejection, "%s", detail);
		out->rejected_by_reason[(int)reason & 15]++;
		return RR_OK;
	}
	if (uncoalesced(req, &l)) {
		if (out->rejected++ == 0)
			snprintf(
			    out->first_rejection, sizeof out->first_rejection,
			    "V = %d without a vector access reads uncoalesced packs, which the "
			    "planner never picks for rows over %d elements",
			    l.vec, SCALAR_PACK_ROW_LIMIT);
		return RR_OK;
	}
	if (!fixed->blocks_per_row && l.blocks_per_row > PLANNED_CLUSTER &&
	    l.storage != RR_STORAGE_GRID && !sixteen_wanted(req, &l))
		return RR_OK;
	canonical_grid(req, fixed, &l);
	return push(out, capacity, &l);
}

static rr_status enumerate(const rr__plan_request *req, const rr_layout *fixed, rr__candidates *out,
                           int measured);

static rr_status enumerate_with_facts(const rr__plan_request *req, const rr_layout *fixed,
                                      rr__candidates *out, int measured)
{
	rr__kernel_facts facts;
	rr__plan_request with = {0};
	if (req && req->kernel && req->target && !req->facts) {
		with = *req;
		rr__kernel_facts_of(req->kernel, req->target, &facts);
		with.facts = &facts;
		req = &with;
	}
	return enumerate(req, fixed, out, measured);
}

rr_status rr__plan_enumerate(const rr__plan_request *req, const rr_layout *fixed,
                             rr__candidates *out)
{
	return enumerate_with_facts(req, fixed, out, 0);
}

rr_status rr__plan_enumerate_measured(const rr__plan_request *req, const rr_layout *fixed,
                                      rr__candidates *out)
{
	return enumerate_with_facts(req, fixed, out, 1);
}

static rr_status enumerate(const rr__plan_request *req, const rr_layout *fixed, rr__candidates *out,
                           int measured)
{
	static const rr_layout none;
	static const int all_vec[] = {1, 2, 4, 8, 16}, all_unroll[] = {1, 2, 4, WHOLE_ROW_UNROLL};
	static const int all_grid[] = {RR_GRID_ROWS, RR_GRID_PERSISTENT};
	int phases[RR_MAX_IO], capacity = 0;
	rr_status status = check_request(req);
	memset(out, 0, sizeof *out);
	if (status != RR_OK)
		return status;
	if (!fixed)
		fixed = &none;
	int kept = rr__layout_kept_inputs(req->kernel, phases);
	values Ws = widths(fixed->workers_per_row), Vs = list_of(fixed->vec, all_vec, 5);
	values Us = list_of(fixed->unroll, all_unroll, 4), Gs = list_of(fixed->grid, all_grid, 2);
	values Ss = storages(req, fixed->storage, kept);
	int grid = fixed->storage == RR_STORAGE_GRID || grid_wanted(req);
	const int offer_fill = grid && grid_fill_pays(req, measured);
	for (int w = 0; w < Ws.n; w++)
		for (int v = 0; v < Vs.n; v++) {
			values Rs = rows_per_group(req, fixed->rows_per_group, Ws.v[w], Vs.v[v]);
			for (int r = 0; r < Rs.n; r++) {
				values Cs = blocks(req, fixed->blocks_per_row, grid, Ws.v[w],
				                   Vs.v[v], Rs.v[r], offer_fill);
				for (int u = 0; u < Us.n; u++)
					for (int c = 0; c < Cs.n; c++)
						for (int s = 0; s < Ss.n; s++)
							for (int g = 0; g < Gs.n && status == RR_OK;
							     g++) {
								rr_layout l = {Ws.v[w],
								               Vs.v[v],
								               Us.v[u],
								               Rs.v[r],
								               Cs.v[c],
								               (rr_storage)Ss.v[s],
								               (rr_grid)Gs.v[g]};
								status =
								    consider(req, fixed, kept, l,
								             out, &capacity);
							}
			}
		}
	if (status != RR_OK) {
		rr__candidates_free(out);
		return status;
	}
	if (out->count > 1)
		qsort(out->items, (size_t)out->count, sizeof *out->items, compare_layouts);
	int distinct = 0;
	for (int i = 0; i < out->count; i++)
		if (distinct == 0 ||
		    compare_layouts(&out->items[distinct - 1], &out->items[i]) != 0)
			out->items[distinct++] = out->items[i];
	out->merged = out->count - distinct;
	out->count = distinct;
	return RR_OK;
}

void rr__candidates_free(rr__candidates *candidates)
{
	if (!candidates)
		return;
	free(candidates->items);
	candidates->items = NULL;
	candidates->count = 0;
}

/* RR_PLAN_TRACE=K (default 12): the K cheapest candidates the planner kept (after its
 * preferences) and the parts of their predicted time on stderr (xF: the product of the
 * measured corrections applied to the terms' sum), the chosen one marked `*` (a
 * simpler plan within the tie tolerance may win over the cheapest; it is shown even when past
 * the K), for a person asking why the planner chose what it did. */
static void trace_line(const rr__plan_request *req, const rr_layout *l, double cost, int chosen)
{
	rr__plan_features f;
	rr__plan_features_compute(req, l, &f);
	char text[128];
	rr_layout_format(l, text, sizeof text);
	fprintf(stderr,
	        "%c %9.2f  %-44s mem %8.2f lat %8.2f launch %5.2f tree %6.2f  x%.2f  eff %.2f "
	        "waves %.2f passes %d regs %.0f groups/SM %.0f\n",
	        chosen ? '*' : ' ', cost, text, f.memory_us, f.latency_us, f.launch_us, f.tree_us,
	        f.additive_us > 0 ? f.predicted_us / f.additive_us : 1, f.bandwidth_efficiency,
	        f.waves, f.passes, f.registers_per_thread, f.groups_per_sm);
}

static void trace(const rr__plan_request *req, const rr__candidates *c, const double *costs,
                  int chosen)
{
	int k = atoi(getenv("RR_PLAN_TRACE"));
	k = k > 0 ? k : 12;
	char *shown = calloc((size_t)c->count, 1);
	if (!shown)
		return;
	fprintf(stderr,
	        "plan trace: %s %s %lldx%lld, %d candidates (us: total = memory or "
	        "latency, + launch + tree)\n",
	        req->kernel->name, rr_dtype_name(req->dtype), (long long)req->rows,
	        (long long)req->cols, c->count);
	for (int n = 0; n < k && n < c->count; n++) {
		int best = -1;
		for (int i = 0; i < c->count; i++)
			if (!shown[i] && isfinite(costs[i]) && (best < 0 || costs[i] < costs[best]))
				best = i;
		if (best < 0)
			break;
		shown[best] = 1;
		trace_line(req, &c->items[best], costs[best], best == chosen);
	}
	if (chosen >= 0 && !shown[chosen])
		trace_line(req, &c->items[chosen], costs[chosen], 1);
	free(shown);
}

static rr_status check_requested(const rr__plan_request *req, const rr_layout *requested,
                                 rr_layout *out)
{
	char detail[512];
	rr__illegal reason = rr__layout_check_with(req->kernel, req->facts, req->cols, req->dtype,
	                                           requested, req->target, detail, sizeof detail);
	if (reason != RR_LEGAL) {
		char text[128];
		rr_layout_format(requested, text, sizeof text);
		return rr__fail(RR_ERR_ILLEGAL_LAYOUT, "layout %s: %s", text, detail);
	}
	*out = *requested;
	return RR_OK;
}

static rr_status none_legal(const rr__plan_request *req, const rr_layout *requested,
                            const rr__candidates *c)
{
	char text[128] = "";
	if (requested)
		rr_layout_format(requested, text, sizeof text);
	return rr__fail(
	    RR_ERR_ILLEGAL_LAYOUT,
	    "no legal layout for kernel '%s' (%s, N = %lld) on %s%s%s: all %d candidates "
	    "were rejected, the first because %s",
	    req->kernel->name, rr_dtype_name(req->dtype), (long long)req->cols,
	    req->target->backend, text[0] ? " with the fixed fields " : "", text, c->considered,
	    c->first_rejection);
}

/* On the CPU a worker is a lane of a vector, so up to W = 64 a row costs about the same and a
 * shorter accumulation chain is free accuracy: where the kernel has rounding sums and some
 * candidate keeps every chain within CPU_SERIAL_PREFERRED elements, the planner picks among
 * those only. A row that cancels heavily (a result thousands of times smaller than the sum of
 * magnitudes, as the odd suite's sum 1x131073) then validates; legality's own bound
 * (rr__serial_bound, 2^15) still governs explicit layouts. */
#define CPU_SERIAL_PREFERRED 4096
static void prefer_short_chains(const rr__plan_request *req, const rr__candidates *c, double *costs)
{
	if (req->target->kind != RR_TARGET_CPU || req->facts->rounding_sums <= 0)
		return;
	int any = 0;
	for (int i = 0; i < c->count && !any; i++)
		any = isfinite(costs[i]) &&
		      (req->cols + c->items[i].workers_per_row - 1) / c->items[i].workers_per_row <=
		          CPU_SERIAL_PREFERRED;
	for (int i = 0; i < c->count && any; i++)
		if ((req->cols + c->items[i].workers_per_row - 1) / c->items[i].workers_per_row >
		    CPU_SERIAL_PREFERRED)
			costs[i] = INFINITY;
}

/* Where a CPU launch runs its last rows in two parts (backend/cpu.c's split_rows: M mod T rows
 * left, each of RR_CPU_PARTS_MIN_N elements and RR_CPU_SPLIT_WRITTEN_ROW_BYTES of row arrays,
 * the launch not streaming the rows it writes) and the kernel writes one row and has no online
 * pair, the planner picks among the layouts within CPU_PART_SPAN_TOLERANCE of the cheapest
 * whose part spans (W * V / 2 values) reach RR_CPU_PART_SPAN_BYTES, where there are such: two
 * cores storing within a page of each other lose to their prefetchers. rmsnorm f32 in parts
 * against whole rows: 1x500000 0.636 of the time at W = 256, 0.507 at W = 1024; 5x500000 0.984
 * and 0.915 (whole, the two widths ran alike: 282-286 and 819-821 µs). Against the planner's
 * narrower picks, rmsnorm and layernorm f32 on 1-5 rows of 131073-2000000 0.60-0.91 of the
 * time; softmax (an online pair) 0.77-1.38 and add_layernorm (two row outputs) 0.75-1.15, so
 * not those. From NumPy arrays with calls apart the split paid only from rows of 8 MiB
 * (target/target.h; bench/NOTES.md, session 40). */
#define CPU_PART_SPAN_TOLERANCE 0.05
static void prefer_part_spans(const rr__plan_request *req, const rr__candidates *c,
                              double *costs)
{
	const rr__target *t = req->target;
	const rr_kernel *k = req->kernel;
	/* 16-bit kernels that write rows have no parts (c_emit.h's rr__c_row_parts) */
	if (t->kind != RR_TARGET_CPU || req->dtype != RR_F32 || t->multiprocessors < 2 ||
	    req->rows <= 0 ||
	    req->cols < RR_CPU_PARTS_MIN_N || req->rows % t->multiprocessors != 1)
		return;
	int arrays = 0, outputs = 0;
	for (int i = 0; i < k->n_inputs; i++)
		arrays += k->inputs[i].kind == RR_KIND_ROW;
	for (int j = 0; j < k->n_outputs; j++)
		outputs += k->outputs[j].kind == RR_KIND_ROW;
	int pairs = 0;
	for (int id = 0; id < k->n_nodes; id++)
		pairs += k->analysis.online_partner[id] >= 0;
	const double elem = (double)rr_dtype_size(req->dtype);
	const double row_bytes = (double)(arrays + outputs) * (double)req->cols * elem;
	if (outputs != 1 || pairs > 0 || row_bytes < RR_CPU_SPLIT_WRITTEN_ROW_BYTES ||
	    row_bytes * (double)req->rows >= RR_CPU_STREAM_BYTES)
		return;
	double lowest = INFINITY;
	for (int i = 0; i < c->count; i++)
		lowest = fmin(lowest, costs[i]);
	int any = 0;
	for (int i = 0; i < c->count && !any; i++)
		any = costs[i] <= lowest * (1 + CPU_PART_SPAN_TOLERANCE) &&
		      c->items[i].workers_per_row * c->items[i].vec * elem / 2 >=
		          RR_CPU_PART_SPAN_BYTES;
	for (int i = 0; i < c->count && any; i++)
		if (c->items[i].workers_per_row * c->items[i].vec * elem / 2 < RR_CPU_PART_SPAN_BYTES)
			costs[i] = INFINITY;
}

/* Where S=grid is wanted (a few very wide rows) and some S=grid layout is legal, the planner
 * picks among those only: measured on the H200 against the 8-block clusters the model
 * otherwise prefers there, S=grid was faster for every norm and softmax at 2, 4 and 16 rows of
 * 1-4 million elements (1.2-1.5x at 16, bench/NOTES.md 2026-12-01 session 5), where the model,
 * calibrated on full devices, rates the clusters' re-reads over 128 blocks as 0.55-0.75 of
 * their time. */
static void prefer_grid(const rr__plan_request *req, const rr__candidates *c, double *costs)
{
	const rr__target *t = req->target;
	int most = planned_cluster(t);
	/* Only against clusters (what was measured), and only rows wider than RR__GRID_WIDE_COLS:
	 * below a cluster's own capacity too, S=grid measured faster there (16x128257: all six
	 * built-ins in f32 and bf16 0.62-0.99 of the 8-block clusters' time; 1x131073 f32
	 * 0.84-0.99), and slower on narrower rows (16x60000, 4x65536: 1.03-1.53). */
	if (most < 2 || !grid_wanted(req) || req->cols <= RR__GRID_WIDE_COLS)
		return;
	/* Kernels of two rounds or more meet across blocks once a round, and S=grid's meeting costs
	 * more than a cluster's: where the rows' 8-block clusters fit the device at once (under
	 * three quarters of its SMs) and a cluster keeps the row, the model chooses (12x100003:
	 * layernorm f32 on clusters 11.3 µs, on S=grid 16.1; layernorm bf16 1x131073 10.0 against
	 * 11.7; at 16 rows S=grid won for every kernel, bench/NOTES.md 2026-12-01 session 9). */
	if (req->kernel->analysis.rounds >= 2 && 4 * req->rows * most < 3 * t->multiprocessors &&
	    (double)req->cols * 4 <= (double)most * t->smem_per_group)
		return;
	int any = 0;
	for (int i = 0; i < c->count && !any; i++)
		any = isfinite(costs[i]) && c->items[i].storage == RR_STORAGE_GRID;
	for (int i = 0; i < c->count && any; i++)
		if (c->items[i].storage != RR_STORAGE_GRID)
			costs[i] = INFINITY;
}

/* Whether the cheapest plan wins outright, with no tie to a simpler one: a launch of fewer
 * one-block groups than SMs (and more than few_groups' bytes) over aligned rows under 64 KiB,
 * whose workers load their packs in one step. The memory terms of such plans are level within
 * the tie tolerance, and the simpler plan (less unrolling, narrower packs) took W = 1024 at V =
 * 1-2 where the H100 ran the cheapest (mostly W = 128-512 at 16-byte packs and U = 4; U = 5-6
 * at V = 2 on 5000-6144 columns) in 0.89x the time (geomean, 60 picks on 1-16 rows of
 * 4096-16384, all six kernels, f32 and bf16; 0.89x again over 45 on shapes in no suite); odd
 * rows (2x4095: 1.15-1.42x), f32 rows of 64 KiB (1.02-1.07x) and packs in two steps
 * (layernorm bf16 1x5000: 1.13x) ran slower (bench/NOTES.md session 43). */
static int cheapest_alone(const rr__plan_request *req, const rr_layout *l,
                          const rr__plan_features *f)
{
	int64_t bytes = req->cols * rr_dtype_size(req->dtype);
	return req->target->kind == RR_TARGET_GPU && l->blocks_per_row == 1 && bytes % 16 == 0 &&
	       bytes < 65536 && f->groups < req->target->multiprocessors && !f->few_groups;
}

/* Whether the kernel reads col inputs (the norms' weights): a worker's element then takes two
 * or three loads, and where cheapest_alone covers the launch but the cheapest plan loads its
 * packs in two steps, the cheapest plan of the tie window that loads them in one step wins over
 * the tie rule's simplest (U = 1 at wide packs, idle workers). H100, one-step against the tie
 * rule's pick (bench/NOTES.md session 45): layernorm, rmsnorm and add_layernorm bf16 on 1-12
 * rows of 5000-12288, 0.69-0.90 of the time (10 of 10 faster); softmax bf16 0.84-1.19 and f32
 * sum and cross_entropy (V = 4, U = 4 -> V = 2, U = 8) 0.88-1.06, 14 of 22 slower: kernels
 * without col inputs keep the tie rule. On 32 shapes the rule was not drawn from (H100, session
 * 47, bench/results/2026-12-06-h100-ab-one-step-cols-s47): 31 faster, 0.66-0.98; add_layernorm
 * f16 8x8000 1.04, its W = 512, V = 4, U = 4 spilling. */
static int reads_cols(const rr_kernel *kernel)
{
	for (int k = 0; k < kernel->n_inputs; k++)
		if (kernel->inputs[k].kind == RR_KIND_COL)
			return 1;
	return 0;
}

/* Whether a plan's workers load their packs in one step. */
static int one_step(const rr__plan_request *req, const rr_layout *l)
{
	rr__plan_features f;
	rr__plan_features_compute(req, l, &f);
	return l->blocks_per_row == 1 && f.chunks_per_worker <= l->unroll;
}

rr_status rr__plan_choose(const rr__plan_request *req, const rr_layout *requested, rr__cost_fn cost,
                          void *ctx, rr_layout *out, rr__candidates *stats_out)
{
	rr__candidates c;
	rr_status status = check_request(req);
	if (stats_out)
		memset(stats_out, 0, sizeof *stats_out);
	if (status != RR_OK)
		return status;
	/* The kernel's facts once for every layout the planner realises. */
	rr__kernel_facts facts;
	rr__plan_request with = *req;
	if (!with.facts) {
		rr__kernel_facts_of(req->kernel, req->target, &facts);
		with.facts = &facts;
	}
	/* And the cost model's coefficients of the target's device class. */
	rr__cost_coeffs coeffs;
	if (!with.coeffs) {
		status = rr__cost_coeffs_for(req->target, &coeffs);
		if (status != RR_OK)
			return status;
		with.coeffs = &coeffs;
	}
	req = &with;
	if (requested && rr__layout_is_complete(requested)) {
		status = check_requested(req, requested, out);
		if (status == RR_OK && getenv("RR_PLAN_TRACE")) {
			rr__candidates one = {.items = out, .count = 1};
			double predicted = rr__cost_default(req, out, NULL);
			trace(req, &one, &predicted, 0);
		}
		return status;
	}
	status = rr__plan_enumerate(req, requested, &c);
	if (status != RR_OK)
		return status;
	if (c.count == 0) {
		status = none_legal(req, requested, &c);
		rr__candidates_free(&c);
		return status;
	}
	if (!cost)
		cost = rr__cost_default;
	double *costs = malloc((size_t)c.count * sizeof *costs);
	if (!costs) {
		rr__candidates_free(&c);
		return rr__fail(RR_ERR_NOMEM, "out of memory scoring %d layouts", c.count);
	}
	double lowest = INFINITY;
	int cheapest = -1;
	for (int i = 0; i < c.count; i++)
		costs[i] = cost(req, &c.items[i], ctx);
	prefer_short_chains(req, &c, costs);
	prefer_grid(req, &c, costs);
	prefer_part_spans(req, &c, costs);
	for (int i = 0; i < c.count; i++)
		if (isfinite(costs[i]) && costs[i] < lowest) {
			lowest = costs[i];
			cheapest = i;
		}
	/* Costs within TIE_TOLERANCE of the lowest are a tie the model cannot split: the simplest
	 * of them wins. The tolerance is of the plans' own time: the rows' head charge, the same
	 * for every headed plan of a request, does not widen it; where cheapest_alone says, there
	 * is no tie. */
	double window = fabs(lowest) * TIE_TOLERANCE;
	int alone = 0;
	if (cheapest >= 0 && cost == rr__cost_default) {
		rr__plan_features f;
		rr__plan_features_compute(req, &c.items[cheapest], &f);
		alone = cheapest_alone(req, &c.items[cheapest], &f);
		window = alone && f.chunks_per_worker <= c.items[cheapest].unroll
		             ? 0
		             : fabs(lowest - f.head_us) * TIE_TOLERANCE;
	}
	int best = -1;
	for (int i = 0; alone && reads_cols(req->kernel) && i < c.count; i++)
		if (isfinite(costs[i]) && costs[i] <= lowest + window &&
		    (best < 0 || costs[i] < costs[best]) && one_step(req, &c.items[i]))
			best = i;
	const int tied = best < 0;
	for (int i = 0; tied && i < c.count; i++)
		if (isfinite(costs[i]) && costs[i] <= lowest + window &&
		    (best < 0 || simpler(&c.items[i], &c.items[best])))
			best = i;
	if (cost == rr__cost_default && getenv("RR_PLAN_TRACE"))
		trace(req, &c, costs, best);
	free(costs);
	if (best < 0) {
		rr__candidates_free(&c);
		return rr__fail(RR_ERR_INTERNAL,
		                "the cost model gave no finite cost for any of %d "
		                "legal layouts of kernel '%s'",
		                c.count, req->kernel->name);
	}
	*out = c.items[best];
	if (stats_out)
		*stats_out = c;
	else
		rr__candidates_free(&c);
	return RR_OK;
}
