/* The layout of DESIGN.md §4: the ownership map's bounds and packs, the fixed cross-worker tree,
 * and the legality check that rejects a plan, with a sentence, before any cost
 * is computed. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "layout/layout.h"
#include "util/util.h"

static int is_pow2(int64_t x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

const char *rr__illegal_name(rr__illegal reason)
{
	switch (reason) {
	case RR_LEGAL:
		return "the layout is legal";
	case RR_ILLEGAL_WIDTH_NOT_POW2:
		return "the workers per row W must be a power of two (allowed: 1, 2, 4, ..., 1024)";
	case RR_ILLEGAL_WIDTH_OVER_DEVICE:
		return "the group's W·R workers exceed the device's threads per group";
	case RR_ILLEGAL_VEC:
		return "the vector width V must be 1, 2, 4, 8 or 16";
	case RR_ILLEGAL_UNROLL:
		return "the unroll U must be between 1 and 8";
	case RR_ILLEGAL_ROWS:
		return "the rows per group R must be at least 1, and 1 when a row spans several "
		       "blocks";
	case RR_ILLEGAL_SLOTS_OVER_BUDGET:
		return "the private slots a worker keeps exceed the register budget";
	case RR_ILLEGAL_SMEM_OVER_LIMIT:
		return "the shared memory a group needs exceeds the device's limit";
	case RR_ILLEGAL_EXACT_REASSOC:
		return "an exact reduction would be reassociated (it needs W = 1 and one block per "
		       "row)";
	case RR_ILLEGAL_NO_CLUSTER:
		return "blocks per row C must be a power of two within the device's cluster size";
	case RR_ILLEGAL_STORAGE:
		return "the storage mode cannot be used by this backend or layout";
	case RR_ILLEGAL_SERIAL_LENGTH:
		return "the serial length of each accumulator exceeds the f32 bound (use more "
		       "workers "
		       "W, or more blocks per row C)";
	case RR_ILLEGAL_INCOMPLETE:
		return "a layout field was left unset (the check needs a complete layout)";
	case RR_ILLEGAL_GRID_SPLIT:
		return "a row split over the grid (S=grid) needs a GPU, C = 2..1024 blocks that "
		       "are "
		       "all resident at once, W >= 32 and G=persistent";
	}
	return "unknown reason";
}

static const char *storage_name(rr_storage storage)
{
	switch (storage) {
	case RR_STORAGE_AUTO:
		return "auto";
	case RR_STORAGE_REGS:
		return "regs";
	case RR_STORAGE_SMEM:
		return "smem";
	case RR_STORAGE_CLUSTER:
		return "cluster";
	case RR_STORAGE_REREAD:
		return "reread";
	case RR_STORAGE_GRID:
		return "grid";
	}
	return "?";
}

#define SAY(...) snprintf(detail, detail_size, __VA_ARGS__)

static rr__illegal check_complete(const rr_layout *l, char *detail, size_t detail_size)
{
	const char *field = l->workers_per_row == 0         ? "W (workers per row)"
	                    : l->vec == 0                   ? "V (vector width)"
	                    : l->unroll == 0                ? "U (unroll)"
	                    : l->rows_per_group == 0        ? "R (rows per group)"
	                    : l->blocks_per_row == 0        ? "C (blocks per row)"
	                    : l->storage == RR_STORAGE_AUTO ? "S (storage)"
	                    : l->grid == RR_GRID_AUTO       ? "G (grid)"
	                                                    : NULL;
	if (!field)
		return RR_LEGAL;
	SAY("layout field %s is unset: the legality check needs a complete layout (let the planner "
	    "fill the fields left 0)",
	    field);
	return RR_ILLEGAL_INCOMPLETE;
}

/* The shape fields: W, W·R, V, U, R, C, in the order the design lists them. */
static rr__illegal check_shape(const rr_layout *l, const rr__target *t, char *detail,
                               size_t detail_size)
{
	int W = l->workers_per_row, V = l->vec, U = l->unroll, R = l->rows_per_group;
	int C = l->blocks_per_row;
	if (!is_pow2(W) || W > 1024) {
		SAY("W = %d workers per row is not a power of two in 1..1024 (allowed: 1, 2, 4, "
		    "..., "
		    "1024)",
		    W);
		return RR_ILLEGAL_WIDTH_NOT_POW2;
	}
	if ((int64_t)W * R > t->max_workers) {
		SAY("W·R = %d·%d = %lld workers per group exceeds the %s limit of %d threads per "
		    "group",
		    W, R, (long long)W * R, t->backend, t->max_workers);
		return RR_ILLEGAL_WIDTH_OVER_DEVICE;
	}
	if (!is_pow2(V) || V > 16) {
		SAY("V = %d is not an allowed vector width (allowed: 1, 2, 4, 8, 16)", V);
		return RR_ILLEGAL_VEC;
	}
	if (U < 1 || U > 8) {
		SAY("U = %d chunks per loop iteration is outside the allowed 1..8", U);
		return RR_ILLEGAL_UNROLL;
	}
	if (R < 1 || (R > 1 && C > 1)) {
		if (R < 1)
			SAY("R = %d rows per group is below 1", R);
		else
			SAY("R = %d rows per group with C = %d blocks per row: a row split over "
			    "several blocks needs R = 1",
			    R, C);
		return RR_ILLEGAL_ROWS;
	}
	if (l->storage == RR_STORAGE_GRID)
		return rr__check_grid_shape(l, t, detail, detail_size);
	int max_cluster = t->has_clusters && t->max_cluster > 1 ? t->max_cluster : 1;
	if (C > 8 && C <= max_cluster && is_pow2(C) && W < 32) {
		SAY("C = %d blocks per cluster, over the portable 8, combine their partials by "
		    "whole warps: W = %d must be at least 32",
		    C, W);
		return RR_ILLEGAL_NO_CLUSTER;
	}
	if (!is_pow2(C) || C > max_cluster) {
		if (C > 1 && !t->has_clusters)
			SAY("C = %d blocks per row needs thread-block clusters, which the %s "
			    "backend does "
			    "not have (allowed: C = 1)",
			    C, t->backend);
		else
			SAY("C = %d blocks per row is not a power of two in 1..%d (the device's "
			    "cluster "
			    "size)",
			    C, max_cluster);
		return RR_ILLEGAL_NO_CLUSTER;
	}
	return RR_LEGAL;
}

