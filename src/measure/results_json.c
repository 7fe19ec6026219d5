/* results.json (docs/results-schema.md): raw samples with every statistic derived from them,
 * plus the provenance a later audit needs (command line, device, versions, hashes). Also the
 * small bookkeeping of a results set (rows, ceilings) that every writer shares. */
#define _GNU_SOURCE /* dladdr: which file the library code was loaded from */
#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/measure.h"

#define SCHEMA_VERSION 1

/* ---------------------------------------------------------------- bookkeeping */

const char *rr__ceiling_name(rr__ceiling_id ceiling)
{
	return ceiling == RR_CEILING_COPY ? "copy" : "read";
}

rr__row_result *rr__results_add_row(rr__results *results)
{
	if (results->n_rows == results->cap_rows) {
		int capacity = results->cap_rows ? 2 * results->cap_rows : 16;
		rr__row_result *rows = realloc(results->rows, (size_t)capacity * sizeof *rows);
		if (!rows) {
			rr__fail(RR_ERR_NOMEM, "out of memory for %d result rows", capacity);
			return NULL;
		}
		results->rows = rows;
		results->cap_rows = capacity;
	}
	rr__row_result *row = &results->rows[results->n_rows++];
	memset(row, 0, sizeof *row);
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		row->phases[p].fraction = -1;
	return row;
}

void rr__results_free(rr__results *results)
{
	for (int i = 0; i < results->n_rows; i++)
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			rr__phase_result_free(&results->rows[i].phases[p]);
	for (int c = 0; c < RR__CEILING_COUNT; c++)
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			rr__phase_result_free(&results->ceilings[c].phases[p]);
	free(results->rows);
	for (int i = 0; i < results->info.argc; i++)
		free(results->info.argv[i]);
	free(results->info.argv);
	free(results->info.command_line);
	memset(results, 0, sizeof *results);
}

int rr__ceiling_best(const rr__ceiling_result *ceiling, double *tbps)
{
	int best = -1;
	*tbps = 0;
	if (!ceiling->measured)
		return -1;
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		const rr__phase_result *phase = &ceiling->phases[p];
		if (phase->available && isfinite(phase->tbps) && phase->tbps > *tbps) {
			*tbps = phase->tbps;
			best = p;
		}
	}
	return best;
}

void rr__results_apply_ceilings(rr__results *results)
{
	for (int i = 0; i < results->n_rows; i++) {
		rr__row_result *row = &results->rows[i];
		double limit;
		int best = rr__ceiling_best(&results->ceilings[row->ceiling], &limit);
		for (int p = 0; p < RR__PHASE_COUNT; p++) {
			rr__phase_result *phase = &row->phases[p];
			phase->fraction = -1;
			if (best >= 0 && phase->available && phase->tbps > 0)
				phase->fraction = phase->tbps / limit;
		}
	}
}

const rr__backend_report *rr__results_report(const rr__results *results)
{
	return results->info.report ? results->info.report : &rr__cpu_backend.report;
}

double rr__report_bandwidth(const rr__backend_report *report, double tbps)
{
	return tbps * 1e6 / report->bandwidth_bytes_per_us;
}

rr__phase_id rr__results_headline_phase(const rr__results *results)
{
	return rr__results_report(results)->headline_on_device ? RR_PHASE_GPU : RR_PHASE_E2E;
}

/* ---------------------------------------------------------------- provenance */

static char *join_argv(int argc, char **argv)
{
	rr__buf buf = {0};
	for (int i = 0; i < argc; i++)
		rr__buf_printf(&buf, "%s%s", i ? " " : "", argv[i]);
	if (buf.failed || !buf.data) {
		rr__buf_free(&buf);
		return strdup("");
	}
	return buf.data;
}

/* The process's own argv from /proc (argv[0] included, exactly as typed); the caller's argv
 * when /proc is absent. */
static void collect_argv(rr__run_info *info, int argc, char **argv)
{
	char *data = NULL;
	size_t size = 0;
	if (rr__read_file("/proc/self/cmdline", &data, &size) == RR_OK && size > 0) {
		int count = 0;
		for (size_t i = 0; i < size; i++)
			count += data[i] == 0;
		if (data[size - 1] != 0)
			count++;
		info->argv = calloc((size_t)count, sizeof *info->argv);
		for (size_t at = 0; info->argv && at < size && info->argc < count;) {
			info->argv[info->argc++] = strdup(data + at);
			at += strlen(data + at) + 1;
		}
		free(data);
		if (info->argv)
			goto joined;
	}
	free(data);
	rr__clear_error();
	info->argv = calloc((size_t)argc + 1, sizeof *info->argv);
	if (info->argv) {
		for (int i = 0; i < argc; i++)
			info->argv[info->argc++] = strdup(argv[i]);
	}
joined:
	for (int i = 0; i < info->argc; i++)
		if (!info->argv[i])
			info->argv[i] = strdup("");
	info->command_line = join_argv(info->argc, info->argv);
}

