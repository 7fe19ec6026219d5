/* The tuner's results.json: the measurement contract's file (every candidate's measurement is a
 * row with its raw samples) plus a "tuning" object that says what was tried, rejected, compared
 * and chosen, and the model's regret (docs/results-schema.md, "Tuning"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune/tune.h"

static json_t *number_or_null(double value)
{
	return isfinite(value) ? json_real(value) : json_null();
}

static json_t *row_or_null(int row)
{
	return row >= 0 ? json_integer(row) : json_null();
}

static json_t *candidate_json(const rr__tune_candidate *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "plan", json_string(c->plan));
	json_object_set_new(o, "model_us", number_or_null(c->model_us));
	json_t *terms = json_object();
	for (int t = 0; t < RR__TUNE_TERMS; t++)
		json_object_set_new(terms, rr__tune_term_names[t], number_or_null(c->terms[t]));
	json_object_set_new(o, "model_terms_us", terms);
	json_object_set_new(o, "measured", json_boolean(c->measured));
	json_object_set_new(o, "ranked", json_boolean(c->ranked));
	json_object_set_new(o, "found_by",
	                    json_string(!c->measured ? "not measured"
	                                : c->how     ? "coordinate descent"
	                                             : "model order"));
	json_object_set_new(o, "median_us", c->ranked ? json_real(c->median_us) : json_null());
	json_object_set_new(o, "row", row_or_null(c->row));
	json_object_set_new(o, "rejected_because",
	                    c->measured && !c->ranked ? json_string(c->reason) : json_null());
	return o;
}

static json_t *rounds_json(const rr__tune_outcome *o)
{
	json_t *finalists = json_array(), *values = json_array();
	for (int f = 0; f < o->n_finalists; f++)
		json_array_append_new(finalists, json_string(o->candidates[o->finalists[f]].plan));
	for (int r = 0; r < o->rounds && o->round_us; r++) {
		json_t *round = json_array();
		for (int f = 0; f < o->n_finalists; f++)
			json_array_append_new(round,
			                      json_real(o->round_us[r * o->n_finalists + f]));
		json_array_append_new(values, round);
	}
	return json_pack("{s:o, s:s, s:o}", "finalists", finalists, "order",
	                 "ABBA: rounds alternate forward, reversed, reversed, forward",
	                 "round_p50_us", values);
}

static json_t *outcome_json(const rr__tune_outcome *o)
{
	json_t *w = json_object();
	json_t *key = rr__tune_record_to_json(&o->record);
	json_object_set_new(w, "kernel", json_string(o->key.kernel));
	json_object_set_new(w, "dtype", json_string(o->key.dtype));
	json_object_set_new(w, "m", json_integer(o->key.rows));
	json_object_set_new(w, "n", json_integer(o->key.cols));
	json_object_set_new(w, "from_database", json_boolean(o->from_database));
	json_object_set_new(w, "ok", json_boolean(o->ok));
	json_object_set_new(w, "failure", o->failure[0] ? json_string(o->failure) : json_null());
	json_object_set_new(w, "record", key);
	json_object_set_new(w, "plan", o->ok ? json_string(o->record.plan) : json_null());
	json_object_set_new(w, "cost_model",
	                    o->cost_model[0] ? json_string(o->cost_model) : json_null());
	json_object_set_new(w, "model_plan",
	                    o->record.model_plan[0] ? json_string(o->record.model_plan)
	                                            : json_null());
	json_object_set_new(w, "best_us", o->ok ? json_real(o->record.best_us) : json_null());
	json_object_set_new(w, "regret", o->ok ? number_or_null(o->record.regret) : json_null());
	json_object_set_new(w, "decision", json_string(o->record.decision));
	if (o->from_database)
		return w;
	json_object_set_new(w, "considered", json_integer(o->considered));
	json_object_set_new(w, "rejected_illegal", json_integer(o->rejected_illegal));
	json_object_set_new(w, "merged_duplicates", json_integer(o->merged));
	json_object_set_new(w, "legal", json_integer(o->legal));
	json_object_set_new(w, "strategy", o->strategy ? json_string(o->strategy) : json_null());
	json_t *candidates = json_array();
	for (int i = 0; i < o->n_candidates; i++)
		if (o->candidates[i].measured || i == o->model_pick)
			json_array_append_new(candidates, candidate_json(&o->candidates[i]));
	json_object_set_new(w, "candidates", candidates);
	json_object_set_new(w, "rounds", rounds_json(o));
	json_object_set_new(w, "fresh_row", row_or_null(o->fresh_row));
	json_object_set_new(w, "seconds", json_real(o->seconds));
	return w;
}

/* Median, max and worst workload of the regrets in the workloads array. */
static json_t *regret_summary(json_t *workloads)
{
	size_t n = json_array_size(workloads), count = 0;
	double *values = calloc(n ? n : 1, sizeof *values), max = -INFINITY;
	json_t *worst = json_null();
	for (size_t i = 0; i < n && values; i++) {
		json_t *w = json_array_get(workloads, i), *regret = json_object_get(w, "regret");
		if (!json_is_number(regret))
			continue;
		values[count++] = json_number_value(regret);
		if (json_number_value(regret) > max) {
			max = json_number_value(regret);
			json_decref(worst);
			worst = json_pack("{s:O, s:O, s:O, s:O}", "kernel",
			                  json_object_get(w, "kernel"), "dtype",
			                  json_object_get(w, "dtype"), "m", json_object_get(w, "m"),
			                  "n", json_object_get(w, "n"));
		}
	}
	json_t *summary =
	    json_pack("{s:I, s:o, s:o, s:o}", "workloads", (json_int_t)count, "median",
	              count ? json_real(rr__stats_median(values, count)) : json_null(), "max",
	              count ? json_real(max) : json_null(), "worst", worst);
	free(values);
	return summary;
}