/* Kept rows in registers: the slots of the block's segment times the values kept. */
static rr__illegal check_slots(const rr__realisation *r, char *detail, size_t detail_size)
{
	if (r->slots * r->kept_inputs <= r->register_slots)
		return RR_LEGAL;
	SAY("S=regs keeps %d row input(s) × %lld private slots = %lld per worker (N = %lld "
	    "over W = %d, V = %d), over the register budget of %d slots; use a larger W or V, "
	    "S=smem or S=reread",
	    r->kept_inputs, (long long)r->slots, (long long)(r->slots * r->kept_inputs),
	    (long long)r->segment, r->layout.workers_per_row, r->layout.vec, r->register_slots);
	return RR_ILLEGAL_SLOTS_OVER_BUDGET;
}

static rr__illegal check_storage(const rr__realisation *r, const rr__target *t, char *detail,
                                 size_t detail_size)
{
	const rr_layout *l = &r->layout;
	int C = l->blocks_per_row, kept = r->kept_inputs;
	const char *name = storage_name(l->storage);
	if (kept == 0 || l->storage == RR_STORAGE_REREAD)
		return RR_LEGAL; /* nothing is kept between phases, or nothing on chip */
	if (l->storage == RR_STORAGE_GRID && r->keep == RR_KEEP_SMEM &&
	    r->smem_bytes > t->smem_per_group) {
		SAY("S=grid keeps each block's segment of %lld elements (%d kept value(s), %s) "
		    "in shared memory: %lld bytes per block, over the device's %lld; use a larger "
		    "C",
		    (long long)r->segment, r->kept_values, r->keep_raw ? "as stored" : "in f32",
		    (long long)r->smem_bytes, (long long)t->smem_per_group);
		return RR_ILLEGAL_SMEM_OVER_LIMIT;
	}
	if (l->storage == RR_STORAGE_GRID)
		return RR_LEGAL;
	if (C > 1 && l->storage != RR_STORAGE_CLUSTER) {
		SAY("C = %d splits each row over several blocks, so its %d kept row input(s) must "
		    "be "
		    "shared through the cluster (S=cluster) or re-read (S=reread), not S=%s",
		    C, kept, name);
		return RR_ILLEGAL_STORAGE;
	}
	if (l->storage == RR_STORAGE_REGS)
		return check_slots(r, detail, detail_size);
	if (l->storage == RR_STORAGE_SMEM && t->smem_per_group <= 0) {
		SAY("S=smem needs shared memory, which the %s backend lacks: the cpu backend keeps "
		    "rows in registers or re-reads them (use S=regs or S=reread)",
		    t->backend);
		return RR_ILLEGAL_STORAGE;
	}
	if (l->storage == RR_STORAGE_CLUSTER && !t->has_clusters) {
		SAY("S=cluster needs thread-block clusters, which the %s backend does not have "
		    "(use "
		    "S=regs or S=reread)",
		    t->backend);
		return RR_ILLEGAL_NO_CLUSTER;
	}
	if (l->storage == RR_STORAGE_CLUSTER && C == 1) {
		SAY("S=cluster with C = 1: a cluster of one block is S=smem; use C = 2 or more, or "
		    "S=smem");
		return RR_ILLEGAL_STORAGE;
	}
	/* A cluster keeps its segment in registers when it fits there (the record says so). */
	if (r->keep != RR_KEEP_SMEM || r->smem_bytes <= t->smem_per_group)
		return RR_LEGAL;
	int64_t span = (int64_t)l->workers_per_row * l->vec;
	SAY("S=%s needs %lld bytes of shared memory per group (R = %d rows × %lld elements in "
	    "whole W·V chunks × %d bytes × %d kept value(s), plus reduction scratch), over the "
	    "device's %lld; use a larger C with S=cluster, or S=reread",
	    name, (long long)r->smem_bytes, l->rows_per_group, (long long)(r->chunks * span),
	    r->keep_raw ? r->elem_bytes : 4, r->kept_values, (long long)t->smem_per_group);
	return RR_ILLEGAL_SMEM_OVER_LIMIT;
}