static void collect_hashes(rr__run_info *info)
{
	char exe[PATH_MAX];
	if (realpath("/proc/self/exe", exe)) {
		snprintf(info->binary_path, sizeof info->binary_path, "%s", exe);
		if (rr__sha256_file(exe, info->binary_sha256) != RR_OK)
			snprintf(info->binary_sha256, sizeof info->binary_sha256, "unknown");
	}
	Dl_info where;
	char library[PATH_MAX];
	if (dladdr((void *)rr_version, &where) && where.dli_fname &&
	    realpath(where.dli_fname, library) && strcmp(library, exe) != 0) {
		snprintf(info->library_path, sizeof info->library_path, "%s", library);
		if (rr__sha256_file(library, info->library_sha256) != RR_OK)
			snprintf(info->library_sha256, sizeof info->library_sha256, "unknown");
	} else {
		info->library_static = 1;
		snprintf(info->library_path, sizeof info->library_path, "%s", info->binary_path);
		memcpy(info->library_sha256, info->binary_sha256, sizeof info->library_sha256);
	}
	rr__clear_error();
}

static void collect_device(rr__run_info *info, rr_device *device)
{
	snprintf(info->backend, sizeof info->backend, "%s", device->ops->name);
	info->report = &device->ops->report;
	snprintf(info->device_description, sizeof info->device_description, "%s", device->name);
	if (!device->ops->properties || device->ops->properties(device, &info->device) != RR_OK) {
		memset(&info->device, 0, sizeof info->device);
		snprintf(info->device.name, sizeof info->device.name, "%.127s", device->name);
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		info->device.multiprocessors = cpus > 0 ? (int)cpus : 0;
		rr__clear_error();
	}
}

