/* Comparing a backend's outputs with the float64 reference, every element of every output,
 * with a tolerance scaled by the output's magnitude (see validate.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static void compare_output(const double *want, const void *got_data, rr_dtype dtype, int64_t count,
                           int64_t cols, int row_kind, const rr__tolerance *tol,
                           rr__output_check *check)
{
	double scale = 1e-30;
	for (int64_t i = 0; i < count; i++)
		if (isfinite(want[i]) && fabs(want[i]) > scale)
			scale = fabs(want[i]);
	check->scale = scale;
	check->elements = count;
	check->first_row = check->first_col = -1;
	for (int64_t i = 0; i < count; i++) {
		double got = rr__load_as_double(got_data, dtype, (size_t)i);
		double error = fabs(got - want[i]);
		int pass;
		if (isnan(got) || isnan(want[i]))
			pass = isnan(got) && isnan(want[i]); /* NaN is the answer for NaN inputs */
		else if (isinf(got) || isinf(want[i]))
			pass = got == want[i];
		else
			pass = error <= tol->tiny + tol->atol * scale + tol->rtol * fabs(want[i]);
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
			check->first_row = row_kind ? i / cols : i;
			check->first_col = row_kind ? i % cols : 0;
			check->first_got = got;
			check->first_want = want[i];
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
	uint64_t reference_bytes = 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		reference_bytes += (uint64_t)rr__output_elements(kernel, j, rows, cols) * 8;
	char what[160];
	snprintf(what, sizeof what, "the float64 reference of '%s' for %lldx%lld", kernel->name,
	         (long long)rows, (long long)cols);
	rr_status status = rr__host_memory_check(reference_bytes, what);
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++) {
		reference[j] =
		    malloc((size_t)rr__output_elements(kernel, j, rows, cols) * sizeof(double));
		if (!reference[j])
			status =
			    rr__fail(RR_ERR_NOMEM, "out of memory for the reference of output '%s'",
			             kernel->outputs[j].name);
	}
	if (status == RR_OK)
		status = rr_reference_run(kernel, rows, cols, inputs->args, reference);
	if (status != RR_OK) {
		for (int j = 0; j < kernel->n_outputs; j++)
			free(reference[j]);
		return rr__fail_context(
		    status, "validation of '%s' could not compute the reference", kernel->name);
	}
	status = check_reference_defined(kernel, rows, cols, inputs, reference);
	if (status != RR_OK) {
		for (int j = 0; j < kernel->n_outputs; j++)
			free(reference[j]);
		return status;
	}
	report->total = kernel->n_outputs;
	const rr__output_check *first_failed = NULL;
	for (int j = 0; j < kernel->n_outputs; j++) {
		rr__output_check *check = &report->outputs[j];
		snprintf(check->name, sizeof check->name, "%s", kernel->outputs[j].name);
		int row_kind = kernel->outputs[j].kind == RR_KIND_ROW;
		compare_output(reference[j], outputs[j], dtype,
		               rr__output_elements(kernel, j, rows, cols), cols, row_kind,
		               &report->tolerance, check);
		if (check->failures == 0)
			report->validated++;
		else if (!first_failed)
			first_failed = check;
		free(reference[j]);
	}
	if (!first_failed)
		return RR_OK;
	return rr__fail(
	    RR_ERR_VALIDATION,
	    "output '%s' of '%s' (%s) differs from the float64 reference in %lld of %lld "
	    "elements; first at row %lld, column %lld: got %.9g, want %.9g (allowed error "
	    "%.3g + %.3g·%.3g + %.3g·|want|)",
	    first_failed->name, kernel->name, rr_dtype_name(dtype),
	    (long long)first_failed->failures, (long long)first_failed->elements,
	    (long long)first_failed->first_row, (long long)first_failed->first_col,
	    first_failed->first_got, first_failed->first_want, report->tolerance.tiny,
	    report->tolerance.atol, first_failed->scale, report->tolerance.rtol);
}
