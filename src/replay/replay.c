/* rowreduce replay: the plans of two results files, frozen, rebuilt and measured again against
 * each other in rounds whose A/B positions are balanced (ABBA, then BAAB, alternating). Each
 * side is validated in full before it is timed (the bench code's sessions); the statistics and
 * the report come from replay_report.c, so the audit recomputes them with the same code. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/replay.h"

static const char *const side_names[2] = {"reference", "candidate"};

/* One input results file. */
typedef struct side_input {
	char path[4200]; /* the results.json read */
	char *bytes;     /* its exact bytes, copied into the replay's folder */
	size_t size;
	char sha256[65];
	json_t *root;
	rr__results results;
} side_input;

/* One side of one workload during the rounds: its program, session and samples so far. */
typedef struct side_run {
	int source_row; /* the row of the input file */
	int row;        /* the row of the replay's results */
	rr_program *program;
	rr__bench_session *session;
	double *samples[RR__PHASE_COUNT];
	int n_samples[RR__PHASE_COUNT];
	json_t *batches[RR__PHASE_COUNT];
	int unavailable[RR__PHASE_COUNT];
	char reason[RR__PHASE_COUNT][192];
} side_run;

typedef struct workload {
	rr_kernel *kernel;
	side_run side[2];
	int added; /* its two rows exist in the results */
	int open;  /* both sides validated and their sessions open */
	int block; /* workloads whose rounds interleave (run_blocks) */
} workload;

typedef struct replay {
	const rr_replay_options *o;
	int rounds, samples;
	double sample_ms, warmup_ms;
	side_input in[2];
	rr_device *device;
	rr__results out;
	workload *workloads;
	int n_workloads;
	int n_run; /* workloads whose rounds ran: the first n_run (a time limit may stop early) */
	double start; /* rr__now() when the replay began */
	json_t *skipped, *differences;
	rr__buf refusal; /* the first differences, for the message */
	int l2_cold;
	rr_status worst; /* the first row error, reported after the results are written */
} replay;

/* ---------------------------------------------------------------- inputs */

static rr_status read_side(side_input *in, const char *given, const char *name)
{
	struct stat st;
	snprintf(in->path, sizeof in->path, "%s%s", given,
	         stat(given, &st) == 0 && S_ISDIR(st.st_mode) ? "/results.json" : "");
	rr_status status = rr__read_file(in->path, &in->bytes, &in->size);
	if (status != RR_OK)
		return rr__fail_context(status, "cannot read the %s", name);
	rr__sha256_hex(in->bytes, in->size, in->sha256);
	rr__results_kind kind;
	status = rr__json_read_file(in->path, &in->root);
	if (status == RR_OK)
		status = rr__results_kind_of(in->root, &kind);
	if (status != RR_OK)
		return rr__fail_context(status, "the %s '%s' is not a results file", name,
		                        in->path);
	if (kind == RR_RESULTS_PEERS)
		return rr__fail(
		    RR_ERR_UNSUPPORTED,
		    "the %s '%s' holds peers' measurements (bench/peers/torch_peers.py): "
		    "replay rebuilds rowreduce plans and cannot re-run Python peers; for a "
		    "position-balanced A/B against a peer use bench/compare_torch.py (rowreduce "
		    "and the peers in rounds whose order rotates and reverses, paired "
		    "per-round ratios, the same schema) and audit it with rowreduce verify",
		    name, in->path);
	if (kind == RR_RESULTS_TUNE)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "the %s '%s' is a tune run's results (every candidate measured, many "
		    "rows per workload): bench the tuned plans (rowreduce bench --plan "
		    "tuned) and replay that run's results",
		    name, in->path);
	if (kind == RR_RESULTS_REPLAY)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "the %s '%s' is a replay's results: name the results of rowreduce "
		                "bench whose plans are to be replayed",
		                name, in->path);
	status = rr__results_from_json(in->root, &in->results);
	return status == RR_OK ? RR_OK : rr__fail_context(status, "the %s '%s'", name, in->path);
}

/* Records that something this build made differs from what an input recorded. */
static void differ(replay *r, int side, const char *what, const char *label, const char *recorded,
                   const char *now)
{
	json_array_append_new(r->differences, json_pack("{s:s, s:s, s:s?, s:s, s:s}", "side",
	                                                side_names[side], "what", what, "workload",
	                                                label, "recorded", recorded, "now", now));
	if (json_array_size(r->differences) <= 4)
		rr__buf_printf(&r->refusal, "; the %s%s%s of the %s (recorded %.12s…, now %.12s…)",
		               what, label ? " of " : "", label ? label : "", side_names[side],
		               recorded, now);
}

