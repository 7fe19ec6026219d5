/* Reading a results.json back into the measurement structures, strictly: every key the schema
 * names is type-checked, and the first wrong one fails naming its JSON path, so an audit never
 * runs on a half-understood file. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

rr_status rr__json_read_file(const char *path, json_t **out)
{
	char *text = NULL;
	size_t size = 0;
	*out = NULL;
	rr_status status = rr__read_file(path, &text, &size);
	if (status != RR_OK)
		return status;
	json_error_t error;
	*out = json_loadb(text, size, JSON_REJECT_DUPLICATES, &error);
	free(text);
	if (!*out)
		return rr__fail(RR_ERR_PARSE, "%s:%d:%d: not valid JSON: %s", path, error.line,
		                error.column, error.text);
	return RR_OK;
}

rr_status rr__results_kind_of(const json_t *root, rr__results_kind *kind)
{
	const char *tool = json_string_value(json_object_get(root, "tool"));
	const char *name = json_string_value(json_object_get(root, "kind"));
	if (!json_is_object(root) || !tool)
		return rr__fail(RR_ERR_PARSE, "not a results file: no \"tool\" string at the top");
	if (strcmp(tool, "rowreduce-peers") == 0) {
		*kind = RR_RESULTS_PEERS;
		return RR_OK;
	}
	if (strcmp(tool, "rowreduce") != 0)
		return rr__fail(RR_ERR_PARSE,
		                "\"tool\" is '%s': allowed are rowreduce and rowreduce-peers",
		                tool);
	if (!name && json_is_object(json_object_get(root, "tuning")))
		*kind = RR_RESULTS_TUNE;
	else if (!name || strcmp(name, "bench") == 0)
		*kind = RR_RESULTS_BENCH;
	else if (strcmp(name, "replay") == 0)
		*kind = RR_RESULTS_REPLAY;
	else
		return rr__fail(RR_ERR_PARSE, "\"kind\" is '%s': allowed are bench and replay",
		                name);
	return RR_OK;
}

void rr__row_label(const rr__row_result *row, int index, char *out, size_t size)
{
	snprintf(out, size, "rows[%d] (%s %s %lldx%lld)", index, row->kernel,
	         rr_dtype_name(row->dtype), (long long)row->rows, (long long)row->cols);
}

/* ---------------------------------------------------------------- a strict reader */

/* Remembers the first failure; every later call does nothing, so loaders read straight on. */
typedef struct reader {
	rr_status status;
} reader;

