/* The measurement contract (DESIGN.md §7-§8): timing phases sampled separately, statistics over
 * raw samples, ceilings measured in the same run, and the results.json / results.md / plot.svg
 * writers. Every number rowreduce prints comes from here. Schema: docs/results-schema.md.
 */
#ifndef RR_MEASURE_H
#define RR_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "rowreduce.h"
#include "rowreduce_measure.h"
#include "backend/backend.h"

/* ---------------------------------------------------------------- statistics (stats.c) */

/* Over n >= 1 values (n == 0 gives NaN); the input is not modified. The median of an even count
 * is (a + b) / 2 of the two middle values, so a reader recomputes it exactly. */
double rr__stats_median(const double *values, size_t n);
double rr__stats_min(const double *values, size_t n);
double rr__stats_max(const double *values, size_t n);
/* Percentile p in [0, 1] by linear interpolation between closest ranks: with the sorted values
 * s, h = (n - 1) * p, result s[floor(h)] + (h - floor(h)) * (s[floor(h) + 1] - s[floor(h)]). */
double rr__stats_percentile(const double *values, size_t n, double p);

/* Samples taken in rounds: values[r * per_round + i] is sample i of round r. Writes each
 * round's p50 (median) into p50s[rounds] and returns the median of those p50s, the value a
 * table shows (DESIGN.md §7). */
double rr__stats_round_p50s(const double *values, size_t rounds, size_t per_round, double *p50s);
/* Paired rounds of a and b: ratios[r] = a[r] / b[r]; returns their median (a gain of b over a
 * is the median of per-round ratios, never a ratio of medians). */
double rr__stats_paired_ratio(const double *a, const double *b, size_t rounds, double *ratios);
/* Percentile bootstrap interval of the median of `values`: `resamples` resamples drawn with a
 * fixed xorshift generator seeded by `seed`, interval [lo, hi] at `confidence` (e.g. 0.95).
 * Deterministic for a given seed. RR_ERR_INVALID_ARG on n == 0 or resamples == 0. */
rr_status rr__stats_bootstrap_median(const double *values, size_t n, size_t resamples,
                                     double confidence, uint64_t seed, double *lo, double *hi);

/* ---------------------------------------------------------------- phases (phases.c) */

typedef enum rr__phase_id {
	RR_PHASE_GPU = 0,   /* device events around a batch of launches on one stream / batch */
	RR_PHASE_GPU_GRAPH, /* the same batch captured once as a graph and replayed / batch */
	RR_PHASE_E2E,       /* host wall time of a batch including launches and a final sync */
	RR_PHASE_SINGLE,    /* one launch + sync, host wall: each sample is the p50 of `batch` */
	RR_PHASE_SINGLE_GPU /* one launch + sync, device events: each sample the p50 of `batch` */
} rr__phase_id;
#define RR__PHASE_COUNT 5

/* "gpu", "gpu_graph", "e2e", "single", "single_gpu". */
const char *rr__phase_name(rr__phase_id phase);

typedef struct rr__phase_result {
	int available;
	char reason[192]; /* why the phase is unavailable (never estimated) */
	int64_t batch;    /* launches per sample */
	int n_samples;
	double *samples_us; /* µs per operation, in the order taken (owned) */
	double median_us, min_us, max_us;
	double tbps;     /* bytes / median_us / 1e6; 0 when no byte count applies */
	double fraction; /* tbps over the ceiling's best tbps (rr__ceiling_best); -1 when none */
} rr__phase_result;

void rr__phase_result_free(rr__phase_result *phase);
/* Fills median/min/max from the samples, and tbps from `bytes` (0 = none). */
void rr__phase_result_summarize(rr__phase_result *phase, int64_t bytes);
/* Adds `samples` to an available phase (copies them); RR_ERR_NOMEM on failure. */
rr_status rr__phase_result_set_samples(rr__phase_result *phase, const double *samples, int n);
void rr__phase_result_unavailable(rr__phase_result *phase, const char *reason);

/* What to time: launch number `iteration` (the workload rotates buffer sets by it) on `stream`,
 * asynchronously where the backend allows. */
typedef struct rr__workload {
	rr_status (*launch)(void *context, int64_t iteration, void *stream);
	void *context;
	/* Launches before the buffer rotation repeats (the cold-L2 set count); 0 or 1 = none. A
	 * graph then holds a whole number of rotations, so replays stay cold. */
	int64_t rotation;
} rr__workload;

typedef struct rr__measure_config {
	int samples;      /* per phase */
	double sample_ms; /* target duration of one sample; the batch is calibrated to it */
	double warmup_ms; /* launches before any sample, excluded */
	/* Called when a phase starts (progress reporting); may be NULL. */
	void (*on_phase)(void *context, const char *phase);
	void *on_phase_context;
} rr__measure_config;

