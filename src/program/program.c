/* Devices and programs: the public face of the backends. Every call checks its arguments,
 * then dispatches through device->ops, so a backend never sees a NULL or an impossible shape. */
#include <stdlib.h>
#include <string.h>

#include "program/program.h"
#include "plan/plan.h"
#include "tune/tune.h"

static void allowed_backends(char *out, size_t size)
{
	size_t used = (size_t)snprintf(out, size, "auto");
	for (int i = 0; rr__backends[i] && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, ", %s", rr__backends[i]->name);
}

static rr_status open_with(const rr__backend_ops *ops, rr_device **out)
{
	if (ops->version != RR_BACKEND_OPS_VERSION)
		return rr__fail(RR_ERR_INTERNAL, "backend '%s' has table version %d, expected %d",
		                ops->name, ops->version, RR_BACKEND_OPS_VERSION);
	rr_device *device = calloc(1, sizeof *device);
	if (!device)
		return rr__fail(RR_ERR_NOMEM, "out of memory opening backend '%s'", ops->name);
	device->ops = ops;
	rr_status status = ops->open(device);
	if (status != RR_OK) {
		free(device);
		return status;
	}
	*out = device;
	return RR_OK;
}

rr_status rr_device_open(const char *backend, rr_device **out)
{
	if (!out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_device_open: out is NULL");
	*out = NULL;
	if (!backend || strcmp(backend, "auto") == 0) {
		char reasons[2048] = "";
		size_t used = 0;
		for (int i = 0; rr__backends[i]; i++) {
			if (open_with(rr__backends[i], out) == RR_OK)
				return RR_OK;
			used += (size_t)snprintf(
			    reasons + used, used < sizeof reasons ? sizeof reasons - used : 0,
			    "%s%s: %s", used ? "; " : "", rr__backends[i]->name, rr_last_error());
			if (used >= sizeof reasons)
				used = sizeof reasons - 1;
		}
		return rr__fail(RR_ERR_NO_DEVICE, "no backend could be opened (%s)", reasons);
	}
	const rr__backend_ops *ops = rr__backend_find(backend);
	if (!ops) {
		char allowed[256];
		allowed_backends(allowed, sizeof allowed);
		return rr__fail(RR_ERR_INVALID_ARG, "unknown backend '%s': allowed are %s", backend,
		                allowed);
	}
	return open_with(ops, out);
}

void rr_device_close(rr_device *device)
{
	if (!device)
		return;
	if (device->ops->close)
		device->ops->close(device);
	free(device);
}

const char *rr_device_backend(const rr_device *device)
{
	return device ? device->ops->name : "";
}

const char *rr_device_name(const rr_device *device)
{
	return device ? device->name : "";
}

rr_status rr_device_alloc(rr_device *device, size_t bytes, void **out)
{
	if (!device || !out)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_device_alloc: device and out must not be NULL");
	*out = NULL;
	return device->ops->alloc(device, bytes, out);
}

void rr_device_free(rr_device *device, void *ptr)
{
	if (device && ptr)
		device->ops->free(device, ptr);
}

rr_status rr_device_upload(rr_device *device, void *dst, const void *src, size_t bytes)
{
	if (!device || ((!dst || !src) && bytes))
		return rr__fail(RR_ERR_INVALID_ARG, "rr_device_upload: NULL device or buffer");
	return device->ops->upload(device, dst, src, bytes);
}

rr_status rr_device_download(rr_device *device, void *dst, const void *src, size_t bytes)
{
	if (!device || ((!dst || !src) && bytes))
		return rr__fail(RR_ERR_INVALID_ARG, "rr_device_download: NULL device or buffer");
	return device->ops->download(device, dst, src, bytes);
}

rr_status rr_device_synchronize(rr_device *device)
{
	if (!device)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_device_synchronize: device is NULL");
	return device->ops->synchronize(device);
}

/* ---------------------------------------------------------------- programs */

static rr_status check_request(const rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                               int64_t rows_hint, int64_t cols)
{
	if (!device || !kernel)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_program_build: device and kernel must not be NULL");
	if (rr_dtype_check_element(dtype) != RR_OK)
		return RR_ERR_INVALID_ARG;
	if (cols < 1)
		return rr__fail(RR_ERR_INVALID_ARG, "the row length N = %lld must be at least 1",
		                (long long)cols);
	if (rows_hint < 0)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "the rows hint M = %lld must be 0 (unknown) or more",
		                (long long)rows_hint);
	if (!kernel->analysis.level)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "kernel '%s' was not analysed (load it with "
		                "rr_kernel_load*)",
		                kernel->name);
	return RR_OK;
}

