/* Tests of the float64 reference: on the six built-ins it must equal plain loops written here,
 * for awkward row lengths, several row counts and every input dtype; bad arguments must fail
 * with a message; the error bounds follow the rules of ref/reference.h on kernels small enough
 * to work out by hand. Inputs are fresh random values each run (the seed is printed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "lang/ir.h"
#include "ref/reference.h"
#include "util/util.h"
#include "validate/validate.h"

static unsigned long long rng;

/* ---------------------------------------------------------------- kernels */

static rr_kernel *load_builtin(const char *name)
{
	rr_kernel *k = NULL;
	rr_status status = rr_kernel_load_builtin(name, &k);
	CHECKF(status == RR_OK, "loading built-in %s: %s", name, rr_last_error());
	return k;
}

/* ---------------------------------------------------------------- random inputs */

/* One array input: the typed buffer the reference reads, and the same values as doubles
 * (converted back here, independently of the library's loader). */
typedef struct typed {
	void *buffer;
	double *values;
	rr_dtype dtype;
} typed;

static double round_trip(double v, rr_dtype dtype)
{
	switch (dtype) {
	case RR_F32:
		return (double)(float)v;
	case RR_BF16:
		return rr__bf16_to_f32(rr__f32_to_bf16((float)v));
	case RR_F16:
		return rr__f16_to_f32(rr__f32_to_f16((float)v));
	default:
		return v;
	}
}

static typed random_typed(rr_dtype dtype, size_t count, double lo, double hi)
{
	typed t = {malloc(count * rr_dtype_size(dtype)), malloc(count * sizeof(double)), dtype};
	for (size_t i = 0; i < count; i++) {
		double v = rr_test_uniform(&rng, lo, hi);
		rr__store_from_double(t.buffer, dtype, i, v);
		t.values[i] = round_trip(v, dtype);
	}
	return t;
}

static void free_typed(typed *t)
{
	free(t->buffer);
	free(t->values);
}

/* Everything one run of a built-in reads: x, r (rows), w, b (cols), t (targets), eps. */
typedef struct problem {
	int64_t rows, cols;
	typed x, r, w, b;
	int64_t *t;
	double eps;
} problem;

static problem make_problem(int64_t rows, int64_t cols, rr_dtype dtype)
{
	problem p = {.rows = rows, .cols = cols};
	size_t mn = (size_t)(rows * cols);
	p.x = random_typed(dtype, mn, -3, 3);
	p.r = random_typed(dtype, mn, -3, 3);
	p.w = random_typed(dtype, (size_t)cols, 0.9, 1.1);
	p.b = random_typed(dtype, (size_t)cols, -0.5, 0.5);
	p.t = malloc((size_t)rows * sizeof *p.t);
	for (int64_t i = 0; i < rows; i++)
		p.t[i] = (int64_t)rr_test_uniform(&rng, 0, (double)cols);
	p.eps = rr_test_uniform(&rng, 1e-6, 1e-4);
	return p;
}

static void free_problem(problem *p)
{
	free_typed(&p->x);
	free_typed(&p->r);
	free_typed(&p->w);
	free_typed(&p->b);
	free(p->t);
}

/* The kernel's arguments, matched to its inputs by name. */
static void make_args(const rr_kernel *k, const problem *p, rr_arg *args)
{
	for (int i = 0; i < k->n_inputs; i++) {
		const char *name = k->inputs[i].name;
		const typed *t = strcmp(name, "x") == 0   ? &p->x
		                 : strcmp(name, "r") == 0 ? &p->r
		                 : strcmp(name, "w") == 0 ? &p->w
		                 : strcmp(name, "b") == 0 ? &p->b
		                                          : NULL;
		args[i] = (rr_arg){.data = t ? t->buffer : NULL, .dtype = t ? t->dtype : RR_I64};
		if (strcmp(name, "t") == 0)
			args[i].data = p->t;
		if (strcmp(name, "eps") == 0)
			args[i].value = p->eps;
	}
}

/* ---------------------------------------------------------------- plain-C versions */

