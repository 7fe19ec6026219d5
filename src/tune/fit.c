/* The cost model's coefficients fitted from tuning results: per backend and device, the weights
 * of the model's terms (launch, the slower and the faster of memory and latency, the tree, the
 * hand corrections) that best predict the measured candidates, by relative least squares with
 * non-negative weights. Every third workload is held out and its regret reported apart. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune/tune.h"

const char *const rr__tune_term_names[RR__TUNE_TERMS] = {
    "launch", "slower_of_memory_latency", "faster_of_memory_latency", "tree", "hand_corrections"};
/* The weights src/plan/cost.c applies today (predicted = launch + slow + 0.25 fast + tree, then
 * the corrections), the reference a fit is compared with. */
static const double CURRENT[RR__TUNE_TERMS] = {1, 1, 0.25, 1, 1};

#define T RR__TUNE_TERMS

typedef struct sample {
	double x[T], y;
} sample;

typedef struct workload {
	char name[160];
	int first, count;     /* its samples */
	double model_pick_us; /* the candidate the current model ranks first among the measured */
} workload;

typedef struct klass {
	char backend[16], device[128];
	sample *samples;
	int n_samples, cap_samples;
	workload *workloads;
	int n_workloads, cap_workloads;
} klass;

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

/* ---------------------------------------------------------------- reading results */

static klass *class_of(klass **classes, int *n, const char *backend, const char *device)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*classes)[i].backend, backend) &&
		    !strcmp((*classes)[i].device, device))
			return &(*classes)[i];
	klass *moved = realloc(*classes, (size_t)(*n + 1) * sizeof **classes);
	if (!moved)
		return NULL;
	*classes = moved;
	klass *c = &moved[(*n)++];
	memset(c, 0, sizeof *c);
	snprintf(c->backend, sizeof c->backend, "%s", backend);
	snprintf(c->device, sizeof c->device, "%s", device);
	return c;
}

static int add_workload(klass *c, json_t *w)
{
	json_t *candidate;
	size_t i;
	workload item = {.first = c->n_samples};
	double best_model = INFINITY;
	snprintf(item.name, sizeof item.name, "%s %s %lldx%lld",
	         json_string_value(json_object_get(w, "kernel")),
	         json_string_value(json_object_get(w, "dtype")),
	         (long long)json_integer_value(json_object_get(w, "m")),
	         (long long)json_integer_value(json_object_get(w, "n")));
	json_array_foreach(json_object_get(w, "candidates"), i, candidate)
	{
		json_t *terms = json_object_get(candidate, "model_terms_us");
		if (!json_is_true(json_object_get(candidate, "ranked")) || !json_is_object(terms))
			continue;
		sample s = {.y = json_number_value(json_object_get(candidate, "median_us"))};
		for (int t = 0; t < T; t++)
			s.x[t] = json_number_value(json_object_get(terms, rr__tune_term_names[t]));
		if (!(s.y > 0) ||
		    grow((void **)&c->samples, &c->cap_samples, c->n_samples + 1, sizeof s))
			continue;
		c->samples[c->n_samples++] = s;
		double model = json_number_value(json_object_get(candidate, "model_us"));
		if (model < best_model) {
			best_model = model;
			item.model_pick_us = s.y;
		}
	}
	item.count = c->n_samples - item.first;
	if (item.count < 2)
		return 0; /* nothing to rank */
	if (grow((void **)&c->workloads, &c->cap_workloads, c->n_workloads + 1, sizeof item))
		return -1;
	c->workloads[c->n_workloads++] = item;
	return 0;
}