/* On a GPU the U chunks of one loop iteration are loaded before they are used (the record's
 * values in flight). Over 1.5 times the register budget ptxas spilled them to local memory
 * (bench/NOTES.md; e.g. add_layernorm bf16 N = 32768 at W = 1024, V = 8, U = 4 re-reading four
 * inputs in its output phase). */
static rr__illegal check_in_flight(const rr__realisation *r, char *detail, size_t detail_size)
{
	if (r->in_flight_budget <= 0 || r->in_flight_values <= r->in_flight_budget)
		return RR_LEGAL;
	const rr_layout *l = &r->layout;
	SAY("U = %lld chunk(s) of V = %d elements for %d input(s) read in one phase keep %lld "
	    "values in flight per worker, over 1.5 × the register budget of %d slots at W·R = %d "
	    "threads; use a smaller U or V",
	    (long long)(r->in_flight_values / ((int64_t)l->vec * r->in_flight_inputs)), l->vec,
	    r->in_flight_inputs, (long long)r->in_flight_values, r->register_slots, r->threads);
	return RR_ILLEGAL_SLOTS_OVER_BUDGET;
}

/* A worker adds its serial_length elements into one f32 accumulator before the tree; past the
 * bound (rr__serial_bound) the rounding error of that chain outgrows what validation allows.
 * A row longer than the bound times the device's widest W has no plan within it: its plans at
 * that widest W stay legal, so the row still runs, with the shortest chains the device can
 * make (on the CPU, rows over 2^25 elements). */