/* ---------------------------------------------------------------- matching and building */

static int same_workload(const rr__row_result *a, const rr__row_result *b)
{
	return strcmp(a->kernel, b->kernel) == 0 && a->dtype == b->dtype && a->rows == b->rows &&
	       a->cols == b->cols;
}

/* Both sides recorded one plan and one generated source: the same kernel runs on each side. */
static int same_kernel(const rr__row_result *a, const rr__row_result *b)
{
	return strcmp(a->plan, b->plan) == 0 && a->source_hash[0] &&
	       strcmp(a->source_hash, b->source_hash) == 0;
}

static void skip(replay *r, const rr__row_result *row, const char *reason)
{
	json_array_append_new(r->skipped,
	                      json_pack("{s:s, s:s, s:I, s:I, s:s}", "kernel", row->kernel, "dtype",
	                                rr_dtype_name(row->dtype), "M", (json_int_t)row->rows, "N",
	                                (json_int_t)row->cols, "reason", reason));
}

/* The row of `results` matching `row`, or -1. */
static int find_row(const rr__results *results, const rr__row_result *row)
{
	for (int i = 0; i < results->n_rows; i++)
		if (same_workload(&results->rows[i], row))
			return i;
	return -1;
}

/* Builds one side with its frozen plan: the plan must rebuild to itself; the kernel text and
 * generated source hashes are compared with the recorded ones. */
static rr_status build_side(replay *r, workload *w, int s, const char *label)
{
	const rr__row_result *row = &r->in[s].results.rows[w->side[s].source_row];
	rr_layout layout;
	rr_status status = rr_layout_parse(row->plan, &layout);
	if (status == RR_OK)
		status = rr_program_build(r->device, w->kernel, row->dtype, row->rows, row->cols,
		                          &layout, &w->side[s].program);
	if (status != RR_OK)
		return rr__fail_context(status, "cannot rebuild %s with the %s's plan '%s'", label,
		                        side_names[s], row->plan);
	char rebuilt[200];
	rr_layout_format(rr_program_layout(w->side[s].program), rebuilt, sizeof rebuilt);
	if (strcmp(rebuilt, row->plan) != 0)
		return rr__fail(RR_ERR_ILLEGAL_LAYOUT,
		                "the %s's frozen plan '%s' of %s rebuilds as '%s': it cannot be "
		                "replayed as recorded",
		                side_names[s], row->plan, label, rebuilt);
	if (strcmp(rr_kernel_source_hash(w->kernel), row->kernel_hash) != 0)
		differ(r, s, "kernel text", label, row->kernel_hash,
		       rr_kernel_source_hash(w->kernel));
	const char *source = rr_program_source_hash(w->side[s].program);
	if (strcmp(source, row->source_hash) != 0)
		differ(r, s, "generated source", label,
		       row->source_hash[0] ? row->source_hash : "none", source);
	return RR_OK;
}

static rr_status add_workload(replay *r, int a_row, int b_row)
{
	const rr__row_result *row = &r->in[0].results.rows[a_row];
	workload *w = &r->workloads[r->n_workloads];
	memset(w, 0, sizeof *w);
	w->side[0].source_row = a_row;
	w->side[1].source_row = b_row;
	char label[200];
	snprintf(label, sizeof label, "%s %s %lldx%lld", row->kernel, rr_dtype_name(row->dtype),
	         (long long)row->rows, (long long)row->cols);
	if (rr_kernel_load_builtin(row->kernel, &w->kernel) != RR_OK)
		return rr__fail(
		    RR_ERR_UNSUPPORTED,
		    "%s: '%s' is not a built-in kernel; results record a kernel's name, "
		    "not its file, so replay rebuilds built-ins only",
		    label, row->kernel);
	r->n_workloads++;
	rr_status status = build_side(r, w, 0, label);
	if (status == RR_OK)
		status = build_side(r, w, 1, label);
	return status;
}

/* 1 when `name` is in the comma-separated `list` (or there is no list). */
static int listed(const char *list, const char *name)
{
	size_t length = strlen(name);
	for (const char *at = list; at && *at;) {
		size_t n = strcspn(at, ",");
		if (n == length && strncmp(at, name, n) == 0)
			return 1;
		at += n + (at[n] == ',');
	}
	return !list;
}

