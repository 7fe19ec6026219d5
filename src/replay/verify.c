/* rowreduce verify: audits a results folder. Every statistic of results.json is recomputed from
 * the raw samples with the measurement code's own formulas, results.md is rendered again from
 * the recomputed values by the code that wrote it and compared cell by cell, and counts, phase
 * labels, hashes and plans are checked. One line per check; every mismatch is named. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

/* One audit: the current check's name and how many mismatches it and the whole audit found. */
typedef struct audit {
	FILE *report;
	const char *dir;
	const char *check;
	int check_mismatches, mismatches;
	json_t *root;
	rr__results_kind kind;
	rr__results stored; /* as read */
} audit;

static void begin(audit *a, const char *check)
{
	a->check = check;
	a->check_mismatches = 0;
}

static void mismatch(audit *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(audit *a, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fprintf(a->report, "MISMATCH %s: ", a->check);
	vfprintf(a->report, fmt, args);
	fputc('\n', a->report);
	va_end(args);
	a->check_mismatches++;
	a->mismatches++;
}

static void end(audit *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void end(audit *a, const char *fmt, ...)
{
	if (a->check_mismatches)
		return;
	va_list args;
	va_start(args, fmt);
	fprintf(a->report, "OK       %s: ", a->check);
	vfprintf(a->report, fmt, args);
	fputc('\n', a->report);
	va_end(args);
}

/* ---------------------------------------------------------------- statistics */

static void compare_value(audit *a, const char *where, const char *key, double stored,
                          double recomputed)
{
	if (stored == recomputed || (isnan(stored) && isnan(recomputed)))
		return;
	mismatch(a, "%s.%s: stored %.17g, recomputed %.17g from samples_us", where, key, stored,
	         recomputed);
}

/* Recomputes one phase's summary from its samples (rr__phase_result_summarize, the writer's
 * own code) into `fresh` and compares it with what the file stored. */
static int check_phase(audit *a, const char *where, const rr__phase_result *stored, int64_t bytes,
                       rr__phase_result *fresh)
{
	if (!stored->available)
		return 0;
	if (stored->n_samples == 0) {
		mismatch(a, "%s: available but has no samples", where);
		return 0;
	}
	*fresh = *stored;
	fresh->samples_us = NULL;
	if (rr__phase_result_set_samples(fresh, stored->samples_us, stored->n_samples) != RR_OK)
		return 0;
	fresh->batch = stored->batch;
	rr__phase_result_summarize(fresh, bytes);
	compare_value(a, where, "median_us", stored->median_us, fresh->median_us);
	compare_value(a, where, "min_us", stored->min_us, fresh->min_us);
	compare_value(a, where, "max_us", stored->max_us, fresh->max_us);
	compare_value(a, where, "tbps", stored->tbps, fresh->tbps);
	return 1;
}

/* A copy of the stored results with every statistic recomputed from the samples. */
static int recompute(audit *a, rr__results *fresh)
{
	const rr__results *s = &a->stored;
	int phases = 0;
	*fresh = *s;
	fresh->rows = calloc((size_t)(s->n_rows ? s->n_rows : 1), sizeof *fresh->rows);
	if (!fresh->rows)
		return -1;
	fresh->cap_rows = s->n_rows ? s->n_rows : 1;
	char where[256];
	for (int c = 0; c < RR__CEILING_COUNT; c++)
		for (int p = 0; p < RR__PHASE_COUNT; p++) {
			snprintf(where, sizeof where, "ceilings.%s.phases.%s",
			         rr__ceiling_name((rr__ceiling_id)c),
			         rr__phase_name((rr__phase_id)p));
			fresh->ceilings[c].phases[p].samples_us = NULL;
			if (s->ceilings[c].measured)
				phases += check_phase(a, where, &s->ceilings[c].phases[p],
				                      s->ceilings[c].bytes,
				                      &fresh->ceilings[c].phases[p]);
			else
				fresh->ceilings[c].phases[p].n_samples = 0;
		}
	for (int i = 0; i < s->n_rows; i++) {
		fresh->rows[i] = s->rows[i];
		char label[200];
		rr__row_label(&s->rows[i], i, label, sizeof label);
		for (int p = 0; p < RR__PHASE_COUNT; p++) {
			fresh->rows[i].phases[p].samples_us = NULL;
			fresh->rows[i].phases[p].n_samples = 0;
			snprintf(where, sizeof where, "%s.phases.%s", label,
			         rr__phase_name((rr__phase_id)p));
			phases += check_phase(a, where, &s->rows[i].phases[p], s->rows[i].bytes_min,
			                      &fresh->rows[i].phases[p]);
		}
	}
	return phases;
}

/* The ceilings' best TB/s and phase, and each row phase's fraction of its ceiling. */
static void check_ceilings(audit *a, rr__results *fresh)
{
	const json_t *ceilings = json_object_get(a->root, "ceilings");
	for (int c = 0; c < RR__CEILING_COUNT && fresh->info.ceilings_requested; c++) {
		const char *name = rr__ceiling_name((rr__ceiling_id)c);
		const json_t *o = json_object_get(ceilings, name);
		double best_tbps;
		int best = rr__ceiling_best(&fresh->ceilings[c], &best_tbps);
		const json_t *stored_tbps = json_object_get(o, "best_tbps");
		const char *stored_phase = json_string_value(json_object_get(o, "best_phase"));
		const char *phase = best >= 0 ? rr__phase_name((rr__phase_id)best) : NULL;
		int differs = best < 0 ? !json_is_null(stored_tbps)
		                       : !json_is_number(stored_tbps) ||
		                             json_number_value(stored_tbps) != best_tbps;
		if (differs)
			mismatch(a, "ceilings.%s.best_tbps: stored %.17g, recomputed %.17g", name,
			         json_number_value(stored_tbps), best_tbps);
		if ((phase == NULL) != (stored_phase == NULL) ||
		    (phase && strcmp(phase, stored_phase) != 0))
			mismatch(a, "ceilings.%s.best_phase: stored %s, recomputed %s", name,
			         stored_phase ? stored_phase : "null", phase ? phase : "null");
	}
	rr__results_apply_ceilings(fresh);
	for (int i = 0; i < fresh->n_rows; i++)
		for (int p = 0; p < RR__PHASE_COUNT; p++) {
			const rr__phase_result *s = &a->stored.rows[i].phases[p];
			const rr__phase_result *f = &fresh->rows[i].phases[p];
			if (!s->available || s->fraction == f->fraction)
				continue;
			char label[200];
			rr__row_label(&a->stored.rows[i], i, label, sizeof label);
			mismatch(a,
			         "%s.phases.%s.fraction_of_ceiling: stored %.17g, recomputed %.17g",
			         label, rr__phase_name((rr__phase_id)p), s->fraction, f->fraction);
		}
}

static void check_summary(audit *a)
{
	const rr__run_info *info = &a->stored.info;
	rr__buf joined = {0};
	for (int i = 0; i < info->argc; i++)
		rr__buf_printf(&joined, "%s%s", i ? " " : "", info->argv[i]);
	if (strcmp(joined.data ? joined.data : "", info->command_line ? info->command_line : "") !=
	    0)
		mismatch(a, "command_line is not argv joined by spaces");
	rr__buf_free(&joined);
	for (int c = 0; c < RR__CEILING_COUNT; c++)
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			if (a->stored.ceilings[c].phases[p].fraction != -1)
				mismatch(a,
				         "ceilings.%s.phases.%s.fraction_of_ceiling: a ceiling's "
				         "is null",
				         rr__ceiling_name((rr__ceiling_id)c),
				         rr__phase_name((rr__phase_id)p));
	const json_t *summary = json_object_get(a->root, "summary");
	int counts[3] = {0, 0, 0};
	for (int i = 0; i < a->stored.n_rows; i++)
		counts[a->stored.rows[i].state]++;
	const char *keys[] = {"rows", "measured", "invalid", "errors"};
	int values[] = {a->stored.n_rows, counts[0], counts[1], counts[2]};
	for (int k = 0; k < 4; k++) {
		const json_t *v = json_object_get(summary, keys[k]);
		if (!json_is_integer(v) || json_integer_value(v) != values[k])
			mismatch(a, "summary.%s: stored %lld, counted %d from rows", keys[k],
			         json_is_integer(v) ? (long long)json_integer_value(v) : -1LL,
			         values[k]);
	}
}

/* Each row's l2 object: the protocol's mode, the working set of its buffer sets, and whether
 * that exceeds twice the cache size the protocol names. */
static void check_l2(audit *a)
{
	const json_t *rows = json_object_get(a->root, "rows");
	const json_t *l2 = json_object_get(json_object_get(a->root, "protocol"), "l2");
	for (size_t i = 0; i < json_array_size(rows); i++) {
		const rr__row_result *row = &a->stored.rows[i];
		const json_t *o = json_object_get(json_array_get(rows, i), "l2");
		char label[200];
		rr__row_label(row, (int)i, label, sizeof label);
		if (!json_equal(json_object_get(o, "mode"), json_object_get(l2, "mode")))
			mismatch(a, "%s.l2.mode is not protocol.l2.mode", label);
		int64_t sets = row->buffer_sets > 0 ? row->buffer_sets : 1;
		if (row->state != RR_ROW_ERROR && row->working_set_bytes != row->bytes_min * sets)
			mismatch(
			    a, "%s.l2.working_set_bytes: %lld, but bytes_min x buffer_sets is %lld",
			    label, (long long)row->working_set_bytes,
			    (long long)(row->bytes_min * sets));
		const json_t *over = json_object_get(o, "over_twice_l2");
		int want = row->working_set_bytes > 2 * a->stored.info.l2_bytes_used;
		if (!json_is_boolean(over) || json_is_true(over) != want)
			mismatch(
			    a, "%s.l2.over_twice_l2 is not %s (working set %lld bytes, cache %lld)",
			    label, want ? "true" : "false", (long long)row->working_set_bytes,
			    (long long)a->stored.info.l2_bytes_used);
	}
}

/* ---------------------------------------------------------------- validated counts */

/* Elements validation compares for one buffer set: every element of every output. Known only
 * when the row's kernel is a built-in whose text still has the recorded hash. */
static int64_t expected_elements(const rr__row_result *row)
{
	rr_kernel *kernel = NULL;
	if (rr_kernel_load_builtin(row->kernel, &kernel) != RR_OK) {
		rr__clear_error();
		return -1;
	}
	int64_t total = -1;
	if (strcmp(rr_kernel_source_hash(kernel), row->kernel_hash) == 0) {
		total = 0;
		for (int j = 0; j < rr_kernel_num_outputs(kernel); j++) {
			rr_io_info io;
			if (rr_kernel_output(kernel, j, &io) == RR_OK)
				total += io.kind == RR_KIND_ROW ? row->rows * row->cols : row->rows;
		}
	}
	rr_kernel_free(kernel);
	return total;
}

static void check_validation(audit *a)
{
	int64_t elements = 0;
	for (int i = 0; i < a->stored.n_rows; i++) {
		const rr__row_result *row = &a->stored.rows[i];
		const rr__validation_summary *v = &row->validation;
		char label[200];
		rr__row_label(row, i, label, sizeof label);
		if (v->max_abs_error < 0 || v->max_rel_error < 0)
			mismatch(a, "%s.validation: a negative maximum error", label);
		if (v->validated < 0 || v->validated > v->total)
			mismatch(a, "%s.validation.validated: %lld is not within 0..total (%lld)",
			         label, (long long)v->validated, (long long)v->total);
		if (v->valid != (v->validated == v->total && v->total > 0))
			mismatch(a, "%s.validation: valid is %s but %lld of %lld elements passed",
			         label, v->valid ? "true" : "false", (long long)v->validated,
			         (long long)v->total);
		int timed = 0;
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			timed |= row->phases[p].available;
		if (timed && (row->state != RR_ROW_MEASURED || !v->valid))
			mismatch(a, "%s: timed phases but the outputs were not validated in full",
			         label);
		if (row->state == RR_ROW_MEASURED && !v->valid)
			mismatch(a, "%s.state is measured but validation.valid is false", label);
		int64_t per_set = a->kind == RR_RESULTS_PEERS ? -1 : expected_elements(row);
		if (per_set >= 0 && row->state != RR_ROW_ERROR &&
		    v->total != per_set * (row->buffer_sets > 0 ? row->buffer_sets : 1))
			mismatch(
			    a,
			    "%s.validation.total: %lld, but %d buffer set(s) of this kernel and "
			    "shape hold %lld output elements",
			    label, (long long)v->total, row->buffer_sets,
			    (long long)(per_set * (row->buffer_sets > 0 ? row->buffer_sets : 1)));
		elements += v->validated;
	}
	end(a, "%lld output elements validated over %d rows, counts consistent",
	    (long long)elements, a->stored.n_rows);
}

/* ---------------------------------------------------------------- phase labels */

static void check_phase_keys(audit *a, const json_t *phases, const char *where)
{
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		if (!json_object_get(phases, rr__phase_name((rr__phase_id)p)))
			mismatch(a, "%s.phases.%s is missing", where,
			         rr__phase_name((rr__phase_id)p));
	const char *key;
	const json_t *value;
	json_object_foreach((json_t *)phases, key, value)
	{
		int known = 0;
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			known |= strcmp(key, rr__phase_name((rr__phase_id)p)) == 0;
		if (!known)
			mismatch(a,
			         "%s.phases has '%s', which is not a phase (gpu, gpu_graph, e2e, "
			         "single, single_gpu)",
			         where, key);
	}
}

static void check_labels(audit *a)
{
	const json_t *listed = json_object_get(json_object_get(a->root, "protocol"), "phases");
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		const char *name = json_string_value(json_array_get(listed, (size_t)p));
		if (!name || strcmp(name, rr__phase_name((rr__phase_id)p)) != 0)
			mismatch(a, "protocol.phases[%d]: '%s', expected '%s'", p,
			         name ? name : "?", rr__phase_name((rr__phase_id)p));
	}
	if (json_array_size(listed) != RR__PHASE_COUNT)
		mismatch(a, "protocol.phases lists %zu phases, expected %d",
		         json_array_size(listed), RR__PHASE_COUNT);
	const json_t *rows = json_object_get(a->root, "rows");
	for (size_t i = 0; i < json_array_size(rows); i++) {
		char label[200];
		rr__row_label(&a->stored.rows[i], (int)i, label, sizeof label);
		check_phase_keys(a, json_object_get(json_array_get(rows, i), "phases"), label);
	}
	const json_t *ceilings = json_object_get(a->root, "ceilings");
	for (int c = 0; c < RR__CEILING_COUNT; c++) {
		const char *name = rr__ceiling_name((rr__ceiling_id)c);
		const json_t *o = json_object_get(ceilings, name);
		char where[64];
		snprintf(where, sizeof where, "ceilings.%s", name);
		if (json_is_object(o))
			check_phase_keys(a, json_object_get(o, "phases"), where);
	}
}

/* ---------------------------------------------------------------- sources and plans */

/* The value after "* <field>" in a generated source's header comment, up to the line's end. */
static int header_field(const char *source, const char *field, char *out, size_t size)
{
	const char *end_of_header = strstr(source, "*/");
	char pattern[32];
	snprintf(pattern, sizeof pattern, "\n * %s ", field);
	const char *at = strstr(source, pattern);
	if (!at || (end_of_header && at > end_of_header))
		return 0;
	at += strlen(pattern);
	while (*at == ' ')
		at++;
	size_t n = strcspn(at, "\n");
	snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), at);
	return 1;
}

