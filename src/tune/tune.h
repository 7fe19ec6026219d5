/* The tuner module (DESIGN.md §6): the database key and record (db.c), the search over one
 * workload's candidates (search.c), the run over many workloads and its results (run.c,
 * results.c) and the worker processes that share the workloads out (workers.c). */
#ifndef RR_TUNE_H
#define RR_TUNE_H

#include <jansson.h>

#include "measure/measure.h"
#include "rowreduce_tune.h"

/* What makes a record reusable: any field that differs is a miss. */
typedef struct rr__tune_key {
	char backend[16];
	char device_uuid[64];
	char device_name[128];
	char compute_capability[16];
	char driver[64];
	char compiler[128];
	char rowreduce_version[64];
	char kernel_hash[65];
	char kernel[64];
	char dtype[8];
	int64_t rows, cols;
	char objective[8];
} rr__tune_key;

typedef struct rr__tune_record {
	rr__tune_key key;
	char plan[160];       /* the winner */
	double best_us;       /* the winner, rebuilt from scratch and measured fresh */
	char model_plan[160]; /* the cost model's pick */
	double regret;        /* model_pick_time / best_time - 1 (paired rounds) */
	int candidates, measured, rejected;
	char decision[128]; /* how the winner was chosen */
	char tuned_at[32];
	char host[128];
} rr__tune_record;

/* The key of a workload on an opened device. */
rr_status rr__tune_key_make(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                            int64_t rows, int64_t cols, const char *objective, rr__tune_key *key);
/* "gpu" on devices with timers (cuda), else "wall". */
const char *rr__tune_default_objective(const rr_device *device);

/* For rr_program_build: when `requested` is NULL or all unset and the device is opened, the
 * database's layout for (device, kernel, dtype, M, N, the device's objective); *hit says. */
rr_status rr__tune_auto_layout(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                               int64_t rows_hint, int64_t cols, const rr_layout *requested,
                               rr_layout *out, int *hit);

/* *found = 1 and *record filled when the key is present. */
rr_status rr__tune_db_get(rr_tune_db *db, const rr__tune_key *key, rr__tune_record *record,
                          int *found);
rr_status rr__tune_db_put(rr_tune_db *db, const rr__tune_record *record);
/* All of `records` in one transaction, or none. */
rr_status rr__tune_db_put_all(rr_tune_db *db, const rr__tune_record *records, int n);
/* Reads every record of a db through a callback (used by print and export). */
rr_status rr__tune_db_each(rr_tune_db *db, int (*fn)(const rr__tune_record *, void *), void *ctx);

json_t *rr__tune_record_to_json(const rr__tune_record *record);
rr_status rr__tune_record_from_json(json_t *object, rr__tune_record *record);

/* ---------------------------------------------------------------- one workload */

typedef struct rr__tune_settings {
	rr__bench_options bench;
	rr__phase_id phase; /* the objective's phase: gpu or e2e */
	const char *objective;
	int max_candidates;
	int rounds;
} rr__tune_settings;

#define RR__TUNE_TERMS 5
/* The names of the model's terms, in the order of rr__tune_candidate.terms. */
extern const char *const rr__tune_term_names[RR__TUNE_TERMS];

/* One measured (or rejected) candidate of a workload. */
typedef struct rr__tune_candidate {
	rr_layout layout;
	char plan[160];
	double model_us;
	/* The model's terms (fit.c): launch, max(memory, latency), min(memory, latency), tree, and
	 * the hand corrections' share of model_us (model_us minus the sum of the others). */
	double terms[RR__TUNE_TERMS];
	int measured;     /* it went through rr__bench_program */
	int ranked;       /* validated and its objective phase timed */
	char reason[640]; /* why it was rejected */
	int row;          /* index of its measurement in results.rows, -1 */
	double median_us; /* of its objective phase */
	int how;          /* 0 model top-k / exhaustive, 1 coordinate descent */
} rr__tune_candidate;

typedef struct rr__tune_outcome {
	rr__tune_key key;
	int from_database; /* a hit: nothing measured */
	rr__tune_record record;
	int considered, rejected_illegal, merged, legal;
	int n_candidates;
	rr__tune_candidate *candidates; /* owned */
	const char *strategy;           /* "exhaustive" or "top-k + coordinate descent" */
	int n_finalists;
	int finalists[4]; /* indices into candidates */
	double *round_us; /* [round * n_finalists + f]: per-round p50 (owned) */
	int rounds;
	int winner, model_pick; /* indices into candidates, -1 */
	int fresh_row;          /* the fresh measurement of the winner in results.rows */
	int ok;                 /* a winner was found */
	char cost_model[384];   /* the coefficients the model's pick came from */
	char failure[1024];
	double seconds;
} rr__tune_outcome;

void rr__tune_outcome_free(rr__tune_outcome *outcome);

/* Tunes one workload on `device`: candidates, measurements (appended to results->rows), finalist
 * rounds, the fresh winner. `budget_s` bounds the candidate measurements (0 = none). Fills
 * outcome (ok = 0 with failure set when nothing could be ranked). Progress lines go through
 * `label` on stderr. */
rr_status rr__tune_workload(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                            int64_t rows, int64_t cols, const rr__tune_settings *settings,
                            double budget_s, const char *label, rr__results *results,
                            rr__tune_outcome *outcome);

/* ---------------------------------------------------------------- results */

/* Writes path: the measurement contract's results.json plus a "tuning" object (the outcomes and
 * the regret summary), atomically. */
rr_status rr__tune_write_results(const rr__results *results, const rr__tune_outcome *outcomes,
                                 int n_outcomes, const rr__tune_settings *settings,
                                 const char *path);
/* Merges the worker files into one results.json at path (rows appended, outcome row indices
 * shifted) and removes nothing. */
rr_status rr__tune_merge_results(char **worker_paths, int n, const char *path, json_t **merged);

/* ---------------------------------------------------------------- one worker's share */

/* A workload: indices into the run's kernel, dtype and shape lists. */
typedef struct rr__tune_item {
	int kernel, dtype, shape;
} rr__tune_item;

/* Runs `items` in worker processes (one per entry of `devices`, the device ordinal given to
 * each through CUDA_VISIBLE_DEVICES on cuda); `work(index, ctx)` runs in the child for each item
 * and returns 0 on success. A worker that dies gives its in-flight item to another worker (an
 * item is tried at most twice). *lost receives the items never finished. */
rr_status rr__tune_workers_run(int n_workers, const int *device_ordinals, int n_items,
                               int (*open_worker)(int worker, int ordinal, void *ctx),
                               int (*work)(int item, void *ctx),
                               int (*close_worker)(int worker, void *ctx), void *ctx, int *lost);

#endif