static const char *type_name(const json_t *value)
{
	switch (json_typeof(value)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "?";
}

/* The value at object.key, or NULL after recording why (absent, or of the wrong type). */
static const json_t *get(reader *r, const json_t *object, const char *where, const char *key,
                         json_type type, int nullable)
{
	if (r->status != RR_OK)
		return NULL;
	const json_t *value = json_object_get(object, key);
	const char *dot = where[0] ? "." : "";
	if (!value) {
		r->status = rr__fail(RR_ERR_PARSE, "%s%s%s is missing", where, dot, key);
		return NULL;
	}
	if (json_is_null(value) && nullable)
		return NULL;
	int ok = json_typeof(value) == type || (type == JSON_REAL && json_is_integer(value)) ||
	         (type == JSON_TRUE && json_is_boolean(value));
	if (!ok) {
		const char *want = type == JSON_REAL      ? "a number"
		                   : type == JSON_INTEGER ? "an integer"
		                   : type == JSON_STRING  ? "a string"
		                   : type == JSON_TRUE    ? "a boolean"
		                   : type == JSON_ARRAY   ? "an array"
		                                          : "an object";
		r->status = rr__fail(RR_ERR_PARSE, "%s%s%s is %s, expected %s%s", where, dot, key,
		                     type_name(value), want, nullable ? " or null" : "");
		return NULL;
	}
	return value;
}

static double get_number(reader *r, const json_t *o, const char *where, const char *key,
                         int nullable)
{
	const json_t *v = get(r, o, where, key, JSON_REAL, nullable);
	return v ? json_number_value(v) : 0;
}

static int64_t get_integer(reader *r, const json_t *o, const char *where, const char *key)
{
	const json_t *v = get(r, o, where, key, JSON_INTEGER, 0);
	return v ? (int64_t)json_integer_value(v) : 0;
}

/* An integer that must fit an int (counts, clocks, set numbers). */
static int get_int(reader *r, const json_t *o, const char *where, const char *key)
{
	int64_t value = get_integer(r, o, where, key);
	if (r->status == RR_OK && (value < INT_MIN || value > INT_MAX)) {
		r->status = rr__fail(RR_ERR_PARSE, "%s%s%s is %lld, out of range", where,
		                     where[0] ? "." : "", key, (long long)value);
		return 0;
	}
	return (int)value;
}

static int get_bool(reader *r, const json_t *o, const char *where, const char *key)
{
	const json_t *v = get(r, o, where, key, JSON_TRUE, 0);
	return v ? json_is_true(v) : 0;
}

/* Copies a string (or "" for an allowed null); one longer than `size` fails, never truncates. */
static void get_text(reader *r, const json_t *o, const char *where, const char *key, char *out,
                     size_t size, int nullable)
{
	const json_t *v = get(r, o, where, key, JSON_STRING, nullable);
	out[0] = 0;
	if (!v)
		return;
	if (json_string_length(v) >= size) {
		r->status = rr__fail(RR_ERR_PARSE, "%s%s%s is longer than %zu characters", where,
		                     where[0] ? "." : "", key, size - 1);
		return;
	}
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
}

static const json_t *get_object(reader *r, const json_t *o, const char *where, const char *key,
                                int nullable)
{
	return get(r, o, where, key, JSON_OBJECT, nullable);
}

/* ---------------------------------------------------------------- phases */

static void read_phase(reader *r, const json_t *phases, const char *where, rr__phase_id id,
                       rr__phase_result *phase)
{
	char here[300];
	const char *name = rr__phase_name(id);
	snprintf(here, sizeof here, "%s.%s", where, name);
	rr__phase_result_unavailable(phase, "absent from the file");
	if (!json_object_get(phases, name))
		return; /* the audit names a missing or renamed phase; it is not unreadable */
	const json_t *object = get_object(r, phases, where, name, 0);
	if (!object || !get_bool(r, object, here, "available")) {
		if (object)
			get_text(r, object, here, "reason", phase->reason, sizeof phase->reason, 0);
		return;
	}
	const json_t *samples = get(r, object, here, "samples_us", JSON_ARRAY, 0);
	if (!samples)
		return;
	size_t n = json_array_size(samples);
	double *values = malloc((n ? n : 1) * sizeof *values);
	if (!values) {
		r->status = rr__fail(RR_ERR_NOMEM, "out of memory for %zu samples", n);
		return;
	}
	for (size_t i = 0; i < n && r->status == RR_OK; i++) {
		const json_t *v = json_array_get(samples, i);
		if (!json_is_number(v))
			r->status =
			    rr__fail(RR_ERR_PARSE, "%s.samples_us[%zu] is %s, expected a number",
			             here, i, type_name(v));
		else
			values[i] = json_number_value(v);
	}
	if (r->status == RR_OK && rr__phase_result_set_samples(phase, values, (int)n) != RR_OK)
		r->status = RR_ERR_NOMEM;
	free(values);
	phase->batch = get_integer(r, object, here, "batch");
	phase->median_us = get_number(r, object, here, "median_us", 0);
	phase->min_us = get_number(r, object, here, "min_us", 0);
	phase->max_us = get_number(r, object, here, "max_us", 0);
	phase->tbps = get_number(r, object, here, "tbps", 0);
	const json_t *fraction = get(r, object, here, "fraction_of_ceiling", JSON_REAL, 1);
	phase->fraction = fraction ? json_number_value(fraction) : -1;
}

static void read_phases(reader *r, const json_t *object, const char *where,
                        rr__phase_result phases[RR__PHASE_COUNT])
{
	char here[256];
	snprintf(here, sizeof here, "%s.phases", where);
	const json_t *all = get_object(r, object, where, "phases", 0);
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		phases[p].fraction = -1;
		if (all)
			read_phase(r, all, here, (rr__phase_id)p, &phases[p]);
	}
}