/* The captured source: its SHA-256 against the row's, and the plan its header names. */
static void check_source(audit *a, const rr__row_result *row, const char *label, int *hashed,
                         int *planned)
{
	char path[4500], hash[65], plan[200];
	snprintf(path, sizeof path, "%s/%s", a->dir, row->source_file);
	char *text = NULL;
	size_t size = 0;
	if (rr__read_file(path, &text, &size) != RR_OK) {
		mismatch(a, "%s.source_file '%s' cannot be read: %s", label, row->source_file,
		         rr_last_error());
		return;
	}
	rr__sha256_hex(text, size, hash);
	if (strcmp(hash, row->source_hash) != 0)
		mismatch(a, "%s.source_sha256: recorded %s, but %s hashes to %s", label,
		         row->source_hash[0] ? row->source_hash : "null", row->source_file, hash);
	else
		(*hashed)++;
	if (header_field(text, "plan", plan, sizeof plan)) {
		if (strcmp(plan, row->plan) != 0)
			mismatch(a,
			         "%s.plan: '%s', but the captured source %s was generated for '%s'",
			         label, row->plan, row->source_file, plan);
		else
			(*planned)++;
	}
	free(text);
}

static void check_hashes_and_plans(audit *a, int *hashed, int *planned)
{
	for (int i = 0; i < a->stored.n_rows; i++) {
		const rr__row_result *row = &a->stored.rows[i];
		char label[200];
		rr__row_label(row, i, label, sizeof label);
		if (row->plan[0] && a->kind != RR_RESULTS_PEERS) {
			rr_layout layout;
			char again[200];
			if (rr_layout_parse(row->plan, &layout) != RR_OK) {
				mismatch(a, "%s.plan '%s' is not a layout: %s", label, row->plan,
				         rr_last_error());
				continue;
			}
			rr_layout_format(&layout, again, sizeof again);
			if (strcmp(again, row->plan) != 0)
				mismatch(a, "%s.plan '%s' is not complete (it reads back as '%s')",
				         label, row->plan, again);
		}
		if (row->source_file[0])
			check_source(a, row, label, hashed, planned);
	}
}

