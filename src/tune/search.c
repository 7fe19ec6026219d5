/* The search over one workload's candidates (DESIGN.md §6): legal candidates from the planner,
 * each validated before it is timed, exhaustive when it fits or model-ranked top-k plus
 * coordinate descent from the model's pick; the finalists compared in position-balanced rounds
 * (a gap inside the noise is a tie, given to the simpler plan); the winner rebuilt from scratch. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "tune/tune.h"

void rr__tune_outcome_free(rr__tune_outcome *outcome)
{
	free(outcome->candidates);
	free(outcome->round_us);
	outcome->candidates = NULL;
	outcome->round_us = NULL;
}

/* The planner's order of simplicity: fewest blocks per row, rows before a persistent grid, then
 * the smallest U, R, V, W. Negative when a is simpler. */
static int simplicity(const rr_layout *a, const rr_layout *b)
{
	int fa[] = {a->blocks_per_row, a->grid, a->unroll,
	            a->rows_per_group, a->vec,  a->workers_per_row};
	int fb[] = {b->blocks_per_row, b->grid, b->unroll,
	            b->rows_per_group, b->vec,  b->workers_per_row};
	for (int i = 0; i < 6; i++)
		if (fa[i] != fb[i])
			return fa[i] < fb[i] ? -1 : 1;
	return (int)a->storage - (int)b->storage;
}

static int fields_differing(const rr_layout *a, const rr_layout *b)
{
	return (a->workers_per_row != b->workers_per_row) + (a->vec != b->vec) +
	       (a->unroll != b->unroll) + (a->rows_per_group != b->rows_per_group) +
	       (a->blocks_per_row != b->blocks_per_row) + (a->storage != b->storage) +
	       (a->grid != b->grid);
}

typedef struct search {
	rr_device *device;
	const rr_kernel *kernel;
	rr_dtype dtype;
	int64_t rows, cols;
	const rr__tune_settings *settings;
	rr__results *results;
	rr__tune_outcome *outcome;
	const char *label;
	int *order; /* candidate indices by model cost */
	int n_measured;
	double start, budget_s;
} search;

/* Validates, then times one candidate; its row (every phase's samples) joins the results. A
 * failed validation, a build error or a missing objective phase rejects it with the reason. */
static rr_status measure(search *s, int index)
{
	rr__tune_candidate *c = &s->outcome->candidates[index];
	if (c->measured)
		return RR_OK;
	c->measured = 1;
	s->n_measured++;
	fprintf(stderr, "%s: candidate %d of at most %d, %s, %.1f s in this workload\n", s->label,
	        s->n_measured, s->settings->max_candidates, c->plan, rr__now() - s->start);
	rr__row_result *row = rr__results_add_row(s->results);
	if (!row)
		return RR_ERR_NOMEM;
	c->row = s->results->n_rows - 1;
	rr_program *program = NULL;
	rr_status status = rr_program_build(s->device, s->kernel, s->dtype, s->rows, s->cols,
	                                    &c->layout, &program);
	if (status == RR_OK)
		status = rr__bench_program(s->device, program, s->rows, &s->settings->bench, row);
	rr_program_free(program);
	row = &s->results->rows[c->row];
	if (status != RR_OK || row->state == RR_ROW_ERROR) {
		row->state = RR_ROW_ERROR;
		if (!row->error[0])
			snprintf(row->error, sizeof row->error, "%s", rr_last_error());
		snprintf(row->plan, sizeof row->plan, "%s", c->plan);
		snprintf(c->reason, sizeof c->reason, "not built or not run: %.500s", row->error);
	} else if (row->state == RR_ROW_INVALID) {
		snprintf(
		    c->reason, sizeof c->reason,
		    "failed validation (never timed): output '%s' row %lld column %lld got %.9g, "
		    "expected %.9g",
		    row->validation.failed_output, (long long)row->validation.failed_row,
		    (long long)row->validation.failed_col, row->validation.failed_got,
		    row->validation.failed_expected);
	} else if (!row->phases[s->settings->phase].available) {
		snprintf(c->reason, sizeof c->reason,
		         "no timing control for --objective %s: the %s phase is unavailable (%s)",
		         s->settings->objective, rr__phase_name(s->settings->phase),
		         row->phases[s->settings->phase].reason);
	} else {
		c->ranked = 1;
		c->median_us = row->phases[s->settings->phase].median_us;
	}
	if (!c->ranked)
		fprintf(stderr, "%s: %s rejected: %s\n", s->label, c->plan, c->reason);
	return status == RR_ERR_NOMEM ? status : RR_OK;
}