/* ---------------------------------------------------------------- provenance and protocol */

static void read_device(reader *r, const json_t *root, rr__run_info *info)
{
	const json_t *d = get_object(r, root, "", "device", 0);
	rr__device_properties *p = &info->device;
	if (!d)
		return;
	get_text(r, d, "device", "description", info->device_description,
	         sizeof info->device_description, 0);
	get_text(r, d, "device", "name", p->name, sizeof p->name, 0);
	get_text(r, d, "device", "uuid", p->uuid, sizeof p->uuid, 1);
	char cc[16];
	get_text(r, d, "device", "compute_capability", cc, sizeof cc, 1);
	if (cc[0] && sscanf(cc, "%d.%d", &p->cc_major, &p->cc_minor) != 2 && r->status == RR_OK)
		r->status = rr__fail(RR_ERR_PARSE, "device.compute_capability '%s' is not M.m", cc);
	p->multiprocessors = get_int(r, d, "device", "multiprocessors");
	p->memory_bytes = get_integer(r, d, "device", "memory_bytes");
	p->l2_bytes = get_integer(r, d, "device", "l2_bytes");
	p->sm_clock_mhz = get_int(r, d, "device", "sm_clock_mhz_at_start");
	p->mem_clock_mhz = get_int(r, d, "device", "mem_clock_mhz_at_start");
}

static void read_argv(reader *r, const json_t *root, rr__run_info *info)
{
	char line[8192];
	get_text(r, root, "", "command_line", line, sizeof line, 0);
	info->command_line = strdup(line);
	const json_t *argv = get(r, root, "", "argv", JSON_ARRAY, 0);
	size_t n = argv ? json_array_size(argv) : 0;
	info->argv = calloc(n + 1, sizeof *info->argv);
	if (!info->command_line || !info->argv) {
		if (r->status == RR_OK)
			r->status = rr__fail(RR_ERR_NOMEM, "out of memory reading argv");
		return;
	}
	for (size_t i = 0; i < n && r->status == RR_OK; i++) {
		const json_t *v = json_array_get(argv, i);
		if (!json_is_string(v))
			r->status = rr__fail(RR_ERR_PARSE, "argv[%zu] is %s, expected a string", i,
			                     type_name(v));
		else
			info->argv[info->argc++] = strdup(json_string_value(v));
	}
}

static void read_provenance(reader *r, const json_t *root, rr__run_info *info)
{
	read_argv(r, root, info);
	get_text(r, root, "", "start_time", info->start_time, sizeof info->start_time, 0);
	info->wall_seconds = get_number(r, root, "", "wall_seconds", 0);
	get_text(r, root, "", "host", info->host, sizeof info->host, 0);
	get_text(r, root, "", "backend", info->backend, sizeof info->backend, 0);
	for (int b = 0; rr__backends[b]; b++) /* the backend's words, as its reports were written */
		if (strcmp(rr__backends[b]->name, info->backend) == 0)
			info->report = &rr__backends[b]->report;
	read_device(r, root, info);
	const json_t *v = get_object(r, root, "", "versions", 0);
	if (v) {
		get_text(r, v, "versions", "rowreduce", info->version, sizeof info->version, 1);
		get_text(r, v, "versions", "git_commit", info->git_commit, sizeof info->git_commit,
		         1);
		get_text(r, v, "versions", "driver", info->device.driver_version,
		         sizeof info->device.driver_version, 1);
		get_text(r, v, "versions", "kernel_compiler", info->device.compiler_version,
		         sizeof info->device.compiler_version, 1);
		get_text(r, v, "versions", "build_compiler", info->build_compiler,
		         sizeof info->build_compiler, 1);
	}
	const json_t *b = get_object(r, root, "", "binary", 1);
	if (b) {
		get_text(r, b, "binary", "path", info->binary_path, sizeof info->binary_path, 1);
		get_text(r, b, "binary", "sha256", info->binary_sha256, sizeof info->binary_sha256,
		         1);
	}
	const json_t *l = get_object(r, root, "", "library", 1);
	if (l) {
		char linkage[16];
		get_text(r, l, "library", "linkage", linkage, sizeof linkage, 0);
		info->library_static = strcmp(linkage, "static") == 0;
		get_text(r, l, "library", "path", info->library_path, sizeof info->library_path, 1);
		get_text(r, l, "library", "sha256", info->library_sha256,
		         sizeof info->library_sha256, 1);
	}
}

