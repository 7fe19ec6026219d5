/* Inputs users hit, checked the same way on any backend (test_reliability.c runs them on the
 * cpu, gpu_reliability.c on cuda): NaN and infinite rows agree with the float64 reference (and
 * softmax of a row of -inf is NaN, as in PyTorch), a NaN reference of finite inputs is the
 * caller's error, index inputs outside [0, N) are refused, M = 0 is a no-op and N = 0 an
 * error, and huge allocations fail before allocating. Included by exactly one test file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "program/program.h"
#include "rowreduce.h"
#include "util/util.h"
#include "validate/validate.h"

#define REL_ROWS 7
#define REL_COLS 100

/* Row r of a special matrix: 0 and 5 ordinary, 1 all -inf, 2 one NaN, 3 one +inf, 4 one -inf
 * among finite values, 6 masked (-inf from column 40 on, as a causal mask leaves a row: whole
 * workers' elements -inf under a finite max). */
static double special_value(int64_t r, int64_t c, unsigned long long *rng)
{
	double v = rr_test_uniform(rng, -3.0, 3.0);
	switch (r) {
	case 1:
		return -INFINITY;
	case 2:
		return c == 17 ? NAN : v;
	case 3:
		return c == 50 ? INFINITY : v;
	case 4:
		return c == 3 ? -INFINITY : v;
	case 6:
		return c >= 40 ? -INFINITY : v;
	default:
		return v;
	}
}

/* Host inputs of `kernel` (f32): row inputs special, col inputs 1, index inputs `target`, or
 * row % N when target is INT64_MIN. */
static void special_inputs(const rr_kernel *kernel, rr__host_inputs *in, int64_t target)
{
	unsigned long long rng = 12345;
	memset(in, 0, sizeof *in);
	in->count = kernel->n_inputs;
	for (int k = 0; k < kernel->n_inputs; k++) {
		const rr__io *io = &kernel->inputs[k];
		rr_arg *arg = &in->args[k];
		arg->dtype = io->kind == RR_KIND_INDEX ? RR_I64 : RR_F32;
		arg->value = io->default_value;
		if (io->kind == RR_KIND_PARAM)
			continue;
		int64_t count = io->kind == RR_KIND_ROW   ? REL_ROWS * REL_COLS
		                : io->kind == RR_KIND_COL ? REL_COLS
		                                          : REL_ROWS;
		in->bytes[k] = (size_t)count * rr_dtype_size(arg->dtype);
		in->owned[k] = malloc(in->bytes[k]);
		for (int64_t i = 0; i < count; i++) {
			if (io->kind == RR_KIND_INDEX)
				((int64_t *)in->owned[k])[i] =
				    target != INT64_MIN ? target : i % REL_COLS;
			else if (io->kind == RR_KIND_ROW)
				((float *)in->owned[k])[i] =
				    (float)special_value(i / REL_COLS, i % REL_COLS, &rng);
			else
				((float *)in->owned[k])[i] = 1.0f;
		}
		arg->data = in->owned[k];
	}
}

/* Device copies of `in`, one launch of `rows`, outputs back into host[]. */
static rr_status launch_on(rr_device *device, rr_program *program, const rr__host_inputs *in,
                           int64_t rows, void **host)
{
	const rr_kernel *kernel = program->kernel;
	rr_arg args[RR_MAX_IO];
	void *inputs[RR_MAX_IO] = {0}, *outputs[RR_MAX_IO] = {0};
	size_t out_bytes[RR_MAX_IO] = {0};
	rr_status status = RR_OK;
	for (int k = 0; k < kernel->n_inputs && status == RR_OK; k++) {
		args[k] = in->args[k];
		if (!in->owned[k])
			continue;
		status = rr_device_alloc(device, in->bytes[k], &inputs[k]);
		if (status == RR_OK)
			status = rr_device_upload(device, inputs[k], in->owned[k], in->bytes[k]);
		args[k].data = inputs[k];
	}
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++) {
		out_bytes[j] = (size_t)rr__output_elements(kernel, j, rows, REL_COLS) * 4;
		status = rr_device_alloc(device, out_bytes[j], &outputs[j]);
	}
	if (status == RR_OK)
		status = rr_program_check_indices(program, rows, args);
	if (status == RR_OK)
		status = rr_program_launch(program, rows, args, outputs, NULL);
	if (status == RR_OK)
		status = rr_device_synchronize(device);
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++)
		status = rr_device_download(device, host[j], outputs[j], out_bytes[j]);
	for (int k = 0; k < RR_MAX_IO; k++) {
		rr_device_free(device, inputs[k]);
		rr_device_free(device, outputs[k]);
	}
	return status;
}

static rr_program *build(rr_device *device, const char *name, rr_kernel **kernel)
{
	rr_program *program = NULL;
	CHECKF(rr_kernel_load_builtin(name, kernel) == RR_OK, "%s", rr_last_error());
	if (*kernel)
		CHECKF(rr_program_build(device, *kernel, RR_F32, REL_ROWS, REL_COLS, NULL,
		                        &program) == RR_OK,
		       "%s: %s", name, rr_last_error());
	return program;
}