static int room_left(const search *s)
{
	if (s->n_measured >= s->settings->max_candidates)
		return 0;
	return !(s->budget_s > 0) || rr__now() - s->start < s->budget_s;
}

static int better(const rr__tune_candidate *a, const rr__tune_candidate *b)
{
	return a->ranked && (!b->ranked || a->median_us < b->median_us);
}

/* From the model's pick, measure the neighbours that differ in one plan dimension (in model
 * order) and move to the fastest; stop when no neighbour is faster or room runs out. */
static rr_status descend(search *s, int from)
{
	rr__tune_outcome *o = s->outcome;
	int current = from;
	for (;;) {
		int moved = current;
		for (int k = 0; k < o->n_candidates && room_left(s); k++) {
			int i = s->order[k];
			if (o->candidates[i].measured ||
			    fields_differing(&o->candidates[i].layout,
			                     &o->candidates[current].layout) != 1)
				continue;
			o->candidates[i].how = 1;
			rr_status status = measure(s, i);
			if (status != RR_OK)
				return status;
			if (better(&o->candidates[i], &o->candidates[moved]))
				moved = i;
		}
		if (moved == current || !room_left(s))
			return RR_OK;
		current = moved;
	}
}

static rr_status explore(search *s)
{
	rr__tune_outcome *o = s->outcome;
	rr_status status = measure(s, o->model_pick);
	double first = rr__now() - s->start;
	int fits = o->n_candidates <= s->settings->max_candidates &&
	           (!(s->budget_s > 0) || first * o->n_candidates <= s->budget_s);
	o->strategy = fits ? "exhaustive" : "model top-k + coordinate descent";
	int top_k = fits ? o->n_candidates : (s->settings->max_candidates + 1) / 2;
	for (int k = 0; k < top_k && status == RR_OK && (fits || room_left(s)); k++)
		status = measure(s, s->order[k]);
	if (status == RR_OK && !fits)
		status = descend(s, o->model_pick);
	for (int k = 0; k < o->n_candidates && status == RR_OK && !fits && room_left(s); k++)
		status = measure(s, s->order[k]);
	return status;
}

/* ---------------------------------------------------------------- finalists */

static void choose_finalists(rr__tune_outcome *o)
{
	o->n_finalists = 0;
	for (int round = 0; round < 2; round++) {
		int best = -1;
		for (int i = 0; i < o->n_candidates; i++) {
			int taken = 0;
			for (int f = 0; f < o->n_finalists; f++)
				taken |= o->finalists[f] == i;
			if (!taken && o->candidates[i].ranked &&
			    (best < 0 || better(&o->candidates[i], &o->candidates[best])))
				best = i;
		}
		if (best >= 0)
			o->finalists[o->n_finalists++] = best;
	}
	int model_in = 0;
	for (int f = 0; f < o->n_finalists; f++)
		model_in |= o->finalists[f] == o->model_pick;
	if (!model_in && o->candidates[o->model_pick].ranked)
		o->finalists[o->n_finalists++] = o->model_pick;
}

/* A finalist held open across the rounds: built and validated once (bench session), then timed
 * once per round. */
typedef struct finalist {
	rr_program *program;
	rr__bench_session *session;
	rr__row_result described; /* the validated row each round's row copies */
} finalist;

static rr_status open_finalist(search *s, const rr__tune_candidate *c, finalist *f)
{
	rr_status status = rr_program_build(s->device, s->kernel, s->dtype, s->rows, s->cols,
	                                    &c->layout, &f->program);
	if (status == RR_OK)
		status = rr__bench_session_open(s->device, f->program, s->rows, &s->settings->bench,
		                                &f->described, &f->session);
	if (status == RR_OK && !f->session)
		status = rr__fail(RR_ERR_VALIDATION,
		                  "finalist %s failed validation when built again", c->plan);
	return status;
}