/* Workloads measured in both inputs, in the reference's order; the others are recorded as not
 * replayed with the reason. */
static rr_status match_workloads(replay *r)
{
	const rr__results *a = &r->in[0].results, *b = &r->in[1].results;
	r->workloads = calloc((size_t)(a->n_rows ? a->n_rows : 1), sizeof *r->workloads);
	if (!r->workloads)
		return rr__fail(RR_ERR_NOMEM, "out of memory for %d workloads", a->n_rows);
	for (int i = 0; i < a->n_rows; i++) {
		const rr__row_result *row = &a->rows[i];
		int j = find_row(b, row);
		if (!listed(r->o->kernels, row->kernel) ||
		    !listed(r->o->dtypes, rr_dtype_name(row->dtype)))
			skip(r, row, "left out by --kernels or --dtypes");
		else if (find_row(a, row) != i)
			skip(r, row, "listed twice in the reference: the first is replayed");
		else if (j < 0)
			skip(r, row, "only in the reference");
		else if (row->state != RR_ROW_MEASURED || b->rows[j].state != RR_ROW_MEASURED)
			skip(r, row, "not validated and timed in both inputs");
		else if (r->o->skip_identical && same_kernel(row, &b->rows[j]))
			skip(r, row,
			     "the same plan and generated source on both sides (--skip-identical)");
		else {
			rr_status status = add_workload(r, i, j);
			if (status != RR_OK)
				return status;
		}
	}
	for (int j = 0; j < b->n_rows; j++)
		if (find_row(a, &b->rows[j]) < 0 && listed(r->o->kernels, b->rows[j].kernel) &&
		    listed(r->o->dtypes, rr_dtype_name(b->rows[j].dtype)))
			skip(r, &b->rows[j], "only in the candidate");
	if (r->n_workloads == 0 && r->o->skip_identical && json_array_size(r->skipped) > 0)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "every workload left runs the same plan and generated source on "
		                "both sides (--skip-identical): nothing to replay");
	if (r->n_workloads == 0)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "the two inputs share no workload (kernel, dtype and shape) measured "
		    "in both: nothing to replay");
	return RR_OK;
}

/* ---------------------------------------------------------------- measuring */

static void progress(const replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const replay *r, const char *fmt, ...)
{
	if (!r->o->progress)
		return;
	va_list args;
	va_start(args, fmt);
	vfprintf(r->o->progress, fmt, args);
	va_end(args);
	fflush(r->o->progress);
}

static rr_status append_samples(side_run *side, const rr__phase_result *phases)
{
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		const rr__phase_result *phase = &phases[p];
		if (!phase->available) {
			if (!side->unavailable[p])
				snprintf(side->reason[p], sizeof side->reason[p], "%.150s",
				         phase->reason);
			side->unavailable[p] = 1;
			continue;
		}
		double *grown =
		    realloc(side->samples[p],
		            (size_t)(side->n_samples[p] + phase->n_samples) * sizeof *grown);
		if (!grown)
			return rr__fail(RR_ERR_NOMEM, "out of memory for samples");
		memcpy(grown + side->n_samples[p], phase->samples_us,
		       (size_t)phase->n_samples * sizeof *grown);
		side->samples[p] = grown;
		side->n_samples[p] += phase->n_samples;
		if (!side->batches[p])
			side->batches[p] = json_array();
		json_array_append_new(side->batches[p], json_integer(phase->batch));
	}
	return RR_OK;
}

/* One position of a round: the side's phases measured once more. */
static rr_status measure_position(replay *r, side_run *side)
{
	rr__measure_config config = {
	    .samples = r->samples, .sample_ms = r->sample_ms, .warmup_ms = r->warmup_ms};
	rr__phase_result phases[RR__PHASE_COUNT];
	memset(phases, 0, sizeof phases);
	rr_status status = rr__bench_session_measure(side->session, &config, phases);
	if (status == RR_OK)
		status = append_samples(side, phases);
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_free(&phases[p]);
	return status;
}

