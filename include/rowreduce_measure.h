/* rowreduce measurement: validation runs and benchmarks under the measurement contract
 * (DESIGN.md §7-§8), for tools built on the public API such as the rowreduce command.
 *
 * A run (rr_run) validates one built program on fresh random inputs against the float64
 * reference and times synchronized launches. A bench (rr_bench) collects a results set: the
 * ceilings and any number of benchmarked programs, written as results.json, results.md and
 * plot.svg (docs/results-schema.md). Every fallible call returns rr_status with the reason in
 * rr_last_error(), as in rowreduce.h.
 */
#ifndef ROWREDUCE_MEASURE_H
#define ROWREDUCE_MEASURE_H

#include "rowreduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- shapes and suites */

/* A list of shapes, rows[i] x cols[i]; `capacity` belongs to the library. */
typedef struct rr_shape_list {
	int count, capacity;
	int64_t *rows, *cols;
} rr_shape_list;

/* Appends the shapes of "MxN[,MxN...]" (each read by rr_parse_shape) to `list`. */
RR_API rr_status rr_shapes_parse(const char *text, rr_shape_list *list);
/* Appends a suite's shapes: NAME (bench/suites/NAME.txt, found from the source tree the library
 * was built from, $RR_SOURCE_DIR, the current folder upward or the executable's folder upward)
 * or a FILE path; one MxN per line, '#' comments. A bad line or an empty suite fails naming
 * file:line. `path_out` (may be NULL) receives the file used. */
RR_API rr_status rr_suite_load(const char *name_or_path, rr_shape_list *list, char *path_out,
                               size_t path_size);
RR_API void rr_shape_list_free(rr_shape_list *list);

/* ---------------------------------------------------------------- durations */

/* Writes a duration given in µs as a person reads it: "12.35 µs", "336.0 ms", "2.500 s" (the unit
 * switches at 1 ms and 1 s). Returns buf. */
RR_API char *rr_format_duration(double us, char *buf, size_t size);

/* ---------------------------------------------------------------- validation runs */

typedef struct rr_run rr_run;

/* What validation found for one output. */
typedef struct rr_output_check {
	const char *name;
	int64_t elements; /* compared */
	int64_t failures; /* out of tolerance (NaN never passes) */
	double max_abs_error, max_rel_error;
	/* The first failing element when failures > 0 (col 0 for a row-scalar output). */
	int64_t first_row, first_col;
	double first_got, first_want;
} rr_output_check;

/* What validation found for the whole launch. An element passes when
 * |got - want| <= atol * max|want| + rtol * |want|, with per-dtype tolerances. */
typedef struct rr_run_report {
	int outputs, outputs_valid;
	int64_t elements, elements_valid; /* output elements compared / within tolerance */
	double atol, rtol;
} rr_run_report;

/* Makes fresh random inputs for `rows` rows of the program's kernel (row values in [-3, 3],
 * never zero; col values in [0.5, 1.5]; index values in [0, N)) from `seed`, with param
 * overrides "NAME=VALUE" (`params`: NULL-terminated, or NULL), uploads them to the program's
 * device and allocates its outputs. The program must outlive the run. */
RR_API rr_status rr_run_create(rr_program *program, int64_t rows, uint64_t seed,
                               const char *const *params, rr_run **out);
/* Poisons every output with NaN, launches once, downloads the outputs and compares every
 * element with the float64 reference. RR_OK when all pass; RR_ERR_VALIDATION when an element
 * does not (the report and rr_run_output say where); the report is filled in both cases. */
RR_API rr_status rr_run_validate(rr_run *run, rr_run_report *report);
/* Output j's findings after rr_run_validate (0 <= j < report.outputs); `name` stays valid
 * while the run lives. */
RR_API rr_status rr_run_output(const rr_run *run, int j, rr_output_check *out);
/* The host wall time of one synchronized launch: the median of `repeat` launches (>= 1) after
 * one warm-up launch, in µs. */
RR_API rr_status rr_run_time(rr_run *run, int repeat, double *median_us);
RR_API void rr_run_free(rr_run *run);

/* ---------------------------------------------------------------- benchmarks */

typedef struct rr_bench rr_bench;

typedef struct rr_bench_options {
	int samples;      /* per phase, >= 1 */
	double sample_ms; /* target duration of one sample; the batch is calibrated to it */
	double warmup_ms; /* launches before any sample of a configuration, excluded */
	int cold;         /* rotate identical buffer sets past twice the cache (L2 on cuda) */
	uint64_t seed;    /* random inputs */
	const char *plan; /* recorded as the plan request: "auto" or the layout text */
	/* Called when a timing phase starts (progress); may be NULL. */
	void (*on_phase)(void *context, const char *phase);
	void *context;
} rr_bench_options;

/* Prepares a results folder before anything is measured: creates it (and sources/ when
 * `sources`), and checks that a file can be written there. */
RR_API rr_status rr_bench_prepare_dir(const char *dir, int sources);

/* Starts a results set on an open device, recording the command line (argc, argv: the
 * process's own, from /proc when it can), the device, the toolchain versions and the hashes of
 * the binary and the library. */
RR_API rr_status rr_bench_open(rr_device *device, const rr_bench_options *options, int argc,
                               char **argv, rr_bench **out);
#define RR_BENCH_CEILINGS 2
/* Measures the copy and read ceilings with the same phases (docs/results-schema.md says what
 * each backend runs). A ceiling that cannot be measured is recorded with its reason. */
RR_API void rr_bench_ceilings(rr_bench *bench);
/* Ceiling i (0: "copy", 1: "read"): its name in *name, and NULL when it was measured, else why
 * not (also when rr_bench_ceilings was not called). */
RR_API const char *rr_bench_ceiling_error(const rr_bench *bench, int i, const char **name);

typedef enum rr_bench_state {
	RR_BENCH_MEASURED = 0, /* validated, then timed */
	RR_BENCH_INVALID,      /* failed validation: never timed */
	RR_BENCH_ERROR         /* could not be built or run */
} rr_bench_state;

/* One benchmarked configuration as the caller needs to report it. */
typedef struct rr_bench_row {
	rr_bench_state state;
	char error[512]; /* RR_BENCH_ERROR: why */
	/* RR_BENCH_INVALID: the first failing element. */
	char failed_output[64];
	int failed_set;
	int64_t failed_row, failed_col;
	double failed_got, failed_expected, failed_tolerance;
} rr_bench_row;

/* Benchmarks a built program over `rows` rows and adds it to the results: allocates the buffer
 * sets, validates every set's outputs in full (poisoned beforehand) and only then times every
 * phase the backend can time. With `capture_dir` (or NULL) the generated source is written to
 * capture_dir/sources/<kernel>-<dtype>-<M>x<N>.<c|cu>. `row` (may be NULL) receives the
 * outcome. RR_OK when the configuration was measured or found invalid; otherwise its status,
 * recorded as RR_BENCH_ERROR. */
RR_API rr_status rr_bench_program(rr_bench *bench, rr_program *program, int64_t rows,
                                  const char *capture_dir, rr_bench_row *row);
/* Records a configuration that could not be built, with `message`. */
RR_API rr_status rr_bench_add_error(rr_bench *bench, const rr_kernel *kernel, rr_dtype dtype,
                                    int64_t rows, int64_t cols, const char *message);
/* Divides every row by its ceiling and writes dir/results.json, dir/results.md and
 * dir/plot.svg, each atomically. */
RR_API rr_status rr_bench_write(rr_bench *bench, const char *dir);
RR_API void rr_bench_close(rr_bench *bench);

#ifdef __cplusplus
}
#endif
#endif