/* y = (h - mean) / sqrt(var + eps) * w + b over one row h. */
static void plain_layernorm_row(const double *h, const problem *p, double *y)
{
	int64_t n = p->cols;
	double sum = 0, sq = 0;
	for (int64_t i = 0; i < n; i++)
		sum += h[i];
	double mean = sum / (double)n;
	for (int64_t i = 0; i < n; i++)
		sq += (h[i] - mean) * (h[i] - mean);
	double inv = 1.0 / sqrt(sq / (double)n + p->eps);
	for (int64_t i = 0; i < n; i++)
		y[i] = (h[i] - mean) * inv * p->w.values[i] + p->b.values[i];
}

/* Fills `out` (name -> array) with what the built-in `name` should produce. */
static void plain_run(const char *name, const problem *p, double *y, double *h, double *scalar)
{
	int64_t n = p->cols;
	for (int64_t row = 0; row < p->rows; row++) {
		const double *x = p->x.values + row * n, *r = p->r.values + row * n;
		double *yr = y + row * n, *hr = h + row * n;
		double m = -INFINITY, s = 0;
		if (strcmp(name, "sum") == 0) {
			for (int64_t i = 0; i < n; i++)
				s += x[i];
			scalar[row] = s;
		} else if (strcmp(name, "softmax") == 0 || strcmp(name, "cross_entropy") == 0) {
			for (int64_t i = 0; i < n; i++)
				m = fmax(m, x[i]);
			for (int64_t i = 0; i < n; i++)
				s += exp(x[i] - m);
			for (int64_t i = 0; i < n; i++)
				yr[i] = exp(x[i] - m) / s;
			scalar[row] = m + log(s) - x[p->t[row]];
		} else if (strcmp(name, "rmsnorm") == 0) {
			for (int64_t i = 0; i < n; i++)
				s += x[i] * x[i];
			double inv = 1.0 / sqrt(s / (double)n + p->eps);
			for (int64_t i = 0; i < n; i++)
				yr[i] = x[i] * inv * p->w.values[i];
		} else if (strcmp(name, "layernorm") == 0) {
			plain_layernorm_row(x, p, yr);
		} else if (strcmp(name, "add_layernorm") == 0) {
			for (int64_t i = 0; i < n; i++)
				hr[i] = x[i] + r[i];
			plain_layernorm_row(hr, p, yr);
		}
	}
}

/* Largest |got - expect| / (1 + |expect|) over `count` values. */
static double max_error(const double *got, const double *expect, size_t count)
{
	double worst = 0;
	for (size_t i = 0; i < count; i++) {
		double e = fabs(got[i] - expect[i]) / (1.0 + fabs(expect[i]));
		if (!(e <= worst))
			worst = isnan(e) ? INFINITY : e;
	}
	return worst;
}

/* ---------------------------------------------------------------- the comparisons */

static void compare_builtin(const char *name, int64_t rows, int64_t cols, rr_dtype dtype)
{
	rr_kernel *k = load_builtin(name);
	if (!k)
		return;
	problem p = make_problem(rows, cols, dtype);
	size_t mn = (size_t)(rows * cols);
	double *y = malloc(mn * sizeof *y), *h = malloc(mn * sizeof *h);
	double *scalar = malloc((size_t)rows * sizeof *scalar);
	plain_run(name, &p, y, h, scalar);

	rr_arg args[RR_MAX_IO];
	double *outputs[RR_MAX_IO];
	make_args(k, &p, args);
	for (int j = 0; j < k->n_outputs; j++)
		outputs[j] =
		    calloc(k->outputs[j].kind == RR_KIND_ROW ? mn : (size_t)rows, sizeof(double));
	rr_status status = rr_reference_run(k, rows, cols, args, outputs);
	CHECKF(status == RR_OK, "%s: %s", name, rr_last_error());
	for (int j = 0; status == RR_OK && j < k->n_outputs; j++) {
		const char *out = k->outputs[j].name;
		int is_row = k->outputs[j].kind == RR_KIND_ROW;
		const double *expect = !is_row ? scalar : strcmp(out, "h") == 0 ? h : y;
		double err = max_error(outputs[j], expect, is_row ? mn : (size_t)rows);
		CHECKF(err <= 1e-12, "%s output %s, M=%lld N=%lld %s: relative error %g", name, out,
		       (long long)rows, (long long)cols, rr_dtype_name(dtype), err);
	}
	for (int j = 0; j < k->n_outputs; j++)
		free(outputs[j]);
	free(y);
	free(h);
	free(scalar);
	free_problem(&p);
	rr_kernel_free(k);
}

