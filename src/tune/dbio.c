/* The tuning database's records as text: db list/show lines, and the JSON of export/import
 * (the way records travel between hosts: each array job exports, one store imports). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

#define EXPORT_FORMAT 1

json_t *rr__tune_record_to_json(const rr__tune_record *r)
{
	const rr__tune_key *k = &r->key;
	json_t *object = json_pack(
	    "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:s, "
	    "s:f, s:s, s:f, s:i, s:i, s:i, s:s, s:s, s:s}",
	    "backend", k->backend, "device_uuid", k->device_uuid, "device_name", k->device_name,
	    "compute_capability", k->compute_capability, "driver", k->driver, "compiler",
	    k->compiler, "rowreduce_version", k->rowreduce_version, "kernel_hash", k->kernel_hash,
	    "kernel", k->kernel, "dtype", k->dtype, "m", (json_int_t)k->rows, "n",
	    (json_int_t)k->cols, "objective", k->objective, "plan", r->plan, "best_us", r->best_us,
	    "model_plan", r->model_plan, "regret", isfinite(r->regret) ? r->regret : 0,
	    "candidates", r->candidates, "measured", r->measured, "rejected", r->rejected,
	    "decision", r->decision, "tuned_at", r->tuned_at, "host", r->host);
	if (object && !isfinite(r->regret)) /* the model's pick was rejected: no regret */
		json_object_set_new(object, "regret", json_null());
	return object;
}

static int take_text(json_t *object, const char *name, char *out, size_t size)
{
	json_t *value = json_object_get(object, name);
	if (!json_is_string(value) || strlen(json_string_value(value)) >= size) {
		rr__fail(RR_ERR_INVALID_ARG, "field '%s' is missing, not text or too long", name);
		return 1;
	}
	snprintf(out, size, "%s", json_string_value(value));
	return 0;
}

rr_status rr__tune_record_from_json(json_t *o, rr__tune_record *r)
{
	memset(r, 0, sizeof *r);
	rr__tune_key *k = &r->key;
	struct {
		const char *name;
		char *out;
		size_t size;
	} texts[] = {{"backend", k->backend, sizeof k->backend},
	             {"device_uuid", k->device_uuid, sizeof k->device_uuid},
	             {"device_name", k->device_name, sizeof k->device_name},
	             {"compute_capability", k->compute_capability, sizeof k->compute_capability},
	             {"driver", k->driver, sizeof k->driver},
	             {"compiler", k->compiler, sizeof k->compiler},
	             {"rowreduce_version", k->rowreduce_version, sizeof k->rowreduce_version},
	             {"kernel_hash", k->kernel_hash, sizeof k->kernel_hash},
	             {"kernel", k->kernel, sizeof k->kernel},
	             {"dtype", k->dtype, sizeof k->dtype},
	             {"objective", k->objective, sizeof k->objective},
	             {"plan", r->plan, sizeof r->plan},
	             {"model_plan", r->model_plan, sizeof r->model_plan},
	             {"decision", r->decision, sizeof r->decision},
	             {"tuned_at", r->tuned_at, sizeof r->tuned_at},
	             {"host", r->host, sizeof r->host}};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		if (take_text(o, texts[i].name, texts[i].out, texts[i].size))
			return RR_ERR_INVALID_ARG;
	json_t *m = json_object_get(o, "m"), *n = json_object_get(o, "n");
	json_t *best = json_object_get(o, "best_us"), *regret = json_object_get(o, "regret");
	if (!json_is_integer(m) || !json_is_integer(n) || json_integer_value(m) < 1 ||
	    json_integer_value(n) < 1 || !json_is_number(best) ||
	    !(json_is_number(regret) || json_is_null(regret)))
		return rr__fail(RR_ERR_INVALID_ARG, "fields m and n must be positive integers, "
		                                    "best_us a number and regret a number or null");
	rr_layout layout;
	if (rr_layout_parse(r->plan, &layout) != RR_OK)
		return rr__fail_context(RR_ERR_INVALID_ARG, "field 'plan' is not a layout");
	k->rows = json_integer_value(m);
	k->cols = json_integer_value(n);
	r->best_us = json_number_value(best);
	r->regret = json_is_null(regret) ? NAN : json_number_value(regret);
	r->candidates = (int)json_integer_value(json_object_get(o, "candidates"));
	r->measured = (int)json_integer_value(json_object_get(o, "measured"));
	r->rejected = (int)json_integer_value(json_object_get(o, "rejected"));
	return RR_OK;
}

