/* Validation with the reference's error bounds: an f32 output that is ill-conditioned with
 * respect to a reduction (layernorm of rows whose values are close together) validates with the
 * bound and fails the rule without it, and a wrong output still fails where the output is
 * well-conditioned (layernorm, softmax, a sum missing one element). Outputs come from the cpu
 * backend with the planner's plan; inputs from a fixed seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rowreduce.h"
#include "util/util.h"
#include "validate/validate.h"

static rr_device *device;

static rr_kernel *load_builtin(const char *name)
{
	rr_kernel *k = NULL;
	CHECKF(rr_kernel_load_builtin(name, &k) == RR_OK, "loading %s: %s", name, rr_last_error());
	return k;
}

static void free_outputs(const rr_kernel *k, void **outputs)
{
	for (int j = 0; j < k->n_outputs; j++) {
		free(outputs[j]);
		outputs[j] = NULL;
	}
}

/* Runs `k` on the cpu backend, planned for this shape, into fresh poisoned host arrays. */
static int run_cpu(const rr_kernel *k, int64_t rows, int64_t cols, rr_dtype dtype,
                   const rr__host_inputs *in, void **outputs)
{
	rr_program *program = NULL;
	rr_status status = rr_program_build(device, k, dtype, rows, cols, NULL, &program);
	CHECKF(status == RR_OK, "building %s for %lldx%lld: %s", k->name, (long long)rows,
	       (long long)cols, rr_last_error());
	if (status != RR_OK)
		return 0;
	for (int j = 0; j < k->n_outputs; j++) {
		int64_t count = rr__output_elements(k, j, rows, cols);
		outputs[j] = malloc((size_t)count * rr_dtype_size(dtype));
		rr__poison(outputs[j], dtype, count);
	}
	status = rr_program_launch(program, rows, in->args, outputs, NULL);
	CHECKF(status == RR_OK, "launching %s: %s", k->name, rr_last_error());
	rr_program_free(program);
	if (status != RR_OK)
		free_outputs(k, outputs);
	return status == RR_OK;
}

/* Elements of output j that the rule without the reference's bound rejects:
 * |got - want| > tiny + atol·scale + rtol·|want| (the validator's rule before the bound). */
static int64_t failures_without_bound(const rr_kernel *k, int64_t rows, int64_t cols,
                                      rr_dtype dtype, const rr__host_inputs *in, void **outputs,
                                      int j)
{
	int64_t count = rr__output_elements(k, j, rows, cols), failures = 0;
	double *want[RR_MAX_IO] = {0};
	for (int o = 0; o < k->n_outputs; o++)
		want[o] = malloc((size_t)rr__output_elements(k, o, rows, cols) * sizeof(double));
	CHECKF(rr_reference_run(k, rows, cols, in->args, want) == RR_OK, "%s", rr_last_error());
	rr__tolerance tol = rr__tolerance_default(dtype);
	double scale = 1e-30;
	for (int64_t i = 0; i < count; i++)
		scale = fmax(scale, fabs(want[j][i]));
	for (int64_t i = 0; i < count; i++) {
		double got = rr__load_as_double(outputs[j], dtype, (size_t)i);
		failures += !(fabs(got - want[j][i]) <=
		              tol.tiny + tol.atol * scale + tol.rtol * fabs(want[j][i]));
	}
	for (int o = 0; o < k->n_outputs; o++)
		free(want[o]);
	return failures;
}

/* ---------------------------------------------------------------- ill-conditioned: passes */

/* layernorm f32 over rows of 3 values within 1e-3 of each other around 500..1500: the f32 mean
 * errs by about u·1000 and (x - mean)·rsqrt(var + eps) multiplies that by up to 316. The cpu
 * backend's outputs validate with the bound; without it they fail. */
static void test_layernorm_close_values(void)
{
	rr_kernel *k = load_builtin("layernorm");
	if (!k)
		return;
	const int64_t rows = 2000, cols = 3;
	rr__host_inputs in;
	CHECK(rr__inputs_make(k, rows, cols, RR_F32, 11, NULL, &in) == RR_OK);
	unsigned long long rng = 0x5eed1234ull;
	float *x = in.owned[0]; /* what args[0].data points at */
	for (int64_t r = 0; r < rows; r++) {
		double centre = rr_test_uniform(&rng, 500, 1500);
		for (int64_t i = 0; i < cols; i++)
			x[r * cols + i] = (float)(centre + rr_test_uniform(&rng, -1e-3, 1e-3));
	}
	void *outputs[RR_MAX_IO] = {0};
	if (run_cpu(k, rows, cols, RR_F32, &in, outputs)) {
		rr__validation report;
		rr_status status =
		    rr__validate_outputs(k, rows, cols, RR_F32, &in, outputs, NULL, &report);
		CHECKF(status == RR_OK, "layernorm of close values, with the bound: %s",
		       rr_last_error());
		int64_t without = failures_without_bound(k, rows, cols, RR_F32, &in, outputs, 0);
		printf(
		    "layernorm f32 %lldx%lld of close values: %lld of %lld elements fail without "
		    "the bound\n",
		    (long long)rows, (long long)cols, (long long)without, (long long)(rows * cols));
		CHECKF(without > 0, "the rule without the bound passes every element: this test "
		                    "no longer shows that the bound matters");
		free_outputs(k, outputs);
	}
	rr__inputs_free(&in);
	rr_kernel_free(k);
}