static rr_status write_json(json_t *root, const char *path)
{
	char *text =
	    json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	if (!text)
		return rr__fail(RR_ERR_NOMEM, "out of memory writing %s", path);
	rr_status status = rr__write_file_atomic(path, text, strlen(text));
	free(text);
	return status;
}

/* The contract's file is written by its own writer first, read back and completed, so the rows
 * are exactly what `bench` would write for the same measurements. */
rr_status rr__tune_write_results(const rr__results *results, const rr__tune_outcome *outcomes,
                                 int n_outcomes, const rr__tune_settings *settings,
                                 const char *path)
{
	char staging[4200];
	snprintf(staging, sizeof staging, "%s.contract.%ld", path, (long)getpid());
	rr_status status = rr__results_write_json(results, staging);
	json_error_t error;
	json_t *root = status == RR_OK ? json_load_file(staging, 0, &error) : NULL;
	unlink(staging);
	if (status == RR_OK && !root)
		status = rr__fail(RR_ERR_IO, "cannot read back %s: %s", staging, error.text);
	if (status != RR_OK)
		return status;
	json_t *workloads = json_array();
	for (int i = 0; i < n_outcomes; i++)
		json_array_append_new(workloads, outcome_json(&outcomes[i]));
	json_t *tuning = json_pack(
	    "{s:s, s:s, s:i, s:i, s:i, s:f, s:f}", "objective", settings->objective, "phase",
	    rr__phase_name(settings->phase), "max_candidates", settings->max_candidates, "rounds",
	    settings->rounds, "samples", settings->bench.measure.samples, "sample_ms",
	    settings->bench.measure.sample_ms, "warmup_ms", settings->bench.measure.warmup_ms);
	json_object_set_new(tuning, "workloads", workloads);
	json_object_set_new(tuning, "regret_summary", regret_summary(workloads));
	json_object_set_new(root, "tuning", tuning);
	status = write_json(root, path);
	json_decref(root);
	return status;
}

static void shift(json_t *object, const char *name, json_int_t offset)
{
	json_t *value = json_object_get(object, name);
	if (json_is_integer(value))
		json_integer_set(value, json_integer_value(value) + offset);
}

/* Appends one worker's rows and workloads to the merged document, shifting row indices. */
static void merge_one(json_t *merged, json_t *part)
{
	json_t *rows = json_object_get(merged, "rows");
	json_int_t offset = (json_int_t)json_array_size(rows);
	json_array_extend(rows, json_object_get(part, "rows"));
	json_t *workloads = json_object_get(json_object_get(merged, "tuning"), "workloads");
	json_t *theirs = json_object_get(json_object_get(part, "tuning"), "workloads");
	size_t i, j;
	json_t *w, *c;
	json_array_foreach(theirs, i, w)
	{
		shift(w, "fresh_row", offset);
		json_array_foreach(json_object_get(w, "candidates"), j, c) shift(c, "row", offset);
		json_array_append(workloads, w);
	}
}

static void recount(json_t *root)
{
	json_int_t counts[3] = {0, 0, 0};
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(root, "rows"), i, row)
	{
		const char *state = json_string_value(json_object_get(row, "state"));
		counts[state && !strcmp(state, "measured")  ? 0
		       : state && !strcmp(state, "invalid") ? 1
		                                            : 2]++;
	}
	json_object_set_new(root, "summary",
	                    json_pack("{s:I, s:I, s:I, s:I}", "rows",
	                              counts[0] + counts[1] + counts[2], "measured", counts[0],
	                              "invalid", counts[1], "errors", counts[2]));
}

rr_status rr__tune_merge_results(char **worker_paths, int n, const char *path, json_t **merged)
{
	*merged = NULL;
	json_t *root = NULL;
	json_t *workers = json_array();
	for (int k = 0; k < n; k++) {
		json_error_t error;
		json_t *part = json_load_file(worker_paths[k], 0, &error);
		if (!part)
			continue; /* a worker that died before writing: its items were retried */
		json_array_append_new(workers, json_string(worker_paths[k]));
		if (!root)
			root = part;
		else {
			merge_one(root, part);
			json_decref(part);
		}
	}
	if (!root) {
		json_decref(workers);
		return rr__fail(RR_ERR_IO, "no worker wrote its results (see the messages above)");
	}
	json_t *tuning = json_object_get(root, "tuning");
	json_object_set_new(tuning, "worker_files", workers);
	json_object_set_new(tuning, "regret_summary",
	                    regret_summary(json_object_get(tuning, "workloads")));
	recount(root);
	rr_status status = write_json(root, path);
	*merged = root;
	return status;
}