/* ---------------------------------------------------------------- print */

typedef struct print_context {
	FILE *out;
	const char *kernel;
	int verbose, count;
} print_context;

static int print_one(const rr__tune_record *r, void *ctx)
{
	print_context *p = ctx;
	const rr__tune_key *k = &r->key;
	if (p->kernel && strcmp(p->kernel, k->kernel) != 0)
		return 0;
	p->count++;
	if (!p->verbose) {
		fprintf(p->out,
		        "%-14s %-5s %7lldx%-7lld %-4s %-40s %10.3f us  regret %6.2f%%  %s\n",
		        k->kernel, k->dtype, (long long)k->rows, (long long)k->cols, k->objective,
		        r->plan, r->best_us, 100 * r->regret, k->device_name);
		return 0;
	}
	json_t *object = rr__tune_record_to_json(r);
	char *text = object ? json_dumps(object, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	fprintf(p->out, "%s\n", text ? text : "(out of memory)");
	free(text);
	json_decref(object);
	return 0;
}

rr_status rr_tune_db_print(rr_tune_db *db, FILE *out, const char *kernel, int verbose, int *count)
{
	print_context p = {.out = out, .kernel = kernel, .verbose = verbose};
	rr_status status = rr__tune_db_each(db, print_one, &p);
	*count = p.count;
	return status;
}

/* ---------------------------------------------------------------- export, import */

static int append_one(const rr__tune_record *r, void *ctx)
{
	json_t *object = rr__tune_record_to_json(r);
	return !object || json_array_append_new(ctx, object) != 0;
}

rr_status rr_tune_db_export(rr_tune_db *db, const char *path, int *count)
{
	*count = 0;
	json_t *records = json_array();
	json_t *root =
	    json_pack("{s:i, s:o}", "tuning_db_schema", EXPORT_FORMAT, "records", records);
	if (!root)
		return rr__fail(RR_ERR_NOMEM, "out of memory exporting the tuning database");
	rr_status status = rr__tune_db_each(db, append_one, records);
	char *text =
	    status == RR_OK ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	if (status == RR_OK && !text)
		status = rr__fail(RR_ERR_NOMEM, "out of memory exporting the tuning database");
	if (status == RR_OK)
		status = rr__write_file_atomic(path, text, strlen(text));
	if (status == RR_OK)
		*count = (int)json_array_size(records);
	free(text);
	json_decref(root);
	return status;
}

rr_status rr_tune_db_import(rr_tune_db *db, const char *path, int *count)
{
	*count = 0;
	json_error_t error;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &error);
	if (!root)
		return rr__fail(RR_ERR_IO, "%s:%d:%d: %s", path, error.line, error.column,
		                error.text);
	json_t *records = json_object_get(root, "records");
	json_t *format = json_object_get(root, "tuning_db_schema");
	rr_status status = RR_OK;
	if (!json_is_integer(format) || json_integer_value(format) != EXPORT_FORMAT ||
	    !json_is_array(records))
		status =
		    rr__fail(RR_ERR_IO,
		             "%s is not a rowreduce tuning export (format %d with a records array)",
		             path, EXPORT_FORMAT);
	size_t n = status == RR_OK ? json_array_size(records) : 0;
	rr__tune_record *all = calloc(n ? n : 1, sizeof *all);
	if (!all && status == RR_OK)
		status = rr__fail(RR_ERR_NOMEM, "out of memory importing %zu records", n);
	for (size_t i = 0; i < n && status == RR_OK; i++)
		if (rr__tune_record_from_json(json_array_get(records, i), &all[i]) != RR_OK)
			status = rr__fail_context(RR_ERR_IO, "%s: record %zu", path, i);
	if (status == RR_OK)
		status = rr__tune_db_put_all(db, all, (int)n);
	if (status == RR_OK)
		*count = (int)n;
	free(all);
	json_decref(root);
	return status;
}