/* The rowreduce binary and shared library the run recorded: where a file is still at the
 * recorded path, it must hash to the recorded SHA-256 (a different file there is not the code
 * that ran). Files no longer there cannot be checked and are said so. */
static void check_binaries(audit *a)
{
	const rr__run_info *info = &a->stored.info;
	const char *what[] = {"binary", "library"};
	const char *paths[] = {info->binary_path, info->library_path};
	const char *hashes[] = {info->binary_sha256, info->library_sha256};
	int checked = 0, absent = 0;
	for (int k = 0; k < 2; k++) {
		char hash[65];
		if (k == 1 && (info->library_static || strcmp(paths[1], paths[0]) == 0))
			continue; /* the library is linked into the binary: the same file */
		if (!paths[k][0] || rr__sha256_file(paths[k], hash) != RR_OK) {
			rr__clear_error();
			absent += paths[k][0] != 0;
			continue;
		}
		if (strcmp(hash, hashes[k]) != 0)
			mismatch(a, "%s.sha256: recorded %s, but %s now hashes to %s", what[k],
			         hashes[k][0] ? hashes[k] : "null", paths[k], hash);
		else
			checked++;
	}
	end(a, "%d recorded file(s) hash as recorded, %d no longer at the recorded path", checked,
	    absent);
}

