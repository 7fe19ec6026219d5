/* Comparing a backend's outputs with the float64 reference, every element of every output,
 * with a tolerance scaled by the output's magnitude (see validate.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref/reference.h"
#include "util/util.h"
#include "validate/validate.h"

rr__tolerance rr__tolerance_default(rr_dtype dtype)
{
	switch (dtype) {
	case RR_F16:
		return (rr__tolerance){.rtol = 4e-3, .atol = 2e-3, .tiny = 0x1p-24};
	case RR_BF16:
		return (rr__tolerance){.rtol = 2e-2, .atol = 1.6e-2, .tiny = 0x1p-133};
	default:
		return (rr__tolerance){.rtol = 1e-4, .atol = 1e-5, .tiny = 0x1p-149};
	}
}

/* Starts output j's check: its name, size and scale (the largest finite |want|, >= 1e-30). */
static void check_start(rr__output_check *check, const char *name, const double *want,
                        int64_t count)
{
	memset(check, 0, sizeof *check);
	snprintf(check->name, sizeof check->name, "%s", name);
	check->elements = count;
	check->scale = 1e-30;
	for (int64_t i = 0; i < count; i++)
		if (isfinite(want[i]) && fabs(want[i]) > check->scale)
			check->scale = fabs(want[i]);
	check->first_row = check->first_col = -1;
}

/* Compares elements first .. first + count - 1 of an output (got_data: the whole output) with
 * want[0 .. count) and their error bounds bound[0 .. count) (NULL: 0), adding to `check`. */
static void compare_range(const double *want, const double *bound, const void *got_data,
                          rr_dtype dtype, int64_t first, int64_t count, int64_t cols, int row_kind,
                          const rr__tolerance *tol, rr__output_check *check)
{
	for (int64_t i = 0; i < count; i++) {
		double got = rr__load_as_double(got_data, dtype, (size_t)(first + i));
		double error = fabs(got - want[i]);
		double e = bound ? bound[i] : 0.0;
		double allowed =
		    tol->tiny + tol->atol * check->scale + tol->rtol * fabs(want[i]) + e;
		int pass;
		if (isnan(got) || isnan(want[i]))
			pass = isnan(got) && isnan(want[i]); /* NaN is the answer for NaN inputs */
		else if (isinf(got) || isinf(want[i]))
			pass = got == want[i];
		else
			pass = error <= allowed;
		if (isfinite(error)) {
			if (error > check->max_abs_error)
				check->max_abs_error = error;
			double rel = error / fmax(fabs(want[i]), 1e-30);
			if (rel > check->max_rel_error)
				check->max_rel_error = rel;
		}
		if (pass)
			continue;
		if (check->failures++ == 0) {
			check->first_row = row_kind ? (first + i) / cols : first + i;
			check->first_col = row_kind ? (first + i) % cols : 0;
			check->first_got = got;
			check->first_want = want[i];
			check->first_bound = e;
			check->first_allowed = allowed;
		}
	}
}

/* Whether every value a kernel reads is finite (params and arrays). */
static int inputs_finite(const rr_kernel *kernel, int64_t rows, int64_t cols,
                         const rr__host_inputs *inputs)
{
	for (int k = 0; k < kernel->n_inputs; k++) {
		const rr_arg *arg = &inputs->args[k];
		rr_kind kind = kernel->inputs[k].kind;
		if (kind == RR_KIND_PARAM && !isfinite(arg->value))
			return 0;
		if (kind == RR_KIND_PARAM || kind == RR_KIND_INDEX)
			continue;
		int64_t count = kind == RR_KIND_ROW   ? rows * cols
		                : kind == RR_KIND_COL ? cols
		                                      : rows;
		for (int64_t i = 0; i < count; i++)
			if (!isfinite(rr__load_as_double(arg->data, arg->dtype, (size_t)i)))
				return 0;
	}
	return 1;
}

/* A NaN in the reference of finite inputs means the kernel is undefined there (rmsnorm with
 * eps = -100 takes the square root of a negative number): no backend can be right or wrong,
 * so that is the caller's error, not a validation failure. NaN from NaN or infinite inputs is
 * the defined answer and is compared like any value. */