/* Every built-in on rows holding NaN and infinities: the backend agrees with the reference,
 * NaN for NaN, and softmax's rows of all -inf or holding a NaN are NaN throughout. */
static void case_special_rows(rr_device *device)
{
	const char *const *names = rr_builtin_names();
	for (int n = 0; names[n]; n++) {
		rr_kernel *kernel = NULL;
		rr_program *program = build(device, names[n], &kernel);
		if (!program) {
			rr_kernel_free(kernel);
			continue;
		}
		rr__host_inputs in;
		special_inputs(kernel, &in, INT64_MIN);
		void *host[RR_MAX_IO] = {0};
		for (int j = 0; j < kernel->n_outputs; j++)
			host[j] = malloc(REL_ROWS * REL_COLS * sizeof(float));
		rr_status status = launch_on(device, program, &in, REL_ROWS, host);
		CHECKF(status == RR_OK, "%s: launch: %s", names[n], rr_last_error());
		rr__validation report;
		if (status == RR_OK) {
			status = rr__validate_outputs(kernel, REL_ROWS, REL_COLS, RR_F32, &in, host,
			                              NULL, &report);
			CHECKF(status == RR_OK, "%s: special rows: %s", names[n], rr_last_error());
		}
		if (status == RR_OK && strcmp(names[n], "softmax") == 0) {
			const float *y = host[0];
			int nan_rows = 1, finite_rows = 1, masked = 1;
			for (int c = 0; c < REL_COLS; c++) {
				nan_rows &=
				    isnan(y[1 * REL_COLS + c]) && isnan(y[2 * REL_COLS + c]);
				finite_rows &=
				    isfinite(y[0 * REL_COLS + c]) && isfinite(y[4 * REL_COLS + c]);
				masked &= c < 40 ? y[6 * REL_COLS + c] > 0.0f
				                 : y[6 * REL_COLS + c] == 0.0f;
			}
			CHECKF(nan_rows, "softmax of a row of -inf, or holding a NaN, is NaN");
			CHECKF(finite_rows && y[4 * REL_COLS + 3] == 0.0f,
			       "softmax with one -inf gives 0 there and finite values elsewhere");
			CHECKF(masked, "softmax of a masked row: 0 under the mask, > 0 elsewhere");
		}
		if (status == RR_OK && strcmp(names[n], "sum") == 0) {
			const float *s = host[0];
			CHECKF(isnan(s[2]) && s[3] == INFINITY && s[1] == -INFINITY,
			       "sum: NaN row %g, +inf row %g, -inf row %g", s[2], s[3], s[1]);
		}
		for (int j = 0; j < kernel->n_outputs; j++)
			free(host[j]);
		rr__inputs_free(&in);
		rr_program_free(program);
		rr_kernel_free(kernel);
	}
}

/* rmsnorm with eps = -100 on finite inputs: the reference itself is NaN, reported as the
 * caller's error (not a validation failure of the backend). */
static void case_nan_reference(rr_device *device)
{
	rr_kernel *kernel = NULL;
	rr_program *program = build(device, "rmsnorm", &kernel);
	rr__host_inputs in;
	const char *overrides[] = {"eps=-100", NULL};
	if (!program ||
	    rr__inputs_make(kernel, REL_ROWS, REL_COLS, RR_F32, 7, overrides, &in) != RR_OK) {
		CHECKF(0, "rmsnorm eps=-100: %s", rr_last_error());
		rr_program_free(program);
		rr_kernel_free(kernel);
		return;
	}
	void *host[1] = {malloc(REL_ROWS * REL_COLS * sizeof(float))};
	CHECKF(launch_on(device, program, &in, REL_ROWS, host) == RR_OK, "%s", rr_last_error());
	rr__validation report;
	rr_status status =
	    rr__validate_outputs(kernel, REL_ROWS, REL_COLS, RR_F32, &in, host, NULL, &report);
	CHECKF(status == RR_ERR_INVALID_ARG && strstr(rr_last_error(), "the reference is NaN") &&
	           strstr(rr_last_error(), "undefined for these parameters") &&
	           strstr(rr_last_error(), "eps = -100"),
	       "status %d: %s", status, rr_last_error());
	free(host[0]);
	rr__inputs_free(&in);
	rr_program_free(program);
	rr_kernel_free(kernel);
}

/* Cross-entropy targets outside [0, N): refused by rr_program_check_indices on every backend
 * and by the launch itself on the cpu; in range they run. */
