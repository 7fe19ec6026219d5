/* The measurement module: statistics on known arrays, the timing phases against a fake backend,
 * results.json written from synthetic rows and read back (required keys and types, every median
 * and range recomputed from the raw samples it holds), results.md, plot.svg, suites, and atomic
 * writes that leave nothing behind when they fail. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "measure/measure.h"

static unsigned long long seed = 0x5eed1234abcdull;

/* ---------------------------------------------------------------- statistics */

static void test_stats(void)
{
	double odd[] = {5, 1, 4, 2, 3};
	CHECK(rr__stats_median(odd, 5) == 3);
	CHECK(odd[0] == 5 && odd[4] == 3); /* input untouched */
	CHECK(rr__stats_min(odd, 5) == 1 && rr__stats_max(odd, 5) == 5);
	double even[] = {10, 2, 7, 3};
	CHECK(rr__stats_median(even, 4) == 5); /* (3 + 7) / 2 */
	double dups[] = {2, 2, 9, 2, 1, 9};
	CHECK(rr__stats_median(dups, 6) == 2);
	CHECK(rr__stats_median(dups, 1) == 2);
	CHECK(isnan(rr__stats_median(dups, 0)));
	CHECK(rr__stats_percentile(odd, 5, 0) == 1);
	CHECK(rr__stats_percentile(odd, 5, 1) == 5);
	CHECK(rr__stats_percentile(odd, 5, 0.5) == 3);
	CHECK(rr__stats_percentile(even, 4, 0.25) == 2.75); /* h = 0.75 between 2 and 3 */
	CHECK(isnan(rr__stats_percentile(odd, 5, 1.5)));

	/* Three rounds of three: p50s 2, 20, 5 -> median 5. */
	double rounds[] = {3, 1, 2, 20, 30, 10, 5, 6, 4};
	double p50s[3];
	CHECK(rr__stats_round_p50s(rounds, 3, 3, p50s) == 5);
	CHECK(p50s[0] == 2 && p50s[1] == 20 && p50s[2] == 5);

	double a[] = {2, 9, 4, 10}, b[] = {1, 3, 4, 2}, ratios[4];
	CHECK(rr__stats_paired_ratio(a, b, 4, ratios) == 2.5); /* ratios 2, 3, 1, 5 */
	CHECK(ratios[3] == 5);

	double values[41];
	for (int i = 0; i < 41; i++)
		values[i] = rr_test_uniform(&seed, 1.0, 2.0);
	double lo, hi, lo2, hi2, median = rr__stats_median(values, 41);
	CHECK(rr__stats_bootstrap_median(values, 41, 500, 0.95, 7, &lo, &hi) == RR_OK);
	CHECK(rr__stats_bootstrap_median(values, 41, 500, 0.95, 7, &lo2, &hi2) == RR_OK);
	CHECK(lo == lo2 && hi == hi2);
	CHECKF(lo <= median && median <= hi, "%g <= %g <= %g", lo, median, hi);
	CHECK(lo >= rr__stats_min(values, 41) && hi <= rr__stats_max(values, 41));
	CHECK(lo < hi);
	CHECK(rr__stats_bootstrap_median(values, 0, 500, 0.95, 7, &lo, &hi) == RR_ERR_INVALID_ARG);
	CHECK(rr__stats_bootstrap_median(values, 41, 10, 1.5, 7, &lo, &hi) == RR_ERR_INVALID_ARG);
}

/* ---------------------------------------------------------------- phases on a fake backend */

typedef struct fake_event {
	double when;
} fake_event;

static int capturing;
static int64_t captured_launches;

static rr_status fake_sync(rr_device *device)
{
	return RR_OK;
}
static rr_status fake_event_create(rr_device *device, void **event)
{
	*event = calloc(1, sizeof(fake_event));
	return *event ? RR_OK : RR_ERR_NOMEM;
}
static void fake_event_destroy(rr_device *device, void *event)
{
	free(event);
}
static rr_status fake_event_record(rr_device *device, void *event, void *stream)
{
	((fake_event *)event)->when = rr__now();
	return RR_OK;
}
static rr_status fake_elapsed(rr_device *device, void *start, void *end, float *ms)
{
	*ms = (float)((((fake_event *)end)->when - ((fake_event *)start)->when) * 1e3);
	return RR_OK;
}

typedef struct workload_state {
	int64_t launches, last_iteration;
	volatile double sink;
} workload_state;

static workload_state *graph_owner;

static void busy_work(workload_state *state)
{
	double x = 0;
	for (int i = 0; i < 2000; i++)
		x += sqrt((double)i + state->sink);
	state->sink = x * 1e-12;
}