static rr_status read_results(const char *path, klass **classes, int *n)
{
	json_error_t error;
	json_t *root = json_load_file(path, 0, &error);
	if (!root)
		return rr__fail(RR_ERR_IO, "%s:%d:%d: %s", path, error.line, error.column,
		                error.text);
	json_t *workloads = json_object_get(json_object_get(root, "tuning"), "workloads");
	const char *backend = json_string_value(json_object_get(root, "backend"));
	const char *device =
	    json_string_value(json_object_get(json_object_get(root, "device"), "name"));
	rr_status status = RR_OK;
	klass *c = NULL;
	if (!json_is_array(workloads) || !backend || !device)
		status = rr__fail(RR_ERR_IO, "%s is not a rowreduce tune results file", path);
	else if (!(c = class_of(classes, n, backend, device)))
		status = rr__fail(RR_ERR_NOMEM, "out of memory");
	size_t i;
	json_t *w;
	json_array_foreach(workloads, i, w)
	{
		if (status == RR_OK && json_is_true(json_object_get(w, "ok")) &&
		    !json_is_true(json_object_get(w, "from_database")) && add_workload(c, w))
			status = rr__fail(RR_ERR_NOMEM, "out of memory");
	}
	json_decref(root);
	return status;
}

/* ---------------------------------------------------------------- the fit */

/* Solves the k x k system a·x = b (Gaussian elimination, partial pivoting); -1 when singular. */
static int solve(double a[T][T], double b[T], int k, double x[T])
{
	for (int col = 0; col < k; col++) {
		int pivot = col;
		for (int r = col + 1; r < k; r++)
			if (fabs(a[r][col]) > fabs(a[pivot][col]))
				pivot = r;
		if (fabs(a[pivot][col]) < 1e-12)
			return -1;
		for (int j = 0; j < k; j++) {
			double t = a[col][j];
			a[col][j] = a[pivot][j];
			a[pivot][j] = t;
		}
		double t = b[col];
		b[col] = b[pivot];
		b[pivot] = t;
		for (int r = col + 1; r < k; r++) {
			double f = a[r][col] / a[col][col];
			for (int j = col; j < k; j++)
				a[r][j] -= f * a[col][j];
			b[r] -= f * b[col];
		}
	}
	for (int r = k - 1; r >= 0; r--) {
		double sum = b[r];
		for (int j = r + 1; j < k; j++)
			sum -= a[r][j] * x[j];
		x[r] = sum / a[r][r];
	}
	return 0;
}

static int held_out(int index)
{
	return index % 3 == 2;
}

/* Relative least squares (each sample weighted 1/y²) over the training workloads, over the
 * active terms; a term that would get a negative weight leaves the set and the rest are fitted
 * again. A term with no data keeps today's weight. */
static void fit_class(const klass *c, double beta[T], int active[T])
{
	for (int t = 0; t < T; t++) {
		active[t] = 0;
		beta[t] = CURRENT[t];
		for (int w = 0; w < c->n_workloads; w++)
			for (int i = 0; i < c->workloads[w].count; i++)
				active[t] |= c->samples[c->workloads[w].first + i].x[t] != 0;
	}
	for (int round = 0; round < T; round++) {
		int index[T], k = 0;
		for (int t = 0; t < T; t++)
			if (active[t])
				index[k++] = t;
		double a[T][T] = {{0}}, b[T] = {0}, x[T] = {0};
		for (int w = 0; w < c->n_workloads; w++) {
			if (held_out(w))
				continue;
			for (int i = 0; i < c->workloads[w].count; i++) {
				const sample *s = &c->samples[c->workloads[w].first + i];
				double weight = 1 / (s->y * s->y);
				for (int p = 0; p < k; p++) {
					b[p] += weight * s->x[index[p]] * s->y;
					for (int q = 0; q < k; q++)
						a[p][q] += weight * s->x[index[p]] * s->x[index[q]];
				}
			}
		}
		if (k == 0 || solve(a, b, k, x) != 0)
			return;
		int worst = -1;
		for (int p = 0; p < k; p++)
			if (x[p] < 0 && (worst < 0 || x[p] < x[worst]))
				worst = p;
		if (worst < 0) {
			for (int p = 0; p < k; p++)
				beta[index[p]] = x[p];
			return;
		}
		active[index[worst]] = 0;
		beta[index[worst]] = 0;
	}
}

