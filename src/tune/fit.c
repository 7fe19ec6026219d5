/* The cost model's coefficients fitted from tuning results (DESIGN.md §6): every measured
 * candidate of every tuned workload is realised again offline, and a coordinate search in log
 * space over the named coefficients of plan/coeffs.h minimises the regret of the model's pick
 * on two thirds of the workloads; the other third, chosen by a hash of the workload, is held
 * out and its regret reported apart. The result is a coefficients file (plan/coeffs.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "tune/tune.h"
#include "util/util.h"

/* The names of the terms a tune run logs per candidate (model_terms_us in results.json). */
const char *const rr__tune_term_names[RR__TUNE_TERMS] = {
    "launch", "slower_of_memory_latency", "faster_of_memory_latency", "tree", "hand_corrections"};

#define UNMEASURED_FLOOR 0.05

typedef struct candidate {
	rr__realisation realised;
	double measured_us; /* 0: never measured */
	double paired_us;   /* its time in the finalist rounds, 0 when not a finalist */
	char plan[160];
} candidate;

typedef struct workload {
	char name[160];
	rr_kernel *kernel;
	rr__kernel_facts facts;
	rr_dtype dtype;
	int64_t rows, cols;
	int held_out;
	int first, count; /* its measured candidates */
	int total;        /* and after them the legal ones never measured: count + those */
	double best_us;
	double unmeasured_regret; /* counted for a pick the tuner never measured */
	int anchor; /* one ranked candidate: no regret to report, but a pick that leaves it counts
	             */
} workload;

typedef struct fit_data {
	rr__target target;
	char device_class[64];
	int have_target;
	candidate *candidates;
	int n_candidates, cap_candidates;
	workload *workloads;
	int n_workloads, cap_workloads;
	int most_candidates; /* legal candidates of one workload */
	int n_measured;      /* measured candidates of all workloads */
	int anchors;         /* workloads with one ranked candidate */
	int skipped; /* workloads that could not be realised again (a kernel not built in, ...) */
	char sources[4096];
} fit_data;

static int grow(void **items, int *cap, int need, size_t size)
{
	if (need <= *cap)
		return 0;
	int next = *cap ? *cap * 2 : 64;
	while (next < need)
		next *= 2;
	void *moved = realloc(*items, (size_t)next * size);
	if (!moved)
		return -1;
	*items = moved;
	*cap = next;
	return 0;
}

/* The held-out third: FNV-1a of "kernel dtype MxN", so a workload keeps its side whatever
 * files it is read from and in whatever order. */
static int is_held_out(const char *name)
{
	uint32_t hash = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		hash = (hash ^ *p) * 16777619u;
	return hash % 3 == 0;
}

/* ---------------------------------------------------------------- reading results */

/* The target the results were measured on, as the planner saw it: the architecture's table
 * with the recorded multiprocessors and L2 (cuda), or this machine's CPU with the recorded
 * thread count. */
static rr_status target_of(json_t *root, const char *path, rr__target *target)
{
	const char *backend = json_string_value(json_object_get(root, "backend"));
	json_t *device = json_object_get(root, "device");
	int sms = (int)json_integer_value(json_object_get(device, "multiprocessors"));
	if (backend && !strcmp(backend, "cuda")) {
		const char *cc = json_string_value(json_object_get(device, "compute_capability"));
		char arch[16];
		int major = 0, minor = 0;
		if (!cc || sscanf(cc, "%d.%d", &major, &minor) != 2)
			return rr__fail(RR_ERR_IO, "%s: the device has no compute capability",
			                path);
		snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
		if (rr__target_for_cuda_arch(arch, target) != RR_OK)
			return rr__fail(RR_ERR_IO, "%s: no target for %s", path, arch);
		json_int_t l2 = json_integer_value(json_object_get(device, "l2_bytes"));
		if (l2 > 0)
			target->l2_bytes = l2;
	} else if (backend && !strcmp(backend, "cpu")) {
		rr__target_cpu(target);
	} else {
		return rr__fail(RR_ERR_IO, "%s: backend \"%s\" has no cost model to fit", path,
		                backend ? backend : "(none)");
	}
	if (sms > 0)
		target->multiprocessors = sms;
	return RR_OK;
}

/* The time of a finalist from the finalist rounds (the median of its per-round p50s): the
 * finalists were timed interleaved, so the pick and the winner are compared paired. 0 when
 * `plan` was not a finalist. */