static rr_status fake_launch(void *context, int64_t iteration, void *stream)
{
	workload_state *state = context;
	if (capturing) {
		captured_launches++;
		return RR_OK;
	}
	state->launches++;
	state->last_iteration = iteration;
	busy_work(state);
	return RR_OK;
}

static rr_status fake_graph_begin(rr_device *device, void **stream)
{
	capturing = 1;
	captured_launches = 0;
	return RR_OK;
}
static rr_status fake_graph_end(rr_device *device, void *stream, void **graph)
{
	capturing = 0;
	*graph = malloc(sizeof(int64_t));
	if (!*graph)
		return RR_ERR_NOMEM;
	*(int64_t *)*graph = captured_launches;
	return RR_OK;
}
static rr_status fake_graph_launch(rr_device *device, void *graph, void *stream)
{
	for (int64_t i = 0; i < *(int64_t *)graph; i++) {
		graph_owner->launches++;
		busy_work(graph_owner);
	}
	return RR_OK;
}
static void fake_graph_destroy(rr_device *device, void *graph)
{
	free(graph);
}

static void check_phase(const rr__phase_result *phase, int samples, const char *name)
{
	CHECKF(phase->available, "%s should be available", name);
	CHECKF(phase->n_samples == samples, "%s: %d samples", name, phase->n_samples);
	CHECKF(phase->batch >= 1, "%s batch %lld", name, (long long)phase->batch);
	for (int i = 0; i < phase->n_samples; i++)
		CHECKF(phase->samples_us[i] > 0 && isfinite(phase->samples_us[i]), "%s sample %g",
		       name, phase->samples_us[i]);
	CHECK(phase->median_us == rr__stats_median(phase->samples_us, (size_t)phase->n_samples));
	CHECK(phase->min_us <= phase->median_us && phase->median_us <= phase->max_us);
	CHECK(phase->tbps == 1000 / phase->median_us / 1e6);
}

static void test_phases(void)
{
	rr__backend_ops host_only = {
	    .version = RR_BACKEND_OPS_VERSION, .name = "fake", .synchronize = fake_sync};
	rr__backend_ops full = host_only;
	full.event_create = fake_event_create;
	full.event_destroy = fake_event_destroy;
	full.event_record = fake_event_record;
	full.event_elapsed_ms = fake_elapsed;
	full.graph_begin = fake_graph_begin;
	full.graph_end = fake_graph_end;
	full.graph_launch = fake_graph_launch;
	full.graph_destroy = fake_graph_destroy;

	rr__measure_config config = {.samples = 3, .sample_ms = 1, .warmup_ms = 2};
	workload_state state = {0};
	rr__workload workload = {.launch = fake_launch, .context = &state};
	rr__phase_result phases[RR__PHASE_COUNT] = {0};

	rr_device host_device = {.ops = &host_only};
	CHECK(rr__measure_phases(&host_device, &config, &workload, 1000, phases) == RR_OK);
	CHECK(!phases[RR_PHASE_GPU].available && strstr(phases[RR_PHASE_GPU].reason, "timers"));
	CHECK(!phases[RR_PHASE_GPU_GRAPH].available && phases[RR_PHASE_GPU_GRAPH].reason[0]);
	CHECK(!phases[RR_PHASE_SINGLE_GPU].available);
	check_phase(&phases[RR_PHASE_E2E], 3, "e2e");
	check_phase(&phases[RR_PHASE_SINGLE], 3, "single");
	CHECK(state.launches > 3 && state.last_iteration == state.launches - 1);
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_free(&phases[p]);

	graph_owner = &state;
	rr_device full_device = {.ops = &full};
	config.samples = 4;
	CHECK(rr__measure_phases(&full_device, &config, &workload, 1000, phases) == RR_OK);
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		check_phase(&phases[p], 4, rr__phase_name((rr__phase_id)p));
		rr__phase_result_free(&phases[p]);
	}
	/* A cold rotation of 3 sets: a graph holds a whole number of rotations; one too long for
	 * a graph leaves that phase unavailable rather than quietly hot. */
	workload.rotation = 3;
	CHECK(rr__measure_phases(&full_device, &config, &workload, 1000, phases) == RR_OK);
	CHECK(phases[RR_PHASE_GPU_GRAPH].available);
	CHECKF(captured_launches >= 3 && captured_launches % 3 == 0, "%lld captured",
	       (long long)captured_launches);
	CHECK(phases[RR_PHASE_GPU_GRAPH].batch % captured_launches == 0);
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_free(&phases[p]);
	workload.rotation = 1 << 20;
	CHECK(rr__measure_phases(&full_device, &config, &workload, 1000, phases) == RR_OK);
	CHECK(!phases[RR_PHASE_GPU_GRAPH].available);
	CHECK(strstr(phases[RR_PHASE_GPU_GRAPH].reason, "rotation") != NULL);
	CHECK(phases[RR_PHASE_GPU].available && phases[RR_PHASE_SINGLE_GPU].available);
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_free(&phases[p]);
	workload.rotation = 0;
	config.samples = 0;
	CHECK(rr__measure_phases(&full_device, &config, &workload, 1000, phases) ==
	      RR_ERR_INVALID_ARG);
}