static rr__illegal check_serial(const rr__realisation *r, const rr__target *t, char *detail,
                                size_t detail_size)
{
	/* The bound is checked against the longest body chain (the slot bound, that of a row
	 * without a head). A row's head (layout.h) adds at most head_slots (<= 15) elements to
	 * it: the sqrt(S) error estimate of rr__serial_bound grows by under 0.03%, inside the
	 * bound's margin, and a plan legal for aligned rows stays legal for a view of them. */
	if (r->serial_bound <= 0 || r->slots <= r->serial_bound ||
	    r->layout.workers_per_row >= t->max_workers)
		return RR_LEGAL;
	SAY("the serial length %lld of each accumulator (N = %lld over W = %d workers and C = %d "
	    "blocks) exceeds the f32 bound %lld: use more workers W (W >= %lld) or more blocks "
	    "per row C",
	    (long long)r->serial_length, (long long)r->cols, r->layout.workers_per_row,
	    r->layout.blocks_per_row, (long long)r->serial_bound,
	    (long long)ceil_div(r->segment, r->serial_bound));
	return RR_ILLEGAL_SERIAL_LENGTH;
}

int rr__layout_is_complete(const rr_layout *l)
{
	return l->workers_per_row > 0 && l->vec > 0 && l->unroll > 0 && l->rows_per_group > 0 &&
	       l->blocks_per_row > 0 && l->storage != RR_STORAGE_AUTO && l->grid != RR_GRID_AUTO;
}

rr__illegal rr__layout_check(const rr_kernel *kernel, int64_t cols, rr_dtype dtype,
                             const rr_layout *layout, const rr__target *target, char *detail,
                             size_t detail_size)
{
	return rr__layout_check_with(kernel, NULL, cols, dtype, layout, target, detail,
	                             detail_size);
}

rr__illegal rr__layout_check_with(const rr_kernel *kernel, const rr__kernel_facts *facts,
                                  int64_t cols, rr_dtype dtype, const rr_layout *layout,
                                  const rr__target *target, char *detail, size_t detail_size)
{
	char scratch[8];
	if (!detail || detail_size == 0) {
		detail = scratch;
		detail_size = sizeof scratch;
	}
	detail[0] = 0;
	rr__illegal reason = check_complete(layout, detail, detail_size);
	if (reason == RR_LEGAL)
		reason = check_shape(layout, target, detail, detail_size);
	if (reason != RR_LEGAL)
		return reason;
	int exact = kernel ? kernel->analysis.exact_reductions : 0;
	if (exact > 0 && (layout->workers_per_row > 1 || layout->blocks_per_row > 1)) {
		SAY("kernel '%s' has %d exact reduction(s), which must run in index order on one "
		    "worker, but W = %d and C = %d would reassociate them (use W = 1, C = 1)",
		    kernel->name, exact, layout->workers_per_row, layout->blocks_per_row);
		return RR_ILLEGAL_EXACT_REASSOC;
	}
	rr__realisation r;
	rr_status status =
	    facts ? rr__realise_with(facts, dtype, cols > 0 ? cols : 1, layout, target, &r)
	          : rr__realise(kernel, dtype, cols > 0 ? cols : 1, layout, target, &r);
	if (status != RR_OK) {
		SAY("the layout cannot be realised: %s", rr_last_error());
		return RR_ILLEGAL_INCOMPLETE;
	}
	reason = check_serial(&r, target, detail, detail_size);
	if (reason == RR_LEGAL)
		reason = check_in_flight(&r, detail, detail_size);
	if (reason == RR_LEGAL)
		reason = check_storage(&r, target, detail, detail_size);
	if (reason == RR_LEGAL && r.grid_split)
		reason = rr__check_grid_resident(&r, target, detail, detail_size);
	return reason;
}