rr_status rr__program_emit_only(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                                int64_t rows_hint, int64_t cols, const rr_layout *layout,
                                rr_program **out)
{
	if (!out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_program_build: out is NULL");
	*out = NULL;
	rr_status status = check_request(device, kernel, dtype, rows_hint, cols);
	if (status != RR_OK)
		return status;
	rr_layout requested = {0};
	if (layout)
		requested = *layout;
	rr__plan_request request = {.kernel = kernel,
	                            .dtype = dtype,
	                            .rows = rows_hint,
	                            .cols = cols,
	                            .target = &device->target};
	rr_program *program = calloc(1, sizeof *program);
	if (!program)
		return rr__fail(RR_ERR_NOMEM, "out of memory building kernel '%s'", kernel->name);
	program->device = device;
	program->kernel = kernel;
	program->dtype = dtype;
	program->cols = cols;
	rr__candidates stats;
	status = rr__plan_choose(&request, &requested, NULL, NULL, &program->layout, &stats);
	if (status == RR_OK && !rr__layout_is_complete(&requested)) {
		program->plan_stats.planned = 1;
		program->plan_stats.considered = stats.considered;
		program->plan_stats.rejected = stats.rejected;
		program->plan_stats.merged = stats.merged;
		program->plan_stats.candidates = stats.count;
	}
	rr__candidates_free(&stats);
	if (status != RR_OK) {
		free(program);
		return rr__fail_context(status, "cannot plan kernel '%s' (%s, N = %lld) on %s",
		                        kernel->name, rr_dtype_name(dtype), (long long)cols,
		                        device->ops->name);
	}
	status = rr__realise(kernel, dtype, cols, &program->layout, &device->target,
	                     &program->realisation);
	if (status != RR_OK) {
		free(program);
		return status;
	}
	rr__realisation_for_rows(&program->realisation, rows_hint);
	rr__buf source = {0};
	status = device->ops->emit(device, program, &source);
	if (status == RR_OK && (source.failed || !source.data))
		status = rr__fail(RR_ERR_NOMEM, "out of memory emitting kernel '%s'", kernel->name);
	if (status != RR_OK) {
		rr__buf_free(&source);
		free(program);
		return status;
	}
	program->source = source.data;
	rr__sha256_hex(source.data, source.length, program->source_hash);
	*out = program;
	return RR_OK;
}

rr_status rr_program_build(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                           int64_t rows_hint, int64_t cols, const rr_layout *layout,
                           rr_program **out)
{
	rr_program *program = NULL;
	rr_layout tuned;
	int hit = 0; /* a fully automatic request asks the tuning database before the model */
	rr_status status = check_request(device, kernel, dtype, rows_hint, cols);
	if (status == RR_OK)
		status = rr__tune_auto_layout(device, kernel, dtype, rows_hint, cols, layout,
		                              &tuned, &hit);
	if (status == RR_OK)
		status = rr__program_emit_only(device, kernel, dtype, rows_hint, cols,
		                               hit ? &tuned : layout, &program);
	if (status != RR_OK)
		return status;
	status = device->ops->compile(device, program);
	if (status != RR_OK) {
		rr_program_free(program);
		return status;
	}
	*out = program;
	return RR_OK;
}

void rr_program_free(rr_program *program)
{
	if (!program)
		return;
	if (program->module && program->device->ops->unload)
		program->device->ops->unload(program->device, program);
	free(program->source);
	free(program);
}

const rr_layout *rr_program_layout(const rr_program *program)
{
	return program ? &program->layout : NULL;
}

const char *rr_program_source(const rr_program *program)
{
	return program && program->source ? program->source : "";
}

const char *rr_program_source_hash(const rr_program *program)
{
	return program ? program->source_hash : "";
}

const char *rr_program_binary_hash(const rr_program *program)
{
	return program ? program->binary_hash : "";
}

static rr_status check_arguments(const rr_program *program, const rr_arg *inputs,
                                 void *const *outputs)
{
	const rr_kernel *kernel = program->kernel;
	if (kernel->n_inputs > 0 && !inputs)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "kernel '%s' takes %d inputs but inputs is NULL", kernel->name,
		                kernel->n_inputs);
	for (int k = 0; k < kernel->n_inputs; k++) {
		const rr__io *io = &kernel->inputs[k];
		if (io->kind == RR_KIND_PARAM)
			continue;
		if (!inputs[k].data)
			return rr__fail(RR_ERR_INVALID_ARG,
			                "input '%s' (%s) of kernel '%s' has NULL data", io->name,
			                rr_kind_name(io->kind), kernel->name);
		rr_dtype want = io->kind == RR_KIND_INDEX ? RR_I64 : program->dtype;
		if (inputs[k].dtype != want)
			return rr__fail(RR_ERR_INVALID_ARG,
			                "input '%s' (%s) of kernel '%s' is %s but must be %s",
			                io->name, rr_kind_name(io->kind), kernel->name,
			                rr_dtype_name(inputs[k].dtype), rr_dtype_name(want));
	}
	if (kernel->n_outputs > 0 && !outputs)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "kernel '%s' has %d outputs but outputs is NULL", kernel->name,
		                kernel->n_outputs);
	for (int j = 0; j < kernel->n_outputs; j++)
		if (!outputs[j])
			return rr__fail(RR_ERR_INVALID_ARG, "output '%s' of kernel '%s' is NULL",
			                kernel->outputs[j].name, kernel->name);
	return RR_OK;
}