static void case_bad_targets(rr_device *device)
{
	rr_kernel *kernel = NULL;
	rr_program *program = build(device, "cross_entropy", &kernel);
	if (!program) {
		rr_kernel_free(kernel);
		return;
	}
	const int64_t bad[] = {REL_COLS, -1, -100, INT64_MAX};
	for (int b = 0; b < 4; b++) {
		rr__host_inputs in;
		special_inputs(kernel, &in, bad[b]);
		float loss[REL_ROWS];
		void *host[1] = {loss};
		rr_status status = launch_on(device, program, &in, REL_ROWS, host);
		char value[32];
		snprintf(value, sizeof value, "is %lld at row 0", (long long)bad[b]);
		CHECKF(status == RR_ERR_INVALID_ARG && strstr(rr_last_error(), value) &&
		           strstr(rr_last_error(), "allowed are 0..99"),
		       "target %lld: status %d: %s", (long long)bad[b], status, rr_last_error());
		if (strcmp(rr_device_backend(device), "cpu") == 0) {
			/* The launch checks too, without rr_program_check_indices. */
			void *outputs[1] = {loss};
			CHECK(rr_program_launch(program, REL_ROWS, in.args, outputs, NULL) ==
			      RR_ERR_INVALID_ARG);
			CHECKF(strstr(rr_last_error(), value), "%s", rr_last_error());
		}
		rr__inputs_free(&in);
	}
	rr__host_inputs in;
	special_inputs(kernel, &in, REL_COLS - 1);
	float loss[REL_ROWS];
	void *host[1] = {loss};
	CHECKF(launch_on(device, program, &in, REL_ROWS, host) == RR_OK, "%s", rr_last_error());
	rr__inputs_free(&in);
	rr_program_free(program);
	rr_kernel_free(kernel);
}

/* M = 0 is a successful no-op (no pointer read); M < 0 and N = 0 are invalid arguments. */
static void case_empty_shapes(rr_device *device)
{
	rr_kernel *kernel = NULL;
	rr_program *program = build(device, "softmax", &kernel);
	if (program) {
		CHECK(rr_program_launch(program, 0, NULL, NULL, NULL) == RR_OK);
		CHECK(rr_program_launch(program, -1, NULL, NULL, NULL) == RR_ERR_INVALID_ARG);
		CHECKF(strstr(rr_last_error(), "M = -1"), "%s", rr_last_error());
		CHECK(rr_program_check_indices(program, 0, NULL) == RR_OK);
	}
	rr_program *empty = NULL;
	if (kernel) {
		CHECK(rr_program_build(device, kernel, RR_F32, 1, 0, NULL, &empty) ==
		      RR_ERR_INVALID_ARG);
		CHECKF(strstr(rr_last_error(), "N = 0"), "%s", rr_last_error());
		double *outputs[1] = {NULL};
		double dummy = 0;
		outputs[0] = &dummy;
		rr_arg args[1] = {{.data = &dummy, .dtype = RR_F64}};
		CHECK(rr_reference_run(kernel, 0, 8, args, outputs) == RR_OK);
		CHECK(rr_reference_run(kernel, 1, 0, args, outputs) == RR_ERR_INVALID_ARG);
	}
	CHECK(empty == NULL);
	rr_program_free(program);
	rr_kernel_free(kernel);
}

/* Allocations over the memory available fail at once with both amounts named. */
static void case_huge_allocations(rr_device *device)
{
	void *p = NULL;
	/* 1 EiB: over any device and host. */
	rr_status status = rr_device_alloc(device, (size_t)1 << 60, &p);
	CHECKF(status == RR_ERR_NOMEM && p == NULL && strstr(rr_last_error(), "1.0 EiB"),
	       "status %d: %s", status, rr_last_error());
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("rmsnorm", &kernel) == RR_OK);
	rr__host_inputs in;
	setenv("RR_MEMORY_LIMIT", "64M", 1);
	status = rr__inputs_make(kernel, 4096, 4096, RR_F32, 1, NULL, &in);
	CHECKF(status == RR_ERR_NOMEM && strstr(rr_last_error(), "needs 384.4 MiB") &&
	           strstr(rr_last_error(), "only 64.0 MiB") &&
	           strstr(rr_last_error(), "RR_MEMORY_LIMIT"),
	       "status %d: %s", status, rr_last_error());
	if (strcmp(rr_device_backend(device), "cpu") == 0) {
		CHECK(rr_device_alloc(device, (size_t)100 << 20, &p) == RR_ERR_NOMEM);
		CHECKF(strstr(rr_last_error(), "100.0 MiB"), "%s", rr_last_error());
	}
	unsetenv("RR_MEMORY_LIMIT");
	rr_kernel_free(kernel);
}

/* All cases on `backend`; 77 (skipped) when it cannot be opened. */
static int run_reliability_cases(const char *backend, const char *test_name)
{
	rr_device *device = NULL;
	if (rr_device_open(backend, &device) != RR_OK) {
		printf("%s: skipped: %s\n", test_name, rr_last_error());
		return RR_TEST_SKIP;
	}
	case_special_rows(device);
	case_nan_reference(device);
	case_bad_targets(device);
	case_empty_shapes(device);
	case_huge_allocations(device);
	rr_device_close(device);
	return rr_test_finish(test_name);
}