/* The peer harness's case: layernorm f32 50000x3 of uniform [-3, 3] validates. */
static void test_layernorm_uniform_short_rows(void)
{
	rr_kernel *k = load_builtin("layernorm");
	if (!k)
		return;
	const int64_t rows = 50000, cols = 3;
	rr__host_inputs in;
	CHECK(rr__inputs_make(k, rows, cols, RR_F32, 5, NULL, &in) == RR_OK);
	void *outputs[RR_MAX_IO] = {0};
	if (run_cpu(k, rows, cols, RR_F32, &in, outputs)) {
		rr__validation report;
		CHECKF(rr__validate_outputs(k, rows, cols, RR_F32, &in, outputs, NULL, &report) ==
		           RR_OK,
		       "layernorm f32 50000x3: %s", rr_last_error());
		printf("layernorm f32 50000x3 uniform [-3, 3]: %lld elements fail without the "
		       "bound\n",
		       (long long)failures_without_bound(k, rows, cols, RR_F32, &in, outputs, 0));
		free_outputs(k, outputs);
	}
	rr__inputs_free(&in);
	rr_kernel_free(k);
}

/* ---------------------------------------------------------------- wrong outputs: fail */

/* The output of `name` on uniform inputs validates; then its largest element, moved by 1e-3 of
 * itself, fails, reported at that element with an allowed error that includes its bound. */
static void check_perturbed(const char *name, int64_t rows, int64_t cols)
{
	rr_kernel *k = load_builtin(name);
	if (!k)
		return;
	rr__host_inputs in;
	CHECK(rr__inputs_make(k, rows, cols, RR_F32, 3, NULL, &in) == RR_OK);
	void *outputs[RR_MAX_IO] = {0};
	if (!run_cpu(k, rows, cols, RR_F32, &in, outputs)) {
		rr__inputs_free(&in);
		rr_kernel_free(k);
		return;
	}
	rr__validation report;
	CHECKF(rr__validate_outputs(k, rows, cols, RR_F32, &in, outputs, NULL, &report) == RR_OK,
	       "%s as computed: %s", name, rr_last_error());
	float *y = outputs[0];
	int64_t at = 0;
	for (int64_t i = 1; i < rows * cols; i++)
		if (fabsf(y[i]) > fabsf(y[at]))
			at = i;
	double original = y[at];
	y[at] = (float)(original * (1 + 1e-3));
	rr_status status = rr__validate_outputs(k, rows, cols, RR_F32, &in, outputs, NULL, &report);
	const rr__output_check *c = &report.outputs[0];
	CHECKF(status == RR_ERR_VALIDATION && c->failures == 1 && c->first_row == at / cols &&
	           c->first_col == at % cols,
	       "%s with element %lld moved by 1e-3 of itself: status %d, %lld failures at %lld, "
	       "%lld",
	       name, (long long)at, (int)status, (long long)c->failures, (long long)c->first_row,
	       (long long)c->first_col);
	if (status == RR_ERR_VALIDATION) {
		rr__tolerance tol = report.tolerance;
		double allowed = tol.tiny + tol.atol * c->scale + tol.rtol * fabs(c->first_want) +
		                 c->first_bound;
		CHECKF(c->first_bound > 0 && c->first_allowed == allowed &&
		           c->first_allowed < fabs(y[at] - c->first_want),
		       "%s: bound %g, allowed %g (want %g), error %g", name, c->first_bound,
		       c->first_allowed, allowed, fabs(y[at] - c->first_want));
		CHECKF(strstr(rr_last_error(), "allowed error") &&
		           strstr(rr_last_error(), "the f32 error"),
		       "message: %s", rr_last_error());
	}
	free_outputs(k, outputs);
	rr__inputs_free(&in);
	rr_kernel_free(k);
}

static void test_perturbed_outputs_fail(void)
{
	check_perturbed("layernorm", 64, 256);
	check_perturbed("layernorm", 512, 3);
	check_perturbed("softmax", 64, 256);
	check_perturbed("rmsnorm", 64, 256);
}