/* The side's row once its rounds are done: every phase's samples in the order taken. */
static rr_status finish_side(side_run *side, rr__row_result *row)
{
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		if (side->unavailable[p] || side->n_samples[p] == 0) {
			rr__phase_result_unavailable(
			    &row->phases[p], side->reason[p][0] ? side->reason[p] : "not timed");
			continue;
		}
		rr_status status = rr__phase_result_set_samples(&row->phases[p], side->samples[p],
		                                                side->n_samples[p]);
		if (status != RR_OK)
			return status;
		row->phases[p].batch = json_integer_value(json_array_get(side->batches[p], 0));
		rr__phase_result_summarize(&row->phases[p], row->bytes_min);
	}
	row->state = RR_ROW_MEASURED;
	return RR_OK;
}

static void row_failed(replay *r, rr__row_result *row, rr_status status, const char *why)
{
	row->state = RR_ROW_ERROR;
	snprintf(row->error, sizeof row->error, "%s", why ? why : rr_last_error());
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_unavailable(&row->phases[p], "not timed");
	if (r->worst == RR_OK && status != RR_OK)
		r->worst = status;
}

static void capture_source(replay *r, int s, const side_run *side, rr__row_result *row)
{
	char path[4500];
	snprintf(row->source_file, sizeof row->source_file, "sources/%s-%s-%s-%lldx%lld.%s",
	         side_names[s], row->kernel, rr_dtype_name(row->dtype), (long long)row->rows,
	         (long long)row->cols, r->device->ops->report.source_suffix);
	snprintf(path, sizeof path, "%s/%s", r->o->out_dir, row->source_file);
	const char *source = rr_program_source(side->program);
	if (rr__write_file_atomic(path, source, strlen(source)) != RR_OK) {
		progress(r, "rowreduce: %s\n", rr_last_error());
		row->source_file[0] = 0;
	}
}

static rr__row_result *side_row(replay *r, const workload *w, int s)
{
	return &r->out.rows[w->side[s].row]; /* by index: adding rows may move them */
}

/* Adds the workload's two rows and opens both sides: buffer sets created and validated in full
 * before any timing. w->open says whether both passed. */
static rr_status open_workload(replay *r, workload *w)
{
	rr__bench_options options = {
	    .l2_cold = r->l2_cold, .l2_bytes = r->out.info.l2_bytes_used, .seed = r->out.info.seed};
	for (int s = 0; s < 2; s++) {
		w->side[s].row = r->out.n_rows;
		if (!rr__results_add_row(&r->out))
			return RR_ERR_NOMEM;
	}
	w->added = 1;
	w->open = 1;
	for (int s = 0; s < 2; s++) {
		rr__row_result *row = side_row(r, w, s);
		int64_t m = r->in[s].results.rows[w->side[s].source_row].rows;
		rr_status status = rr__bench_session_open(r->device, w->side[s].program, m,
		                                          &options, row, &w->side[s].session);
		if (r->o->capture_sources)
			capture_source(r, s, &w->side[s], row);
		if (status != RR_OK || !w->side[s].session) {
			w->open = 0;
			if (status != RR_OK && r->worst == RR_OK)
				r->worst = status;
			if (row->state == RR_ROW_INVALID && r->worst == RR_OK)
				r->worst = RR_ERR_VALIDATION;
		}
	}
	return RR_OK;
}

/* One round of one workload: ABBA in even rounds, BAAB in odd ones. */
static void run_round(replay *r, workload *w, int index, int round)
{
	if (!w->open)
		return;
	const char *order = round % 2 == 0 ? "ABBA" : "BAAB";
	const rr__row_result *first = side_row(r, w, 0);
	progress(r, "[%d/%d] %s %s %lldx%lld (%.0f s elapsed): round %d of %d, %s\n", index + 1,
	         r->n_workloads, first->kernel, rr_dtype_name(first->dtype), (long long)first->rows,
	         (long long)first->cols, rr__now() - r->start, round + 1, r->rounds, order);
	for (int k = 0; k < 4 && w->open; k++) {
		rr_status status = measure_position(r, &w->side[order[k] == 'B']);
		if (status != RR_OK) {
			for (int s = 0; s < 2; s++)
				row_failed(r, side_row(r, w, s), status, NULL);
			w->open = 0;
		}
	}
}

/* Fills the rows from the rounds' samples and frees both sides' buffer sets. */
static rr_status close_workload(replay *r, workload *w)
{
	rr_status status = RR_OK;
	if (!w->added)
		return RR_OK;
	for (int s = 0; s < 2; s++) {
		rr__row_result *row = side_row(r, w, s);
		if (w->open && status == RR_OK)
			status = finish_side(&w->side[s], row);
		else if (!w->open && row->state != RR_ROW_ERROR && w->side[s].session)
			row_failed(r, row, RR_OK, "validated, not timed: the other side was not");
		rr__bench_session_close(w->side[s].session);
		w->side[s].session = NULL;
	}
	return status;
}