/* ---------------------------------------------------------------- bench on a host-memory fake */

static int corrupt_row = -1; /* the fake sum writes a wrong value into this row */

static rr_status host_alloc(rr_device *device, size_t bytes, void **out)
{
	*out = malloc(bytes ? bytes : 1);
	return *out ? RR_OK : RR_ERR_NOMEM;
}
static void host_free(rr_device *device, void *ptr)
{
	free(ptr);
}
static rr_status host_copy(rr_device *device, void *dst, const void *src, size_t bytes)
{
	memcpy(dst, src, bytes);
	return RR_OK;
}
static rr_status fake_sum_launch(rr_device *device, rr_program *program, int64_t rows,
                                 const rr_arg *inputs, void *const *outputs, void *stream)
{
	for (int64_t r = 0; r < rows; r++) {
		double total = 0;
		for (int64_t c = 0; c < program->cols; c++)
			total += rr__load_as_double(inputs[0].data, program->dtype,
			                            (size_t)(r * program->cols + c));
		rr__store_from_double(outputs[0], program->dtype, (size_t)r,
		                      total + (r == corrupt_row ? 1.0 : 0.0));
	}
	return RR_OK;
}

static void test_bench_fake(void)
{
	rr__backend_ops ops = {.version = RR_BACKEND_OPS_VERSION,
	                       .name = "fake",
	                       .launch = fake_sum_launch,
	                       .alloc = host_alloc,
	                       .free = host_free,
	                       .upload = host_copy,
	                       .download = host_copy,
	                       .synchronize = fake_sync};
	rr_device device = {.ops = &ops};
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("sum", &kernel) == RR_OK);
	if (!kernel)
		return;
	CHECK(rr__bytes_min(kernel, RR_F32, 8, 64) == 8 * 64 * 4 + 8 * 4);
	CHECK(!rr__kernel_writes_row(kernel));
	rr_program program = {.device = &device,
	                      .kernel = kernel,
	                      .dtype = RR_F32,
	                      .cols = 64,
	                      .layout = {.workers_per_row = 1,
	                                 .vec = 1,
	                                 .unroll = 1,
	                                 .rows_per_group = 1,
	                                 .blocks_per_row = 1,
	                                 .storage = RR_STORAGE_REGS,
	                                 .grid = RR_GRID_ROWS},
	                      .module = &program};
	rr__bench_options options = {.measure = {.samples = 3, .sample_ms = 0.5, .warmup_ms = 1},
	                             .l2_cold = 1,
	                             .l2_bytes = 65536,
	                             .seed = 42};
	rr__row_result row = {0};
	CHECK(rr__bench_program(&device, &program, 8, &options, &row) == RR_OK);
	CHECK(row.state == RR_ROW_MEASURED && row.validation.valid);
	CHECKF(row.buffer_sets == 2 * 65536 / 2080 + 1, "%d sets", row.buffer_sets);
	CHECK(row.working_set_bytes > 2 * 65536);
	CHECK(row.validation.total == 8 * row.buffer_sets);
	CHECK(row.validation.validated == row.validation.total);
	CHECK(row.ceiling == RR_CEILING_READ && row.bytes_min == 2080);
	CHECK(strcmp(row.kernel, "sum") == 0 && strlen(row.kernel_hash) == 64);
	CHECK(strstr(row.plan, "W=1") != NULL);
	CHECK(row.phases[RR_PHASE_E2E].available && !row.phases[RR_PHASE_GPU].available);
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_free(&row.phases[p]);

	/* A wrong value in row 3 of every set: reported with its position, and never timed. */
	corrupt_row = 3;
	options.l2_cold = 0;
	memset(&row, 0, sizeof row);
	CHECK(rr__bench_program(&device, &program, 8, &options, &row) == RR_OK);
	CHECK(row.state == RR_ROW_INVALID && !row.validation.valid && row.buffer_sets == 1);
	CHECK(row.validation.total == 8 && row.validation.validated == 7);
	CHECK(row.validation.failed_row == 3 && row.validation.failed_set == 0);
	CHECK(strcmp(row.validation.failed_output, "s") == 0);
	CHECK(row.validation.failed_got - row.validation.failed_expected > 0.5);
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		CHECK(!row.phases[p].available && row.phases[p].n_samples == 0);
		CHECK(strstr(row.phases[p].reason, "validation") != NULL);
	}
	corrupt_row = -1;
	rr_kernel_free(kernel);
}

