/* Random inputs and poisoned outputs for validation runs: fresh values from a seed, never zero,
 * already rounded to the element type so the reference sees exactly what the kernel reads. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/reference.h"
#include "util/util.h"
#include "validate/validate.h"

/* splitmix64: a small, well-mixed generator; one stream per input. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * (double)(next_random(state) >> 11) / 9007199254740992.0;
}

static int64_t input_elements(const rr__io *io, int64_t rows, int64_t cols)
{
	return io->kind == RR_KIND_ROW ? rows * cols : io->kind == RR_KIND_COL ? cols : rows;
}

/* A value in [-3, 3] with |v| >= 1e-3 once rounded to the dtype. */
static void store_nonzero(void *data, rr_dtype dtype, size_t i, uint64_t *state)
{
	for (;;) {
		double v = uniform(state, -3.0, 3.0);
		if (fabs(v) < 1e-3)
			continue;
		rr__store_from_double(data, dtype, i, v);
		if (fabs(rr__load_as_double(data, dtype, i)) >= 1e-3)
			return;
	}
}

static rr_status apply_override(const rr_kernel *kernel, const char *text, rr__host_inputs *out)
{
	const char *eq = strchr(text, '=');
	size_t length = eq ? (size_t)(eq - text) : 0;
	int found = -1;
	for (int k = 0; eq && k < kernel->n_inputs; k++)
		if (kernel->inputs[k].kind == RR_KIND_PARAM &&
		    strlen(kernel->inputs[k].name) == length &&
		    strncmp(kernel->inputs[k].name, text, length) == 0)
			found = k;
	if (found < 0) {
		char names[512] = "";
		size_t used = 0;
		for (int k = 0; k < kernel->n_inputs && used < sizeof names; k++)
			if (kernel->inputs[k].kind == RR_KIND_PARAM)
				used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
				                         used ? ", " : "", kernel->inputs[k].name);
		return rr__fail(RR_ERR_INVALID_ARG,
		                "param override '%s' is not NAME=VALUE with a param of kernel '%s' "
		                "(its params: %s)",
		                text, kernel->name, used ? names : "none");
	}
	double value = 0;
	if (rr_parse_real(eq + 1, -DBL_MAX, DBL_MAX, &value) != RR_OK)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "param override '%s': '%s' is not a finite number (e.g. %s=1e-5)",
		                text, eq + 1, kernel->inputs[found].name);
	out->args[found].value = value;
	return RR_OK;
}

static rr_status fill_input(const rr_kernel *kernel, int k, int64_t rows, int64_t cols,
                            rr_dtype dtype, uint64_t seed, rr__host_inputs *out)
{
	const rr__io *io = &kernel->inputs[k];
	rr_arg *arg = &out->args[k];
	int64_t count = input_elements(io, rows, cols);
	arg->dtype = io->kind == RR_KIND_INDEX ? RR_I64 : dtype;
	arg->value = io->kind == RR_KIND_PARAM ? io->default_value : 0.0;
	if (io->kind == RR_KIND_PARAM)
		return RR_OK;
	size_t bytes = (size_t)count * rr_dtype_size(arg->dtype);
	void *data = malloc(bytes ? bytes : 1);
	if (!data)
		return rr__fail(RR_ERR_NOMEM, "out of memory for %lld values of input '%s'",
		                (long long)count, io->name);
	uint64_t state = seed * 0x2545f4914f6cdd1dull + (uint64_t)k * 0x9e3779b97f4a7c15ull + 1;
	for (int64_t i = 0; i < count; i++) {
		if (io->kind == RR_KIND_INDEX)
			((int64_t *)data)[i] = (int64_t)(next_random(&state) % (uint64_t)cols);
		else if (io->kind == RR_KIND_COL)
			rr__store_from_double(data, dtype, (size_t)i, uniform(&state, 0.5, 1.5));
		else
			store_nonzero(data, dtype, (size_t)i, &state);
	}
	out->owned[k] = data;
	out->bytes[k] = bytes;
	arg->data = data;
	return RR_OK;
}

/* a * b + c, saturating at UINT64_MAX. */
static uint64_t add_product(uint64_t c, uint64_t a, uint64_t b)
{
	if (b && a > (UINT64_MAX - c) / b)
		return UINT64_MAX;
	return c + a * b;
}