static const char *const builtins[] = {"sum",       "softmax",       "rmsnorm",
                                       "layernorm", "add_layernorm", "cross_entropy"};

static void test_builtins(void)
{
	static const int64_t lengths[] = {1, 31, 33, 127, 128, 129, 257, 4103};
	static const int64_t row_counts[] = {1, 3, 17};
	for (size_t b = 0; b < sizeof builtins / sizeof builtins[0]; b++)
		for (size_t n = 0; n < sizeof lengths / sizeof lengths[0]; n++)
			for (size_t m = 0; m < sizeof row_counts / sizeof row_counts[0]; m++)
				compare_builtin(builtins[b], row_counts[m], lengths[n], RR_F32);
}

static void test_dtypes(void)
{
	static const rr_dtype dtypes[] = {RR_BF16, RR_F16, RR_F64};
	for (size_t b = 0; b < sizeof builtins / sizeof builtins[0]; b++)
		for (size_t d = 0; d < 3; d++) {
			compare_builtin(builtins[b], 3, 33, dtypes[d]);
			compare_builtin(builtins[b], 2, 257, dtypes[d]);
		}
}

/* Every operator once, against a plain loop: a rowscalar input, min reductions, unary ops. */
static void test_all_ops(void)
{
	static const char text[] =
	    "kernel all_ops\n in x : row\n in a : rowscalar\n"
	    " out y : row\n out z : rowscalar\n"
	    " ax = abs(x)\n lo = min(x)\n"
	    " y = (tanh(x) * sqrt(ax + 1) - min(x, a) + max(-x, a)) / exp(lo)\n"
	    " z = log(sum(ax)) * lo\n";
	rr_kernel *k = NULL;
	CHECKF(rr_kernel_load_string(text, strlen(text), "<all_ops>", &k) == RR_OK, "%s",
	       rr_last_error());
	if (!k)
		return;
	int64_t rows = 5, cols = 77;
	typed xt = random_typed(RR_F32, (size_t)(rows * cols), -3, 3);
	typed at = random_typed(RR_F64, (size_t)rows, -1, 1);
	double *y = malloc((size_t)(rows * cols) * sizeof *y), z[5];
	double *outputs[2] = {y, z};
	rr_arg args[2] = {{.data = xt.buffer, .dtype = RR_F32},
	                  {.data = at.buffer, .dtype = RR_F64}};
	CHECKF(rr_reference_run(k, rows, cols, args, outputs) == RR_OK, "%s", rr_last_error());
	double worst = 0;
	for (int64_t row = 0; row < rows; row++) {
		const double *xr = xt.values + row * cols;
		double av = at.values[row], mn = INFINITY, sa = 0;
		for (int64_t i = 0; i < cols; i++) {
			mn = fmin(mn, xr[i]);
			sa += fabs(xr[i]);
		}
		for (int64_t i = 0; i < cols; i++) {
			double v = tanh(xr[i]) * sqrt(fabs(xr[i]) + 1.0) - fmin(xr[i], av) +
			           fmax(-xr[i], av);
			double expect = v / exp(mn);
			worst = fmax(worst, max_error(&y[row * cols + i], &expect, 1));
		}
		double zexpect = log(sa) * mn;
		worst = fmax(worst, max_error(&z[row], &zexpect, 1));
	}
	CHECKF(worst <= 1e-12, "all_ops: relative error %g", worst);
	free(y);
	free_typed(&xt);
	free_typed(&at);
	rr_kernel_free(k);
}

/* Runs `k` on `p` with $RR_THREADS set to `threads` (NULL: unset) into freshly allocated
 * outputs, which are left NULL when the run fails. */
static void run_with_threads(const rr_kernel *k, const problem *p, const char *threads,
                             double **outputs)
{
	if (threads)
		setenv("RR_THREADS", threads, 1);
	else
		unsetenv("RR_THREADS");
	size_t mn = (size_t)(p->rows * p->cols);
	rr_arg args[RR_MAX_IO];
	make_args(k, p, args);
	for (int j = 0; j < k->n_outputs; j++)
		outputs[j] = malloc((k->outputs[j].kind == RR_KIND_ROW ? mn : (size_t)p->rows) *
		                    sizeof(double));
	rr_status status = rr_reference_run(k, p->rows, p->cols, args, outputs);
	CHECKF(status == RR_OK, "%s with RR_THREADS=%s: %s", k->name, threads ? threads : "(unset)",
	       rr_last_error());
	for (int j = 0; status != RR_OK && j < k->n_outputs; j++) {
		free(outputs[j]);
		outputs[j] = NULL;
	}
}

