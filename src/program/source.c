/* Generated source without a device: a backend named by the caller, its target from an
 * architecture name (or its own), the planner and the emitter, and a compile-only check. What
 * `rowreduce emit` and `emit --check-all` use through the public header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program/program.h"

void rr_free(void *ptr)
{
	free(ptr);
}

static rr_status find_backend(const char *backend, const rr__backend_ops **ops)
{
	*ops = rr__backend_find(backend);
	if (*ops)
		return RR_OK;
	char allowed[256];
	size_t used = 0;
	allowed[0] = 0;
	for (int i = 0; rr__backends[i] && used < sizeof allowed; i++)
		used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s%s",
		                         i ? ", " : "", rr__backends[i]->name);
	return rr__fail(RR_ERR_INVALID_ARG, "unknown backend '%s': allowed are %s",
	                backend ? backend : "(null)", allowed);
}

/* A device that is never opened (ops and target only) when the target is known without one;
 * otherwise the backend's live device. */
static rr_status target_device(const rr__backend_ops *ops, const char *arch, rr_device *scratch,
                               rr_device **device)
{
	memset(scratch, 0, sizeof *scratch);
	scratch->ops = ops;
	*device = scratch;
	rr_status status =
	    ops->target_for_arch
	        ? ops->target_for_arch(arch, &scratch->target)
	        : rr__fail(RR_ERR_NO_DEVICE, "the %s backend has no named targets", ops->name);
	if (status != RR_ERR_NO_DEVICE || arch)
		return status;
	rr__clear_error();
	return rr_device_open(ops->name, device);
}

rr_status rr_source_emit(const char *backend, const char *arch, const rr_kernel *kernel,
                         rr_dtype dtype, int64_t rows_hint, int64_t cols, const rr_layout *layout,
                         char **source, rr_layout *used)
{
	if (!source)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_source_emit: source is NULL");
	*source = NULL;
	const rr__backend_ops *ops = NULL;
	rr_device scratch, *device = NULL;
	rr_status status = find_backend(backend, &ops);
	if (status == RR_OK)
		status = target_device(ops, arch, &scratch, &device);
	rr_program *program = NULL;
	if (status == RR_OK)
		status =
		    rr__program_emit_only(device, kernel, dtype, rows_hint, cols, layout, &program);
	if (status == RR_OK) {
		*source = strdup(rr_program_source(program));
		if (!*source)
			status = rr__fail(RR_ERR_NOMEM, "out of memory copying a generated source");
		else if (used)
			*used = *rr_program_layout(program);
	}
	rr_program_free(program);
	if (device != &scratch)
		rr_device_close(device);
	return status;
}

rr_status rr_source_compile_check(const char *backend, const char *arch, const char *source,
                                  int *local_memory)
{
	const rr__backend_ops *ops = NULL;
	rr_status status = find_backend(backend, &ops);
	if (local_memory)
		*local_memory = 0;
	if (status != RR_OK)
		return status;
	if (!ops->compile_check)
		return rr__fail(RR_ERR_UNSUPPORTED,
		                "the %s backend has no compile-only check (the cuda backend has)",
		                ops->name);
	if (!arch && source)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_source_compile_check needs an architecture (e.g. sm_90)");
	return ops->compile_check(arch, source, local_memory);
}