/* ---------------------------------------------------------------- synthetic results */

static void fill_phase(rr__phase_result *phase, int n, int64_t bytes, double scale)
{
	double samples[16];
	for (int i = 0; i < n; i++)
		samples[i] = scale * rr_test_uniform(&seed, 1.0, 1.5);
	rr__phase_result_set_samples(phase, samples, n);
	phase->batch = 1 + (int64_t)rr_test_uniform(&seed, 0, 100);
	rr__phase_result_summarize(phase, bytes);
}

static void synthetic_results(rr__results *results, int samples)
{
	char *argv[] = {"bench", "--kernels", "softmax,sum", "--out", "x y"};
	CHECK(rr__run_info_collect(&results->info, NULL, 5, argv) == RR_OK);
	snprintf(results->info.backend, sizeof results->info.backend, "cuda");
	results->info.report = &rr__cuda_backend.report;
	snprintf(results->info.device_description, sizeof results->info.device_description,
	         "Fake <GPU> & co");
	results->info.samples = samples;
	results->info.sample_ms = 20;
	results->info.warmup_ms = 150;
	results->info.ceilings_requested = 1;
	for (int c = 0; c < RR__CEILING_COUNT; c++) {
		rr__ceiling_result *ceiling = &results->ceilings[c];
		ceiling->measured = 1;
		ceiling->bytes = (int64_t)1 << 31;
		snprintf(ceiling->description, sizeof ceiling->description, "synthetic %d", c);
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			fill_phase(&ceiling->phases[p], samples, ceiling->bytes, 500);
		/* As on a real GPU, a copy replayed in a graph is slower than on a stream. */
		rr__phase_result_free(&ceiling->phases[RR_PHASE_GPU_GRAPH]);
		fill_phase(&ceiling->phases[RR_PHASE_GPU_GRAPH], samples, ceiling->bytes, 900);
	}
	rr__phase_result_unavailable(&results->ceilings[0].phases[RR_PHASE_SINGLE_GPU], "none");
	const char *kernels[] = {"softmax", "sum", "rmsnorm"};
	for (int k = 0; k < 3; k++) {
		for (int s = 0; s < 3; s++) {
			rr__row_result *row = rr__results_add_row(results);
			snprintf(row->kernel, sizeof row->kernel, "%s", kernels[k]);
			row->dtype = s == 2 ? RR_BF16 : RR_F32;
			row->rows = 64 << s;
			row->cols = 1024 << (2 * s);
			snprintf(row->plan, sizeof row->plan, "W=32,V=4,U=1,R=1");
			memset(row->kernel_hash, 'a', 64);
			memset(row->source_hash, 'b', 64);
			memset(row->binary_hash, 'c', 64);
			row->ceiling = k == 1 ? RR_CEILING_READ : RR_CEILING_COPY;
			row->bytes_min = row->rows * row->cols * 8;
			row->buffer_sets = 1;
			row->validation.valid = 1;
			row->validation.validated = row->validation.total = row->rows * row->cols;
			for (int p = 0; p < RR__PHASE_COUNT; p++)
				fill_phase(&row->phases[p], samples, row->bytes_min,
				           10.0 * (s + 1));
		}
	}
	rr__phase_result_unavailable(&results->rows[1].phases[RR_PHASE_GPU_GRAPH], "no graphs");
	rr__row_result *bad = &results->rows[4];
	bad->state = RR_ROW_INVALID;
	bad->validation.valid = 0;
	bad->validation.validated = 17;
	bad->validation.failed_row = 3;
	bad->validation.failed_col = 5;
	bad->validation.failed_got = 1.5;
	bad->validation.failed_expected = 2.5;
	snprintf(bad->validation.failed_output, sizeof bad->validation.failed_output, "y");
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_unavailable(&bad->phases[p], "not timed: failed validation");
	rr__results_apply_ceilings(results);
}

static int has(json_t *object, const char *key, int type)
{
	json_t *value = json_object_get(object, key);
	int ok = value && (type < 0 || (int)json_typeof(value) == type ||
	                   (type == JSON_REAL && json_is_integer(value)));
	if (!ok)
		fprintf(stderr, "missing or mistyped key '%s'\n", key);
	return ok;
}

static int is_bool(json_t *object, const char *key)
{
	json_t *value = json_object_get(object, key);
	return value && json_is_boolean(value);
}

static int is_hex64(json_t *value)
{
	const char *text = json_string_value(value);
	if (!text || strlen(text) != 64)
		return 0;
	for (const char *c = text; *c; c++)
		if (!strchr("0123456789abcdef", *c))
			return 0;
	return 1;
}

/* The documented rules for one phase object, and its statistics recomputed from its samples;
 * `ceiling_best` is the row's ceiling's best TB/s, or a negative number for none. */