/* ---------------------------------------------------------------- results.md */

/* Splits a table line into cells (a backslash-escaped pipe stays in its cell). */
static int split_cells(const char *line, char cells[][512], int max)
{
	int n = 0;
	const char *at = line + 1;
	while (*at && n < max) {
		size_t k = 0;
		while (*at && !(*at == '|' && at[-1] != '\\')) {
			if (k + 1 < 512)
				cells[n][k++] = *at;
			at++;
		}
		if (!*at)
			break;
		while (k > 0 && cells[n][k - 1] == ' ')
			k--;
		cells[n][k] = 0;
		char *start = cells[n];
		while (*start == ' ')
			start++;
		memmove(cells[n], start, strlen(start) + 1);
		n++;
		at++;
	}
	return n;
}

typedef struct md_position {
	char section[128];
	char header[32][512];
	int header_cells;
	int table_row; /* 0 header, 1 separator, then data rows from 2 */
} md_position;

static void md_track(md_position *position, const char *line)
{
	if (strncmp(line, "#", 1) == 0) {
		snprintf(position->section, sizeof position->section, "%s",
		         line + strspn(line, "# "));
		position->table_row = -1;
	} else if (line[0] != '|') {
		position->table_row = -1;
	} else if (++position->table_row == 0) {
		position->header_cells = split_cells(line, position->header, 32);
	}
}