/* One round's measurement of a finalist becomes a row of its own (its samples are kept). */
static rr_status time_finalist(search *s, finalist *f, double *p50)
{
	rr__row_result *row = rr__results_add_row(s->results);
	if (!row)
		return RR_ERR_NOMEM;
	*row = f->described;
	rr_status status =
	    rr__bench_session_measure(f->session, &s->settings->bench.measure, row->phases);
	row->state = status == RR_OK ? RR_ROW_MEASURED : RR_ROW_ERROR;
	if (status != RR_OK)
		snprintf(row->error, sizeof row->error, "%s", rr_last_error());
	else
		*p50 = row->phases[s->settings->phase].median_us;
	return status;
}

/* Rounds in ABBA order (forward, reversed, reversed, forward, ...), so no finalist always runs
 * first or last; each round's value is the p50 of that finalist's samples in that round. */
static rr_status run_rounds(search *s)
{
	rr__tune_outcome *o = s->outcome;
	int n = o->n_finalists, rounds = s->settings->rounds;
	finalist held[4];
	memset(held, 0, sizeof held);
	o->round_us = calloc((size_t)(rounds * n), sizeof *o->round_us);
	rr_status status =
	    o->round_us ? RR_OK : rr__fail(RR_ERR_NOMEM, "out of memory for finalist rounds");
	o->rounds = rounds;
	for (int f = 0; f < n && status == RR_OK; f++)
		status = open_finalist(s, &o->candidates[o->finalists[f]], &held[f]);
	for (int r = 0; r < rounds && status == RR_OK; r++) {
		int reversed = r % 4 == 1 || r % 4 == 2;
		fprintf(stderr, "%s: finalist round %d of %d\n", s->label, r + 1, rounds);
		for (int k = 0; k < n && status == RR_OK; k++) {
			int f = reversed ? n - 1 - k : k;
			status = time_finalist(s, &held[f], &o->round_us[r * n + f]);
		}
	}
	for (int f = 0; f < n; f++) {
		rr__bench_session_close(held[f].session);
		rr_program_free(held[f].program);
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			rr__phase_result_free(&held[f].described.phases[p]);
	}
	if (status != RR_OK)
		return rr__fail_context(status, "while comparing the finalists");
	return RR_OK;
}

/* The finalist with the lowest median of round values leads; another finalist is tied with it
 * when it was at least as fast in some round (the gap is inside the run-to-run spread). The
 * simplest of the tied plans wins. */
static void decide(search *s)
{
	rr__tune_outcome *o = s->outcome;
	int n = o->n_finalists, rounds = o->rounds, lead = 0;
	double medians[4], column[64];
	for (int f = 0; f < n; f++) {
		for (int r = 0; r < rounds; r++)
			column[r] = o->round_us[r * n + f];
		medians[f] = rr__stats_median(column, (size_t)rounds);
		if (medians[f] < medians[lead])
			lead = f;
	}
	int winner = lead, ties = 0;
	for (int f = 0; f < n; f++) {
		double fastest_ratio = INFINITY;
		for (int r = 0; r < rounds; r++) {
			double ratio = o->round_us[r * n + f] / o->round_us[r * n + lead];
			fastest_ratio = ratio < fastest_ratio ? ratio : fastest_ratio;
		}
		if (f == lead || fastest_ratio > 1)
			continue;
		ties++;
		if (simplicity(&o->candidates[o->finalists[f]].layout,
		               &o->candidates[o->finalists[winner]].layout) < 0)
			winner = f;
	}
	o->winner = o->finalists[winner];
	snprintf(o->record.decision, sizeof o->record.decision,
	         ties ? "tied with %d finalist(s) within the round-to-round spread; simplest chosen"
	              : "fastest in every comparison of %d balanced rounds",
	         ties ? ties : rounds);
	/* Regret from the same paired rounds: the model's pick against the winner. */
	o->record.regret = NAN;
	for (int f = 0; f < n; f++) {
		if (o->finalists[f] != o->model_pick)
			continue;
		for (int r = 0; r < rounds; r++)
			column[r] = o->round_us[r * n + f] / o->round_us[r * n + winner];
		o->record.regret =
		    o->model_pick == o->winner ? 0 : rr__stats_median(column, (size_t)rounds) - 1;
	}
}

