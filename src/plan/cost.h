/* The cost model (DESIGN.md §6): predicts a layout's time from features of its realisation
 * (layout/realise.h). The planner (plan.h) sits above it; this module never calls the planner. */
#ifndef RR_PLAN_COST_H
#define RR_PLAN_COST_H

#include <stdint.h>

#include "layout/layout.h"
#include "layout/realise.h"
#include "plan/coeffs.h"

/* What to plan for: a kernel (analysed), an element type, a shape and a target. rows = 0 means
 * unknown; the model then assumes a large M. */
typedef struct rr__plan_request {
	const rr_kernel *kernel;
	rr_dtype dtype;
	int64_t rows;
	int64_t cols;
	const rr__target *target;
	/* The kernel's facts on target (rr__kernel_facts_of), or NULL: worked out on each use. The
	 * planner fills it once per request. */
	const rr__kernel_facts *facts;
	/* The cost model's coefficients (plan/coeffs.h), or NULL: those of the target's device
	 * class, looked up on each use. The planner fills it once per request. */
	const rr__cost_coeffs *coeffs;
} rr__plan_request;

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
	int few_groups; /* a launch waiting on its groups' own work (cost.c: few_groups) */
	int cluster_in_registers;    /* a cluster keeping its segment in registers (cost.c) */
	int raw_streams;             /* a raw keep priced as streaming whole segments (cost.c) */
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
	int kept_values;             /* values a keeping layout keeps (h = x + r: one) */
	int passes;                  /* passes over the row inputs in device memory (reread > 1) */
	int barriers;                /* shared-memory or cluster stages per row */
	double memory_us;            /* bytes over the reachable bandwidth */
	double latency_us;           /* waves × the time one group takes */
	double launch_us;            /* fixed launch overhead */
	double tree_us;              /* issue time of the cross-worker trees over all rows (GPU) */
	double head_us;              /* issue time of the rows' heads past one wave (GPU) */
	double trips_us;             /* a few groups' trips to memory after the first (GPU) */
	double additive_us;          /* the terms' sum, before the measured corrections */
	double predicted_us;         /* the model's total */
} rr__plan_features;

void rr__plan_features_compute(const rr__plan_request *req, const rr_layout *layout,
                               rr__plan_features *features);
/* The default model's prediction for a layout already realised for the request (the fitter
 * realises each measured candidate once and predicts it under many coefficient sets). */
double rr__cost_realised(const rr__plan_request *req, const rr__realisation *r);
/* The default model: one branch per target kind (GPU, CPU). ctx is unused. */
double rr__cost_default(const rr__plan_request *req, const rr_layout *layout, void *ctx);
/* Groups that are resident on the whole target at once under `layout` (occupancy × SMs, or the
 * CPU's threads). */
double rr__cost_resident_groups(const rr__plan_request *req, const rr_layout *layout);
/* Whether the GPU model prices realisation `r` of `req`'s kernel as a raw keep streaming whole
 * segments (every pack in flight; cost.c, staged_whole). A raw keep it does not is priced as
 * the f32 keep it replaced, shared memory included. */
int rr__cost_raw_streams(const rr__plan_request *req, const rr__realisation *r);
/* Whether `layout` streams a one-pass online reduction on a GPU: a kernel of one round that
 * reduces with an online (max, sum) pair and writes no row output (cross-entropy), in blocks of
 * one row, unrolled by 8 over 16-32 packs a worker, on rows of 16384 elements or more. The
 * H200 measured such kernels fastest in blocks that narrow with 8 packs in flight
 * (bench/NOTES.md session 15; shorter rows were not measured). */
int rr__online_stream(const rr__plan_request *req, const rr_layout *layout);

/* Whether `layout` streams a row through a one-round plain reduction (no online pair) that
 * writes no row output and reads no col input (sum), one block a row, on rows of 4096
 * elements or more: every pass is a load and an add, so neither few packs a worker (W = 512,
 * 3 packs) nor many (W = 128-256, 25-50 packs at U = 8) cost more than their bytes. The H200
 * measured those plans 0.74-0.91x the time of the W = 1024 and W = 256, U = 1 plans the
 * pack-count factors chose (bench/NOTES.md session 24). */
int rr__plain_stream(const rr__plan_request *req, const rr_layout *layout);

/* Whether `layout` reads a row of a plain reduction (as rr__plain_stream) in 5-8 packs a
 * worker, one row a block on rows shorter than 4096 elements or several on rows of at most 512:
 * the planner offers it U = 8, every pack of the row in flight at once (sum f32 8191x1023
 * W = 32: U = 8 0.97x the time of U = 4; bf16 16384x512 W = 8, U = 8 0.95x the W = 16, U = 2
 * pick; bench/NOTES.md session 25). */
int rr__plain_flat(const rr__plan_request *req, const rr_layout *layout);

/* A plain stream of 16 packs a worker or more: the planner offers it U = 8 (8 packs in flight;
 * at 8 packs, W = 512, U = 8 ran sum bf16 512x32003 1.19x the time of U = 4). */
int rr__plain_stream_deep(const rr__plan_request *req, const rr_layout *layout);

#endif