static double rounds_time(json_t *rounds, const char *plan)
{
	json_t *finalists = json_object_get(rounds, "finalists"),
	       *p50 = json_object_get(rounds, "round_p50_us");
	size_t f, i;
	json_t *item;
	double values[64];
	int n = 0;
	json_array_foreach(finalists, f, item)
	{
		if (!json_is_string(item) || strcmp(json_string_value(item), plan))
			continue;
		json_t *round;
		json_array_foreach(p50, i, round)
		{
			double us = json_number_value(json_array_get(round, f));
			if (us > 0 && n < 64)
				values[n++] = us;
		}
	}
	return n ? rr__stats_median(values, (size_t)n) : 0;
}

static rr_status add_candidates(fit_data *d, workload *w, json_t *list, json_t *rounds)
{
	size_t i;
	json_t *c;
	w->first = d->n_candidates;
	w->best_us = INFINITY;
	json_array_foreach(list, i, c)
	{
		double us = json_number_value(json_object_get(c, "median_us"));
		const char *plan = json_string_value(json_object_get(c, "plan"));
		rr_layout layout;
		if (!json_is_true(json_object_get(c, "ranked")) || !(us > 0) || !plan ||
		    rr_layout_parse(plan, &layout) != RR_OK)
			continue;
		if (grow((void **)&d->candidates, &d->cap_candidates, d->n_candidates + 1,
		         sizeof *d->candidates))
			return rr__fail(RR_ERR_NOMEM, "out of memory");
		candidate *item = &d->candidates[d->n_candidates];
		if (rr__realise_with(&w->facts, w->dtype, w->cols, &layout, &d->target,
		                     &item->realised) != RR_OK)
			continue;
		item->measured_us = us;
		item->paired_us = rounds_time(rounds, plan);
		snprintf(item->plan, sizeof item->plan, "%s", plan);
		d->n_candidates++;
	}
	w->count = d->n_candidates - w->first;
	/* The finalists are ordered by their paired rounds, brought to the level of the first
	 * measurements (the median ratio of the two) so they compare with the other candidates. */
	double ratios[64];
	int n = 0;
	for (int m = 0; m < w->count && n < 64; m++)
		if (d->candidates[w->first + m].paired_us > 0)
			ratios[n++] = d->candidates[w->first + m].measured_us /
			              d->candidates[w->first + m].paired_us;
	double level = n ? rr__stats_median(ratios, (size_t)n) : 1;
	for (int m = 0; m < w->count; m++) {
		candidate *item = &d->candidates[w->first + m];
		if (item->paired_us > 0)
			item->measured_us = item->paired_us * level;
		w->best_us = fmin(w->best_us, item->measured_us);
	}
	d->n_measured += w->count;
	/* Nothing is known of a candidate never measured: count it as the worst measured, and at
	 * least UNMEASURED_FLOOR, so the fit gains nothing by moving the pick where the data does
	 * not reach (a workload with one measured candidate keeps the model where it was). */
	w->unmeasured_regret = UNMEASURED_FLOOR;
	for (int m = 0; m < w->count; m++)
		w->unmeasured_regret = fmax(
		    w->unmeasured_regret, d->candidates[w->first + m].measured_us / w->best_us - 1);
	return RR_OK;
}

/* The legal candidates the tuner did not measure, after the measured ones: the planner may pick
 * one of them, and the fit must know when it would. */
static rr_status add_unmeasured(fit_data *d, workload *w)
{
	rr__plan_request req = {w->kernel, w->dtype, w->rows, w->cols, &d->target, &w->facts, NULL};
	rr__candidates all;
	rr_status status = rr__plan_enumerate(&req, NULL, &all);
	for (int i = 0; status == RR_OK && i < all.count; i++) {
		char plan[160];
		int measured = 0;
		rr_layout_format(&all.items[i], plan, sizeof plan);
		for (int c = 0; c < w->count && !measured; c++)
			measured = !strcmp(plan, d->candidates[w->first + c].plan);
		if (measured)
			continue;
		if (grow((void **)&d->candidates, &d->cap_candidates, d->n_candidates + 1,
		         sizeof *d->candidates)) {
			status = rr__fail(RR_ERR_NOMEM, "out of memory");
			break;
		}
		candidate *item = &d->candidates[d->n_candidates];
		if (rr__realise_with(&w->facts, w->dtype, w->cols, &all.items[i], &d->target,
		                     &item->realised) != RR_OK)
			continue;
		item->measured_us = item->paired_us = 0;
		snprintf(item->plan, sizeof item->plan, "%s", plan);
		d->n_candidates++;
	}
	rr__candidates_free(&all);
	w->total = d->n_candidates - w->first;
	d->most_candidates = w->total > d->most_candidates ? w->total : d->most_candidates;
	return status;
}