static void read_protocol(reader *r, const json_t *root, rr__run_info *info)
{
	const json_t *p = get_object(r, root, "", "protocol", 0);
	if (!p)
		return;
	info->samples = get_int(r, p, "protocol", "samples");
	info->sample_ms = get_number(r, p, "protocol", "sample_ms", 0);
	info->warmup_ms = get_number(r, p, "protocol", "warmup_ms", 0);
	info->seed = (uint64_t)get_integer(r, p, "protocol", "seed");
	get_text(r, p, "protocol", "plan", info->plan_request, sizeof info->plan_request, 0);
	const json_t *l2 = get_object(r, p, "protocol", "l2", 0);
	if (l2) {
		char mode[16];
		get_text(r, l2, "protocol.l2", "mode", mode, sizeof mode, 0);
		info->l2_cold = strcmp(mode, "cold") == 0;
		info->l2_bytes_used = get_integer(r, l2, "protocol.l2", "l2_bytes");
	}
}

/* ---------------------------------------------------------------- ceilings and rows */

static void read_ceilings(reader *r, const json_t *root, rr__results *results)
{
	const json_t *all = get_object(r, root, "", "ceilings", 0);
	if (!all)
		return;
	results->info.ceilings_requested = get_bool(r, all, "ceilings", "requested");
	for (int c = 0; c < RR__CEILING_COUNT; c++) {
		rr__ceiling_result *ceiling = &results->ceilings[c];
		const char *name = rr__ceiling_name((rr__ceiling_id)c);
		char here[64];
		snprintf(here, sizeof here, "ceilings.%s", name);
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			rr__phase_result_unavailable(&ceiling->phases[p], "not measured");
		const json_t *o = get_object(r, all, "ceilings", name, 1);
		if (!o)
			continue;
		ceiling->measured = get_bool(r, o, here, "measured");
		get_text(r, o, here, "error", ceiling->error, sizeof ceiling->error, 1);
		get_text(r, o, here, "description", ceiling->description,
		         sizeof ceiling->description, 0);
		ceiling->bytes = get_integer(r, o, here, "bytes");
		ceiling->rows = get_integer(r, o, here, "M");
		ceiling->cols = get_integer(r, o, here, "N");
		read_phases(r, o, here, ceiling->phases);
	}
}

static void read_validation(reader *r, const json_t *row, const char *where,
                            rr__validation_summary *v)
{
	char here[128];
	snprintf(here, sizeof here, "%s.validation", where);
	const json_t *o = get_object(r, row, where, "validation", 0);
	if (!o)
		return;
	v->valid = get_bool(r, o, here, "valid");
	v->validated = get_integer(r, o, here, "validated");
	v->total = get_integer(r, o, here, "total");
	v->max_abs_error = get_number(r, o, here, "max_abs_error", 1);
	v->max_rel_error = get_number(r, o, here, "max_rel_error", 1);
	const json_t *f = get_object(r, o, here, "first_failure", 1);
	if (!f)
		return;
	snprintf(here, sizeof here, "%s.validation.first_failure", where);
	v->failed_set = get_int(r, f, here, "set");
	get_text(r, f, here, "output", v->failed_output, sizeof v->failed_output, 0);
	v->failed_row = get_integer(r, f, here, "row");
	v->failed_col = get_integer(r, f, here, "col");
	v->failed_got = get_number(r, f, here, "got", 1);
	v->failed_expected = get_number(r, f, here, "expected", 1);
	v->failed_tolerance = get_number(r, f, here, "tolerance", 1);
}

