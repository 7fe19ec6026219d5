/* rr_tune_run: the workloads (kernels x dtypes x shapes), each answered from the database or
 * tuned, in this process or in one worker process per device; results.json and the regret
 * summary at the end. */
#include <errno.h>
#include <time.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune/tune.h"

#define MAX_KERNELS 64
#define MAX_DEVICES 64

typedef struct run {
	const rr_tune_options *options;
	rr__tune_settings settings;
	rr_kernel *kernels[MAX_KERNELS];
	int n_kernels;
	rr_dtype dtypes[3];
	int n_dtypes;
	rr_shape_list shapes;
	rr__tune_item *items;
	int n_items, n_workers;
	double budget_per_item;
	/* Per process (the only one, or a worker). */
	rr_device *device;
	rr_tune_db *db;
	rr__results results;
	rr__tune_outcome *outcomes;
	int n_outcomes, failures, worker;
	double start;
	char results_path[4200];
} run;

/* ---------------------------------------------------------------- inputs */

static rr_status load_kernels(run *r, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return rr__fail(RR_ERR_NOMEM, "out of memory");
	rr_status status = RR_OK;
	const char *const *builtins = rr_builtin_names();
	for (char *name = strtok_r(copy, ",", &save); name && status == RR_OK;
	     name = strtok_r(NULL, ",", &save)) {
		int all = strcmp(name, "all") == 0;
		for (int b = 0; (all ? builtins[b] != NULL : b == 0) && status == RR_OK; b++) {
			if (r->n_kernels == MAX_KERNELS) {
				status =
				    rr__fail(RR_ERR_INVALID_ARG, "at most %d kernels", MAX_KERNELS);
				break;
			}
			status =
			    rr_kernel_load(all ? builtins[b] : name, &r->kernels[r->n_kernels]);
			if (status == RR_OK)
				r->n_kernels++;
			else
				status = rr__fail_context(status, "--kernels: cannot load '%s'",
				                          all ? builtins[b] : name);
		}
	}
	free(copy);
	if (status == RR_OK && r->n_kernels == 0)
		status = rr__fail(RR_ERR_INVALID_ARG, "--kernels '%s' names no kernel", list);
	return status;
}

static rr_status parse_dtypes(run *r, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return rr__fail(RR_ERR_NOMEM, "out of memory");
	rr_status status = RR_OK;
	for (char *name = strtok_r(copy, ",", &save); name && status == RR_OK;
	     name = strtok_r(NULL, ",", &save)) {
		rr_dtype dtype;
		if (rr_dtype_parse(name, &dtype) != RR_OK ||
		    (dtype != RR_F32 && dtype != RR_BF16 && dtype != RR_F16)) {
			status = rr__fail(RR_ERR_INVALID_ARG,
			                  "--dtypes: '%s' is not one of f32, bf16, "
			                  "f16",
			                  name);
			break;
		}
		int seen = 0;
		for (int d = 0; d < r->n_dtypes; d++)
			seen |= r->dtypes[d] == dtype;
		if (!seen)
			r->dtypes[r->n_dtypes++] = dtype;
	}
	free(copy);
	if (status == RR_OK && r->n_dtypes == 0)
		status = rr__fail(RR_ERR_INVALID_ARG, "--dtypes '%s' names no dtype", list);
	return status;
}

static rr_status check_options(const rr_tune_options *o)
{
	if (!o->kernels || !o->out || (!o->suite == !o->shapes))
		return rr__fail(RR_ERR_INVALID_ARG,
		                "tune needs --kernels, exactly one of --suite and "
		                "--shapes, and --out");
	if (o->objective && strcmp(o->objective, "gpu") && strcmp(o->objective, "wall"))
		return rr__fail(RR_ERR_INVALID_ARG, "--objective '%s': allowed are gpu and wall",
		                o->objective);
	if (o->max_candidates < 1 || o->max_candidates > 100000)
		return rr__fail(RR_ERR_INVALID_ARG, "--max-candidates %d: allowed are 1 to 100000",
		                o->max_candidates);
	if (o->rounds < 2 || o->rounds > 64)
		return rr__fail(RR_ERR_INVALID_ARG, "--rounds %d: allowed are 2 to 64", o->rounds);
	if (!(o->budget_s >= 0) || o->samples < 1 || !(o->sample_ms > 0) || !(o->warmup_ms >= 0))
		return rr__fail(RR_ERR_INVALID_ARG,
		                "--budget-s must be >= 0, --samples >= 1, --sample-ms > 0 and "
		                "--warmup-ms >= 0");
	if (o->workers < 0 || o->workers > MAX_DEVICES)
		return rr__fail(RR_ERR_INVALID_ARG, "--workers %d: allowed are 1 to %d", o->workers,
		                MAX_DEVICES);
	return RR_OK;
}