static void check_phase_json(json_t *phase, int64_t bytes, double ceiling_best)
{
	CHECK(is_bool(phase, "available"));
	if (!json_is_true(json_object_get(phase, "available"))) {
		CHECK(has(phase, "reason", JSON_STRING));
		return;
	}
	CHECK(has(phase, "batch", JSON_INTEGER) && has(phase, "samples_us", JSON_ARRAY));
	CHECK(has(phase, "median_us", JSON_REAL) && has(phase, "min_us", JSON_REAL));
	CHECK(has(phase, "max_us", JSON_REAL) && has(phase, "tbps", JSON_REAL));
	CHECK(has(phase, "fraction_of_ceiling", -1));
	json_t *samples = json_object_get(phase, "samples_us");
	size_t n = json_array_size(samples);
	CHECK(n > 0);
	double values[64];
	for (size_t i = 0; i < n && i < 64; i++)
		values[i] = json_number_value(json_array_get(samples, i));
	double median = rr__stats_median(values, n);
	CHECK(json_real_value(json_object_get(phase, "median_us")) == median);
	CHECK(json_real_value(json_object_get(phase, "min_us")) == rr__stats_min(values, n));
	CHECK(json_real_value(json_object_get(phase, "max_us")) == rr__stats_max(values, n));
	double tbps = (double)bytes / median / 1e6;
	CHECK(json_real_value(json_object_get(phase, "tbps")) == tbps);
	json_t *fraction = json_object_get(phase, "fraction_of_ceiling");
	if (ceiling_best > 0)
		CHECK(json_is_real(fraction) && json_real_value(fraction) == tbps / ceiling_best);
	else
		CHECK(json_is_null(fraction));
}

/* A ceiling's best_tbps and best_phase recomputed from its stored phases (the first phase on a
 * tie); returns best_tbps, or -1 when the ceiling has none (and then both keys are null). */
static double check_ceiling_best(json_t *ceiling)
{
	json_t *phases = json_object_get(ceiling, "phases");
	double best = -1;
	const char *best_name = NULL;
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		const char *name = rr__phase_name((rr__phase_id)p);
		json_t *phase = json_object_get(phases, name);
		double tbps = json_number_value(json_object_get(phase, "tbps"));
		if (json_is_true(json_object_get(ceiling, "measured")) &&
		    json_is_true(json_object_get(phase, "available")) && tbps > 0 && tbps > best) {
			best = tbps;
			best_name = name;
		}
	}
	json_t *stored = json_object_get(ceiling, "best_tbps");
	json_t *stored_phase = json_object_get(ceiling, "best_phase");
	CHECK(stored != NULL && stored_phase != NULL);
	if (best_name) {
		CHECK(json_is_real(stored) && json_real_value(stored) == best);
		CHECK(json_is_string(stored_phase) &&
		      strcmp(json_string_value(stored_phase), best_name) == 0);
	} else {
		CHECK(json_is_null(stored) && json_is_null(stored_phase));
	}
	return best;
}