static rr_status check_reference_defined(const rr_kernel *kernel, int64_t rows, int64_t cols,
                                         const rr__host_inputs *inputs, double *const *reference)
{
	for (int j = 0; j < kernel->n_outputs; j++) {
		int64_t count = rr__output_elements(kernel, j, rows, cols);
		int64_t at = 0;
		while (at < count && !isnan(reference[j][at]))
			at++;
		if (at == count || !inputs_finite(kernel, rows, cols, inputs))
			continue;
		char params[512] = "";
		size_t used = 0;
		for (int k = 0; k < kernel->n_inputs && used < sizeof params; k++) {
			if (kernel->inputs[k].kind != RR_KIND_PARAM)
				continue;
			char value[32];
			rr__format_real(inputs->args[k].value, value);
			used += (size_t)snprintf(params + used, sizeof params - used, "%s%s = %s",
			                         used ? ", " : "", kernel->inputs[k].name, value);
		}
		int row_kind = kernel->outputs[j].kind == RR_KIND_ROW;
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "the reference is NaN for '%s' (output '%s', row %lld, column %lld) "
		    "although every input is finite: the kernel's result is undefined "
		    "for these %s (%s)",
		    kernel->name, kernel->outputs[j].name, (long long)(row_kind ? at / cols : at),
		    (long long)(row_kind ? at % cols : 0), used ? "parameters" : "inputs",
		    used ? params
		         : "it has no parameters: a log or square root of a negative value, 0/0 "
		           "or inf - inf gives NaN");
	}
	return RR_OK;
}

/* Arrays of doubles shaped like the kernel's outputs over `rows` rows, `what` naming them. */
static rr_status alloc_like_outputs(const rr_kernel *kernel, int64_t rows, int64_t cols,
                                    double **arrays, const char *what)
{
	uint64_t bytes = 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		bytes += (uint64_t)rr__output_elements(kernel, j, rows, cols) * sizeof(double);
	char description[200];
	snprintf(description, sizeof description, "%s of '%s' for %lldx%lld", what, kernel->name,
	         (long long)rows, (long long)cols);
	rr_status status = rr__host_memory_check(bytes, description);
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++) {
		arrays[j] =
		    malloc((size_t)rr__output_elements(kernel, j, rows, cols) * sizeof(double));
		if (!arrays[j])
			status = rr__fail(RR_ERR_NOMEM, "out of memory for %s of output '%s'", what,
			                  kernel->outputs[j].name);
	}
	return status;
}

static void free_arrays(double **arrays)
{
	for (int j = 0; j < RR_MAX_IO; j++) {
		free(arrays[j]);
		arrays[j] = NULL;
	}
}

/* The report's tally: outputs whose every element passed, and the first that did not (NULL). */
static const rr__output_check *tally(const rr_kernel *kernel, rr__validation *report)
{
	const rr__output_check *first_failed = NULL;
	report->total = kernel->n_outputs;
	report->validated = 0;
	for (int j = 0; j < kernel->n_outputs; j++) {
		if (report->outputs[j].failures == 0)
			report->validated++;
		else if (!first_failed)
			first_failed = &report->outputs[j];
	}
	return first_failed;
}

/* Inputs for rows first_row.. of `inputs`: row, rowscalar and index arrays moved on. */
static void shift_inputs(const rr_kernel *kernel, const rr__host_inputs *inputs, int64_t first_row,
                         int64_t cols, rr_arg *shifted)
{
	for (int k = 0; k < kernel->n_inputs; k++) {
		shifted[k] = inputs->args[k];
		rr_kind kind = kernel->inputs[k].kind;
		int64_t skip = kind == RR_KIND_ROW ? first_row * cols
		               : kind == RR_KIND_ROWSCALAR || kind == RR_KIND_INDEX ? first_row
		                                                                    : 0;
		if (skip && shifted[k].data)
			shifted[k].data = (const char *)shifted[k].data +
			                  (size_t)skip * rr_dtype_size(inputs->args[k].dtype);
	}
}

/* Compares every output again, each element allowed its error bound as well: block by block
 * of rows, the reference with bounds of each block (the values of the whole run, bit for bit:
 * rows are independent) against the outputs, with the scales the first pass found. The memory
 * is two blocks' worth, not the whole reference again. */