static rr_status prepare(run *r)
{
	const rr_tune_options *o = r->options;
	rr_status status = check_options(o);
	if (status == RR_OK)
		status = load_kernels(r, o->kernels);
	if (status == RR_OK)
		status = parse_dtypes(r, o->dtypes ? o->dtypes : "f32,bf16");
	if (status == RR_OK)
		status = o->suite ? rr_suite_load(o->suite, &r->shapes, NULL, 0)
		                  : rr_shapes_parse(o->shapes, &r->shapes);
	if (status != RR_OK)
		return status;
	r->n_items = r->n_kernels * r->n_dtypes * r->shapes.count;
	r->items = calloc((size_t)r->n_items, sizeof *r->items);
	r->outcomes = calloc((size_t)r->n_items, sizeof *r->outcomes);
	if (!r->items || !r->outcomes)
		return rr__fail(RR_ERR_NOMEM, "out of memory for %d workloads", r->n_items);
	int i = 0;
	for (int k = 0; k < r->n_kernels; k++)
		for (int d = 0; d < r->n_dtypes; d++)
			for (int s = 0; s < r->shapes.count; s++)
				r->items[i++] = (rr__tune_item){k, d, s};
	if (rr__mkdir_p(o->out) != RR_OK || access(o->out, W_OK) != 0)
		return rr__fail(RR_ERR_IO, "--out '%s' cannot be created or written", o->out);
	snprintf(r->results_path, sizeof r->results_path, "%s/results.json", o->out);
	return RR_OK;
}

/* ---------------------------------------------------------------- one process's work */

static rr_status open_process(run *r, const char *backend)
{
	const rr_tune_options *o = r->options;
	rr_status status = rr_device_open(backend, &r->device);
	if (status != RR_OK)
		return rr__fail_context(status, "cannot open backend '%s'", backend);
	status = rr_tune_db_open(o->db_path, 1, &r->db);
	if (status != RR_OK)
		return status;
	r->settings.objective = o->objective ? o->objective : rr__tune_default_objective(r->device);
	r->settings.phase = strcmp(r->settings.objective, "gpu") == 0 ? RR_PHASE_GPU : RR_PHASE_E2E;
	r->settings.max_candidates = o->max_candidates;
	r->settings.rounds = o->rounds;
	r->settings.bench = (rr__bench_options){.measure = {.samples = o->samples,
	                                                    .sample_ms = o->sample_ms,
	                                                    .warmup_ms = o->warmup_ms},
	                                        .l2_bytes = rr__bench_l2_bytes(r->device),
	                                        .seed = o->seed};
	r->start = rr__now();
	status = rr__run_info_collect(&r->results.info, r->device, o->argc, o->argv);
	rr__run_info *info = &r->results.info;
	info->samples = o->samples;
	info->sample_ms = o->sample_ms;
	info->warmup_ms = o->warmup_ms;
	info->seed = o->seed;
	info->l2_bytes_used = r->settings.bench.l2_bytes;
	snprintf(info->plan_request, sizeof info->plan_request, "tune");
	return status;
}

static void print_outcome(const run *r, const rr__tune_outcome *o)
{
	const rr__tune_key *k = &o->key;
	if (!o->ok) {
		printf("%s %s %lldx%lld: NOT TUNED: %s\n", k->kernel, k->dtype, (long long)k->rows,
		       (long long)k->cols, o->failure);
	} else if (o->from_database) {
		printf("%s %s %lldx%lld: database hit, not measured: %s (%.3f us, regret %.2f%%, "
		       "tuned %s)\n",
		       k->kernel, k->dtype, (long long)k->rows, (long long)k->cols, o->record.plan,
		       o->record.best_us, 100 * o->record.regret, o->record.tuned_at);
	} else {
		char regret[32] = "n/a (model pick rejected)";
		if (isfinite(o->record.regret))
			snprintf(regret, sizeof regret, "%.2f%%", 100 * o->record.regret);
		printf(
		    "%s %s %lldx%lld: tuned %s %.3f us (%s, %d of %d legal measured, %d rejected, "
		    "%d merged duplicates, %d illegal); model pick %s, regret %s\n",
		    k->kernel, k->dtype, (long long)k->rows, (long long)k->cols, o->record.plan,
		    o->record.best_us, o->strategy, o->record.measured, o->legal,
		    o->record.rejected, o->merged, o->rejected_illegal, o->record.model_plan,
		    regret);
	}
	fflush(stdout);
	(void)r;
}