static void check_json(const char *path, const rr__results *results)
{
	json_error_t error;
	json_t *root = json_load_file(path, 0, &error);
	CHECKF(root != NULL, "%s:%d: %s", path, error.line, error.text);
	if (!root)
		return;
	CHECK(json_integer_value(json_object_get(root, "schema_version")) == 1);
	const char *strings[] = {"tool", "command_line", "start_time", "host", "backend"};
	for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
		CHECK(has(root, strings[i], JSON_STRING));
	CHECK(has(root, "argv", JSON_ARRAY) && has(root, "wall_seconds", JSON_REAL));
	const char *start = json_string_value(json_object_get(root, "start_time"));
	CHECK(start && strlen(start) == 20 && start[10] == 'T' && start[19] == 'Z');
	json_t *device = json_object_get(root, "device");
	CHECK(has(root, "device", JSON_OBJECT) && has(device, "name", JSON_STRING));
	CHECK(has(device, "multiprocessors", JSON_INTEGER) &&
	      has(device, "l2_bytes", JSON_INTEGER));
	CHECK(has(device, "uuid", -1) && has(device, "compute_capability", -1));
	json_t *versions = json_object_get(root, "versions");
	CHECK(has(versions, "rowreduce", JSON_STRING) && has(versions, "git_commit", JSON_STRING));
	CHECK(has(versions, "build_compiler", JSON_STRING) && has(versions, "driver", -1));
	CHECK(is_hex64(json_object_get(json_object_get(root, "binary"), "sha256")));
	json_t *library = json_object_get(root, "library");
	CHECK(is_hex64(json_object_get(library, "sha256")));
	CHECK(has(library, "linkage", JSON_STRING));
	json_t *protocol = json_object_get(root, "protocol");
	CHECK(json_integer_value(json_object_get(protocol, "samples")) == results->info.samples);
	CHECK(has(protocol, "sample_ms", JSON_REAL) && has(protocol, "warmup_ms", JSON_REAL));
	CHECK(strcmp(json_string_value(json_object_get(json_object_get(protocol, "l2"), "mode")),
	             "hot") == 0);
	json_t *ceilings = json_object_get(root, "ceilings");
	CHECK(is_bool(ceilings, "requested"));
	for (int c = 0; c < RR__CEILING_COUNT; c++) {
		json_t *ceiling = json_object_get(ceilings, rr__ceiling_name((rr__ceiling_id)c));
		CHECK(is_bool(ceiling, "measured") && has(ceiling, "bytes", JSON_INTEGER));
		json_t *phases = json_object_get(ceiling, "phases");
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			check_phase_json(json_object_get(phases, rr__phase_name((rr__phase_id)p)),
			                 json_integer_value(json_object_get(ceiling, "bytes")), -1);
		double best = check_ceiling_best(ceiling);
		CHECK((best > 0) == (results->ceilings[c].measured != 0));
		/* The synthetic graph phase is the slowest: it must never be the divisor. */
		CHECK(!results->ceilings[c].measured ||
		      strcmp(json_string_value(json_object_get(ceiling, "best_phase")),
		             "gpu_graph") != 0);
	}
	json_t *rows = json_object_get(root, "rows");
	CHECK(json_array_size(rows) == (size_t)results->n_rows);
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *row = json_array_get(rows, i);
		CHECK(has(row, "state", JSON_STRING) && has(row, "kernel", JSON_STRING));
		CHECK(has(row, "dtype", JSON_STRING) && has(row, "plan", JSON_STRING));
		CHECK(has(row, "M", JSON_INTEGER) && has(row, "N", JSON_INTEGER));
		CHECK(has(row, "bytes_min", JSON_INTEGER) && has(row, "ceiling", JSON_STRING));
		CHECK(is_hex64(json_object_get(row, "kernel_source_sha256")));
		CHECK(is_hex64(json_object_get(row, "source_sha256")));
		CHECK(is_hex64(json_object_get(row, "binary_sha256")));
		json_t *validation = json_object_get(row, "validation");
		CHECK(is_bool(validation, "valid") && has(validation, "validated", JSON_INTEGER));
		CHECK(has(validation, "total", JSON_INTEGER) &&
		      has(validation, "first_failure", -1));
		int valid = json_is_true(json_object_get(validation, "valid"));
		CHECK(valid ==
		      (strcmp(json_string_value(json_object_get(row, "state")), "invalid") != 0));
		if (!valid) {
			json_t *failure = json_object_get(validation, "first_failure");
			CHECK(json_integer_value(json_object_get(failure, "row")) == 3);
			CHECK(json_integer_value(json_object_get(failure, "col")) == 5);
		}
		json_t *ceiling =
		    json_object_get(ceilings, json_string_value(json_object_get(row, "ceiling")));
		double best = check_ceiling_best(ceiling);
		json_t *phases = json_object_get(row, "phases");
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			check_phase_json(json_object_get(phases, rr__phase_name((rr__phase_id)p)),
			                 json_integer_value(json_object_get(row, "bytes_min")),
			                 best);
	}
	json_t *summary = json_object_get(root, "summary");
	CHECK(json_integer_value(json_object_get(summary, "invalid")) == 1);
	CHECK(json_integer_value(json_object_get(summary, "measured")) == results->n_rows - 1);
	json_decref(root);
}