/* A run spread over threads must give the same bits as a run on one thread, and an error
 * found in a large run must still be reported to the caller. */
static void test_threads_identical(void)
{
	const char *saved = getenv("RR_THREADS");
	char *restore = saved ? strdup(saved) : NULL;
	for (size_t b = 0; b < sizeof builtins / sizeof builtins[0]; b++) {
		rr_kernel *k = load_builtin(builtins[b]);
		if (!k)
			continue;
		problem p = make_problem(257, 4103, b % 2 ? RR_F32 : RR_BF16);
		double *threaded[RR_MAX_IO], *single[RR_MAX_IO];
		run_with_threads(k, &p, NULL, threaded);
		run_with_threads(k, &p, "1", single);
		for (int j = 0; j < k->n_outputs; j++) {
			size_t count =
			    k->outputs[j].kind == RR_KIND_ROW ? (size_t)(257 * 4103) : 257;
			CHECKF(threaded[j] && single[j] &&
			           memcmp(threaded[j], single[j], count * sizeof(double)) == 0,
			       "%s output %s: threaded and one-thread runs differ", builtins[b],
			       k->outputs[j].name);
			free(threaded[j]);
			free(single[j]);
		}
		free_problem(&p);
		rr_kernel_free(k);
	}

	rr_kernel *k = load_builtin("cross_entropy");
	if (k) {
		unsetenv("RR_THREADS");
		problem p = make_problem(257, 4103, RR_F32);
		p.t[200] = 4103;
		rr_arg args[2];
		double *loss = malloc(257 * sizeof *loss);
		make_args(k, &p, args);
		CHECK(rr_reference_run(k, 257, 4103, args, &loss) == RR_ERR_INVALID_ARG);
		CHECKF(strstr(rr_last_error(), "row 200") != NULL, "message: %s", rr_last_error());
		free(loss);
		free_problem(&p);
		rr_kernel_free(k);
	}
	if (restore)
		setenv("RR_THREADS", restore, 1);
	else
		unsetenv("RR_THREADS");
	free(restore);
}

/* Nodes computed from col inputs alone (equal for every row) next to per-row ones, and a
 * binding no output reads, against a plain loop, threaded. */
static void test_row_invariant(void)
{
	static const char text[] = "kernel invariant\n in x : row\n in w : col\n"
	                           " out y : row\n out z : rowscalar\n"
	                           " unused = log(abs(x))\n"
	                           " y = x * exp(w) + sum(w * w) / N\n"
	                           " z = max(x * w) - min(w)\n";
	rr_kernel *k = NULL;
	CHECKF(rr_kernel_load_string(text, strlen(text), "<invariant>", &k) == RR_OK, "%s",
	       rr_last_error());
	if (!k)
		return;
	int64_t rows = 40, cols = 3001;
	typed xt = random_typed(RR_F16, (size_t)(rows * cols), -3, 3);
	typed wt = random_typed(RR_F32, (size_t)cols, -1, 1);
	double *y = malloc((size_t)(rows * cols) * sizeof *y), z[40];
	double *outputs[2] = {y, z};
	rr_arg args[2] = {{.data = xt.buffer, .dtype = RR_F16},
	                  {.data = wt.buffer, .dtype = RR_F32}};
	CHECKF(rr_reference_run(k, rows, cols, args, outputs) == RR_OK, "%s", rr_last_error());
	double sw = 0, mw = INFINITY, worst = 0;
	for (int64_t i = 0; i < cols; i++) {
		sw += wt.values[i] * wt.values[i];
		mw = fmin(mw, wt.values[i]);
	}
	for (int64_t row = 0; row < rows; row++) {
		const double *xr = xt.values + row * cols;
		double mx = -INFINITY;
		for (int64_t i = 0; i < cols; i++) {
			double expect = xr[i] * exp(wt.values[i]) + sw / (double)cols;
			worst = fmax(worst, max_error(&y[row * cols + i], &expect, 1));
			mx = fmax(mx, xr[i] * wt.values[i]);
		}
		double zexpect = mx - mw;
		worst = fmax(worst, max_error(&z[row], &zexpect, 1));
	}
	CHECKF(worst <= 1e-12, "invariant: relative error %g", worst);
	free(y);
	free_typed(&xt);
	free_typed(&wt);
	rr_kernel_free(k);
}

