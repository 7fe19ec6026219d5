/* Validation runs (rr_run, rowreduce_measure.h): fresh random inputs on the program's device,
 * outputs poisoned with NaN, one launch compared element by element with the float64
 * reference, then the host wall time of synchronized launches. What `rowreduce run` does. */
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"
#include "validate/validate.h"

struct rr_run {
	rr_program *program;
	rr_device *device;
	const rr_kernel *kernel;
	int64_t rows;
	rr__host_inputs host;
	rr_arg args[RR_MAX_IO];
	void *inputs[RR_MAX_IO];
	void *outputs[RR_MAX_IO];
	void *host_outputs[RR_MAX_IO];
	size_t output_bytes[RR_MAX_IO];
	rr__validation report;
	int validated; /* report is filled */
};

void rr_run_free(rr_run *run)
{
	if (!run)
		return;
	for (int k = 0; k < RR_MAX_IO; k++) {
		rr_device_free(run->device, run->inputs[k]);
		rr_device_free(run->device, run->outputs[k]);
		free(run->host_outputs[k]);
	}
	rr__inputs_free(&run->host);
	free(run);
}

/* Device copies of the inputs, and device and host buffers for the outputs. */
static rr_status make_buffers(rr_run *run)
{
	const rr_kernel *kernel = run->kernel;
	rr_dtype dtype = run->program->dtype;
	rr_status status = RR_OK;
	for (int k = 0; k < kernel->n_inputs && status == RR_OK; k++) {
		run->args[k] = run->host.args[k];
		if (!run->host.owned[k])
			continue;
		status = rr_device_alloc(run->device, run->host.bytes[k], &run->inputs[k]);
		if (status == RR_OK)
			status = rr_device_upload(run->device, run->inputs[k], run->host.owned[k],
			                          run->host.bytes[k]);
		run->args[k].data = run->inputs[k];
	}
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++) {
		int64_t count = rr__output_elements(kernel, j, run->rows, run->program->cols);
		run->output_bytes[j] = (size_t)count * rr_dtype_size(dtype);
		run->host_outputs[j] = malloc(run->output_bytes[j] ? run->output_bytes[j] : 1);
		if (!run->host_outputs[j])
			return rr__fail(RR_ERR_NOMEM, "out of memory for output '%s'",
			                kernel->outputs[j].name);
		status = rr_device_alloc(run->device, run->output_bytes[j], &run->outputs[j]);
	}
	return status;
}

rr_status rr_run_create(rr_program *program, int64_t rows, uint64_t seed, const char *const *params,
                        rr_run **out)
{
	if (!program || !out || rows < 1)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_run_create needs a program, rows >= 1 and an output");
	*out = NULL;
	rr_run *run = calloc(1, sizeof *run);
	if (!run)
		return rr__fail(RR_ERR_NOMEM, "out of memory for a run");
	run->program = program;
	run->device = program->device;
	run->kernel = program->kernel;
	run->rows = rows;
	rr_status status = rr__inputs_make(run->kernel, rows, program->cols, program->dtype, seed,
	                                   params, &run->host);
	if (status == RR_OK)
		status = make_buffers(run);
	if (status != RR_OK) {
		rr_run_free(run);
		return status;
	}
	*out = run;
	return RR_OK;
}

static void summarize(const rr__validation *v, rr_run_report *report)
{
	memset(report, 0, sizeof *report);
	report->outputs = v->total;
	report->outputs_valid = v->validated;
	report->atol = v->tolerance.atol;
	report->rtol = v->tolerance.rtol;
	for (int j = 0; j < v->total; j++) {
		report->elements += v->outputs[j].elements;
		report->elements_valid += v->outputs[j].elements - v->outputs[j].failures;
	}
}

rr_status rr_run_validate(rr_run *run, rr_run_report *report)
{
	if (!run || !report)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_run_validate needs a run and a report");
	const rr_kernel *kernel = run->kernel;
	rr_dtype dtype = run->program->dtype;
	rr_status status = RR_OK;
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++) {
		rr__poison(run->host_outputs[j], dtype,
		           (int64_t)(run->output_bytes[j] / rr_dtype_size(dtype)));
		status = rr_device_upload(run->device, run->outputs[j], run->host_outputs[j],
		                          run->output_bytes[j]);
	}
	if (status == RR_OK)
		status = rr_program_launch(run->program, run->rows, run->args, run->outputs, NULL);
	if (status == RR_OK)
		status = rr_device_synchronize(run->device);
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++)
		status = rr_device_download(run->device, run->host_outputs[j], run->outputs[j],
		                            run->output_bytes[j]);
	if (status != RR_OK)
		return status;
	status = rr__validate_outputs(kernel, run->rows, run->program->cols, dtype, &run->host,
	                              run->host_outputs, NULL, &run->report);
	run->validated = status == RR_OK || status == RR_ERR_VALIDATION;
	if (run->validated)
		summarize(&run->report, report);
	return status;
}

rr_status rr_run_output(const rr_run *run, int j, rr_output_check *out)
{
	if (!run || !out || !run->validated || j < 0 || j >= run->report.total)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_run_output: no output %d of a validated run", j);
	const rr__output_check *c = &run->report.outputs[j];
	*out = (rr_output_check){.name = c->name,
	                         .elements = c->elements,
	                         .failures = c->failures,
	                         .max_abs_error = c->max_abs_error,
	                         .max_rel_error = c->max_rel_error,
	                         .first_row = c->first_row,
	                         .first_col = c->first_col,
	                         .first_got = c->first_got,
	                         .first_want = c->first_want};
	return RR_OK;
}

rr_status rr_run_time(rr_run *run, int repeat, double *median_us)
{
	if (!run || !median_us || repeat < 1)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_run_time needs a run, repeat >= 1 and an "
		                                    "output");
	double *samples = malloc((size_t)repeat * sizeof *samples);
	if (!samples)
		return rr__fail(RR_ERR_NOMEM, "out of memory for %d timings", repeat);
	rr_status status =
	    rr_program_launch(run->program, run->rows, run->args, run->outputs, NULL);
	if (status == RR_OK)
		status = rr_device_synchronize(run->device); /* the warm-up: not timed */
	for (int r = 0; r < repeat && status == RR_OK; r++) {
		double start = rr__now();
		status = rr_program_launch(run->program, run->rows, run->args, run->outputs, NULL);
		if (status == RR_OK)
			status = rr_device_synchronize(run->device);
		samples[r] = (rr__now() - start) * 1e6;
	}
	if (status == RR_OK)
		*median_us = rr__stats_median(samples, (size_t)repeat);
	free(samples);
	return status;
}

char *rr_format_duration(double us, char *buf, size_t size)
{
	return rr__format_duration(us, 0, 1, buf, size);
}