/* A sum missing one element of a short row (its largest, |x| >= 1e-3 by construction) fails. */
static void test_sum_dropped_element_fails(void)
{
	rr_kernel *k = load_builtin("sum");
	if (!k)
		return;
	const int64_t rows = 16, cols = 8, row = 5;
	rr__host_inputs in;
	CHECK(rr__inputs_make(k, rows, cols, RR_F32, 9, NULL, &in) == RR_OK);
	void *outputs[RR_MAX_IO] = {0};
	if (run_cpu(k, rows, cols, RR_F32, &in, outputs)) {
		rr__validation report;
		CHECKF(rr__validate_outputs(k, rows, cols, RR_F32, &in, outputs, NULL, &report) ==
		           RR_OK,
		       "sum as computed: %s", rr_last_error());
		const float *x = (const float *)in.args[0].data + row * cols;
		int64_t largest = 0;
		for (int64_t i = 1; i < cols; i++)
			if (fabsf(x[i]) > fabsf(x[largest]))
				largest = i;
		float partial = 0;
		for (int64_t i = 0; i < cols; i++)
			if (i != largest)
				partial += x[i];
		((float *)outputs[0])[row] = partial;
		CHECKF(rr__validate_outputs(k, rows, cols, RR_F32, &in, outputs, NULL, &report) ==
		               RR_ERR_VALIDATION &&
		           report.outputs[0].first_row == row,
		       "a sum without x[%lld] = %g passes (first failing row %lld)",
		       (long long)largest, (double)x[largest],
		       (long long)report.outputs[0].first_row);
		free_outputs(k, outputs);
	}
	rr__inputs_free(&in);
	rr_kernel_free(k);
}

/* A validation past 2^20 elements compares with bounds block by block of 2^20 / N rows: one
 * wrong element in the second block is the only failure, reported at its row (the row,
 * rowscalar and index inputs of each block are the right ones); layernorm's close values pass
 * in every block. */
static void test_blocks(void)
{
	static const char *const names[] = {"cross_entropy", "layernorm"};
	const int64_t cols = 3, rows = ((int64_t)1 << 20) / cols + 100, wrong_row = rows - 5;
	for (int n = 0; n < 2; n++) {
		rr_kernel *k = load_builtin(names[n]);
		if (!k)
			continue;
		rr__host_inputs in;
		CHECK(rr__inputs_make(k, rows, cols, RR_F32, 21, NULL, &in) == RR_OK);
		unsigned long long rng = 0xb10c5ull;
		float *x = in.owned[0];
		for (int64_t r = 0; n == 1 && r < rows; r++) {
			double centre = rr_test_uniform(&rng, 500, 1500);
			for (int64_t i = 0; i < cols; i++)
				x[r * cols + i] =
				    (float)(centre + rr_test_uniform(&rng, -1e-3, 1e-3));
		}
		void *outputs[RR_MAX_IO] = {0};
		if (!run_cpu(k, rows, cols, RR_F32, &in, outputs)) {
			rr__inputs_free(&in);
			rr_kernel_free(k);
			continue;
		}
		rr__validation report;
		CHECKF(rr__validate_outputs(k, rows, cols, RR_F32, &in, outputs, NULL, &report) ==
		           RR_OK,
		       "%s over %lld rows: %s", names[n], (long long)rows, rr_last_error());
		int64_t at = k->outputs[0].kind == RR_KIND_ROW ? wrong_row * cols + 1 : wrong_row;
		float *y = outputs[0];
		y[at] += 1.0f;
		rr_status status =
		    rr__validate_outputs(k, rows, cols, RR_F32, &in, outputs, NULL, &report);
		const rr__output_check *c = &report.outputs[0];
		CHECKF(status == RR_ERR_VALIDATION && c->failures == 1 &&
		           c->first_row == wrong_row &&
		           c->elements == rr__output_elements(k, 0, rows, cols),
		       "%s, one element wrong in row %lld: status %d, %lld failures, first at row "
		       "%lld",
		       names[n], (long long)wrong_row, (int)status, (long long)c->failures,
		       (long long)c->first_row);
		free_outputs(k, outputs);
		rr__inputs_free(&in);
		rr_kernel_free(k);
	}
}

int main(void)
{
	rr_status status = rr_device_open("cpu", &device);
	CHECKF(status == RR_OK, "opening the cpu backend: %s", rr_last_error());
	if (status != RR_OK)
		return rr_test_finish("test_validate");
	test_layernorm_close_values();
	test_layernorm_uniform_short_rows();
	test_perturbed_outputs_fail();
	test_sum_dropped_element_fails();
	test_blocks();
	rr_device_close(device);
	return rr_test_finish("test_validate");
}