/* Index inputs (a target class per row) must lie in [0, N): a kernel gathers x[t] without a
 * bound check. Read where device memory is host memory; on a GPU see rr_program_check_indices. */
static rr_status check_index_values(const rr_program *program, int k, const int64_t *index,
                                    int64_t rows)
{
	for (int64_t r = 0; r < rows; r++)
		if (index[r] < 0 || index[r] >= program->cols)
			return rr__fail(
			    RR_ERR_INVALID_ARG,
			    "index input '%s' of kernel '%s' is %lld at row %lld; allowed "
			    "are 0..%lld (N - 1); rowreduce has no ignore index: leave such "
			    "rows out",
			    program->kernel->inputs[k].name, program->kernel->name,
			    (long long)index[r], (long long)r, (long long)(program->cols - 1));
	return RR_OK;
}

static rr_status check_indices(const rr_program *program, int64_t rows, const rr_arg *inputs)
{
	for (int k = 0; k < program->kernel->n_inputs; k++) {
		if (program->kernel->inputs[k].kind != RR_KIND_INDEX)
			continue;
		rr_status status = check_index_values(program, k, inputs[k].data, rows);
		if (status != RR_OK)
			return status;
	}
	return RR_OK;
}

rr_status rr_program_check_indices(rr_program *program, int64_t rows, const rr_arg *inputs)
{
	if (!program || rows < 0 || (rows > 0 && !inputs))
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_program_check_indices: program or inputs is NULL, or rows < 0");
	for (int k = 0; k < program->kernel->n_inputs && rows > 0; k++) {
		if (program->kernel->inputs[k].kind != RR_KIND_INDEX)
			continue;
		if (!inputs[k].data)
			return rr__fail(RR_ERR_INVALID_ARG,
			                "index input '%s' of kernel '%s' has NULL data",
			                program->kernel->inputs[k].name, program->kernel->name);
		int64_t *host = malloc((size_t)rows * sizeof *host);
		if (!host)
			return rr__fail(RR_ERR_NOMEM, "out of memory for %lld index values",
			                (long long)rows);
		rr_status status = rr_device_download(program->device, host, inputs[k].data,
		                                      (size_t)rows * sizeof *host);
		if (status == RR_OK)
			status = check_index_values(program, k, host, rows);
		free(host);
		if (status != RR_OK)
			return status;
	}
	return RR_OK;
}

rr_status rr_program_launch(rr_program *program, int64_t rows, const rr_arg *inputs,
                            void *const *outputs, void *stream)
{
	if (!program)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_program_launch: program is NULL");
	if (!program->module)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "kernel '%s' was emitted but never compiled, so it "
		                "cannot be launched",
		                program->kernel->name);
	if (rows < 0)
		return rr__fail(RR_ERR_INVALID_ARG, "the number of rows M = %lld must be 0 or more",
		                (long long)rows);
	if (rows == 0)
		return RR_OK; /* no rows: nothing is read or written */
	rr_status status = check_arguments(program, inputs, outputs);
	if (status == RR_OK && program->device->ops == &rr__cpu_backend)
		status = check_indices(program, rows, inputs);
	if (status != RR_OK)
		return status;
	return program->device->ops->launch(program->device, program, rows, inputs, outputs,
	                                    stream);
}

void rr_program_plan_stats(const rr_program *program, rr_plan_stats *out)
{
	*out = program->plan_stats;
}