static rr_status add_workload(fit_data *d, json_t *object)
{
	workload w = {0};
	const char *kernel = json_string_value(json_object_get(object, "kernel"));
	const char *dtype = json_string_value(json_object_get(object, "dtype"));
	w.rows = json_integer_value(json_object_get(object, "m"));
	w.cols = json_integer_value(json_object_get(object, "n"));
	if (!kernel || !dtype || rr_dtype_parse(dtype, &w.dtype) != RR_OK || w.cols < 1 ||
	    rr_kernel_load_builtin(kernel, &w.kernel) != RR_OK) {
		d->skipped++; /* only built-in kernels can be rebuilt from a results file */
		return RR_OK;
	}
	snprintf(w.name, sizeof w.name, "%s %s %lldx%lld", kernel, dtype, (long long)w.rows,
	         (long long)w.cols);
	w.held_out = is_held_out(w.name);
	rr__kernel_facts_of(w.kernel, &d->target, &w.facts);
	rr_status status = add_candidates(d, &w, json_object_get(object, "candidates"),
	                                  json_object_get(object, "rounds"));
	w.anchor = w.count == 1;
	d->anchors += w.anchor;
	if (status == RR_OK && w.count >= 1)
		status = add_unmeasured(d, &w);
	if (status == RR_OK && w.count < 1) { /* nothing measured */
		d->n_candidates = w.first;
		d->n_measured -= w.count;
		d->skipped++;
	} else if (status == RR_OK &&
	           grow((void **)&d->workloads, &d->cap_workloads, d->n_workloads + 1, sizeof w)) {
		status = rr__fail(RR_ERR_NOMEM, "out of memory");
	} else if (status == RR_OK) {
		d->workloads[d->n_workloads++] = w;
		return RR_OK;
	}
	rr_kernel_free(w.kernel);
	return status;
}

/* One results.json: its class must be the class of the files before it. */
static rr_status read_results(fit_data *d, const char *path)
{
	json_error_t error;
	json_t *root = json_load_file(path, 0, &error);
	if (!root)
		return rr__fail(RR_ERR_IO, "%s:%d:%d: %s", path, error.line, error.column,
		                error.text);
	json_t *workloads = json_object_get(json_object_get(root, "tuning"), "workloads");
	rr__target target;
	char device_class[64];
	rr_status status = RR_OK;
	if (!json_is_array(workloads))
		status = rr__fail(RR_ERR_IO, "%s is not a rowreduce tune results file", path);
	if (status == RR_OK)
		status = target_of(root, path, &target);
	if (status == RR_OK) {
		rr__cost_coeffs_class_of(&target, device_class, sizeof device_class);
		if (d->have_target && strcmp(device_class, d->device_class))
			status =
			    rr__fail(RR_ERR_INVALID_ARG,
			             "%s was measured on %s, the files before it on %s: fit one "
			             "device class at a time",
			             path, device_class, d->device_class);
	}
	if (status == RR_OK && !d->have_target) {
		d->target = target;
		d->have_target = 1;
		snprintf(d->device_class, sizeof d->device_class, "%s", device_class);
	}
	size_t i;
	json_t *w;
	int before = d->n_workloads;
	json_array_foreach(workloads, i, w)
	{
		if (status == RR_OK && json_is_true(json_object_get(w, "ok")) &&
		    !json_is_true(json_object_get(w, "from_database")))
			status = add_workload(d, w);
	}
	char digest[65] = "";
	if (status == RR_OK && rr__sha256_file(path, digest) == RR_OK) {
		size_t used = strlen(d->sources);
		snprintf(d->sources + used, sizeof d->sources - used,
		         "#   %s (sha256 %.16s, %d workloads)\n", path, digest,
		         d->n_workloads - before);
	}
	json_decref(root);
	return status;
}

/* ---------------------------------------------------------------- regret under coefficients */

