/* Legality of S=grid, a row split over C co-resident blocks of a cooperative launch (DESIGN.md
 * §4, "split"): which backends and shapes may use it, and whether one row's blocks fit on the
 * device at once, which the per-row barrier needs (a block waiting for one that cannot start
 * would wait forever). */
#include <stdio.h>

#include "layout/layout.h"

#define SAY(...) snprintf(detail, detail_size, __VA_ARGS__)

/* Threads one multiprocessor holds (sm_70 to sm_90). */
#define GRID_THREADS_PER_SM 2048
#define GRID_MOST_BLOCKS 1024

rr__illegal rr__check_grid_shape(const rr_layout *l, const rr__target *t, char *detail,
                                 size_t detail_size)
{
	int C = l->blocks_per_row;
	if (t->kind != RR_TARGET_GPU || t->cc_major < 7) {
		SAY("S=grid spreads a row over co-resident blocks of a cooperative GPU launch, "
		    "which the %s backend does not have: it runs every row on one group "
		    "(use C = 1 with S=regs or S=reread)",
		    t->backend);
		return RR_ILLEGAL_GRID_SPLIT;
	}
	if (C < 2 || C > GRID_MOST_BLOCKS) {
		SAY("S=grid with C = %d blocks per row: C must be in 2..%d", C, GRID_MOST_BLOCKS);
		return RR_ILLEGAL_GRID_SPLIT;
	}
	if (l->workers_per_row < 32) {
		SAY("S=grid with W = %d: the blocks' partials are combined by whole warps, so a "
		    "row "
		    "split over the grid needs W >= 32 workers per block",
		    l->workers_per_row);
		return RR_ILLEGAL_GRID_SPLIT;
	}
	if (l->rows_per_group != 1) {
		SAY("R = %d rows per group with S=grid: a row split over several blocks needs R = "
		    "1",
		    l->rows_per_group);
		return RR_ILLEGAL_ROWS;
	}
	if (l->grid != RR_GRID_PERSISTENT) {
		SAY("S=grid launches only as many row groups of C = %d blocks as are resident at "
		    "once, each looping over rows: use G=persistent",
		    C);
		return RR_ILLEGAL_GRID_SPLIT;
	}
	return RR_LEGAL;
}

/* The blocks one multiprocessor can hold by threads and shared memory (registers are known only
 * once compiled: the launcher checks the driver's occupancy too). */
rr__illegal rr__check_grid_resident(const rr__realisation *r, const rr__target *t, char *detail,
                                    size_t detail_size)
{
	if (t->multiprocessors <= 0)
		return RR_LEGAL; /* no device figures: the launcher checks */
	int64_t per_sm = GRID_THREADS_PER_SM / r->threads;
	if (r->smem_bytes > 0 && t->smem_per_group > 0) {
		int64_t by_smem = rr__blocks_by_smem(t, r->smem_bytes);
		per_sm = by_smem < per_sm ? by_smem : per_sm;
	}
	int64_t resident = per_sm * t->multiprocessors;
	if (r->blocks_per_row <= resident)
		return RR_LEGAL;
	SAY("S=grid with C = %d blocks per row: all of a row's blocks must be resident at once, "
	    "but %d SMs hold at most %lld blocks of %d threads and %lld bytes of shared memory; "
	    "use a smaller C or fewer threads per block",
	    r->blocks_per_row, t->multiprocessors, (long long)resident, r->threads,
	    (long long)r->smem_bytes);
	return RR_ILLEGAL_GRID_SPLIT;
}