/* Regret of picking, in each workload of one side, the candidate the weights rank first
 * (NULL weights: the current model's recorded pick) against the fastest measured. */
static json_t *regret_of(const klass *c, const double *beta, int held)
{
	double values[4096], worst = -INFINITY;
	int n = 0;
	const char *worst_name = "";
	for (int w = 0; w < c->n_workloads && n < 4096; w++) {
		if (held_out(w) != held)
			continue;
		const workload *item = &c->workloads[w];
		double best = INFINITY, pick = item->model_pick_us, pick_pred = INFINITY;
		for (int i = 0; i < item->count; i++) {
			const sample *s = &c->samples[item->first + i];
			best = fmin(best, s->y);
			double pred = 0;
			for (int t = 0; beta && t < T; t++)
				pred += beta[t] * s->x[t];
			if (beta && pred < pick_pred) {
				pick_pred = pred;
				pick = s->y;
			}
		}
		values[n] = pick / best - 1;
		if (values[n] > worst) {
			worst = values[n];
			worst_name = item->name;
		}
		n++;
	}
	if (!n)
		return json_pack("{s:i}", "workloads", 0);
	return json_pack("{s:i, s:f, s:f, s:s}", "workloads", n, "median",
	                 rr__stats_median(values, (size_t)n), "max", worst, "worst", worst_name);
}

static json_t *class_json(const klass *c)
{
	double beta[T];
	int active[T];
	fit_class(c, beta, active);
	json_t *weights = json_object(), *current = json_object(), *fitted = json_array();
	for (int t = 0; t < T; t++) {
		json_object_set_new(weights, rr__tune_term_names[t], json_real(beta[t]));
		json_object_set_new(current, rr__tune_term_names[t], json_real(CURRENT[t]));
		if (active[t])
			json_array_append_new(fitted, json_string(rr__tune_term_names[t]));
	}
	return json_pack("{s:s, s:s, s:i, s:o, s:o, s:o, s:{s:o, s:o}, s:{s:o, s:o}}", "backend",
	                 c->backend, "device", c->device, "samples", c->n_samples, "coefficients",
	                 weights, "fitted_terms", fitted, "current_coefficients", current,
	                 "regret_fitted", "training", regret_of(c, beta, 0), "held_out",
	                 regret_of(c, beta, 1), "regret_current_model", "training",
	                 regret_of(c, NULL, 0), "held_out", regret_of(c, NULL, 1));
}

rr_status rr_tune_fit(const char *const *results_paths, int n, const char *command_line,
                      const char *out_path)
{
	klass *classes = NULL;
	int n_classes = 0;
	rr_status status = RR_OK;
	for (int i = 0; i < n && status == RR_OK; i++)
		status = read_results(results_paths[i], &classes, &n_classes);
	json_t *list = json_array();
	for (int i = 0; i < n_classes && status == RR_OK; i++)
		json_array_append_new(list, class_json(&classes[i]));
	json_t *root = json_pack(
	    "{s:i, s:s, s:s, s:o}", "format", 1, "fitted_by", command_line, "method",
	    "per backend and device: relative least squares (weights 1/y^2) of the measured median "
	    "of every ranked candidate on the model's terms, weights >= 0 (a term that would go "
	    "negative is dropped and the rest refitted; a term with no data keeps today's weight); "
	    "workloads sorted as recorded, every third held out; regret = the measured time of the "
	    "candidate the weights rank first / the fastest measured - 1, among the measured "
	    "candidates only",
	    "classes", list);
	char *text =
	    status == RR_OK && root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	if (status == RR_OK && !text)
		status = rr__fail(RR_ERR_NOMEM, "out of memory writing %s", out_path);
	if (status == RR_OK)
		status = rr__write_file_atomic(out_path, text, strlen(text));
	free(text);
	json_decref(root);
	for (int i = 0; i < n_classes; i++) {
		free(classes[i].samples);
		free(classes[i].workloads);
	}
	free(classes);
	return status;
}