/* The host memory of a validated run against the memory available, before anything is
 * allocated, so a huge shape fails at once instead of filling gigabytes first: the inputs and
 * the outputs twice (host copies, and device buffers where device memory is host memory, as on
 * the cpu backend), the float64 reference of every output (or, where an element fails without
 * its error bound, the two blocks of reference and bounds that take its place), and one thread
 * of the reference run's scratch rows with bounds (on rows of millions of elements the largest
 * term). */
static rr_status check_memory(const rr_kernel *kernel, int64_t rows, int64_t cols, rr_dtype dtype)
{
	uint64_t total = 0;
	for (int k = 0; k < kernel->n_inputs; k++) {
		const rr__io *io = &kernel->inputs[k];
		if (io->kind != RR_KIND_PARAM)
			total = add_product(
			    total, (uint64_t)input_elements(io, rows, cols),
			    2 * rr_dtype_size(io->kind == RR_KIND_INDEX ? RR_I64 : dtype));
	}
	int64_t block = RR__BOUND_BLOCK_ELEMENTS / cols;
	block = block < 1 ? 1 : block > rows ? rows : block;
	for (int j = 0; j < kernel->n_outputs; j++) {
		uint64_t elements = (uint64_t)rr__output_elements(kernel, j, rows, cols);
		uint64_t blocks = 2 * (uint64_t)rr__output_elements(kernel, j, block, cols);
		total = add_product(total, elements, 2 * rr_dtype_size(dtype));
		total = add_product(total, elements > blocks ? elements : blocks, sizeof(double));
	}
	total = add_product(total, rr__reference_scratch_bytes(kernel, cols, 1), 1);
	char what[240];
	snprintf(what, sizeof what,
	         "a validated run of '%s' on %lldx%lld %s (inputs and outputs, twice, the float64 "
	         "reference and its scratch rows)",
	         kernel->name, (long long)rows, (long long)cols, rr_dtype_name(dtype));
	rr_status status = rr__host_memory_check(total, what);
	if (status == RR_OK && total > SIZE_MAX)
		status = rr__fail(RR_ERR_NOMEM, "%s needs more bytes than this machine can address",
		                  what);
	return status;
}

rr_status rr__inputs_make(const rr_kernel *kernel, int64_t rows, int64_t cols, rr_dtype dtype,
                          uint64_t seed, const char *const *overrides, rr__host_inputs *out)
{
	memset(out, 0, sizeof *out);
	if (!kernel)
		return rr__fail(RR_ERR_INVALID_ARG, "random inputs: the kernel is NULL");
	if (rows < 1 || cols < 1 || rows > INT64_MAX / cols)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "random inputs for '%s': the shape %lldx%lld must have M >= 1 and N >= 1",
		    kernel->name, (long long)rows, (long long)cols);
	if (rr_dtype_check_element(dtype) != RR_OK)
		return rr__fail_context(RR_ERR_INVALID_ARG, "random inputs for '%s'", kernel->name);
	rr_status status = check_memory(kernel, rows, cols, dtype);
	if (status != RR_OK)
		return status;
	out->count = kernel->n_inputs;
	for (int k = 0; k < kernel->n_inputs; k++) {
		status = fill_input(kernel, k, rows, cols, dtype, seed, out);
		if (status != RR_OK) {
			rr__inputs_free(out);
			return status;
		}
	}
	for (int i = 0; overrides && overrides[i]; i++) {
		status = apply_override(kernel, overrides[i], out);
		if (status != RR_OK) {
			rr__inputs_free(out);
			return status;
		}
	}
	return RR_OK;
}

void rr__inputs_free(rr__host_inputs *inputs)
{
	if (!inputs)
		return;
	for (int k = 0; k < RR_MAX_IO; k++)
		free(inputs->owned[k]);
	memset(inputs, 0, sizeof *inputs);
}

int64_t rr__output_elements(const rr_kernel *kernel, int j, int64_t rows, int64_t cols)
{
	return kernel->outputs[j].kind == RR_KIND_ROW ? rows * cols : rows;
}

void rr__poison(void *data, rr_dtype dtype, int64_t count)
{
	/* Quiet NaNs with a recognisable payload. */
	const uint32_t f32 = 0x7fc0dead;
	const uint16_t half = dtype == RR_BF16 ? 0x7fc1 : 0x7e01;
	for (int64_t i = 0; i < count; i++) {
		if (dtype == RR_F32)
			memcpy((char *)data + 4 * i, &f32, 4);
		else if (dtype == RR_BF16 || dtype == RR_F16)
			memcpy((char *)data + 2 * i, &half, 2);
		else
			rr__store_from_double(data, dtype, (size_t)i, NAN);
	}
}