/* Both sides' buffer sets of a workload, as bench sizes them (one set hot; cold, sets past
 * twice the cache): what a block must hold in memory at once. */
static int64_t workload_bytes(const replay *r, const workload *w)
{
	const rr__row_result *row = &r->in[0].results.rows[w->side[0].source_row];
	int64_t bytes = rr__bytes_min(w->kernel, row->dtype, row->rows, row->cols);
	return 2 * (r->l2_cold ? 2 * r->out.info.l2_bytes_used + 2 * bytes : bytes);
}

/* In the first block only (later blocks must run as many rounds as it did): 1 when one more
 * round, at the mean time of the rounds so far, would end past the time limit. */
static int next_round_past_limit(const replay *r, double block_start, int done)
{
	double limit = r->o->time_limit_s;
	double now = rr__now();
	return limit > 0 && now - r->start + (now - block_start) / done > limit;
}

/* Ends the replay's rounds at `done`: every workload replayed has that many, as recorded. */
static void cut_rounds(replay *r, int done)
{
	progress(r, "rowreduce: time limit of %g s: %d of %d rounds run; the replay keeps %d\n",
	         r->o->time_limit_s, done, r->rounds, done);
	r->rounds = done;
}

/* 1 when a block of `size` workloads, at the mean time per workload of the blocks so far,
 * would end past the time limit. */
static int past_time_limit(const replay *r, double rounds_start, int done, int size)
{
	double limit = r->o->time_limit_s;
	if (limit <= 0)
		return 0;
	double now = rr__now();
	double per_workload = (now - rounds_start) / done;
	return now - r->start + per_workload * size > limit;
}

/* Lists the workloads from `first` on as not replayed, with the limit that stopped them. */
static void stop_for_time(replay *r, int first)
{
	char reason[160];
	snprintf(reason, sizeof reason,
	         "not replayed: its block would have ended past the time limit of %g s",
	         r->o->time_limit_s);
	for (int i = first; i < r->n_workloads; i++)
		skip(r, &r->in[0].results.rows[r->workloads[i].side[0].source_row], reason);
	progress(r, "rowreduce: time limit of %g s: %d of %d workloads replayed, %d left out\n",
	         r->o->time_limit_s, first, r->n_workloads, r->n_workloads - first);
}

/* Workloads whose buffers fit together in a quarter of the device's memory (4 GiB when it does
 * not say) form a block; every round runs every workload of a block before the next round, so
 * a workload's rounds are spread over the block's time, not run back to back. */
static rr_status run_blocks(replay *r)
{
	int64_t memory = r->out.info.device.memory_bytes;
	int64_t budget = memory > 0 ? memory / 4 : (int64_t)4 << 30;
	rr_status status = RR_OK;
	double rounds_start = rr__now();
	for (int first = 0, block = 0; status == RR_OK && first < r->n_workloads; block++) {
		int last = first;
		int64_t used = workload_bytes(r, &r->workloads[first]);
		while (last + 1 < r->n_workloads &&
		       used + workload_bytes(r, &r->workloads[last + 1]) <= budget)
			used += workload_bytes(r, &r->workloads[++last]);
		if (first > 0 && past_time_limit(r, rounds_start, first, last - first + 1)) {
			stop_for_time(r, first);
			break;
		}
		for (int i = first; i <= last && status == RR_OK; i++) {
			r->workloads[i].block = block;
			status = open_workload(r, &r->workloads[i]);
		}
		double block_start = rr__now();
		for (int round = 0; status == RR_OK && round < r->rounds; round++) {
			for (int i = first; i <= last; i++)
				run_round(r, &r->workloads[i], i, round);
			if (first == 0 && round + 1 < r->rounds &&
			    next_round_past_limit(r, block_start, round + 1))
				cut_rounds(r, round + 1);
		}
		for (int i = first; i <= last; i++) {
			rr_status closed = close_workload(r, &r->workloads[i]);
			if (status == RR_OK)
				status = closed;
		}
		first = last + 1;
		r->n_run = first;
	}
	return status;
}

/* ---------------------------------------------------------------- the report */