static void read_row(reader *r, const json_t *o, int index, rr__row_result *row)
{
	char here[64], text[32];
	snprintf(here, sizeof here, "rows[%d]", index);
	get_text(r, o, here, "state", text, sizeof text, 0);
	if (r->status == RR_OK) {
		if (strcmp(text, "measured") == 0)
			row->state = RR_ROW_MEASURED;
		else if (strcmp(text, "invalid") == 0)
			row->state = RR_ROW_INVALID;
		else if (strcmp(text, "error") == 0)
			row->state = RR_ROW_ERROR;
		else
			r->status = rr__fail(
			    RR_ERR_PARSE, "%s.state is '%s': allowed are measured, invalid, error",
			    here, text);
	}
	get_text(r, o, here, "error", row->error, sizeof row->error, 1);
	get_text(r, o, here, "kernel", row->kernel, sizeof row->kernel, 0);
	get_text(r, o, here, "kernel_source_sha256", row->kernel_hash, sizeof row->kernel_hash, 1);
	get_text(r, o, here, "dtype", text, sizeof text, 0);
	if (r->status == RR_OK && rr_dtype_parse(text, &row->dtype) != RR_OK)
		r->status = rr__fail(RR_ERR_PARSE, "%s.dtype: %s", here, rr_last_error());
	row->rows = get_integer(r, o, here, "M");
	row->cols = get_integer(r, o, here, "N");
	get_text(r, o, here, "plan", row->plan, sizeof row->plan, 1);
	get_text(r, o, here, "source_sha256", row->source_hash, sizeof row->source_hash, 1);
	get_text(r, o, here, "binary_sha256", row->binary_hash, sizeof row->binary_hash, 1);
	get_text(r, o, here, "source_file", row->source_file, sizeof row->source_file, 1);
	const json_t *l2 = get_object(r, o, here, "l2", 0);
	if (l2) {
		char at[96];
		snprintf(at, sizeof at, "%s.l2", here);
		row->buffer_sets = get_int(r, l2, at, "buffer_sets");
		row->working_set_bytes = get_integer(r, l2, at, "working_set_bytes");
	}
	read_validation(r, o, here, &row->validation);
	row->bytes_min = get_integer(r, o, here, "bytes_min");
	get_text(r, o, here, "ceiling", text, sizeof text, 0);
	row->ceiling = strcmp(text, "copy") == 0 ? RR_CEILING_COPY : RR_CEILING_READ;
	if (r->status == RR_OK && strcmp(text, "copy") != 0 && strcmp(text, "read") != 0)
		r->status = rr__fail(RR_ERR_PARSE, "%s.ceiling is '%s': allowed are copy and read",
		                     here, text);
	read_phases(r, o, here, row->phases);
}

rr_status rr__results_from_json(const json_t *root, rr__results *results)
{
	reader r = {RR_OK};
	memset(results, 0, sizeof *results);
	if (!json_is_object(root))
		return rr__fail(RR_ERR_PARSE, "the top level is not an object");
	const json_t *version = get(&r, root, "", "schema_version", JSON_INTEGER, 0);
	if (version && json_integer_value(version) != 1)
		return rr__fail(RR_ERR_PARSE, "schema_version %lld is not 1, the one this reads",
		                (long long)json_integer_value(version));
	read_provenance(&r, root, &results->info);
	read_protocol(&r, root, &results->info);
	read_ceilings(&r, root, results);
	const json_t *rows = get(&r, root, "", "rows", JSON_ARRAY, 0);
	for (size_t i = 0; rows && i < json_array_size(rows) && r.status == RR_OK; i++) {
		const json_t *o = json_array_get(rows, i);
		if (!json_is_object(o)) {
			r.status = rr__fail(RR_ERR_PARSE, "rows[%zu] is %s, expected an object", i,
			                    type_name(o));
			break;
		}
		rr__row_result *row = rr__results_add_row(results);
		if (!row)
			r.status = RR_ERR_NOMEM;
		else
			read_row(&r, o, (int)i, row);
	}
	if (r.status != RR_OK)
		rr__results_free(results);
	return r.status;
}