/* Warms the workload up, calibrates the batch size and samples every phase the backend can
 * time. Phases the backend cannot time (no events, no graphs) are marked unavailable with a
 * reason. Samples are µs per operation; `bytes` (0 = none) gives tbps. */
rr_status rr__measure_phases(rr_device *device, const rr__measure_config *config,
                             const rr__workload *workload, int64_t bytes,
                             rr__phase_result phases[RR__PHASE_COUNT]);

/* ---------------------------------------------------------------- results */

/* What validation found for one configuration (all its buffer sets). */
typedef struct rr__validation_summary {
	int valid;
	int64_t validated, total; /* elements compared and found within tolerance / compared */
	double max_abs_error, max_rel_error;
	/* The first failing element when !valid. */
	int failed_set;
	char failed_output[RR_MAX_NAME];
	int64_t failed_row, failed_col;
	double failed_got, failed_expected, failed_tolerance;
} rr__validation_summary;

typedef enum rr__row_state {
	RR_ROW_MEASURED = 0, /* validated, then timed */
	RR_ROW_INVALID,      /* failed validation: never timed */
	RR_ROW_ERROR         /* could not be built or run: `error` says why */
} rr__row_state;

typedef enum rr__ceiling_id {
	RR_CEILING_COPY = 0, /* device-to-device copy, bytes read + written */
	RR_CEILING_READ      /* the built-in sum over a large f32 matrix, bytes read */
} rr__ceiling_id;
#define RR__CEILING_COUNT 2

const char *rr__ceiling_name(rr__ceiling_id ceiling); /* "copy", "read" */

typedef struct rr__row_result {
	rr__row_state state;
	char error[512];
	char kernel[RR_MAX_NAME];
	char kernel_hash[65];
	rr_dtype dtype;
	int64_t rows, cols;
	char plan[160];            /* rr_layout_format of the layout used */
	char source_hash[65];      /* generated source */
	char binary_hash[65];      /* compiled cubin or shared object */
	char source_file[300];     /* relative to the results folder; "" unless captured */
	int buffer_sets;           /* identical input/output sets the launches rotate through */
	int64_t working_set_bytes; /* bytes_min x buffer_sets */
	rr__validation_summary validation;
	int64_t bytes_min;
	rr__ceiling_id ceiling; /* copy for kernels that write a row output, else read */
	rr__phase_result phases[RR__PHASE_COUNT];
} rr__row_result;

typedef struct rr__ceiling_result {
	int measured;
	char error[256]; /* why it is missing when !measured */
	char description[512];
	int64_t bytes;      /* bytes counted per operation */
	int64_t rows, cols; /* the read ceiling's matrix; 0 for the copy */
	rr__phase_result phases[RR__PHASE_COUNT];
} rr__ceiling_result;

/* The ceiling's best phase: the available phase with the highest tbps (the first in phase order
 * on a tie), i.e. the fastest this device was seen to move these bytes in this run. Returns that
 * phase and sets *tbps to its tbps; returns -1 and sets *tbps to 0 when the ceiling was not
 * measured or no phase has a positive tbps. */
int rr__ceiling_best(const rr__ceiling_result *ceiling, double *tbps);

/* Everything a results file records besides the rows (provenance and protocol). */
typedef struct rr__run_info {
	char *command_line; /* argv joined by single spaces, exactly (owned) */
	char **argv;        /* owned, argc entries */
	int argc;
	char start_time[32]; /* UTC ISO 8601 */
	char host[256];
	char backend[16];
	const rr__backend_report *report; /* the backend's words and units (backend.h) */
	char device_description[256];
	rr__device_properties device;
	char build_compiler[128]; /* the C compiler that built rowreduce */
	char version[32];
	char git_commit[64];
	char binary_path[4096];
	char binary_sha256[65];
	char library_path[4096];
	char library_sha256[65];
	int library_static; /* the library is linked into the binary (same hash) */
	int samples;
	double sample_ms, warmup_ms;
	uint64_t seed;
	int l2_cold;
	int64_t l2_bytes_used; /* the L2 size the cold rotation is sized against */
	int ceilings_requested;
	char plan_request[160]; /* "auto" or the layout text given */
	double wall_seconds;    /* duration of the whole run */
} rr__run_info;

typedef struct rr__results {
	rr__run_info info;
	rr__ceiling_result ceilings[RR__CEILING_COUNT];
	int n_rows, cap_rows;
	rr__row_result *rows;
} rr__results;