static void md_difference(audit *a, const md_position *where, int number, const char *file_line,
                          const char *rendered)
{
	static char file_cells[32][512], fresh_cells[32][512];
	if (file_line[0] == '|' && rendered[0] == '|' && where->table_row >= 0) {
		int nf = split_cells(file_line, file_cells, 32);
		int nr = split_cells(rendered, fresh_cells, 32);
		for (int c = 0; c < (nf > nr ? nf : nr); c++) {
			const char *f = c < nf ? file_cells[c] : "(absent)";
			const char *r = c < nr ? fresh_cells[c] : "(absent)";
			if (strcmp(f, r) == 0)
				continue;
			char row_name[600];
			if (where->table_row <= 1)
				snprintf(row_name, sizeof row_name, "%s",
				         where->table_row == 0 ? "header" : "separator");
			else
				snprintf(row_name, sizeof row_name, "row %d (%.150s %.150s %.150s)",
				         where->table_row - 1, nr > 0 ? fresh_cells[0] : "",
				         nr > 1 ? fresh_cells[1] : "",
				         nr > 2 ? fresh_cells[2] : "");
			mismatch(a,
			         "results.md line %d, table '%s', %s, column '%s': file has '%s', "
			         "recomputed '%s'",
			         number, where->section, row_name,
			         c < where->header_cells ? where->header[c] : "?", f, r);
			return;
		}
	}
	mismatch(a, "results.md line %d: file has '%.200s', recomputed '%.200s'", number, file_line,
	         rendered);
}

/* Compares results.md line by line with a fresh rendering; a table line's difference is named
 * by its table, row and column. */
static void compare_md(audit *a, const char *file_text, const char *rendered)
{
	md_position where = {.table_row = -1};
	const char *f = file_text, *r = rendered;
	int number = 1, shown = 0;
	while (*f || *r) {
		size_t nf = strcspn(f, "\n"), nr = strcspn(r, "\n");
		char *fl = strndup(f, nf), *rl = strndup(r, nr);
		if (!fl || !rl) {
			free(fl);
			free(rl);
			mismatch(a, "out of memory comparing results.md");
			return;
		}
		md_track(&where, rl);
		if (strcmp(fl, rl) != 0 && shown++ < 50)
			md_difference(a, &where, number, fl, rl);
		free(fl);
		free(rl);
		f += nf + (f[nf] == '\n');
		r += nr + (r[nr] == '\n');
		number++;
	}
	if (shown > 50)
		mismatch(a, "results.md: %d more differing lines not listed", shown - 50);
}

static void check_md(audit *a, const rr__results *fresh, const json_t *fresh_replay)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/results.md", a->dir);
	char *text = NULL;
	size_t size = 0;
	if ((a->kind == RR_RESULTS_PEERS || a->kind == RR_RESULTS_TUNE) &&
	    rr__read_file(path, &text, &size) != RR_OK) {
		rr__clear_error();
		end(a, "absent, as for every %s folder (nothing to compare)",
		    a->kind == RR_RESULTS_PEERS ? "peers" : "tune");
		return;
	}
	if (!text && rr__read_file(path, &text, &size) != RR_OK) {
		mismatch(a, "results.md cannot be read: %s", rr_last_error());
		return;
	}
	rr__buf rendered = {0};
	rr_status status = fresh_replay ? rr__replay_format_md(fresh_replay, &rendered)
	                                : rr__results_format_md(fresh, &rendered);
	if (status == RR_OK && !rendered.failed)
		compare_md(a, text, rendered.data ? rendered.data : "");
	else
		mismatch(a, "cannot render results.md again: %s", rr_last_error());
	int lines = 0;
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	end(a, "every cell of %d lines equals a fresh rendering from the recomputed values", lines);
	free(text);
	rr__buf_free(&rendered);
}

/* ---------------------------------------------------------------- the replay's own claims */

