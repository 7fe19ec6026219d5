/* The planner (DESIGN.md §6): candidate layouts (the product of the plan dimensions, pruned by
 * legality, duplicates merged), the cost model that predicts a layout's time from features, and
 * the automatic mapper that picks the model's best candidate without measuring. */
#ifndef RR_PLAN_H
#define RR_PLAN_H

#include <stdint.h>

#include "plan/cost.h"

/* Legal, canonical, distinct layouts, sorted by (W, V, U, R, C, S, G). Every layout of the
 * product is counted once in `considered`, and lands in exactly one of: items (count), rejected
 * by the legality check (rejected, by reason in rejected_by_reason[rr__illegal]), or merged into
 * an equal canonical layout already kept (merged): count + merged + rejected == considered. */
typedef struct rr__candidates {
	rr_layout *items;
	int count;
	int considered;
	int rejected;
	int merged;
	int rejected_by_reason[16];
	char first_rejection[256]; /* the detail of the first rejected layout, for messages */
} rr__candidates;

/* Enumerates the candidates. Fields of `fixed` that are set (non-zero, not AUTO) are held fixed
 * and never canonicalised; fixed may be NULL. RR_ERR_INVALID_ARG for a bad request, RR_ERR_NOMEM;
 * zero legal candidates is not an error here (count == 0). */
/* 1 when the planner offers S=grid: by default, 0 when RR_PLAN_GRID=0 (see plan.c). */
int rr__plan_offers_grid(void);

/* Rows of more elements than this, on a launch of few rows, are where S=grid measured faster
 * than clusters of blocks on the H200 (bench/NOTES.md 2026-12-01 session 9: 16 rows of 128257
 * 0.62-0.98 of the clusters' time, 16 rows of 60000 and 4 of 65536 1.03-1.53). */
#define RR__GRID_WIDE_COLS 65536

rr_status rr__plan_enumerate(const rr__plan_request *req, const rr_layout *fixed,
                             rr__candidates *out);
/* The same for a search that times every candidate it keeps (the tuner): also the candidates
 * the planner itself offers only where they measured faster (S=grid's filling C, plan.c's
 * grid_fill_pays), wherever they qualify. */
rr_status rr__plan_enumerate_measured(const rr__plan_request *req, const rr_layout *fixed,
                                      rr__candidates *out);
void rr__candidates_free(rr__candidates *candidates);

/* The canonical form of a layout for a request: U clipped to the chunks a worker has, V reduced
 * while W·V exceeds the next power of two >= the row share, storage REGS when the kernel keeps
 * no row, grid ROWS when every group fits on the device at once. Fields set in `fixed` stay. */
void rr__plan_canonical(const rr__plan_request *req, const rr_layout *fixed, rr_layout *layout);

/* Costs within this share of the lowest are a tie the model cannot split: the simplest wins. */
#define RR__PLAN_TIE_TOLERANCE 0.005
/* 1 when a is the simpler kernel (rr__plan_choose's tie rule): one block per row, no persistent
 * loop, less unrolling, fewer rows per group, narrower vectors, fewer workers, in that order. */
int rr__plan_simpler(const rr_layout *a, const rr_layout *b);

/* The automatic mapper. A complete `requested` is only checked (RR_ERR_ILLEGAL_LAYOUT with
 * "layout W=..: <reason>" when illegal); otherwise the candidates with requested's set fields
 * fixed are enumerated and the lowest cost wins (cost NULL = rr__cost_default; costs within
 * 0.5% of the lowest tie, and a tie goes to the simplest: fewest blocks per row, rows before
 * persistent grid, then smallest U, R, V, W). requested may be NULL. stats_out (may be NULL)
 * receives the candidates, owned by the caller (rr__candidates_free). */
rr_status rr__plan_choose(const rr__plan_request *req, const rr_layout *requested, rr__cost_fn cost,
                          void *ctx, rr_layout *out, rr__candidates *stats_out);

#endif