static void test_bad_arguments(void)
{
	rr_kernel *k = load_builtin("cross_entropy");
	if (!k)
		return;
	problem p = make_problem(3, 40, RR_F32);
	rr_arg args[2];
	double loss[3];
	double *outputs[1] = {loss};
	make_args(k, &p, args);
	CHECK(rr_reference_run(k, 3, 40, args, outputs) == RR_OK);

	p.t[1] = 40;
	CHECK(rr_reference_run(k, 3, 40, args, outputs) == RR_ERR_INVALID_ARG);
	CHECKF(strstr(rr_last_error(), "row 1") && strstr(rr_last_error(), "40"), "message: %s",
	       rr_last_error());
	p.t[1] = -2;
	CHECK(rr_reference_run(k, 3, 40, args, outputs) == RR_ERR_INVALID_ARG);
	CHECKF(strstr(rr_last_error(), "-2"), "message: %s", rr_last_error());
	p.t[1] = 39;
	CHECK(rr_reference_run(k, 3, 40, args, outputs) == RR_OK);

	CHECK(rr_reference_run(k, 0, 40, args, outputs) == RR_OK); /* no rows: nothing to do */
	CHECK(rr_reference_run(k, 3, 0, args, outputs) == RR_ERR_INVALID_ARG);
	CHECK(rr_reference_run(k, -1, 40, args, outputs) == RR_ERR_INVALID_ARG);
	CHECK(strstr(rr_last_error(), "rows") != NULL);
	CHECK(rr_reference_run(NULL, 3, 40, args, outputs) == RR_ERR_INVALID_ARG);
	CHECK(rr_reference_run(k, 3, 40, NULL, outputs) == RR_ERR_INVALID_ARG);
	CHECK(rr_reference_run(k, 3, 40, args, NULL) == RR_ERR_INVALID_ARG);
	double *no_buffer[1] = {NULL};
	CHECK(rr_reference_run(k, 3, 40, args, no_buffer) == RR_ERR_INVALID_ARG);
	CHECK(strstr(rr_last_error(), "loss") != NULL);

	args[1].dtype = RR_F32; /* the targets must be int64 */
	CHECK(rr_reference_run(k, 3, 40, args, outputs) == RR_ERR_INVALID_ARG);
	CHECK(strstr(rr_last_error(), "i64") != NULL);
	args[1].dtype = RR_I64;
	args[0].dtype = RR_I64; /* rows are floating point */
	CHECK(rr_reference_run(k, 3, 40, args, outputs) == RR_ERR_INVALID_ARG);
	args[0].dtype = RR_F32;
	args[0].data = NULL;
	CHECK(rr_reference_run(k, 3, 40, args, outputs) == RR_ERR_INVALID_ARG);
	CHECK(strstr(rr_last_error(), "'x'") != NULL);
	free_problem(&p);
	rr_kernel_free(k);
}

/* Validation's floor: an f16 output rounded to the nearest subnormal passes however small
 * the row's values are (softmax of a row of 777777 gives outputs near 2^-24); an output
 * several subnormal steps off does not. */
static void test_subnormal_tolerance(void)
{
	const char *text = "kernel tiny\n in x : row\n out y : row\n y = x * 0.0000001\n";
	rr_kernel *k = NULL;
	CHECKF(rr_kernel_load_string(text, strlen(text), "<test>", &k) == RR_OK, "%s",
	       rr_last_error());
	if (!k)
		return;
	const int64_t rows = 2, cols = 64;
	rr__host_inputs in;
	CHECK(rr__inputs_make(k, rows, cols, RR_F16, 7, NULL, &in) == RR_OK);
	uint16_t got[128];
	for (int64_t i = 0; i < rows * cols; i++)
		rr__store_from_double(got, RR_F16, (size_t)i,
		                      rr__load_as_double(in.args[0].data, RR_F16, (size_t)i) *
		                          1e-7);
	void *outputs[1] = {got};
	rr__validation report;
	CHECKF(rr__validate_outputs(k, rows, cols, RR_F16, &in, outputs, NULL, &report) == RR_OK,
	       "rounded f16 subnormals fail: %s", rr_last_error());
	CHECK(rr__tolerance_default(RR_F16).tiny == 0x1p-24);
	/* Three steps of 2^-24 off the rounded value: at least 2.5 steps off the exact one. */
	rr__store_from_double(got, RR_F16, 5, rr__load_as_double(got, RR_F16, 5) + 3 * 0x1p-24);
	CHECK(rr__validate_outputs(k, rows, cols, RR_F16, &in, outputs, NULL, &report) ==
	      RR_ERR_VALIDATION);
	rr__inputs_free(&in);
	rr_kernel_free(k);
}