static int file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void test_results(const char *dir)
{
	rr__results results = {0};
	synthetic_results(&results, 7);
	char path[512];
	snprintf(path, sizeof path, "%s/results.json", dir);
	CHECK(rr__results_write_json(&results, path) == RR_OK);
	check_json(path, &results);

	rr__buf md = {0};
	CHECK(rr__results_format_md(&results, &md) == RR_OK);
	CHECK(md.data && strstr(md.data, "| softmax | f32 | 64x1024 |"));
	CHECK(md.data && strstr(md.data, "INVALID"));
	CHECK(md.data && strstr(md.data, "## Ceilings") && strstr(md.data, "| best phase |"));
	CHECK(md.data && strstr(md.data, results.info.command_line));
	rr__buf_free(&md);
	snprintf(path, sizeof path, "%s/results.md", dir);
	CHECK(rr__results_write_md(&results, path) == RR_OK && file_exists(path));

	snprintf(path, sizeof path, "%s/plot.svg", dir);
	CHECK(rr__results_write_svg(&results, path) == RR_OK);
	char *svg = NULL;
	size_t size = 0;
	CHECK(rr__read_file(path, &svg, &size) == RR_OK);
	CHECK(svg && strncmp(svg, "<svg", 4) == 0 && strstr(svg, "</svg>"));
	CHECK(svg && strstr(svg, "&lt;GPU&gt; &amp; co") && !strstr(svg, "<GPU>"));
	CHECK(svg && strstr(svg, "<polyline") && strstr(svg, "copy ceiling"));
	free(svg);

	/* An unmeasured ceiling has no best, and its rows no fraction. */
	double best_tbps = 1;
	CHECK(rr__ceiling_best(&results.ceilings[RR_CEILING_COPY], &best_tbps) >= 0);
	CHECK(best_tbps > 0);
	results.ceilings[RR_CEILING_READ].measured = 0;
	snprintf(results.ceilings[RR_CEILING_READ].error,
	         sizeof results.ceilings[RR_CEILING_READ].error, "synthetic failure");
	CHECK(rr__ceiling_best(&results.ceilings[RR_CEILING_READ], &best_tbps) == -1);
	CHECK(best_tbps == 0);
	rr__results_apply_ceilings(&results);
	snprintf(path, sizeof path, "%s/unmeasured.json", dir);
	CHECK(rr__results_write_json(&results, path) == RR_OK);
	check_json(path, &results);

	/* A path under a regular file cannot be created, even by root: nothing may be left. */
	char blocked[600];
	snprintf(blocked, sizeof blocked, "%s/results.md/results.json", dir);
	CHECK(rr__results_write_json(&results, blocked) == RR_ERR_IO);
	CHECK(strstr(rr_last_error(), "results.md/results.json") != NULL);
	CHECK(!file_exists(blocked));
	/* A read-only folder stops everyone but root (who is covered by the case above). */
	if (geteuid() != 0) {
		char locked[560];
		snprintf(locked, sizeof locked, "%s/locked", dir);
		CHECK(mkdir(locked, 0500) == 0);
		snprintf(blocked, sizeof blocked, "%s/results.json", locked);
		CHECK(rr__results_write_json(&results, blocked) == RR_ERR_IO);
		CHECK(!file_exists(blocked));
		chmod(locked, 0700);
	}
	rr__results_free(&results);
}

/* The line of a series runs in order of N through the largest M at each N, whatever the order
 * the rows were measured in. */
static void test_plot_order(const char *dir)
{
	rr__results results = {0};
	snprintf(results.info.backend, sizeof results.info.backend, "cpu");
	int64_t shapes[][2] = {{8, 4096}, {8, 1024}, {64, 1024}, {2, 256}};
	for (int i = 0; i < 4; i++) {
		rr__row_result *row = rr__results_add_row(&results);
		snprintf(row->kernel, sizeof row->kernel, "softmax");
		row->rows = shapes[i][0];
		row->cols = shapes[i][1];
		row->bytes_min = row->rows * row->cols * 8;
		fill_phase(&row->phases[RR_PHASE_E2E], 3, row->bytes_min, 5);
	}
	char path[512];
	snprintf(path, sizeof path, "%s/order.svg", dir);
	CHECK(rr__results_write_svg(&results, path) == RR_OK);
	char *svg = NULL;
	size_t size = 0;
	CHECK(rr__read_file(path, &svg, &size) == RR_OK);
	const char *line = svg ? strstr(svg, "<polyline points=\"") : NULL;
	CHECK(line != NULL);
	if (line) {
		double x[8], y[8];
		int n = 0;
		const char *at = line + strlen("<polyline points=\"");
		while (n < 8 && sscanf(at, "%lf,%lf", &x[n], &y[n]) == 2) {
			n++;
			at = strchr(at, ' ');
			if (!at || at[1] == 'f') /* the fill attribute follows the last point */
				break;
			at++;
		}
		CHECKF(n == 3, "%d points", n);
		CHECK(n == 3 && x[0] < x[1] && x[1] < x[2]);
	}
	CHECK(svg && strstr(svg, "softmax f32 64x1024"));
	free(svg);
	rr__results_free(&results);
}

/* ---------------------------------------------------------------- shapes and suites */

static void write_text(const char *path, const char *text)
{
	CHECK(rr__write_file_atomic(path, text, strlen(text)) == RR_OK);
}