typedef struct regret {
	int workloads;             /* with two or more ranked candidates */
	double mean, median, max;  /* the pick among the measured candidates */
	int anchors, anchors_left; /* one ranked candidate; the pick left it */
	const char *worst;
	/* The planner's pick over every legal candidate: unmeasured in `unmeasured` workloads,
	 * whose regret is taken as the median of their measured candidates' (planner_mean). */
	int unmeasured;
	double planner_mean, planner_max; /* each workload's capped at 1 */
	double soft;
} regret;

/* A regret as the search weighs it: at most 1 (twice the best), so one disturbed sample (a
 * busy machine can make a 25 us kernel read 2 ms) cannot outweigh every other workload. */
static double capped(double value)
{
	return fmin(value, 1.0);
}

/* The planner's rule among the first n candidates: the simplest of those predicted within
 * the tie tolerance of the lowest. */
static int tie_pick(const fit_data *d, const workload *w, const double *predicted, double lowest,
                    int n)
{
	int best = -1;
	for (int c = 0; c < n; c++)
		if (predicted[c] <= lowest + fabs(lowest) * RR__PLAN_TIE_TOLERANCE &&
		    (best < 0 || rr__plan_simpler(&d->candidates[w->first + c].realised.layout,
		                                  &d->candidates[w->first + best].realised.layout)))
			best = c;
	return best < 0 ? 0 : best;
}

/* One workload's picks under k: *measured_pick the regret of the lowest prediction among the
 * measured, *planner_pick that of the lowest over all legal (the worst measured when it was
 * never measured; *unmeasured says), the return value the smooth regret: the pick spread over
 * the measured candidates predicted within a few per cent of the lowest (a guide for the search
 * across the plateaus of the plain regret). */
static double picks_of(const fit_data *d, const workload *w, const rr__cost_coeffs *k,
                       double *predicted, double *measured_pick, double *planner_pick,
                       int *unmeasured)
{
	rr__plan_request req = {w->kernel, w->dtype, w->rows, w->cols, &d->target, &w->facts, k};
	double lowest = INFINITY, lowest_all = INFINITY;
	for (int c = 0; c < w->total; c++) {
		predicted[c] = rr__cost_realised(&req, &d->candidates[w->first + c].realised);
		if (c < w->count)
			lowest = fmin(lowest, predicted[c]);
		lowest_all = fmin(lowest_all, predicted[c]);
	}
	int pick = tie_pick(d, w, predicted, lowest, w->count);
	int pick_all = tie_pick(d, w, predicted, lowest_all, w->total);
	double weight_sum = 0, soft = 0;
	for (int c = 0; c < w->count; c++) {
		double weight = exp(-log(predicted[c] / lowest) / 0.05);
		weight_sum += weight;
		soft += weight * capped(d->candidates[w->first + c].measured_us / w->best_us - 1);
	}
	*measured_pick = d->candidates[w->first + pick].measured_us / w->best_us - 1;
	*unmeasured = pick_all >= w->count;
	*planner_pick = *unmeasured ? w->unmeasured_regret : *measured_pick;
	return soft / weight_sum;
}

/* The regrets under k over the workloads of one side (held = 0 fitted, 1 held out). */
static regret regret_of(const fit_data *d, const rr__cost_coeffs *k, int held)
{
	regret out = {.worst = ""};
	double *values = malloc((size_t)(d->n_workloads + 1) * sizeof *values);
	double *predicted = malloc((size_t)(d->most_candidates + 1) * sizeof *predicted);
	for (int i = 0; values && predicted && i < d->n_workloads; i++) {
		const workload *w = &d->workloads[i];
		if (w->held_out != held)
			continue;
		double value, planner;
		int unmeasured;
		double soft = picks_of(d, w, k, predicted, &value, &planner, &unmeasured);
		out.planner_mean += capped(planner);
		out.planner_max = fmax(out.planner_max, capped(planner));
		if (w->anchor) {
			out.anchors++;
			out.anchors_left += unmeasured;
			continue;
		}
		out.soft += soft;
		values[out.workloads++] = value;
		out.mean += value;
		out.unmeasured += unmeasured;
		if (value > out.max || !out.worst[0]) {
			out.max = value;
			out.worst = w->name;
		}
	}
	if (out.workloads + out.anchors)
		out.planner_mean /= out.workloads + out.anchors;
	if (out.workloads) {
		out.mean /= out.workloads;
		out.soft /= out.workloads;
		out.median = rr__stats_median(values, (size_t)out.workloads);
	}
	free(values);
	free(predicted);
	return out;
}