static void utc_now(char *out, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* One workload: a database hit is reported and not measured; otherwise it is tuned and its
 * record stored. 0 unless the database or memory failed. */
static int do_item(int index, void *ctx)
{
	run *r = ctx;
	rr__tune_item *item = &r->items[index];
	rr_kernel *kernel = r->kernels[item->kernel];
	rr_dtype dtype = r->dtypes[item->dtype];
	int64_t rows = r->shapes.rows[item->shape], cols = r->shapes.cols[item->shape];
	rr__tune_outcome *o = &r->outcomes[r->n_outcomes++];
	rr_status status =
	    rr__tune_key_make(r->device, kernel, dtype, rows, cols, r->settings.objective, &o->key);
	int found = 0;
	if (status == RR_OK && !r->options->retune)
		status = rr__tune_db_get(r->db, &o->key, &o->record, &found);
	if (status != RR_OK) {
		fprintf(stderr, "rowreduce: %s\n", rr_last_error());
		return 1;
	}
	if (found) {
		o->from_database = o->ok = 1;
		print_outcome(r, o);
		return 0;
	}
	char label[300];
	double elapsed = rr__now() - r->start;
	int done = r->n_outcomes - 1, total = r->n_workers > 1 ? 0 : r->n_items;
	char left[64] = "";
	if (total && done > 0)
		snprintf(left, sizeof left, ", ~%.0f s left", elapsed / done * (total - done));
	snprintf(label, sizeof label, "[%d/%d%s] %s %s %lldx%lld (%.0f s elapsed%s)", done + 1,
	         total ? total : r->n_items, r->n_workers > 1 ? " shared" : "",
	         rr_kernel_name(kernel), rr_dtype_name(dtype), (long long)rows, (long long)cols,
	         elapsed, left);
	status = rr__tune_workload(r->device, kernel, dtype, rows, cols, &r->settings,
	                           r->budget_per_item, label, &r->results, o);
	if (status != RR_OK)
		return 1;
	if (o->ok) {
		utc_now(o->record.tuned_at, sizeof o->record.tuned_at);
		snprintf(o->record.host, sizeof o->record.host, "%.127s", r->results.info.host);
		if (rr__tune_db_put(r->db, &o->record) != RR_OK) {
			fprintf(stderr, "rowreduce: %s\n", rr_last_error());
			return 1;
		}
	} else {
		r->failures++;
	}
	print_outcome(r, o);
	return 0;
}

static rr_status write_process_results(run *r, const char *path)
{
	r->results.info.wall_seconds = rr__now() - r->start;
	return rr__tune_write_results(&r->results, r->outcomes, r->n_outcomes, &r->settings, path);
}

static void close_process(run *r)
{
	for (int i = 0; i < r->n_outcomes; i++)
		rr__tune_outcome_free(&r->outcomes[i]);
	r->n_outcomes = 0;
	rr__results_free(&r->results);
	memset(&r->results, 0, sizeof r->results);
	rr_tune_db_close(r->db);
	r->db = NULL;
	rr_device_close(r->device);
	r->device = NULL;
}

/* ---------------------------------------------------------------- worker processes */

typedef struct worker_plan {
	int n;
	int ordinals[MAX_DEVICES];
} worker_plan;

/* The GPUs this host shows, counted without initialising CUDA (the workers are forked, and a
 * forked child cannot use a CUDA context of its parent): CUDA_VISIBLE_DEVICES, else the
 * /dev/nvidiaN nodes. */
/* Whether a --backend value picks devices by ordinal: cuda, and auto (NULL or a name the
 * registry does not list), which may pick it. */
static int numbered(const char *backend)
{
	const rr__backend_ops *ops = rr__backend_find(backend);
	return !ops || ops->report.numbered_devices;
}

static int count_gpus(void)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	if (visible) {
		int n = visible[0] ? 1 : 0;
		for (const char *p = visible; *p; p++)
			n += *p == ',';
		return n;
	}
	glob_t found;
	int n = glob("/dev/nvidia[0-9]*", 0, NULL, &found) == 0 ? (int)found.gl_pathc : 0;
	if (n)
		globfree(&found);
	return n;
}