rr_status rr__run_info_collect(rr__run_info *info, rr_device *device, int argc, char **argv)
{
	collect_argv(info, argc, argv);
	if (!info->command_line)
		return rr__fail(RR_ERR_NOMEM, "out of memory recording the command line");
	time_t now = time(NULL);
	struct tm utc;
	gmtime_r(&now, &utc);
	strftime(info->start_time, sizeof info->start_time, "%Y-%m-%dT%H:%M:%SZ", &utc);
	if (gethostname(info->host, sizeof info->host) != 0)
		snprintf(info->host, sizeof info->host, "unknown");
	info->host[sizeof info->host - 1] = 0;
#if defined(__clang__)
	snprintf(info->build_compiler, sizeof info->build_compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
	snprintf(info->build_compiler, sizeof info->build_compiler, "gcc %s", __VERSION__);
#else
	snprintf(info->build_compiler, sizeof info->build_compiler, "unknown");
#endif
	snprintf(info->version, sizeof info->version, "%s", rr_version());
	snprintf(info->git_commit, sizeof info->git_commit, "%s", rr_git_commit());
	collect_hashes(info);
	if (device)
		collect_device(info, device);
	return RR_OK;
}

/* ---------------------------------------------------------------- JSON */

/* Jansson cannot encode NaN or infinity: those become null. */
static json_t *number(double value)
{
	return isfinite(value) ? json_real(value) : json_null();
}

static json_t *text_or_null(const char *text)
{
	return text && text[0] ? json_string(text) : json_null();
}

static json_t *phase_json(const rr__phase_result *phase)
{
	json_t *object = json_object();
	json_object_set_new(object, "available", json_boolean(phase->available));
	if (!phase->available) {
		json_object_set_new(object, "reason", json_string(phase->reason));
		return object;
	}
	json_t *samples = json_array();
	for (int i = 0; i < phase->n_samples; i++)
		json_array_append_new(samples, number(phase->samples_us[i]));
	json_object_set_new(object, "batch", json_integer(phase->batch));
	json_object_set_new(object, "samples_us", samples);
	json_object_set_new(object, "median_us", number(phase->median_us));
	json_object_set_new(object, "min_us", number(phase->min_us));
	json_object_set_new(object, "max_us", number(phase->max_us));
	json_object_set_new(object, "tbps", number(phase->tbps));
	json_object_set_new(object, "fraction_of_ceiling",
	                    phase->fraction >= 0 ? number(phase->fraction) : json_null());
	return object;
}

static json_t *phases_json(const rr__phase_result *phases)
{
	json_t *object = json_object();
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		json_object_set_new(object, rr__phase_name((rr__phase_id)p),
		                    phase_json(&phases[p]));
	return object;
}

static json_t *device_json(const rr__run_info *info)
{
	const rr__device_properties *d = &info->device;
	json_t *object = json_object();
	char cc[16];
	snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
	json_object_set_new(object, "description", json_string(info->device_description));
	json_object_set_new(object, "name", json_string(d->name));
	json_object_set_new(object, "uuid", text_or_null(d->uuid));
	json_object_set_new(object, "compute_capability",
	                    d->cc_major ? json_string(cc) : json_null());
	json_object_set_new(object, "multiprocessors", json_integer(d->multiprocessors));
	json_object_set_new(object, "memory_bytes", json_integer(d->memory_bytes));
	json_object_set_new(object, "l2_bytes", json_integer(d->l2_bytes));
	json_object_set_new(object, "sm_clock_mhz_at_start", json_integer(d->sm_clock_mhz));
	json_object_set_new(object, "mem_clock_mhz_at_start", json_integer(d->mem_clock_mhz));
	return object;
}

static json_t *provenance_json(const rr__run_info *info, json_t *root)
{
	json_t *argv = json_array();
	for (int i = 0; i < info->argc; i++)
		json_array_append_new(argv, json_string(info->argv[i]));
	json_object_set_new(root, "command_line",
	                    json_string(info->command_line ? info->command_line : ""));
	json_object_set_new(root, "argv", argv);
	json_object_set_new(root, "start_time", json_string(info->start_time));
	json_object_set_new(root, "wall_seconds", number(info->wall_seconds));
	json_object_set_new(root, "host", json_string(info->host));
	json_object_set_new(root, "backend", json_string(info->backend));
	json_object_set_new(root, "device", device_json(info));
	json_object_set_new(root, "versions",
	                    json_pack("{s:s, s:s, s:o, s:o, s:s}", "rowreduce", info->version,
	                              "git_commit", info->git_commit, "driver",
	                              text_or_null(info->device.driver_version), "kernel_compiler",
	                              text_or_null(info->device.compiler_version), "build_compiler",
	                              info->build_compiler));
	json_object_set_new(
	    root, "binary",
	    json_pack("{s:s, s:s}", "path", info->binary_path, "sha256", info->binary_sha256));
	json_object_set_new(
	    root, "library",
	    json_pack("{s:s, s:s, s:s, s:s}", "linkage", info->library_static ? "static" : "shared",
	              "path", info->library_path, "sha256", info->library_sha256, "note",
	              info->library_static ? "the library is linked into the binary: its hash "
	                                     "is the binary's"
	                                   : "the shared library the code was loaded from"));
	return root;
}

static json_t *protocol_json(const rr__run_info *info)
{
	json_t *names = json_array();
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		json_array_append_new(names, json_string(rr__phase_name((rr__phase_id)p)));
	json_t *l2 =
	    json_pack("{s:s, s:I, s:I}", "mode", info->l2_cold ? "cold" : "hot", "l2_bytes",
	              (json_int_t)info->l2_bytes_used, "working_set_target_bytes",
	              (json_int_t)(info->l2_cold ? 2 * info->l2_bytes_used : 0));
	return json_pack("{s:i, s:o, s:o, s:I, s:s, s:o, s:o, s:s, s:s}", "samples", info->samples,
	                 "sample_ms", number(info->sample_ms), "warmup_ms", number(info->warmup_ms),
	                 "seed", (json_int_t)info->seed, "plan",
	                 info->plan_request[0] ? info->plan_request : "auto", "phases", names, "l2",
	                 l2, "sample_unit", "us_per_op", "statistic",
	                 "median over samples; single and single_gpu samples are each the p50 of "
	                 "`batch` single launches");
}

static json_t *ceiling_json(const rr__ceiling_result *ceiling, rr__ceiling_id id)
{
	json_t *object = json_object();
	json_object_set_new(object, "measured", json_boolean(ceiling->measured));
	json_object_set_new(object, "error", text_or_null(ceiling->error));
	json_object_set_new(object, "description", json_string(ceiling->description));
	json_object_set_new(object, "bytes", json_integer(ceiling->bytes));
	json_object_set_new(object, "bytes_counted",
	                    json_string(id == RR_CEILING_COPY ? "read+write" : "read"));
	json_object_set_new(object, "M", json_integer(ceiling->rows));
	json_object_set_new(object, "N", json_integer(ceiling->cols));
	json_object_set_new(object, "phases", phases_json(ceiling->phases));
	double best_tbps;
	int best = rr__ceiling_best(ceiling, &best_tbps);
	json_object_set_new(object, "best_tbps", best >= 0 ? number(best_tbps) : json_null());
	json_object_set_new(object, "best_phase",
	                    best >= 0 ? json_string(rr__phase_name((rr__phase_id)best))
	                              : json_null());
	return object;
}

static json_t *validation_json(const rr__validation_summary *v)
{
	json_t *failure = json_null();
	if (!v->valid)
		failure =
		    json_pack("{s:i, s:s, s:I, s:I, s:o, s:o, s:o}", "set", v->failed_set, "output",
		              v->failed_output, "row", (json_int_t)v->failed_row, "col",
		              (json_int_t)v->failed_col, "got", number(v->failed_got), "expected",
		              number(v->failed_expected), "tolerance", number(v->failed_tolerance));
	return json_pack("{s:b, s:I, s:I, s:o, s:o, s:o}", "valid", v->valid, "validated",
	                 (json_int_t)v->validated, "total", (json_int_t)v->total, "max_abs_error",
	                 number(v->max_abs_error), "max_rel_error", number(v->max_rel_error),
	                 "first_failure", failure);
}

static const char *state_name(rr__row_state state)
{
	return state == RR_ROW_MEASURED  ? "measured"
	       : state == RR_ROW_INVALID ? "invalid"
	                                 : "error";
}

static json_t *row_json(const rr__row_result *row, const rr__run_info *info)
{
	json_t *object = json_object();
	json_object_set_new(object, "state", json_string(state_name(row->state)));
	json_object_set_new(object, "error", text_or_null(row->error));
	json_object_set_new(object, "kernel", json_string(row->kernel));
	json_object_set_new(object, "kernel_source_sha256", json_string(row->kernel_hash));
	json_object_set_new(object, "dtype", json_string(rr_dtype_name(row->dtype)));
	json_object_set_new(object, "M", json_integer(row->rows));
	json_object_set_new(object, "N", json_integer(row->cols));
	json_object_set_new(object, "plan", json_string(row->plan));
	json_object_set_new(object, "source_sha256", text_or_null(row->source_hash));
	json_object_set_new(object, "binary_sha256", text_or_null(row->binary_hash));
	json_object_set_new(object, "source_file", text_or_null(row->source_file));
	json_object_set_new(
	    object, "l2",
	    json_pack("{s:s, s:i, s:I, s:b}", "mode", info->l2_cold ? "cold" : "hot", "buffer_sets",
	              row->buffer_sets, "working_set_bytes", (json_int_t)row->working_set_bytes,
	              "over_twice_l2", row->working_set_bytes > 2 * info->l2_bytes_used));
	json_object_set_new(object, "validation", validation_json(&row->validation));
	json_object_set_new(object, "bytes_min", json_integer(row->bytes_min));
	json_object_set_new(object, "ceiling", json_string(rr__ceiling_name(row->ceiling)));
	json_object_set_new(object, "phases", phases_json(row->phases));
	return object;
}

json_t *rr__results_to_json(const rr__results *results)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema_version", json_integer(SCHEMA_VERSION));
	json_object_set_new(root, "tool", json_string("rowreduce"));
	provenance_json(&results->info, root);
	json_object_set_new(root, "protocol", protocol_json(&results->info));
	json_t *ceilings = json_object();
	json_object_set_new(ceilings, "requested", json_boolean(results->info.ceilings_requested));
	for (int c = 0; c < RR__CEILING_COUNT; c++)
		json_object_set_new(ceilings, rr__ceiling_name((rr__ceiling_id)c),
		                    results->info.ceilings_requested
		                        ? ceiling_json(&results->ceilings[c], (rr__ceiling_id)c)
		                        : json_null());
	json_object_set_new(root, "ceilings", ceilings);
	json_t *rows = json_array();
	int counts[3] = {0, 0, 0};
	for (int i = 0; i < results->n_rows; i++) {
		json_array_append_new(rows, row_json(&results->rows[i], &results->info));
		counts[results->rows[i].state]++;
	}
	json_object_set_new(root, "rows", rows);
	json_object_set_new(root, "summary",
	                    json_pack("{s:i, s:i, s:i, s:i}", "rows", results->n_rows, "measured",
	                              counts[RR_ROW_MEASURED], "invalid", counts[RR_ROW_INVALID],
	                              "errors", counts[RR_ROW_ERROR]));
	return root;
}

rr_status rr__results_write_json(const rr__results *results, const char *path)
{
	json_t *root = rr__results_to_json(results);
	char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
	json_decref(root);
	if (!text)
		return rr__fail(RR_ERR_NOMEM, "out of memory formatting '%s'", path);
	size_t length = strlen(text);
	rr__buf buf = {0};
	rr__buf_append(&buf, text, length);
	rr__buf_append(&buf, "\n", 1);
	free(text);
	if (buf.failed) {
		rr__buf_free(&buf);
		return rr__fail(RR_ERR_NOMEM, "out of memory formatting '%s'", path);
	}
	rr_status status = rr__write_file_atomic(path, buf.data, buf.length);
	rr__buf_free(&buf);
	return status;
}