/* Walks two trees; every difference is named by its JSON path. */
static void diff_json(audit *a, const json_t *stored, const json_t *fresh, const char *path)
{
	if (json_is_number(stored) && json_is_number(fresh)) {
		double s = json_number_value(stored), f = json_number_value(fresh);
		if (s != f)
			mismatch(a, "%s: stored %.17g, recomputed %.17g", path, s, f);
		return;
	}
	if (json_is_object(stored) && json_is_object(fresh)) {
		const char *key;
		const json_t *value;
		json_object_foreach((json_t *)fresh, key, value)
		{
			char child[600];
			snprintf(child, sizeof child, "%s%s%s", path, path[0] ? "." : "", key);
			const json_t *other = json_object_get(stored, key);
			if (!other)
				mismatch(a, "%s: missing (recomputed it exists)", child);
			else
				diff_json(a, other, value, child);
		}
		return;
	}
	if (json_is_array(stored) && json_is_array(fresh)) {
		if (json_array_size(stored) != json_array_size(fresh)) {
			mismatch(a, "%s: %zu entries stored, %zu recomputed", path,
			         json_array_size(stored), json_array_size(fresh));
			return;
		}
		for (size_t i = 0; i < json_array_size(fresh); i++) {
			char child[600];
			snprintf(child, sizeof child, "%s[%zu]", path, i);
			diff_json(a, json_array_get(stored, i), json_array_get(fresh, i), child);
		}
		return;
	}
	if (!json_equal((json_t *)stored, (json_t *)fresh)) {
		char *s = json_dumps(stored, JSON_ENCODE_ANY),
		     *f = json_dumps(fresh, JSON_ENCODE_ANY);
		mismatch(a, "%s: stored %s, recomputed %s", path, s ? s : "?", f ? f : "?");
		free(s);
		free(f);
	}
}

/* The frozen plans: each workload's side names a plan that must equal the plan in the copy of
 * that side's input file (whose SHA-256 is recorded), and the plan the side's row was rebuilt
 * with. */
static void check_replay_plans(audit *a)
{
	const json_t *replay = json_object_get(a->root, "replay");
	const json_t *rows = json_object_get(a->root, "rows");
	const char *sides[] = {"reference", "candidate"};
	json_t *inputs[2] = {NULL, NULL};
	for (int s = 0; s < 2; s++) {
		const json_t *side = json_object_get(replay, sides[s]);
		const char *copy = json_string_value(json_object_get(side, "copy"));
		const char *recorded = json_string_value(json_object_get(side, "sha256"));
		char path[4200], hash[65];
		snprintf(path, sizeof path, "%s/%s", a->dir, copy ? copy : "?");
		if (!copy || rr__sha256_file(path, hash) != RR_OK) {
			mismatch(a, "replay.%s.copy '%s' cannot be read", sides[s],
			         copy ? copy : "null");
			rr__clear_error();
			continue;
		}
		if (!recorded || strcmp(hash, recorded) != 0)
			mismatch(a, "replay.%s.sha256: recorded %s, but %s hashes to %s", sides[s],
			         recorded ? recorded : "null", copy, hash);
		if (rr__json_read_file(path, &inputs[s]) != RR_OK) {
			mismatch(a, "replay.%s.copy: %s", sides[s], rr_last_error());
			rr__clear_error();
		}
	}
	const json_t *workloads = json_object_get(replay, "workloads");
	for (size_t w = 0; w < json_array_size(workloads); w++) {
		const json_t *workload = json_array_get(workloads, w);
		for (int s = 0; s < 2; s++) {
			const json_t *side = json_object_get(workload, sides[s]);
			const char *frozen =
			    json_string_value(json_object_get(side, "frozen_plan"));
			json_int_t source_row =
			    json_integer_value(json_object_get(side, "source_row"));
			json_int_t row = json_integer_value(json_object_get(side, "row"));
			const char *input_plan = json_string_value(json_object_get(
			    json_array_get(json_object_get(inputs[s], "rows"), (size_t)source_row),
			    "plan"));
			const char *replayed = json_string_value(
			    json_object_get(json_array_get(rows, (size_t)row), "plan"));
			if (inputs[s] &&
			    (!frozen || !input_plan || strcmp(frozen, input_plan) != 0))
				mismatch(
				    a,
				    "replay.workloads[%zu].%s.frozen_plan '%s' is not the plan of "
				    "rows[%lld] of %s ('%s')",
				    w, sides[s], frozen ? frozen : "null", (long long)source_row,
				    sides[s], input_plan ? input_plan : "null");
			const json_t *input_row =
			    json_array_get(json_object_get(inputs[s], "rows"), (size_t)source_row);
			const json_t *replay_row = json_array_get(rows, (size_t)row);
			if (inputs[s] &&
			    (!json_equal(json_object_get(input_row, "source_sha256"),
			                 json_object_get(replay_row, "recorded_source_sha256")) ||
			     !json_equal(json_object_get(input_row, "binary_sha256"),
			                 json_object_get(replay_row, "recorded_binary_sha256"))))
				mismatch(a,
				         "rows[%lld]: recorded_source_sha256 or "
				         "recorded_binary_sha256 is not "
				         "the hash in rows[%lld] of %s",
				         (long long)row, (long long)source_row, sides[s]);
			const char *row_frozen = json_string_value(
			    json_object_get(json_array_get(rows, (size_t)row), "frozen_plan"));
			if (!frozen || !row_frozen || strcmp(frozen, row_frozen) != 0)
				mismatch(a,
				         "rows[%lld].frozen_plan '%s' is not "
				         "replay.workloads[%zu].%s's '%s'",
				         (long long)row, row_frozen ? row_frozen : "null", w,
				         sides[s], frozen ? frozen : "null");
			if (!frozen || !replayed || strcmp(frozen, replayed) != 0)
				mismatch(a,
				         "rows[%lld].plan '%s' (replay.workloads[%zu].%s) is not "
				         "the frozen "
				         "plan '%s'",
				         (long long)row, replayed ? replayed : "null", w, sides[s],
				         frozen ? frozen : "null");
		}
	}
	json_decref(inputs[0]);
	json_decref(inputs[1]);
	end(a, "%zu workloads, both sides replayed with their frozen plans (inputs' SHA-256 match)",
	    json_array_size(workloads));
}

