/* rowreduce tuner and tuning database (DESIGN.md §6): measure a kernel's candidate layouts,
 * keep the best per device and workload in one SQLite file, and let planning reuse it.
 *
 * The same conventions as rowreduce.h: every fallible call returns rr_status and leaves its
 * message in rr_last_error(); nothing here calls exit().
 */
#ifndef ROWREDUCE_TUNE_H
#define ROWREDUCE_TUNE_H

#include <stdint.h>
#include <stdio.h>

#include "rowreduce.h"

#ifndef RR_API /* the export macro (rowreduce.h defines it where symbols are hidden) */
#define RR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- the database */

/* The schema this build reads and writes (PRAGMA user_version of the file). */
#define RR_TUNE_DB_SCHEMA 1

typedef struct rr_tune_db rr_tune_db;

/* The database path: $RR_TUNING_DB when set, else ~/.cache/rowreduce/tuning.sqlite. */
RR_API void rr_tune_db_default_path(char *buf, size_t size);

/* Opens the database at `path` (NULL = the default path). writable = 1 creates the file and its
 * folder when missing and puts it in WAL mode; writable = 0 opens an existing file read-only
 * (a missing file is RR_ERR_IO with "no tuning database at ..."). A file that is not a tuning
 * database or is damaged, a file written by a newer schema, or a location that cannot be written
 * fails with RR_ERR_IO and a sentence saying so; the file is never changed in those cases. */
RR_API rr_status rr_tune_db_open(const char *path, int writable, rr_tune_db **out);
RR_API void rr_tune_db_close(rr_tune_db *db);
/* RR_OK when the database at `path` (NULL = default) is missing or usable for lookups; the
 * error of rr_tune_db_open otherwise. Lets a tool refuse a bad file before measuring. */
RR_API rr_status rr_tune_db_check(const char *path);
RR_API const char *rr_tune_db_path(const rr_tune_db *db);

/* One line per record ("kernel dtype MxN objective plan best regret device"); verbose = 1 prints
 * every field of every record (db show). kernel (may be NULL) keeps the records of one kernel
 * name. *count receives the records printed. */
RR_API rr_status rr_tune_db_print(rr_tune_db *db, FILE *out, const char *kernel, int verbose,
                                  int *count);
/* Writes every record as JSON ({"tuning_db_schema": 1, "records": [...]}) to `path`, atomically. */
RR_API rr_status rr_tune_db_export(rr_tune_db *db, const char *path, int *count);
/* Reads a file written by rr_tune_db_export and inserts its records in one transaction (a record
 * with the same key is replaced). A bad file changes nothing. */
RR_API rr_status rr_tune_db_import(rr_tune_db *db, const char *path, int *count);
/* Deletes every record; *count receives how many. */
RR_API rr_status rr_tune_db_clear(rr_tune_db *db, int *count);

/* ---------------------------------------------------------------- lookup */

/* The tuned layout for this device, kernel (by its source hash), dtype, M, N and objective
 * ("gpu" or "wall"; NULL = the device's own: gpu on cuda, wall on cpu) from the database at
 * `db_path` (NULL = the default path). *hit = 1 and *out set on a hit; *hit = 0 on a miss,
 * including a missing database file. Any key field that differs (device, driver, compiler,
 * rowreduce version, kernel text) is a miss. A damaged or newer-schema file is an error. */
RR_API rr_status rr_tune_lookup(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                                int64_t rows, int64_t cols, const char *objective,
                                const char *db_path, rr_layout *out, int *hit);

/* ---------------------------------------------------------------- tuning */

typedef struct rr_tune_options {
	const char *kernels;   /* built-in names or kernel files, comma-separated; "all" */
	const char *suite;     /* a suite name or file, or NULL */
	const char *shapes;    /* "MxN[,MxN...]", or NULL (exactly one of suite and shapes) */
	const char *dtypes;    /* "f32,bf16" */
	const char *backend;   /* "auto", "cpu", "cuda" */
	const char *objective; /* "gpu" or "wall"; NULL = gpu on cuda, wall on cpu */
	const char *devices;   /* NULL (one process), "all", or ordinals "0,1" */
	int workers;           /* > 0: that many worker processes on device 0 (testing) */
	const char *out;       /* results folder */
	const char *db_path;   /* NULL = default */
	int max_candidates;    /* candidates measured per workload (>= 2) */
	double budget_s;       /* seconds for the whole run; 0 = unbounded */
	int samples;           /* per measurement */
	double sample_ms, warmup_ms;
	int rounds; /* finalist rounds (even: ABBA balanced) */
	int retune; /* 1: measure even when the database has the workload */
	uint64_t seed;
	int argc; /* the command line, recorded in results.json */
	char **argv;
} rr_tune_options;

/* Tunes every kernel x dtype x shape: a database hit is reported and not measured; otherwise the
 * candidates are validated and timed, the finalists compared in balanced rounds, the winner
 * rebuilt from scratch and measured fresh, and the record (with the model's regret) stored.
 * Writes out/results.json; progress goes to stderr, the per-workload lines and the regret summary
 * to stdout. RR_ERR_VALIDATION when some workload had no candidate that could be ranked. */
RR_API rr_status rr_tune_run(const rr_tune_options *options);

/* ---------------------------------------------------------------- the fitted cost model */

/* Fits the cost model's coefficients of one device class (src/plan/coeffs.h) to the measured
 * candidates of tuning results files (results.json of rowreduce tune, one backend and device
 * class): a coordinate search from the hand values minimising the regret of the model's pick on
 * two thirds of the workloads, the other third (by a hash of the workload) held out. Writes the
 * coefficients file to out_path atomically, headed by `command_line`, the data files and the
 * regret of the fitted and the hand values on both sides (also printed to stdout).
 * RR_ERR_IO for an unreadable file, RR_ERR_INVALID_ARG for files of two classes or too little
 * data. */
RR_API rr_status rr_tune_fit(const char *const *results_paths, int n, const char *command_line,
                             const char *out_path);

#ifdef __cplusplus
}
#endif
#endif
