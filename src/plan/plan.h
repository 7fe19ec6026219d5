/* The planner (DESIGN.md §6): candidate layouts (the product of the plan dimensions, pruned by
 * legality, duplicates merged), the cost model that predicts a layout's time from features, and
 * the automatic mapper that picks the model's best candidate without measuring. */
#ifndef RR_PLAN_H
#define RR_PLAN_H

#include <stdint.h>

#include "layout/layout.h"

/* What to plan for: a kernel (analysed), an element type, a shape and a target. rows = 0 means
 * unknown; the model then assumes a large M. */
typedef struct rr__plan_request {
	const rr_kernel *kernel;
	rr_dtype dtype;
	int64_t rows;
	int64_t cols;
	const rr__target *target;
} rr__plan_request;

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
rr_status rr__plan_enumerate(const rr__plan_request *req, const rr_layout *fixed,
                             rr__candidates *out);
void rr__candidates_free(rr__candidates *candidates);

/* The canonical form of a layout for a request: U clipped to the chunks a worker has, V reduced
 * while W·V exceeds the next power of two >= the row share, storage REGS when the kernel keeps
 * no row, grid ROWS when every group fits on the device at once. Fields set in `fixed` stay. */
void rr__plan_canonical(const rr__plan_request *req, const rr_layout *fixed, rr_layout *layout);

/* 1 when every field is set (what rr__layout_check needs). */
int rr__layout_is_complete(const rr_layout *layout);

/* A cost model: predicted time of `layout` in microseconds (lower is better). */
typedef double (*rr__cost_fn)(const rr__plan_request *req, const rr_layout *layout, void *ctx);

/* The features the default model reads, exported so the tuner can log them next to measured
 * times. Times are microseconds, sizes bytes. */
typedef struct rr__plan_features {
	double rows;          /* M: the request's, or the assumed one when unknown */
	double row_share;     /* elements of a row one block holds: ceil(N / C) */
	double dram_bytes;    /* device-memory traffic: row inputs per read, col once, outputs */
	double cache_bytes;   /* traffic served by L2 / caches: col per group, cached rereads */
	double minimal_bytes; /* each input read once, each output written once */
	double groups;        /* groups launched (C blocks each count) */
	double threads_per_group;    /* W·R */
	double registers_per_thread; /* an estimate: base + kept slots + loads in flight */
	double smem_per_group;       /* bytes of shared memory a group uses */
	double groups_per_sm;        /* resident groups per multiprocessor by occupancy */
	double waves;                /* groups / (multiprocessors · groups_per_sm) */
	double tail_efficiency;      /* waves / ceil(waves): how full the last wave is */
	double live_lanes;           /* N / (ceil(N/(W·V))·W·V): lanes holding valid elements */
	double access_bytes;         /* V · element size: bytes per vector access */
	double chunks_per_worker;    /* ceil(share / (W·V)) */
	double serial_steps;         /* dependent load iterations of a worker per pass */
	double slots;                /* private slots per worker (rr__slot_bound of the share) */
	double inflight_per_sm;      /* bytes of loads in flight per multiprocessor */
	double bandwidth_efficiency; /* fraction of the device bandwidth the layout can reach */
	int rounds;                  /* reduction rounds */
	int kept_inputs;             /* row inputs read in more than one phase */
	int passes;                  /* passes over the row inputs in device memory (reread > 1) */
	int barriers;                /* shared-memory or cluster stages per row */
	double memory_us;            /* bytes over the reachable bandwidth */
	double latency_us;           /* waves × the time one group takes */
	double launch_us;            /* fixed launch overhead */
	double tree_us;              /* issue time of the cross-worker trees over all rows (GPU) */
	double predicted_us;         /* the model's total */
} rr__plan_features;

void rr__plan_features_compute(const rr__plan_request *req, const rr_layout *layout,
                               rr__plan_features *features);
/* The default model: separate branches for cuda and cpu targets. ctx is unused. */
double rr__cost_default(const rr__plan_request *req, const rr_layout *layout, void *ctx);
/* Groups that are resident on the whole target at once under `layout` (occupancy × SMs, or the
 * CPU's threads). */
double rr__plan_resident_groups(const rr__plan_request *req, const rr_layout *layout);

/* The automatic mapper. A complete `requested` is only checked (RR_ERR_ILLEGAL_LAYOUT with
 * "layout W=..: <reason>" when illegal); otherwise the candidates with requested's set fields
 * fixed are enumerated and the lowest cost wins (cost NULL = rr__cost_default; costs within
 * 0.5% of the lowest tie, and a tie goes to the simplest: fewest blocks per row, rows before
 * persistent grid, then smallest U, R, V, W). requested may be NULL. stats_out (may be NULL)
 * receives the candidates, owned by the caller (rr__candidates_free). */
rr_status rr__plan_choose(const rr__plan_request *req, const rr_layout *requested, rr__cost_fn cost,
                          void *ctx, rr_layout *out, rr__candidates *stats_out);

#endif