/* Appends a zeroed row and returns it (NULL on out of memory; rr_last_error says so). */
rr__row_result *rr__results_add_row(rr__results *results);
void rr__results_free(rr__results *results);
/* Sets every row phase's fraction: its tbps over the row's ceiling's best tbps (one divisor for
 * all phases: a graph's memcpy node is slower than a stream memcpy, so dividing phase by phase
 * would flatter kernels timed in a graph). */
void rr__results_apply_ceilings(rr__results *results);
/* Fills provenance: command line, time, host, device, versions, hashes (results_json.c). */
rr_status rr__run_info_collect(rr__run_info *info, rr_device *device, int argc, char **argv);

/* The headline phase of a results set: gpu where the backend's report says its headline is
 * timed on the device (cuda), e2e elsewhere. */
rr__phase_id rr__results_headline_phase(const rr__results *results);
/* The backend's report of a results set (info.report; the cpu's words when it is unset). */
const rr__backend_report *rr__results_report(const rr__results *results);
/* A bandwidth in the report's unit (GB/s on cpu, TB/s on cuda) from bytes per µs. */
double rr__report_bandwidth(const rr__backend_report *report, double tbps);

/* "336.0 ms": a duration given in µs, in µs below 1 ms, ms below 1 s, else s, with 4 or 5
 * significant digits, the unit appended when with_unit. `unit_of` (> 0) picks the unit
 * instead, so a range [min–max] reads in the unit of its median. Returns out. */
char *rr__format_duration(double us, double unit_of, int with_unit, char *out, size_t size);

/* The results.json tree the writer below serialises (a Jansson json_t, owned by the caller):
 * for writers that add keys of their own, such as the replay. NULL on out of memory. */
struct json_t *rr__results_to_json(const rr__results *results);
/* Writers; each writes atomically (rr__write_file_atomic). */
rr_status rr__results_write_json(const rr__results *results, const char *path);
rr_status rr__results_write_md(const rr__results *results, const char *path);
rr_status rr__results_write_svg(const rr__results *results, const char *path);
/* The results.md text (the caller frees buf). */
rr_status rr__results_format_md(const rr__results *results, rr__buf *buf);

/* ---------------------------------------------------------------- benchmarking (bench.c) */

typedef struct rr__bench_options {
	rr__measure_config measure;
	int l2_cold;      /* rotate buffer sets past twice the L2 */
	int64_t l2_bytes; /* the L2 size the rotation is sized against (rr__bench_l2_bytes) */
	uint64_t seed;    /* random inputs */
} rr__bench_options;

/* Minimal bytes of one launch, from the kernel's declared inputs and outputs: each row, col,
 * rowscalar and index input read once (a col input once, not once per row), each output
 * written once; params move nothing. */
int64_t rr__bytes_min(const rr_kernel *kernel, rr_dtype dtype, int64_t rows, int64_t cols);
/* 1 when the kernel writes a row output (its ceiling is the copy), else 0 (the read pass). */
int rr__kernel_writes_row(const rr_kernel *kernel);
/* The L2 size cold mode sizes against: the device's, or 64 MiB on cpu (and when unknown). */
int64_t rr__bench_l2_bytes(rr_device *device);

/* Benchmarks a built program over `rows` rows: allocates the buffer sets, validates every set's
 * outputs in full (poisoned beforehand) and, only if all pass, times every phase. Fills `row`.
 * RR_OK when the row was measured or found invalid (row->state says which); otherwise the
 * status, with row->state RR_ROW_ERROR and row->error set. */
rr_status rr__bench_program(rr_device *device, rr_program *program, int64_t rows,
                            const rr__bench_options *options, rr__row_result *row);
/* The same in steps, for callers that time one configuration several times (replay): open
 * describes the row, creates the buffer sets and validates every set in full (poisoned
 * beforehand); *out is a session only when the outputs passed (row->state is then left for the
 * caller; RR_ROW_INVALID when they failed, *out NULL). measure times every phase once more;
 * close frees the sets (NULL is allowed). */
typedef struct rr__bench_session rr__bench_session;
rr_status rr__bench_session_open(rr_device *device, rr_program *program, int64_t rows,
                                 const rr__bench_options *options, rr__row_result *row,
                                 rr__bench_session **out);
rr_status rr__bench_session_measure(rr__bench_session *session, const rr__measure_config *config,
                                    rr__phase_result phases[RR__PHASE_COUNT]);
void rr__bench_session_close(rr__bench_session *session);
/* Measures the copy and read ceilings with the same phases; a ceiling that cannot be measured
 * is recorded with measured = 0 and the reason. */
void rr__bench_ceilings(rr_device *device, const rr__bench_options *options,
                        rr__ceiling_result ceilings[RR__CEILING_COUNT]);

/* Shapes and suites (suite.c): rr_shapes_parse, rr_suite_load, rr_shape_list_free are public,
 * in rowreduce_measure.h. */

#endif