/* One side row of a replay: it names its side, workload and input row, measures the workload's
 * kernel, dtype and shape, and each timed phase holds the protocol's rounds and positions. */
static void check_side_row(audit *a, const json_t *workload, size_t w, int s, json_int_t rounds,
                           json_int_t samples)
{
	static const char *const sides[] = {"reference", "candidate"};
	const json_t *side = json_object_get(workload, sides[s]);
	json_int_t index = json_integer_value(json_object_get(side, "row"));
	const json_t *row = json_array_get(json_object_get(a->root, "rows"), (size_t)index);
	if (!json_is_object(row)) {
		mismatch(a, "replay.workloads[%zu].%s.row %lld is not a row", w, sides[s],
		         (long long)index);
		return;
	}
	const char *text_keys[] = {"kernel", "dtype"};
	for (int k = 0; k < 2; k++)
		if (!json_equal(json_object_get(row, text_keys[k]),
		                json_object_get(workload, text_keys[k])))
			mismatch(a, "rows[%lld].%s is not replay.workloads[%zu].%s",
			         (long long)index, text_keys[k], w, text_keys[k]);
	const char *number_keys[] = {"M", "N"};
	for (int k = 0; k < 2; k++)
		if (json_integer_value(json_object_get(row, number_keys[k])) !=
		    json_integer_value(json_object_get(workload, number_keys[k])))
			mismatch(a, "rows[%lld].%s is not replay.workloads[%zu].%s",
			         (long long)index, number_keys[k], w, number_keys[k]);
	const char *side_name = json_string_value(json_object_get(row, "side"));
	if (!side_name || strcmp(side_name, sides[s]) != 0 ||
	    !json_is_integer(json_object_get(row, "workload")) ||
	    json_integer_value(json_object_get(row, "workload")) != (json_int_t)w ||
	    !json_equal(json_object_get(row, "source_row"), json_object_get(side, "source_row")))
		mismatch(
		    a, "rows[%lld]: side, workload or source_row is not replay.workloads[%zu].%s's",
		    (long long)index, w, sides[s]);
	const json_t *phases = json_object_get(row, "phases");
	const char *name;
	const json_t *phase;
	json_object_foreach((json_t *)phases, name, phase)
	{
		if (!json_is_true(json_object_get(phase, "available")))
			continue;
		const json_t *batches = json_object_get(phase, "batches");
		int batches_ok = json_array_size(batches) == (size_t)(2 * rounds);
		for (size_t i = 0; batches_ok && i < json_array_size(batches); i++)
			batches_ok = json_integer_value(json_array_get(batches, i)) >= 1;
		if (json_integer_value(json_object_get(phase, "rounds")) != rounds ||
		    json_integer_value(json_object_get(phase, "samples_per_round")) !=
		        2 * samples ||
		    !batches_ok ||
		    !json_equal(json_object_get(phase, "batch"), json_array_get(batches, 0)))
			mismatch(
			    a,
			    "rows[%lld].phases.%s: rounds, samples_per_round, batch or batches do "
			    "not hold %lld rounds of two positions of %lld samples",
			    (long long)index, name, (long long)rounds, (long long)samples);
	}
}

/* The replay's protocol as the file claims it ran: rounds alternating ABBA and BAAB, each side
 * row consistent with its workload, and hash differences only with --allow-rebuild. */
static void check_replay_rounds(audit *a)
{
	const json_t *replay = json_object_get(a->root, "replay");
	const json_t *protocol = json_object_get(a->root, "protocol");
	json_int_t rounds = json_integer_value(json_object_get(protocol, "rounds"));
	json_int_t samples = json_integer_value(json_object_get(protocol, "samples"));
	const json_t *workloads = json_object_get(replay, "workloads");
	if (rounds < 1 || samples < 1)
		mismatch(a, "protocol.rounds (%lld) and protocol.samples (%lld) must be at least 1",
		         (long long)rounds, (long long)samples);
	for (size_t w = 0; w < json_array_size(workloads); w++) {
		const json_t *workload = json_array_get(workloads, w);
		const json_t *orders = json_object_get(workload, "orders");
		int ok = json_array_size(orders) == (size_t)rounds;
		for (json_int_t r = 0; ok && r < rounds; r++) {
			const char *order = json_string_value(json_array_get(orders, (size_t)r));
			ok = order && strcmp(order, r % 2 == 0 ? "ABBA" : "BAAB") == 0;
		}
		if (!ok)
			mismatch(
			    a,
			    "replay.workloads[%zu].orders is not ABBA, BAAB, ... over %lld rounds",
			    w, (long long)rounds);
		for (int s = 0; s < 2; s++)
			check_side_row(a, workload, w, s, rounds, samples);
	}
	if (json_array_size(json_object_get(replay, "differences")) > 0 &&
	    !json_is_true(json_object_get(replay, "allow_rebuild")))
		mismatch(a,
		         "replay.differences lists %zu hash difference(s) but allow_rebuild is "
		         "false: such a replay is refused",
		         json_array_size(json_object_get(replay, "differences")));
	end(a, "%zu workloads, %lld rounds each as ABBA/BAAB, every side row consistent",
	    json_array_size(workloads), (long long)rounds);
}