static void side_extras(const replay *r, const workload *w, int s, json_t *row)
{
	const side_run *side = &w->side[s];
	const rr__row_result *source = &r->in[s].results.rows[side->source_row];
	json_object_set_new(row, "side", json_string(side_names[s]));
	json_object_set_new(row, "workload", json_integer(w - r->workloads));
	json_object_set_new(row, "source_row", json_integer(side->source_row));
	json_object_set_new(row, "frozen_plan", json_string(source->plan));
	json_object_set_new(row, "recorded_source_sha256", json_string(source->source_hash));
	json_object_set_new(row, "recorded_binary_sha256", json_string(source->binary_hash));
	json_t *phases = json_object_get(row, "phases");
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		json_t *phase = json_object_get(phases, rr__phase_name((rr__phase_id)p));
		if (!json_is_true(json_object_get(phase, "available")))
			continue;
		json_object_set_new(phase, "rounds", json_integer(r->rounds));
		json_object_set_new(phase, "samples_per_round", json_integer(2 * r->samples));
		json_object_set(phase, "batches", side->batches[p]);
	}
}

static json_t *side_json(const replay *r, int s)
{
	const side_input *in = &r->in[s];
	const char *given = s ? r->o->candidate : r->o->reference;
	char copy[32];
	snprintf(copy, sizeof copy, "%s.json", side_names[s]);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "path", given, "copy", copy,
	                 "sha256", in->sha256, "start_time", in->results.info.start_time,
	                 "command_line", in->results.info.command_line, "backend",
	                 in->results.info.backend, "library_sha256",
	                 in->results.info.library_sha256);
}

static json_t *workloads_json(const replay *r)
{
	json_t *list = json_array();
	for (int i = 0; i < r->n_run; i++) {
		const workload *w = &r->workloads[i];
		const rr__row_result *row = &r->in[0].results.rows[w->side[0].source_row];
		json_t *entry = json_pack("{s:s, s:s, s:I, s:I}", "kernel", row->kernel, "dtype",
		                          rr_dtype_name(row->dtype), "M", (json_int_t)row->rows,
		                          "N", (json_int_t)row->cols);
		for (int s = 0; s < 2; s++)
			json_object_set_new(
			    entry, side_names[s],
			    json_pack("{s:i, s:i, s:s}", "source_row", w->side[s].source_row, "row",
			              w->side[s].row, "frozen_plan",
			              r->in[s].results.rows[w->side[s].source_row].plan));
		json_t *orders = json_array();
		for (int round = 0; round < r->rounds; round++)
			json_array_append_new(orders,
			                      json_string(round % 2 == 0 ? "ABBA" : "BAAB"));
		json_object_set_new(entry, "orders", orders);
		json_object_set_new(entry, "block", json_integer(w->block));
		json_object_set_new(entry, "phases", json_object());
		json_array_append_new(list, entry);
	}
	return list;
}