/* ---------------------------------------------------------------- error bounds */

#define U RR_REF_UNIT_ROUNDOFF

static rr_kernel *load_text(const char *text)
{
	rr_kernel *k = NULL;
	CHECKF(rr_kernel_load_string(text, strlen(text), "<bounds>", &k) == RR_OK, "%s",
	       rr_last_error());
	return k;
}

/* |got - want| <= 1e-12 |want|, or both 0. */
static int close_to(double got, double want)
{
	return fabs(got - want) <= 1e-12 * fabs(want);
}

/* As close_to, within 1e-9: where the reference's x + e - x rounds e at the scale of x. */
static int near_to(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

/* The bound of sum(x) is λ·√n·u·Σ|x|, to the bit (values that sum exactly in any order), on a
 * long row and a short one; the values themselves are the plain sums. */
static void test_bound_sum(void)
{
	rr_kernel *k = load_builtin("sum");
	if (!k)
		return;
	static const int64_t lengths[] = {3, 100, 4103};
	for (size_t l = 0; l < 3; l++) {
		int64_t rows = 3, cols = lengths[l];
		float *x = malloc((size_t)(rows * cols) * sizeof *x);
		double s[3], e[3];
		for (int64_t i = 0; i < rows * cols; i++)
			x[i] = (float)((int)rr_test_uniform(&rng, -24, 24)) / 8;
		rr_arg arg = {.data = x, .dtype = RR_F32};
		double *outputs[1] = {s}, *bounds[1] = {e};
		CHECKF(rr__reference_run_bounds(k, rows, cols, &arg, outputs, bounds) == RR_OK,
		       "%s", rr_last_error());
		for (int64_t r = 0; r < rows; r++) {
			double sum = 0, magnitude = 0;
			for (int64_t i = 0; i < cols; i++) {
				sum += x[r * cols + i];
				magnitude += fabs(x[r * cols + i]);
			}
			double want = RR_REF_SUM_LAMBDA * sqrt((double)cols) * U * magnitude;
			CHECKF(s[r] == sum && e[r] == want,
			       "sum N=%lld row %lld: %.17g bound %.17g, want %.17g bound %.17g",
			       (long long)cols, (long long)r, s[r], e[r], sum, want);
		}
		free(x);
	}
	rr_kernel_free(k);
}

/* A product propagates |b|ea + |a|eb + ea·eb plus its rounding; a param carries its distance to
 * the nearest f32. */
static void test_bound_mul(void)
{
	rr_kernel *k = load_text("kernel scaled\n in x : row\n param p = 0.1\n out y : row\n"
	                         " s = sum(x)\n y = x * s * p\n");
	if (!k)
		return;
	const int64_t cols = 5;
	float x[5] = {0.5f, -1.25f, 2.0f, 0.75f, -3.0f};
	double y[5], e[5];
	rr_arg args[2] = {{.data = x, .dtype = RR_F32}, {.value = 0.1}};
	double *outputs[1] = {y}, *bounds[1] = {e};
	CHECKF(rr__reference_run_bounds(k, 1, cols, args, outputs, bounds) == RR_OK, "%s",
	       rr_last_error());
	double s = -1.0, es = RR_REF_SUM_LAMBDA * sqrt(5.0) * U * 7.5;
	double ep = fabs(0.1 - (double)0.1f);
	CHECK(ep > 0);
	for (int i = 0; i < cols; i++) {
		double t = x[i] * s, et = fabs(x[i]) * es + U * fabs(t);
		double want = 0.1 * et + fabs(t) * ep + et * ep + U * fabs(t * 0.1);
		CHECKF(close_to(e[i], want) && y[i] == t * 0.1,
		       "x * s * p element %d: bound %.17g, want %.17g", i, e[i], want);
	}
	rr_kernel_free(k);
}

/* max(a, b) and the max reduction: the selected operand's bound, widened to the other's where
 * it lies within the errors (a tie: max(x, s) where x equals s). */
static void test_bound_select(void)
{
	rr_kernel *k = load_text("kernel select\n in x : row\n out y : row\n out z : rowscalar\n"
	                         " s = sum(x)\n y = max(x, s)\n z = max(x - s)\n");
	if (!k)
		return;
	float x[4] = {3, -2, 1, -1}; /* s = 1, Σ|x| = 7 */
	double y[4], ey[4], z, ez;
	rr_arg arg = {.data = x, .dtype = RR_F32};
	double *outputs[2] = {y, &z}, *bounds[2] = {ey, &ez};
	CHECKF(rr__reference_run_bounds(k, 1, 4, &arg, outputs, bounds) == RR_OK, "%s",
	       rr_last_error());
	double es = RR_REF_SUM_LAMBDA * 2 * U * 7;
	double want[4] = {0, es, es, es};
	for (int i = 0; i < 4; i++)
		CHECKF(fabs(ey[i] - want[i]) <= 1e-9 * es,
		       "max(x, s) element %d: bound %.17g, want %.17g", i, ey[i], want[i]);
	/* x - s = {2, -3, 0, -2}: the max is 2, far from the others, with bound es + u·2. */
	CHECKF(z == 2 && near_to(ez, es + 2 * U), "max(x - s) = %g, bound %.17g, want %.17g", z, ez,
	       es + 2 * U);
	rr_kernel_free(k);
}

/* exp, sqrt, rsqrt, tanh, log and / of a sum, by their derivatives plus 3 ULP (exp more with its
 * argument); at s = 0 sqrt's bound is sqrt(es), and values that are not finite (rsqrt(0),
 * log(0), x / 0) have bound 0. */
static void test_bound_functions(void)
{
	rr_kernel *k = load_text("kernel functions\n in x : row\n out y : row\n"
	                         " out a : rowscalar\n out b : rowscalar\n out c : rowscalar\n"
	                         " out d : rowscalar\n out l : rowscalar\n s = sum(x)\n"
	                         " y = x / s\n a = exp(s)\n b = sqrt(s)\n c = rsqrt(s)\n"
	                         " d = tanh(s)\n l = log(s)\n");
	if (!k)
		return;
	float x[4] = {0.25f, 0.5f, 0.5f, -0.5f}; /* rows: s = 0.75, then s = 0 */
	double v[6][4], e[6][4];                 /* y, a, b, c, d, l */
	double *outputs[6], *bounds[6];
	for (int j = 0; j < 6; j++) {
		outputs[j] = v[j];
		bounds[j] = e[j];
	}
	rr_arg arg = {.data = x, .dtype = RR_F32};
	CHECKF(rr__reference_run_bounds(k, 2, 2, &arg, outputs, bounds) == RR_OK, "%s",
	       rr_last_error());
	double s = 0.75, es = RR_REF_SUM_LAMBDA * sqrt(2.0) * U * 0.75, f = 6 * U;
	double r[5] = {exp(s), sqrt(s), 1 / sqrt(s), tanh(s), log(s)};
	double want[5] = {r[0] * (es + f + 2.4 * U * s), fmin(es / (2 * r[1]), sqrt(es)) + f * r[1],
	                  r[2] * es / (2 * s) + f * r[2], (1 - r[3] * r[3]) * es + f * r[3],
	                  es / s + f * fabs(r[4])};
	for (int j = 0; j < 5; j++)
		CHECKF(close_to(e[j + 1][0], want[j]),
		       "function %d of s = 0.75: bound %.17g, want %.17g", j, e[j + 1][0], want[j]);
	for (int i = 0; i < 2; i++) {
		double yi = x[i] / s, want_y = fabs(yi) * es / s + U * fabs(yi);
		CHECKF(close_to(e[0][i], want_y), "x / s element %d: bound %.17g, want %.17g", i,
		       e[0][i], want_y);
	}
	double es0 = RR_REF_SUM_LAMBDA * sqrt(2.0) * U * 1.0; /* the row 0.5, -0.5 */
	CHECKF(close_to(e[2][1], sqrt(es0)), "sqrt(0): bound %.17g, want sqrt(es) = %.17g", e[2][1],
	       sqrt(es0));
	CHECKF(close_to(e[1][1], es0 + f), "exp(0): bound %.17g, want %.17g", e[1][1], es0 + f);
	CHECKF(isinf(v[3][1]) && e[3][1] == 0 && isinf(v[5][1]) && e[5][1] == 0,
	       "rsqrt(0), log(0): %g %g, bounds %g %g", v[3][1], v[5][1], e[3][1], e[5][1]);
	CHECKF(isinf(v[0][2]) && e[0][2] == 0 && isinf(v[0][3]) && e[0][3] == 0,
	       "x / 0: %g %g, bounds %g %g", v[0][2], v[0][3], e[0][2], e[0][3]);
	rr_kernel_free(k);
}

/* Asking for bounds changes no value, a threaded run gives the same bounds as one thread, and a
 * bounds array that is missing is an error. */
static void test_bound_runs(void)
{
	const char *saved = getenv("RR_THREADS");
	char *restore = saved ? strdup(saved) : NULL;
	rr_kernel *k = load_builtin("add_layernorm");
	if (!k) {
		free(restore);
		return;
	}
	const int64_t rows = 257, cols = 1031;
	size_t mn = (size_t)(rows * cols);
	problem p = make_problem(rows, cols, RR_F32);
	rr_arg args[RR_MAX_IO];
	make_args(k, &p, args);
	double *plain[2], *values[2][2], *bounds[2][2];
	for (int j = 0; j < 2; j++) {
		plain[j] = malloc(mn * sizeof(double));
		for (int run = 0; run < 2; run++) {
			values[run][j] = malloc(mn * sizeof(double));
			bounds[run][j] = malloc(mn * sizeof(double));
		}
	}
	unsetenv("RR_THREADS");
	CHECK(rr_reference_run(k, rows, cols, args, plain) == RR_OK);
	CHECK(rr__reference_run_bounds(k, rows, cols, args, values[0], bounds[0]) == RR_OK);
	setenv("RR_THREADS", "1", 1);
	CHECK(rr__reference_run_bounds(k, rows, cols, args, values[1], bounds[1]) == RR_OK);
	for (int j = 0; j < 2; j++) {
		CHECKF(memcmp(plain[j], values[0][j], mn * sizeof(double)) == 0 &&
		           memcmp(plain[j], values[1][j], mn * sizeof(double)) == 0,
		       "output %d: values with bounds differ from rr_reference_run's", j);
		CHECKF(memcmp(bounds[0][j], bounds[1][j], mn * sizeof(double)) == 0,
		       "output %d: threaded and one-thread bounds differ", j);
		/* positive where the value is not 0: h = x + r of exact inputs that cancel (x == -r,
		 * about one seed in a few dozen) is 0 with no error, so its bound is 0 */
		int positive = 1;
		for (size_t i = 0; i < mn; i++)
			positive &= isfinite(bounds[0][j][i]) &&
			            (bounds[0][j][i] > 0 || (bounds[0][j][i] == 0 && values[0][j][i] == 0));
		CHECKF(positive, "output %d: a bound is not positive and finite", j);
	}
	double *missing[2] = {bounds[0][0], NULL};
	CHECK(rr__reference_run_bounds(k, rows, cols, args, values[0], missing) ==
	      RR_ERR_INVALID_ARG);
	CHECKF(strstr(rr_last_error(), "'h'") && strstr(rr_last_error(), "bounds"), "message: %s",
	       rr_last_error());
	for (int j = 0; j < 2; j++) {
		free(plain[j]);
		for (int run = 0; run < 2; run++) {
			free(values[run][j]);
			free(bounds[run][j]);
		}
	}
	free_problem(&p);
	rr_kernel_free(k);
	if (restore)
		setenv("RR_THREADS", restore, 1);
	else
		unsetenv("RR_THREADS");
	free(restore);
}

int main(void)
{
	const char *env = getenv("RR_TEST_SEED");
	rng = env ? strtoull(env, NULL, 0) : (unsigned long long)time(NULL) * 2654435761ull + 1;
	printf("test_reference: seed %llu (set RR_TEST_SEED to repeat)\n", rng);
	test_builtins();
	test_dtypes();
	test_all_ops();
	test_threads_identical();
	test_row_invariant();
	test_bad_arguments();
	test_subnormal_tolerance();
	test_bound_sum();
	test_bound_mul();
	test_bound_select();
	test_bound_functions();
	test_bound_runs();
	return rr_test_finish("test_reference");
}