/* ---------------------------------------------------------------- the audit */

static rr_status load(audit *a)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/results.json", a->dir);
	rr_status status = rr__json_read_file(path, &a->root);
	if (status == RR_OK)
		status = rr__results_kind_of(a->root, &a->kind);
	if (status == RR_OK)
		status = rr__results_from_json(a->root, &a->stored);
	if (status != RR_OK)
		return rr__fail_context(status, "cannot audit '%s'", a->dir);
	if (a->kind == RR_RESULTS_REPLAY && !json_is_object(json_object_get(a->root, "replay")))
		return rr__fail(RR_ERR_PARSE,
		                "cannot audit '%s': a replay without a \"replay\" object", a->dir);
	snprintf(path, sizeof path, "%s/results.md", a->dir);
	FILE *md = fopen(path, "r");
	if (md)
		fclose(md);
	else if (a->kind != RR_RESULTS_PEERS && a->kind != RR_RESULTS_TUNE)
		return rr__fail(RR_ERR_IO, "cannot audit '%s': it has no readable results.md",
		                a->dir);
	return RR_OK;
}

static void free_fresh(rr__results *fresh)
{
	for (int i = 0; i < fresh->n_rows; i++)
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			rr__phase_result_free(&fresh->rows[i].phases[p]);
	for (int c = 0; c < RR__CEILING_COUNT; c++)
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			rr__phase_result_free(&fresh->ceilings[c].phases[p]);
	free(fresh->rows);
}

static json_t *replay_statistics(audit *a)
{
	json_t *fresh = json_deep_copy(a->root);
	if (!fresh || rr__replay_summarize(fresh) != RR_OK) {
		mismatch(a, "cannot recompute the replay's statistics: %s", rr_last_error());
		json_decref(fresh);
		return NULL;
	}
	diff_json(a, a->root, fresh, "");
	return fresh;
}

static void run_checks(audit *a)
{
	static const char *kinds[] = {"bench", "replay", "peers", "tune run"};
	fprintf(a->report, "OK       read: %s/results.json, a %s of %d rows\n", a->dir,
	        kinds[a->kind], a->stored.n_rows);
	rr__results fresh;
	json_t *fresh_replay = NULL;
	begin(a, "statistics");
	int phases = recompute(a, &fresh);
	if (phases < 0) {
		mismatch(a, "out of memory");
		return;
	}
	check_ceilings(a, &fresh);
	check_summary(a);
	check_l2(a);
	if (a->kind == RR_RESULTS_REPLAY)
		fresh_replay = replay_statistics(a);
	end(a, "%d phase summaries%s recomputed from their raw samples", phases,
	    a->kind == RR_RESULTS_REPLAY ? ", round medians, paired ratios and verdicts" : "");
	begin(a, "validated counts");
	check_validation(a);
	begin(a, "phase labels");
	check_labels(a);
	end(a, "every timed number sits under one of the five phase names");
	begin(a, "hashes and plans");
	int hashed = 0, planned = 0;
	check_hashes_and_plans(a, &hashed, &planned);
	end(a, "%d captured sources match their SHA-256, %d name the row's plan", hashed, planned);
	begin(a, "binaries");
	check_binaries(a);
	if (a->kind == RR_RESULTS_REPLAY) {
		begin(a, "frozen plans");
		check_replay_plans(a);
		begin(a, "rounds");
		check_replay_rounds(a);
	}
	begin(a, "results.md");
	check_md(a, &fresh, fresh_replay);
	json_decref(fresh_replay);
	free_fresh(&fresh);
}

rr_status rr_verify_dir(const char *dir, FILE *report)
{
	if (!dir || !report || !dir[0])
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_verify_dir needs a folder and a report stream");
	char folder[4096];
	snprintf(folder, sizeof folder, "%s", dir);
	for (size_t n = strlen(folder); n > 1 && folder[n - 1] == '/'; n--)
		folder[n - 1] =
		    0; /* "DIR/" names files as DIR/results.json, not DIR//results.json */
	audit a = {.report = report, .dir = folder};
	rr_status status = load(&a);
	if (status == RR_OK) {
		run_checks(&a);
		fprintf(report, "%s: %d mismatch%s\n", folder, a.mismatches,
		        a.mismatches == 1 ? "" : "es");
		if (a.mismatches)
			status = rr__fail(RR_ERR_VALIDATION, "%d mismatch%s in '%s'", a.mismatches,
			                  a.mismatches == 1 ? "" : "es", folder);
	}
	rr__results_free(&a.stored);
	json_decref(a.root);
	return status;
}