static json_t *replay_tree(replay *r)
{
	json_t *root = rr__results_to_json(&r->out);
	if (!root)
		return NULL;
	json_object_set_new(root, "kind", json_string("replay"));
	json_t *protocol = json_object_get(root, "protocol");
	json_object_set_new(protocol, "rounds", json_integer(r->rounds));
	json_object_set_new(protocol, "rounds_requested",
	                    json_integer(r->o->rounds ? r->o->rounds : 4));
	json_object_set_new(protocol, "time_limit_s",
	                    r->o->time_limit_s > 0 ? json_real(r->o->time_limit_s) : json_null());
	json_object_set_new(
	    protocol, "order",
	    json_string("each round runs every workload of a block (workloads "
	                "whose buffers fit together in a quarter of the device "
	                "memory; replay.workloads[].block), its sides reference (A) "
	                "and candidate (B) as ABBA in even rounds (0, 2, ...) and "
	                "BAAB in odd ones; samples is per position"));
	json_object_set_new(protocol, "statistic",
	                    json_string("per side and phase the median over rounds of each round's "
	                                "median (2 x samples values); per workload the median of "
	                                "paired per-round ratios reference / candidate, with their "
	                                "min and max"));
	json_object_set_new(
	    protocol, "bootstrap",
	    r->o->bootstrap > 0
	        ? json_pack("{s:i, s:f, s:I}", "resamples", r->o->bootstrap, "confidence", 0.95,
	                    "seed", (json_int_t)(r->o->bootstrap_seed ? r->o->bootstrap_seed : 1))
	        : json_null());
	json_t *rows = json_object_get(root, "rows");
	for (int i = 0; i < r->n_run; i++)
		for (int s = 0; s < 2; s++)
			side_extras(r, &r->workloads[i], s,
			            json_array_get(rows, (size_t)r->workloads[i].side[s].row));
	json_t *section = json_object();
	json_object_set_new(section, "reference", side_json(r, 0));
	json_object_set_new(section, "candidate", side_json(r, 1));
	json_object_set_new(section, "allow_rebuild", json_boolean(r->o->allow_rebuild));
	json_object_set_new(section, "skip_identical", json_boolean(r->o->skip_identical));
	json_object_set(section, "differences", r->differences);
	json_object_set(section, "skipped", r->skipped);
	json_object_set_new(section, "headline_phase",
	                    json_string(rr__phase_name(rr__results_headline_phase(&r->out))));
	json_object_set_new(section, "workloads", workloads_json(r));
	json_object_set_new(root, "replay", section);
	if (rr__replay_summarize(root) != RR_OK) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static rr_status write_outputs(replay *r)
{
	char path[4300];
	rr_status status = RR_OK;
	for (int s = 0; s < 2 && status == RR_OK; s++) {
		snprintf(path, sizeof path, "%s/%s.json", r->o->out_dir, side_names[s]);
		status = rr__write_file_atomic(path, r->in[s].bytes, r->in[s].size);
	}
	json_t *root = status == RR_OK ? replay_tree(r) : NULL;
	if (status == RR_OK && !root)
		status = rr__fail_context(RR_ERR_INTERNAL, "cannot assemble the replay's results");
	char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
	rr__buf md = {0};
	if (status == RR_OK && text) {
		snprintf(path, sizeof path, "%s/results.json", r->o->out_dir);
		rr__buf json = {0};
		rr__buf_printf(&json, "%s\n", text);
		status = json.failed ? rr__fail(RR_ERR_NOMEM, "out of memory")
		                     : rr__write_file_atomic(path, json.data, json.length);
		rr__buf_free(&json);
	}
	if (status == RR_OK)
		status = rr__replay_format_md(root, &md);
	if (status == RR_OK) {
		snprintf(path, sizeof path, "%s/results.md", r->o->out_dir);
		status = rr__write_file_atomic(path, md.data ? md.data : "", md.length);
	}
	free(text);
	rr__buf_free(&md);
	json_decref(root);
	return status;
}

/* ---------------------------------------------------------------- the run */

static rr_status check_options(replay *r)
{
	const rr_replay_options *o = r->o;
	if (!o->reference || !o->candidate || !o->out_dir)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "a replay needs a reference, a candidate and an "
		                "output folder");
	r->rounds = o->rounds ? o->rounds : 4;
	r->samples = o->samples ? o->samples : 9;
	r->sample_ms = o->sample_ms > 0 ? o->sample_ms : 30;
	r->warmup_ms = o->warmup_ms > 0 ? o->warmup_ms : 200;
	if (r->rounds < 1 || r->rounds > 1000 || r->samples < 1 || r->samples > 100000 ||
	    o->bootstrap < 0 || o->bootstrap > 1000000 || o->sample_ms < 0 || o->warmup_ms < 0)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "rounds must be 1..1000, samples 1..100000, bootstrap 0..1000000 and "
		    "the times non-negative (got %d, %d, %d)",
		    o->rounds, o->samples, o->bootstrap);
	if (o->l2 && strcmp(o->l2, "hot") != 0 && strcmp(o->l2, "cold") != 0)
		return rr__fail(RR_ERR_INVALID_ARG, "l2 '%s' is not hot or cold", o->l2);
	return RR_OK;
}