static rr_status plan_workers(const rr_tune_options *o, worker_plan *p)
{
	p->n = 0;
	if (o->workers > 0) {
		for (p->n = 0; p->n < o->workers; p->n++)
			p->ordinals[p->n] = 0;
		return RR_OK;
	}
	if (!o->devices)
		return RR_OK;
	if (strcmp(o->devices, "all") == 0) {
		int gpus = numbered(o->backend) ? count_gpus() : 0;
		for (p->n = 0; p->n < (gpus ? gpus : 1) && p->n < MAX_DEVICES; p->n++)
			p->ordinals[p->n] = p->n;
		return RR_OK;
	}
	const char *text = o->devices;
	while (*text) {
		char *end = NULL;
		errno = 0;
		long ordinal = strtol(text, &end, 10);
		if (end == text || errno || ordinal < 0 || ordinal > 1023 ||
		    (*end && *end != ',') || p->n == MAX_DEVICES)
			return rr__fail(
			    RR_ERR_INVALID_ARG,
			    "--devices '%s': allowed are all or device ordinals such as 0,1 "
			    "(at most %d)",
			    o->devices, MAX_DEVICES);
		p->ordinals[p->n++] = (int)ordinal;
		text = *end ? end + 1 : end;
	}
	return RR_OK;
}

/* Device `ordinal` of the parent's view becomes device 0 of the child's view. */
static void select_gpu(int ordinal)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	char entry[64];
	snprintf(entry, sizeof entry, "%d", ordinal);
	if (visible) {
		const char *p = visible;
		for (int i = 0; i < ordinal && p; i++)
			p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
		if (p) {
			size_t length = strcspn(p, ",");
			snprintf(entry, sizeof entry, "%.*s", (int)(length < 63 ? length : 63), p);
		}
	}
	setenv("CUDA_VISIBLE_DEVICES", entry, 1);
}

static void worker_path(const run *r, int k, char *out, size_t size)
{
	snprintf(out, size, "%s/workers/worker-%d.json", r->options->out, k);
}

static int open_worker(int k, int ordinal, void *ctx)
{
	run *r = ctx;
	r->worker = k;
	const char *backend = r->options->backend ? r->options->backend : "auto";
	if (numbered(backend))
		select_gpu(ordinal);
	if (open_process(r, backend) != RR_OK) {
		fprintf(stderr, "rowreduce: worker %d (device %d): %s\n", k, ordinal,
		        rr_last_error());
		return 2;
	}
	return 0;
}

/* RR_TUNE_TEST_STOP_WORKER=K:N makes worker K (0 in a run without workers) stop dead as it
 * starts its N-th workload: how the tests show that a failing device, or a run stopped from
 * outside, loses only its in-flight workload. */
static void stop_for_test(const run *r)
{
	const char *stop = getenv("RR_TUNE_TEST_STOP_WORKER");
	int worker = -1, nth = -1;
	if (stop && sscanf(stop, "%d:%d", &worker, &nth) == 2 && worker == r->worker &&
	    nth == r->n_outcomes + 1)
		_exit(9);
}

static int worker_item(int index, void *ctx)
{
	run *r = ctx;
	stop_for_test(r);
	if (do_item(index, ctx) != 0)
		return 1;
	/* Written after every workload, so a worker that dies later loses none it finished. */
	char path[4300];
	worker_path(r, r->worker, path, sizeof path);
	if (write_process_results(r, path) != RR_OK) {
		fprintf(stderr, "rowreduce: worker %d: %s\n", r->worker, rr_last_error());
		return 1;
	}
	return 0;
}

static int close_worker(int k, void *ctx)
{
	run *r = ctx;
	char path[4300];
	worker_path(r, k, path, sizeof path);
	rr_status status = write_process_results(r, path);
	if (status != RR_OK)
		fprintf(stderr, "rowreduce: worker %d: %s\n", k, rr_last_error());
	close_process(r);
	return status == RR_OK ? 0 : 2;
}

static rr_status run_workers(run *r, const worker_plan *p, json_t **merged)
{
	char folder[4300], *paths[MAX_DEVICES];
	snprintf(folder, sizeof folder, "%s/workers", r->options->out);
	if (rr__mkdir_p(folder) != RR_OK)
		return rr__fail_context(RR_ERR_IO, "cannot create %s", folder);
	for (int k = 0; k < p->n; k++) {
		paths[k] = malloc(4300);
		if (!paths[k])
			return rr__fail(RR_ERR_NOMEM, "out of memory");
		worker_path(r, k, paths[k], 4300);
		unlink(paths[k]); /* a file of an earlier run must not be merged */
	}
	r->n_workers = p->n;
	r->budget_per_item = r->options->budget_s * p->n / r->n_items;
	int lost = 0;
	fprintf(stderr, "rowreduce: %d workloads shared out over %d worker processes\n", r->n_items,
	        p->n);
	rr_status status = rr__tune_workers_run(p->n, p->ordinals, r->n_items, open_worker,
	                                        worker_item, close_worker, r, &lost);
	rr_status merge = rr__tune_merge_results(paths, p->n, r->results_path, merged);
	for (int k = 0; k < p->n; k++)
		free(paths[k]);
	if (lost)
		fprintf(stderr, "rowreduce: %d workloads were lost with their workers\n", lost);
	if (status == RR_OK && lost)
		status =
		    rr__fail(RR_ERR_DEVICE, "%d workloads were not finished by any worker", lost);
	return status != RR_OK ? status : merge;
}