static void test_suites(const char *dir)
{
	rr_shape_list list = {0};
	CHECK(rr_shapes_parse("1x127,17x257", &list) == RR_OK);
	CHECK(list.count == 2 && list.rows[1] == 17 && list.cols[1] == 257);
	const char *bad[] = {"", "12", "0x5", "3x", "x4", "4x4,", "4x-4", "4x4x4", "1e3x4", " 4x4"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECKF(rr_shapes_parse(bad[i], &list) == RR_ERR_INVALID_ARG, "'%s'", bad[i]);
	rr_shape_list_free(&list);

	char path[512], used[512];
	snprintf(path, sizeof path, "%s/good.txt", dir);
	write_text(path, "# comment\n\n  8x16   # trailing\n3x5\n");
	CHECK(rr_suite_load(path, &list, used, sizeof used) == RR_OK);
	CHECK(list.count == 2 && list.rows[0] == 8 && list.cols[1] == 5 && strcmp(used, path) == 0);
	rr_shape_list_free(&list);

	snprintf(path, sizeof path, "%s/bad.txt", dir);
	write_text(path, "8x16\n# fine\n8by16\n");
	CHECK(rr_suite_load(path, &list, NULL, 0) == RR_ERR_INVALID_ARG);
	char expected[600];
	snprintf(expected, sizeof expected, "%s:3:", path);
	CHECKF(strstr(rr_last_error(), expected) != NULL, "%s", rr_last_error());
	rr_shape_list_free(&list);

	snprintf(path, sizeof path, "%s/empty.txt", dir);
	write_text(path, "# nothing here\n\n");
	CHECK(rr_suite_load(path, &list, NULL, 0) == RR_ERR_INVALID_ARG);
	CHECK(strstr(rr_last_error(), "no shapes") != NULL);
	rr_shape_list_free(&list);

	CHECK(rr_suite_load("no-such-suite-anywhere", &list, NULL, 0) == RR_ERR_INVALID_ARG);
	rr_shape_list_free(&list);

	/* The seed suite by name, found from the source tree. */
	CHECK(rr_suite_load("seed", &list, used, sizeof used) == RR_OK);
	int64_t seed_rows[] = {1, 17, 64, 1024}, seed_cols[] = {127, 257, 4096, 4096};
	CHECK(list.count == 4);
	for (int i = 0; i < list.count && i < 4; i++)
		CHECK(list.rows[i] == seed_rows[i] && list.cols[i] == seed_cols[i]);
	CHECK(strstr(used, "bench/suites/seed.txt") != NULL);
	rr_shape_list_free(&list);
	CHECK(rr_suite_load("large", &list, NULL, 0) == RR_OK && list.count == 7);
	rr_shape_list_free(&list);
}

/* Times switch unit with size, and a range reads in its median's unit; constants and bounds
 * print as a person writes them. */
static void test_formats(void)
{
	char out[32];
	CHECK(strcmp(rr__format_duration(12.345, 0, 1, out, sizeof out), "12.35 µs") == 0);
	CHECK(strcmp(rr__format_duration(336032.45, 0, 1, out, sizeof out), "336.0 ms") == 0);
	CHECK(strcmp(rr__format_duration(2.5e6, 0, 1, out, sizeof out), "2.500 s") == 0);
	CHECK(strcmp(rr__format_duration(900, 1500, 0, out, sizeof out), "0.900") == 0);
	const double values[] = {30, 1e-6, 0.5, -2, 1.5e20, 0.1};
	const char *texts[] = {"30", "1e-6", "0.5", "-2", "1.5e20", "0.1"};
	for (int i = 0; i < 6; i++) {
		rr__format_real(values[i], out);
		CHECKF(strcmp(out, texts[i]) == 0, "%g printed as %s, want %s", values[i], out,
		       texts[i]);
	}
	uint64_t whole = 7;
	CHECK(rr_parse_whole("-1", 0, UINT64_MAX, &whole) == RR_ERR_INVALID_ARG && whole == 7);
	CHECK(rr_parse_whole("18446744073709551615", 0, UINT64_MAX, &whole) == RR_OK &&
	      whole == UINT64_MAX);
	CHECK(rr_parse_whole("18446744073709551616", 0, UINT64_MAX, &whole) == RR_ERR_INVALID_ARG);
	CHECK(strstr(rr_last_error(), "exceeds the most allowed") != NULL);
	double real = 0;
	CHECK(rr_parse_real("0x10", 0, 100, &real) == RR_ERR_INVALID_ARG);
	CHECK(rr_parse_real("2.5", 0, 100, &real) == RR_OK && real == 2.5);
	/* The bandwidth unit is the backend's: 0.0271 TB/s reads 27.1 GB/s on cpu. */
	CHECK(fabs(rr__report_bandwidth(&rr__cpu_backend.report, 0.0271) - 27.1) < 1e-9);
	CHECK(rr__report_bandwidth(&rr__cuda_backend.report, 4.28) == 4.28);
}

int main(void)
{
	char dir[] = "/tmp/rr-test-measure-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_stats();
	test_formats();
	test_phases();
	test_bench_fake();
	test_results(dir);
	test_plot_order(dir);
	test_suites(dir);
	char command[600];
	snprintf(command, sizeof command, "rm -rf '%s'", dir);
	if (system(command) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return rr_test_finish("test_measure");
}