/* ---------------------------------------------------------------- the fresh winner */

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw)
{
	(void)info;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Rebuilt with an empty compile cache of its own, so nothing reused from the search (a stale
 * binary, a cached compile) can stand in for the winner. */
static rr_status measure_fresh(search *s)
{
	rr__tune_outcome *o = s->outcome;
	rr__tune_candidate *c = &o->candidates[o->winner];
	char folder[] = "/tmp/rowreduce-tune-fresh-XXXXXX";
	if (!mkdtemp(folder))
		return rr__fail(RR_ERR_IO, "cannot create a fresh compile cache folder in /tmp");
	const char *old = getenv("RR_CACHE_DIR");
	char *saved = old ? strdup(old) : NULL;
	setenv("RR_CACHE_DIR", folder, 1);
	rr_program *program = NULL;
	rr_status status = rr_program_build(s->device, s->kernel, s->dtype, s->rows, s->cols,
	                                    &c->layout, &program);
	if (saved)
		setenv("RR_CACHE_DIR", saved, 1);
	else
		unsetenv("RR_CACHE_DIR");
	free(saved);
	nftw(folder, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	fprintf(stderr, "%s: winner %s rebuilt from scratch, measured fresh\n", s->label, c->plan);
	rr__row_result *row = rr__results_add_row(s->results);
	if (!row) {
		rr_program_free(program);
		return RR_ERR_NOMEM;
	}
	o->fresh_row = s->results->n_rows - 1;
	if (status == RR_OK)
		status = rr__bench_program(s->device, program, s->rows, &s->settings->bench, row);
	rr_program_free(program);
	row = &s->results->rows[o->fresh_row];
	if (status != RR_OK || row->state != RR_ROW_MEASURED)
		return rr__fail(RR_ERR_DEVICE, "the winner %s failed when rebuilt from scratch: %s",
		                c->plan, row->error[0] ? row->error : "it failed validation");
	o->record.best_us = row->phases[s->settings->phase].median_us;
	return RR_OK;
}

/* ---------------------------------------------------------------- one workload */

static const rr__tune_candidate *sort_base;

static int by_model(const void *a, const void *b)
{
	const rr__tune_candidate *x = &sort_base[*(const int *)a], *y = &sort_base[*(const int *)b];
	if (x->model_us != y->model_us)
		return x->model_us < y->model_us ? -1 : 1;
	return simplicity(&x->layout, &y->layout);
}

static rr_status load_candidates(search *s, const rr__plan_request *req)
{
	rr__tune_outcome *o = s->outcome;
	rr__candidates all;
	rr_status status = rr__plan_enumerate_measured(req, NULL, &all);
	if (status != RR_OK)
		return status;
	o->considered = all.considered;
	o->rejected_illegal = all.rejected;
	o->merged = all.merged;
	o->legal = all.count;
	o->candidates = calloc((size_t)(all.count ? all.count : 1), sizeof *o->candidates);
	s->order = calloc((size_t)(all.count ? all.count : 1), sizeof *s->order);
	if (!o->candidates || !s->order) {
		rr__candidates_free(&all);
		return rr__fail(RR_ERR_NOMEM, "out of memory for %d candidates", all.count);
	}
	for (int i = 0; i < all.count; i++) {
		rr__tune_candidate *c = &o->candidates[i];
		c->layout = all.items[i];
		c->row = -1;
		c->model_us = rr__cost_default(req, &c->layout, NULL);
		rr__plan_features f;
		rr__plan_features_compute(req, &c->layout, &f);
		double slow = fmax(f.memory_us, f.latency_us),
		       fast = fmin(f.memory_us, f.latency_us);
		double terms[RR__TUNE_TERMS] = {f.launch_us, slow, fast, f.tree_us, 0};
		terms[4] = f.predicted_us -
		           (f.launch_us + slow + req->coeffs->value[RR__COEFF_overlap] * fast +
		            req->coeffs->value[RR__COEFF_tree_weight] * f.tree_us);
		memcpy(c->terms, terms, sizeof terms);
		rr_layout_format(&c->layout, c->plan, sizeof c->plan);
		s->order[i] = i;
	}
	o->n_candidates = all.count;
	if (all.count == 0)
		snprintf(o->failure, sizeof o->failure,
		         "no legal layout (%d considered; first: %s)", all.considered,
		         all.first_rejection);
	rr__candidates_free(&all);
	sort_base = o->candidates;
	qsort(s->order, (size_t)o->n_candidates, sizeof *s->order, by_model);
	return RR_OK;
}

/* The index of the model's pick (rr__plan_choose, the automatic mapper's own answer). */
static rr_status find_model_pick(search *s, const rr__plan_request *req)
{
	rr__tune_outcome *o = s->outcome;
	rr_layout pick;
	rr_status status = rr__plan_choose(req, NULL, NULL, NULL, &pick, NULL);
	if (status != RR_OK)
		return status;
	o->model_pick = s->order[0];
	for (int i = 0; i < o->n_candidates; i++)
		if (fields_differing(&o->candidates[i].layout, &pick) == 0)
			o->model_pick = i;
	rr_layout_format(&o->candidates[o->model_pick].layout, o->record.model_plan,
	                 sizeof o->record.model_plan);
	return RR_OK;
}

static void fill_record(search *s)
{
	rr__tune_outcome *o = s->outcome;
	o->record.key = o->key;
	snprintf(o->record.plan, sizeof o->record.plan, "%s", o->candidates[o->winner].plan);
	o->record.candidates = o->legal;
	for (int i = 0; i < o->n_candidates; i++) {
		o->record.measured += o->candidates[i].measured;
		o->record.rejected += o->candidates[i].measured && !o->candidates[i].ranked;
	}
}

rr_status rr__tune_workload(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                            int64_t rows, int64_t cols, const rr__tune_settings *settings,
                            double budget_s, const char *label, rr__results *results,
                            rr__tune_outcome *outcome)
{
	search s = {.device = device,
	            .kernel = kernel,
	            .dtype = dtype,
	            .rows = rows,
	            .cols = cols,
	            .settings = settings,
	            .results = results,
	            .outcome = outcome,
	            .label = label,
	            .start = rr__now(),
	            .budget_s = budget_s};
	outcome->winner = outcome->model_pick = outcome->fresh_row = -1;
	rr__plan_request req = {.kernel = kernel,
	                        .dtype = dtype,
	                        .rows = rows,
	                        .cols = cols,
	                        .target = &device->target};
	/* The coefficients of the device's class once for every candidate. */
	rr__cost_coeffs coeffs;
	rr_status status = rr__cost_coeffs_for(&device->target, &coeffs);
	req.coeffs = &coeffs;
	snprintf(outcome->cost_model, sizeof outcome->cost_model, "%s from %s", coeffs.device_class,
	         coeffs.source);
	if (status != RR_OK) /* a bad $RR_COST_COEFFS: nothing here can be trusted */
		return status;
	status = load_candidates(&s, &req);
	if (status == RR_OK && outcome->n_candidates > 0)
		status = find_model_pick(&s, &req);
	if (status == RR_OK && outcome->n_candidates > 0)
		status = explore(&s);
	if (status == RR_OK && outcome->n_candidates > 0) {
		choose_finalists(outcome);
		if (outcome->n_finalists == 0)
			snprintf(outcome->failure, sizeof outcome->failure,
			         "no candidate could be ranked; the model's pick %s: %s",
			         outcome->candidates[outcome->model_pick].plan,
			         outcome->candidates[outcome->model_pick].reason);
	}
	if (status == RR_OK && outcome->n_finalists > 0) {
		status = run_rounds(&s);
		if (status == RR_OK) {
			decide(&s);
			status = measure_fresh(&s);
		}
		if (status == RR_OK) {
			fill_record(&s);
			outcome->ok = 1;
		} else {
			snprintf(outcome->failure, sizeof outcome->failure, "%s", rr_last_error());
		}
	}
	free(s.order);
	outcome->seconds = rr__now() - s.start;
	return status == RR_ERR_NOMEM ? status : RR_OK;
}