/* ---------------------------------------------------------------- the search */

/* What the search minimises on the fitted side: the mean regret of the planner's pick (an
 * unmeasured pick counted as the worst measured candidate, so the model is not rewarded for
 * leaving the data), half the smooth regret, a tenth of the worst, and a small pull towards the
 * hand values (so a coefficient the data cannot see keeps its hand value). */
static double loss_of(const fit_data *d, const rr__cost_coeffs *k)
{
	regret r = regret_of(d, k, 0);
	double prior = 0;
	for (int id = 0; id < RR__COEFF_COUNT; id++) {
		double ratio = log(k->value[id] / rr__coeff_hand_value(id));
		prior += ratio * ratio;
	}
	return r.planner_mean + 0.5 * r.soft + 0.1 * r.planner_max + 1e-3 * prior;
}

static int fitted_here(const fit_data *d, int id)
{
	char backend = rr__coeff_backend(id);
	return backend == 'A' || backend == (d->target.kind == RR_TARGET_GPU ? 'G' : 'C');
}

/* Coordinate search in log space: each coefficient of the class tried up and down by a step
 * that shrinks from x2 to x1.04, kept when the loss falls; at most 20 times or 1/20 of its hand
 * value. Deterministic: the same data gives the same coefficients. */
static void search(const fit_data *d, rr__cost_coeffs *k, int *evaluations)
{
	static const double steps[] = {2.0, 1.41, 1.19, 1.09, 1.04};
	double best = loss_of(d, k);
	*evaluations = 1;
	for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
		for (int pass = 0, moved = 1; pass < 3 && moved; pass++) {
			moved = 0;
			for (int id = 0; id < RR__COEFF_COUNT; id++) {
				if (!fitted_here(d, id))
					continue;
				double was = k->value[id], hand = rr__coeff_hand_value(id);
				for (int up = 0; up < 2; up++) {
					double next = up ? was * steps[s] : was / steps[s];
					if (next > hand * 20 || next < hand / 20)
						continue;
					k->value[id] = next;
					double loss = loss_of(d, k);
					++*evaluations;
					if (loss < best - 1e-9) {
						best = loss;
						was = next;
						moved = 1;
					}
					k->value[id] = was;
				}
			}
		}
	}
}

/* ---------------------------------------------------------------- the report */

/* Workloads whose model pick over every legal candidate (the planner's own answer) is among
 * the measured ones: only for those is the regret above the planner's true regret. */
static int picks_measured(const fit_data *d, const rr__cost_coeffs *k)
{
	int measured = 0;
	for (int i = 0; i < d->n_workloads; i++) {
		const workload *w = &d->workloads[i];
		rr__plan_request req = {w->kernel,  w->dtype,  w->rows, w->cols,
		                        &d->target, &w->facts, k};
		rr_layout pick;
		char plan[160];
		if (rr__plan_choose(&req, NULL, NULL, NULL, &pick, NULL) != RR_OK)
			continue;
		rr_layout_format(&pick, plan, sizeof plan);
		for (int c = 0; c < w->count; c++)
			if (!strcmp(plan, d->candidates[w->first + c].plan)) {
				measured++;
				break;
			}
	}
	return measured;
}

static int regret_line(char *out, size_t size, const char *label, regret r)
{
	return snprintf(
	    out, size,
	    "#   %-24s %3d workloads: median %.2f%%, mean %.2f%%, max %.2f%% (worst: %s); pick "
	    "over all legal unmeasured in %d; left the one measured in %d of %d\n",
	    label, r.workloads, 100 * r.median, 100 * r.mean, 100 * r.max,
	    r.workloads ? r.worst : "none", r.unmeasured, r.anchors_left, r.anchors);
}