/* Backend, L2 mode, seed and library: what the inputs recorded must agree. */
static rr_status settle_protocol(replay *r)
{
	const rr__run_info *a = &r->in[0].results.info, *b = &r->in[1].results.info;
	if (strcmp(a->backend, b->backend) != 0)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "the reference was measured on %s and the candidate on %s: a replay "
		    "runs both sides on one backend",
		    a->backend, b->backend);
	const char *backend = r->o->backend ? r->o->backend : a->backend;
	rr_status status = rr_device_open(backend, &r->device);
	if (status != RR_OK)
		return rr__fail_context(status, "cannot open backend '%s'", backend);
	if (strcmp(rr_device_backend(r->device), a->backend) != 0)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "the inputs were measured on %s, but backend '%s' is %s: plans are "
		                "replayed on the backend they were chosen for",
		                a->backend, backend, rr_device_backend(r->device));
	if (!r->o->l2 && a->l2_cold != b->l2_cold)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "the inputs were measured with different L2 modes: choose one with "
		                "--l2 hot|cold");
	r->l2_cold = r->o->l2 ? strcmp(r->o->l2, "cold") == 0 : a->l2_cold;
	rr__run_info *info = &r->out.info;
	status = rr__run_info_collect(info, r->device, r->o->argc, r->o->argv);
	info->samples = r->samples;
	info->sample_ms = r->sample_ms;
	info->warmup_ms = r->warmup_ms;
	info->seed = a->seed;
	info->l2_cold = r->l2_cold;
	info->l2_bytes_used = rr__bench_l2_bytes(r->device);
	snprintf(info->plan_request, sizeof info->plan_request, "frozen");
	for (int s = 0; s < 2; s++) {
		const char *recorded = r->in[s].results.info.library_sha256;
		if (strcmp(recorded, info->library_sha256) != 0)
			differ(r, s, "library", NULL, recorded[0] ? recorded : "none",
			       info->library_sha256);
	}
	return status;
}

static rr_status check_out_dir(const char *dir, int capture)
{
	char probe[4300];
	rr_status status = rr__mkdir_p(dir);
	if (status != RR_OK)
		return rr__fail_context(status, "--out '%s' cannot be used", dir);
	snprintf(probe, sizeof probe, "%s/.rowreduce-write-probe", dir);
	status = rr__write_file_atomic(probe, "", 0);
	if (status != RR_OK)
		return rr__fail_context(status, "--out '%s' is not writable", dir);
	unlink(probe);
	snprintf(probe, sizeof probe, "%s/sources", dir);
	return capture ? rr__mkdir_p(probe) : RR_OK;
}

static rr_status prepare(replay *r)
{
	rr_status status = check_options(r);
	for (int s = 0; s < 2 && status == RR_OK; s++)
		status = read_side(&r->in[s], s ? r->o->candidate : r->o->reference, side_names[s]);
	if (status == RR_OK)
		status = check_out_dir(r->o->out_dir, r->o->capture_sources);
	if (status == RR_OK)
		status = settle_protocol(r);
	if (status == RR_OK)
		status = match_workloads(r);
	if (status == RR_OK && json_array_size(r->differences) && !r->o->allow_rebuild) {
		size_t n = json_array_size(r->differences);
		status = rr__fail(
		    RR_ERR_INVALID_ARG,
		    "refusing to replay: %zu recorded hash%s differ%s from this build%s%s; "
		    "--allow-rebuild replays anyway and records every difference",
		    n, n == 1 ? "" : "es", n == 1 ? "s" : "",
		    r->refusal.data ? r->refusal.data : "", n > 4 ? "; ..." : "");
	}
	return status;
}

static void release(replay *r)
{
	for (int i = 0; i < r->n_workloads; i++) {
		workload *w = &r->workloads[i];
		for (int s = 0; s < 2; s++) {
			rr__bench_session_close(w->side[s].session);
			rr_program_free(w->side[s].program);
			for (int p = 0; p < RR__PHASE_COUNT; p++) {
				free(w->side[s].samples[p]);
				json_decref(w->side[s].batches[p]);
			}
		}
		rr_kernel_free(w->kernel);
	}
	free(r->workloads);
	for (int s = 0; s < 2; s++) {
		free(r->in[s].bytes);
		json_decref(r->in[s].root);
		rr__results_free(&r->in[s].results);
	}
	rr__results_free(&r->out);
	json_decref(r->skipped);
	json_decref(r->differences);
	rr__buf_free(&r->refusal);
	rr_device_close(r->device);
}

rr_status rr_replay_run(const rr_replay_options *options)
{
	if (!options)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_replay_run needs options");
	replay r = {.o = options, .skipped = json_array(), .differences = json_array()};
	r.start = rr__now();
	rr_status status = prepare(&r);
	if (status == RR_OK)
		status = run_blocks(&r);
	r.out.info.wall_seconds = rr__now() - r.start;
	if (status == RR_OK)
		status = write_outputs(&r);
	if (status == RR_OK && r.worst != RR_OK)
		status =
		    r.worst == RR_ERR_VALIDATION
		        ? rr__fail(RR_ERR_VALIDATION,
		                   "a side failed validation: recorded in the results, not timed")
		        : rr__fail(r.worst, "a side could not be measured: recorded in the "
		                            "results");
	release(&r);
	return status;
}