/* ---------------------------------------------------------------- the summary */

static rr_status summarize(json_t *root)
{
	json_t *tuning = json_object_get(root, "tuning");
	json_t *workloads = json_object_get(tuning, "workloads");
	json_t *summary = json_object_get(tuning, "regret_summary");
	int hits = 0, tuned = 0, failed = 0;
	size_t i;
	json_t *w;
	json_array_foreach(workloads, i, w)
	{
		if (!json_is_true(json_object_get(w, "ok")))
			failed++;
		else if (json_is_true(json_object_get(w, "from_database")))
			hits++;
		else
			tuned++;
	}
	printf("%zu workloads: %d tuned, %d from the database (not measured), %d not tuned\n",
	       json_array_size(workloads), tuned, hits, failed);
	json_t *worst = json_object_get(summary, "worst");
	if (json_is_object(worst))
		printf(
		    "regret (model pick / best - 1) over %lld workloads: median %.2f%%, max %.2f%% "
		    "(worst: %s %s %lldx%lld)\n",
		    (long long)json_integer_value(json_object_get(summary, "workloads")),
		    100 * json_number_value(json_object_get(summary, "median")),
		    100 * json_number_value(json_object_get(summary, "max")),
		    json_string_value(json_object_get(worst, "kernel")),
		    json_string_value(json_object_get(worst, "dtype")),
		    (long long)json_integer_value(json_object_get(worst, "m")),
		    (long long)json_integer_value(json_object_get(worst, "n")));
	else
		printf("regret: no workload has one\n");
	if (failed)
		return rr__fail(RR_ERR_VALIDATION,
		                "%d workloads had no candidate that could be ranked (see above)",
		                failed);
	return RR_OK;
}

static rr_status run_here(run *r, json_t **root)
{
	const char *backend = r->options->backend ? r->options->backend : "auto";
	r->n_workers = 1;
	r->budget_per_item = r->options->budget_s / r->n_items;
	rr_status status = open_process(r, backend);
	for (int i = 0; status == RR_OK && i < r->n_items; i++) {
		stop_for_test(r);
		if (do_item(i, r) != 0)
			status = rr__fail_context(RR_ERR_IO, "tuning stopped");
		/* Written after every workload (atomically), so a run stopped from outside (a time
		 * limit, a lost machine) keeps every workload it finished, candidates included. */
		else if (i + 1 < r->n_items)
			status = write_process_results(r, r->results_path);
	}
	if (r->device && r->db) {
		rr_status written = write_process_results(r, r->results_path);
		status = status == RR_OK ? written : status;
	}
	close_process(r);
	json_error_t error;
	if (status == RR_OK && !(*root = json_load_file(r->results_path, 0, &error)))
		status =
		    rr__fail(RR_ERR_IO, "cannot read back %s: %s", r->results_path, error.text);
	return status;
}

rr_status rr_tune_run(const rr_tune_options *options)
{
	if (!options)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_tune_run: options is NULL");
	run *r = calloc(1, sizeof *r);
	if (!r)
		return rr__fail(RR_ERR_NOMEM, "out of memory");
	r->options = options;
	worker_plan plan;
	rr_status status = prepare(r);
	if (status == RR_OK)
		status = plan_workers(options, &plan);
	rr_tune_db *db = NULL;
	if (status == RR_OK) /* a bad database stops the run before anything is measured */
		status = rr_tune_db_open(options->db_path, 1, &db);
	rr_tune_db_close(db);
	json_t *root = NULL;
	if (status == RR_OK)
		status = plan.n > 0 ? run_workers(r, &plan, &root) : run_here(r, &root);
	if (root) {
		rr_status summary = summarize(root);
		status = status == RR_OK ? summary : status;
		printf("wrote %s\n", r->results_path);
		json_decref(root);
	}
	for (int k = 0; k < r->n_kernels; k++)
		rr_kernel_free(r->kernels[k]);
	rr_shape_list_free(&r->shapes);
	free(r->items);
	free(r->outcomes);
	free(r);
	return status;
}