static char *header_of(const fit_data *d, const rr__cost_coeffs *fitted, const char *command,
                       int evaluations)
{
	rr__cost_coeffs hand;
	rr__cost_coeffs_default(&hand);
	size_t size = strlen(d->sources) + strlen(command) + 4096, used = 0;
	char *text = malloc(size);
	if (!text)
		return NULL;
	used += (size_t)snprintf(
	    text, size,
	    "# rowreduce cost-model coefficients for %s (names and hand values: "
	    "src/plan/coeffs.h).\n"
	    "# fitted by: %s\n"
	    "# with rowreduce %s (commit %s): a plan's realisation, hence the fit, follows the "
	    "code\n"
	    "# data (%d workloads, %d of them with one ranked candidate, %d measured candidates; "
	    "%d "
	    "workloads skipped: not a built-in kernel or no ranked candidate):\n%s"
	    "# method: coordinate search in log space from the hand values (x2 down to x1.04, %d "
	    "evaluations),\n"
	    "#   minimising on the fitted workloads the planner pick's mean regret + 0.5 smooth "
	    "regret + 0.1 max regret\n"
	    "#   + 1e-3 sum log(c/hand)^2, each workload's regret capped at 100%%, an unmeasured "
	    "pick counting the worst measured\n"
	    "#   regret of its workload and at least 5%%;\n"
	    "#   a finalist's time is the median of its per-round p50s (the position-balanced "
	    "rounds) scaled by the workload's\n"
	    "#   median ratio of first to round times, the others' their first median;\n"
	    "#   held out: workloads whose FNV-1a hash of \"kernel dtype MxN\" is 0 mod 3.\n"
	    "# regret = measured time of the model's pick among the measured candidates / fastest "
	    "measured - 1\n"
	    "#   (over the workloads with two or more ranked candidates; the others only say "
	    "whether "
	    "the pick left their one):\n",
	    d->device_class, command, rr_version(), rr_git_commit(), d->n_workloads, d->anchors,
	    d->n_measured, d->skipped, d->sources, evaluations);
	used += (size_t)regret_line(text + used, size - used, "fitted, fitted set",
	                            regret_of(d, fitted, 0));
	used += (size_t)regret_line(text + used, size - used, "fitted, held out",
	                            regret_of(d, fitted, 1));
	used += (size_t)regret_line(text + used, size - used, "hand values, fitted set",
	                            regret_of(d, &hand, 0));
	used += (size_t)regret_line(text + used, size - used, "hand values, held out",
	                            regret_of(d, &hand, 1));
	snprintf(
	    text + used, size - used,
	    "# the fitted model's pick over every legal candidate was among the measured in %d "
	    "of %d workloads (hand values: %d)\n",
	    picks_measured(d, fitted), d->n_workloads, picks_measured(d, &hand));
	return text;
}

static void free_data(fit_data *d)
{
	for (int i = 0; i < d->n_workloads; i++)
		rr_kernel_free(d->workloads[i].kernel);
	free(d->workloads);
	free(d->candidates);
}

/* The fitted coefficients go through their own text so the regret reported is the regret of
 * the values the file holds. */
static rr_status fit_and_write(fit_data *d, const char *command, const char *out_path)
{
	rr__cost_coeffs k, written;
	int evaluations = 0;
	rr__cost_coeffs_default(&k);
	snprintf(k.device_class, sizeof k.device_class, "%s", d->device_class);
	search(d, &k, &evaluations);
	char *text = rr__cost_coeffs_format(&k, "");
	rr_status status = text ? rr__cost_coeffs_parse(text, out_path, &written)
	                        : rr__fail(RR_ERR_NOMEM, "out of memory");
	free(text);
	text = NULL;
	char *header = status == RR_OK ? header_of(d, &written, command, evaluations) : NULL;
	if (status == RR_OK)
		text = header ? rr__cost_coeffs_format(&written, header) : NULL;
	if (status == RR_OK && !text)
		status = rr__fail(RR_ERR_NOMEM, "out of memory writing %s", out_path);
	if (status == RR_OK)
		status = rr__write_file_atomic(out_path, text, strlen(text));
	if (status == RR_OK)
		fputs(header, stdout);
	free(header);
	free(text);
	return status;
}

rr_status rr_tune_fit(const char *const *results_paths, int n, const char *command_line,
                      const char *out_path)
{
	fit_data d;
	memset(&d, 0, sizeof d);
	rr_status status = RR_OK;
	for (int i = 0; i < n && status == RR_OK; i++)
		status = read_results(&d, results_paths[i]);
	if (status == RR_OK && d.n_workloads < 3)
		status =
		    rr__fail(RR_ERR_INVALID_ARG,
		             "the results hold %d workloads with 2 or more ranked candidates of "
		             "a built-in kernel; a fit needs at least 3",
		             d.n_workloads);
	if (status == RR_OK)
		status = fit_and_write(&d, command_line, out_path);
	free_data(&d);
	return status;
}