static rr_status compare_with_bounds(const rr_kernel *kernel, int64_t rows, int64_t cols,
                                     rr_dtype dtype, const rr__host_inputs *inputs,
                                     void *const *outputs, rr__validation *report)
{
	int64_t block = RR__BOUND_BLOCK_ELEMENTS / cols;
	block = block < 1 ? 1 : block > rows ? rows : block;
	double *want[RR_MAX_IO] = {0}, *bound[RR_MAX_IO] = {0};
	rr_status status = alloc_like_outputs(kernel, block, cols, want, "the float64 reference");
	if (status == RR_OK)
		status = alloc_like_outputs(kernel, block, cols, bound,
		                            "the error bounds of the float64 reference");
	for (int j = 0; j < kernel->n_outputs; j++) {
		rr__output_check *check = &report->outputs[j];
		check->failures = 0;
		check->max_abs_error = check->max_rel_error = 0;
		check->first_row = check->first_col = -1;
	}
	for (int64_t first = 0; first < rows && status == RR_OK; first += block) {
		int64_t count = rows - first < block ? rows - first : block;
		rr_arg args[RR_MAX_IO];
		shift_inputs(kernel, inputs, first, cols, args);
		status = rr__reference_run_bounds(kernel, count, cols, args, want, bound);
		for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++) {
			int row_kind = kernel->outputs[j].kind == RR_KIND_ROW;
			int64_t per_row = row_kind ? cols : 1;
			compare_range(want[j], bound[j], outputs[j], dtype, first * per_row,
			              count * per_row, cols, row_kind, &report->tolerance,
			              &report->outputs[j]);
		}
	}
	free_arrays(want);
	free_arrays(bound);
	return status;
}

rr_status rr__validate_outputs(const rr_kernel *kernel, int64_t rows, int64_t cols, rr_dtype dtype,
                               const rr__host_inputs *inputs, void *const *outputs,
                               const rr__tolerance *tolerance, rr__validation *report)
{
	memset(report, 0, sizeof *report);
	if (!kernel || !inputs || !outputs)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "validation: kernel, inputs and outputs are required");
	report->tolerance = tolerance ? *tolerance : rr__tolerance_default(dtype);
	double *reference[RR_MAX_IO] = {0};
	rr_status status =
	    alloc_like_outputs(kernel, rows, cols, reference, "the float64 reference");
	if (status == RR_OK)
		status = rr_reference_run(kernel, rows, cols, inputs->args, reference);
	if (status != RR_OK) {
		free_arrays(reference);
		return rr__fail_context(
		    status, "validation of '%s' could not compute the reference", kernel->name);
	}
	status = check_reference_defined(kernel, rows, cols, inputs, reference);
	if (status != RR_OK) {
		free_arrays(reference);
		return status;
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		int64_t count = rr__output_elements(kernel, j, rows, cols);
		check_start(&report->outputs[j], kernel->outputs[j].name, reference[j], count);
		compare_range(reference[j], NULL, outputs[j], dtype, 0, count, cols,
		              kernel->outputs[j].kind == RR_KIND_ROW, &report->tolerance,
		              &report->outputs[j]);
	}
	free_arrays(reference);
	/* A bound only widens what an element is allowed, so the bounds are worked out only when
	 * some element fails without them: a passing validation costs one plain reference run. */
	const rr__output_check *first_failed = tally(kernel, report);
	if (first_failed) {
		status = compare_with_bounds(kernel, rows, cols, dtype, inputs, outputs, report);
		if (status != RR_OK)
			return rr__fail_context(status,
			                        "validation of '%s' could not compute the "
			                        "reference's error bounds",
			                        kernel->name);
		first_failed = tally(kernel, report);
	}
	if (!first_failed)
		return RR_OK;
	return rr__fail(
	    RR_ERR_VALIDATION,
	    "output '%s' of '%s' (%s) differs from the float64 reference in %lld of %lld "
	    "elements; first at row %lld, column %lld: got %.9g, want %.9g (allowed error "
	    "%.3g = %.3g + %.3g·%.3g + %.3g·|want| + %.3g, the last the f32 error the "
	    "reference's formula carries there)",
	    first_failed->name, kernel->name, rr_dtype_name(dtype),
	    (long long)first_failed->failures, (long long)first_failed->elements,
	    (long long)first_failed->first_row, (long long)first_failed->first_col,
	    first_failed->first_got, first_failed->first_want, first_failed->first_allowed,
	    report->tolerance.tiny, report->tolerance.atol, first_failed->scale,
	    report->tolerance.rtol, first_failed->first_bound);
}
