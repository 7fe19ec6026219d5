/* The cuda backend: CUDA C from the emitter, compiled by NVRTC for the device's exact
 * architecture (cached), loaded and launched with the driver API (cuLaunchKernelEx, clusters
 * when the plan splits a row over blocks). Caller-owned device pointers and streams are used
 * as they are, so framework tensors run in place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cuda_shim.h"
#include "backend/launch.h"
#include "codegen/cuda_emit.h"

typedef struct cuda_device {
	const rr__cuda_driver *driver;
	CUdevice device;
	CUcontext context;
	char arch[16];
	CUstream capture; /* a stream graph_begin created for a NULL one; graph_end destroys it */
} cuda_device;

typedef struct cuda_module {
	CUmodule module;
	CUfunction vec;  /* NULL when the plan has no aligned entry (rows on a boundary) */
	CUfunction head; /* NULL when the plan has only the scalar entry */
	CUfunction scalar;
	int64_t resident_groups; /* groups resident at once: the persistent grid's size */
	/* S=grid: the groups resident at once of each entry (by RR_ENTRY_*), each by its own
	 * registers (the persistent grid of the entry launched) */
	int64_t entry_groups[3];
	int resident_clusters; /* the driver's count for a cluster plan; -1 when not asked */
	/* S=grid: resident_groups (the most of any entry) × the record's bytes per group */
	CUdeviceptr workspace;
	/* rr__realisation.col_copies: the entry that writes them, and their memory */
	CUfunction cols;
	CUdeviceptr col_copies;
} cuda_module;

static cuda_device *impl_of(rr_device *device)
{
	return (cuda_device *)device->impl;
}

/* The driver calls of a thread go to the context that is current there. */
static rr_status bind(rr_device *device)
{
	cuda_device *cu = impl_of(device);
	return rr__cuda_check(cu->driver, cu->driver->cuCtxSetCurrent(cu->context),
	                      "making the CUDA context current");
}

/* ---------------------------------------------------------------- open and close */

static int attribute(const cuda_device *cu, int which)
{
	int value = 0;
	if (cu->driver->cuDeviceGetAttribute(&value, which, cu->device) != RR_CUDA_SUCCESS)
		return 0;
	return value;
}

static void fill_target(rr_device *device)
{
	cuda_device *cu = impl_of(device);
	rr__target *t = &device->target;
	memset(t, 0, sizeof *t);
	t->backend = "cuda";
	t->kind = RR_TARGET_GPU;
	t->keeps_derived_values = 1;
	t->max_workers = attribute(cu, RR_CU_ATTR_MAX_THREADS_PER_BLOCK);
	if (t->max_workers <= 0 || t->max_workers > 1024)
		t->max_workers = 1024;
	t->warp_size = 32;
	t->register_slots = 64;
	t->smem_per_group = attribute(cu, RR_CU_ATTR_SMEM_PER_BLOCK_OPTIN);
	t->cc_major = attribute(cu, RR_CU_ATTR_CC_MAJOR);
	t->cc_minor = attribute(cu, RR_CU_ATTR_CC_MINOR);
	t->has_clusters = t->cc_major >= 9 && attribute(cu, RR_CU_ATTR_CLUSTER_LAUNCH) != 0;
	/* Clusters over the portable 8 blocks need an opt-in per function (load_functions); sm_90
	 * allows 16. */
	t->max_cluster = !t->has_clusters ? 1 : t->cc_major == 9 ? 16 : 8;
	t->multiprocessors = attribute(cu, RR_CU_ATTR_MULTIPROCESSOR_COUNT);
	t->l2_bytes = attribute(cu, RR_CU_ATTR_L2_CACHE_SIZE);
	snprintf(cu->arch, sizeof cu->arch, "sm_%d%d", t->cc_major, t->cc_minor);
}

static rr_status cuda_open(rr_device *device)
{
	const rr__cuda_driver *driver = NULL;
	rr_status status = rr__cuda_driver_get(&driver);
	if (status != RR_OK)
		return status;
	CUresult result = driver->cuInit(0);
	if (result != RR_CUDA_SUCCESS) {
		rr__cuda_check(driver, result, "cuInit");
		return rr__fail_context(RR_ERR_NO_DEVICE,
		                        "CUDA is not available: the driver does not "
		                        "start (no usable GPU on this machine?)");
	}
	int count = 0;
	if (driver->cuDeviceGetCount(&count) != RR_CUDA_SUCCESS || count < 1)
		return rr__fail(RR_ERR_NO_DEVICE, "CUDA is not available: the driver sees no GPU");
	const rr__nvrtc *nvrtc = NULL;
	status = rr__nvrtc_get(&nvrtc);
	if (status != RR_OK)
		return rr__fail_context(RR_ERR_NO_DEVICE,
		                        "the cuda backend cannot compile kernels");
	cuda_device *cu = calloc(1, sizeof *cu);
	if (!cu)
		return rr__fail(RR_ERR_NOMEM, "out of memory opening the cuda backend");
	cu->driver = driver;
	status = rr__cuda_check(driver, driver->cuDeviceGet(&cu->device, 0), "cuDeviceGet(0)");
	if (status == RR_OK)
		status = rr__cuda_check(driver,
		                        driver->cuDevicePrimaryCtxRetain(&cu->context, cu->device),
		                        "retaining the primary context");
	if (status != RR_OK) {
		free(cu);
		return status;
	}
	device->impl = cu;
	status = bind(device);
	if (status != RR_OK) {
		driver->cuDevicePrimaryCtxRelease(cu->device);
		free(cu);
		device->impl = NULL;
		return status;
	}
	fill_target(device);
	char name[128] = "NVIDIA GPU";
	driver->cuDeviceGetName(name, (int)sizeof name, cu->device);
	snprintf(device->name, sizeof device->name, "%s (%s, %d SMs)", name, cu->arch,
	         device->target.multiprocessors);
	return RR_OK;
}

static void cuda_close(rr_device *device)
{
	cuda_device *cu = impl_of(device);
	if (!cu)
		return;
	cu->driver->cuDevicePrimaryCtxRelease(cu->device);
	free(cu);
	device->impl = NULL;
}

/* ---------------------------------------------------------------- programs */

static rr_status cuda_emit(rr_device *device, const rr_program *program, rr__buf *source)
{
	rr__emit_request request = {.kernel = program->kernel,
	                            .dtype = program->dtype,
	                            .cols = program->cols,
	                            .layout = &program->layout,
	                            .target = &device->target,
	                            .realisation = &program->realisation};
	return rr__cuda_emit(&request, source);
}

rr_status rr__cuda_launch_shape_of(const rr__realisation *r, int64_t rows, int64_t resident_groups,
                                   int vec, rr__cuda_launch_shape *out)
{
	int64_t groups = (rows + r->rows_per_group - 1) / r->rows_per_group;
	int loops = r->persistent && groups > resident_groups;
	if (loops)
		groups = resident_groups;
	if (groups * r->blocks_per_row > 0x7fffffff)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "M = %lld rows need %lld blocks, over the grid limit of 2^31 - 1; use a "
		    "persistent grid (G=persistent) or a larger R",
		    (long long)rows, (long long)(groups * r->blocks_per_row));
	out->blocks = groups * r->blocks_per_row;
	out->threads = r->threads;
	out->cluster = r->grid_split ? 1 : r->blocks_per_row;
	out->workspace = r->grid_split;
	/* S=grid of one round and no output phase (sum, a loss) meets only at its last block's
	 * arrival (grid.cuh, rr_grid_arrive): where no group loops, no block waits for another,
	 * so the launch needs no co-residency. Without the cooperative attribute the H200 ran
	 * sum and cross_entropy on 1-16 rows in 0.93-0.96x the time in a CUDA graph, about
	 * 0.2 us a launch (bench/results/2026-12-04-h200-plans-s32, ab4). */
	out->cooperative = r->grid_split && !(r->rounds == 1 && r->phases == 1 && !loops);
	out->dynamic_smem = r->dynamic_smem;
	out->entry = vec == RR_ENTRY_VEC && r->has_aligned_entry ? r->entry_vec
	             : vec && r->has_vec_entry                   ? r->entry_head
	                                                         : r->entry_scalar;
	return RR_OK;
}

/* The blocks of `g` an SM holds running `f`, by the driver (registers, threads, dynamic
 * shared memory); 0 where it does not say. */
static int blocks_per_sm(const rr__cuda_driver *d, const rr__realisation *g, CUfunction f)
{
	int fit = 0;
	if (d->cuOccupancyMaxActiveBlocksPerMultiprocessor(&fit, f, g->threads,
	                                                   (size_t)g->dynamic_smem) !=
	    RR_CUDA_SUCCESS)
		return 0;
	return fit;
}

/* Functions need their dynamic shared memory raised above the 48 KiB default. Where the plan
 * has the aligned entry's twin, the twin runs in its place when it holds at least as many
 * blocks an SM (realise.h, has_twin_entry). */
static rr_status load_functions(rr_device *device, const rr__realisation *g, cuda_module *m)
{
	const rr__cuda_driver *d = impl_of(device)->driver;
	CUfunction twin = NULL;
	rr_status status = rr__cuda_check(
	    d, d->cuModuleGetFunction(&m->scalar, m->module, g->entry_scalar), g->entry_scalar);
	if (status == RR_OK && g->has_aligned_entry)
		status = rr__cuda_check(d, d->cuModuleGetFunction(&m->vec, m->module, g->entry_vec),
		                        g->entry_vec);
	if (status == RR_OK && g->has_twin_entry)
		status = rr__cuda_check(d, d->cuModuleGetFunction(&twin, m->module, g->entry_twin),
		                        g->entry_twin);
	if (status == RR_OK && g->has_vec_entry)
		status = rr__cuda_check(
		    d, d->cuModuleGetFunction(&m->head, m->module, g->entry_head), g->entry_head);
	if (status == RR_OK && g->col_copies > 0)
		status = rr__cuda_check(
		    d, d->cuModuleGetFunction(&m->cols, m->module, g->entry_cols), g->entry_cols);
	CUfunction functions[4] = {m->scalar, m->vec, m->head, twin};
	for (int i = 0; i < 4 && status == RR_OK; i++)
		if (functions[i] && g->blocks_per_row > 8 && !g->grid_split)
			status = rr__cuda_check(
			    d,
			    d->cuFuncSetAttribute(functions[i],
			                          RR_CU_FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
			    "allowing a cluster over the portable 8 blocks");
	for (int i = 0; i < 4 && status == RR_OK; i++)
		if (functions[i] && g->dynamic_smem > 0)
			status = rr__cuda_check(
			    d,
			    d->cuFuncSetAttribute(functions[i],
			                          RR_CU_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			                          (int)g->dynamic_smem),
			    "raising the dynamic shared memory limit");
	if (status == RR_OK && twin && m->vec &&
	    blocks_per_sm(d, g, twin) >= blocks_per_sm(d, g, m->vec))
		m->vec = twin;
	return status;
}

/* How many row groups fit on the device at once: the persistent grid's size. */
static void size_persistent_grid(rr_device *device, const rr__realisation *g, cuda_module *m)
{
	const rr__cuda_driver *d = impl_of(device)->driver;
	int per_sm = 0, clusters = 0;
	CUfunction f = m->vec ? m->vec : m->head ? m->head : m->scalar;
	m->resident_clusters = -1;
	if (d->cuOccupancyMaxActiveBlocksPerMultiprocessor(
	        &per_sm, f, g->threads, (size_t)g->dynamic_smem) != RR_CUDA_SUCCESS)
		per_sm = 1;
	m->resident_groups =
	    (int64_t)(per_sm > 0 ? per_sm : 1) * device->target.multiprocessors / g->blocks_per_row;
	/* A grid split is not a cluster launch: asking about clusters of C > 16 would be an error.
	 */
	if (g->blocks_per_row > 1 && !g->grid_split && d->cuOccupancyMaxActiveClusters) {
		rr__cu_launch_attribute cluster = {.id = RR_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
		cluster.value.cluster_dim.x = (unsigned)g->blocks_per_row;
		cluster.value.cluster_dim.y = cluster.value.cluster_dim.z = 1;
		rr__cu_launch_config config = {.grid_x = (unsigned)g->blocks_per_row * 1024,
		                               .grid_y = 1,
		                               .grid_z = 1,
		                               .block_x = (unsigned)g->threads,
		                               .block_y = 1,
		                               .block_z = 1,
		                               .shared_mem_bytes = (unsigned)g->dynamic_smem,
		                               .attrs = &cluster,
		                               .num_attrs = 1};
		if (d->cuOccupancyMaxActiveClusters(&clusters, f, &config) == RR_CUDA_SUCCESS)
			m->resident_clusters = clusters;
		if (clusters > 0)
			m->resident_groups = clusters;
	}
	if (m->resident_groups < 1)
		m->resident_groups = 1;
}

/* S=grid: how many row groups of C blocks are resident at once, for each compiled entry by
 * its own occupancy (the driver's; an entry of fewer registers may hold more groups: the vec
 * entry of layernorm bf16 at W = 512 fits two blocks an SM where the scalar entry fits one),
 * refused when one entry fits not even one group; then the program's workspace, the most
 * groups of any entry times the record's bytes, zeroed once (a group's barrier counts every
 * arrival and waits for the next multiple of C, so it never needs a reset, whichever entry
 * and grid size arrive at it). One program's launches share it: they must not run
 * concurrently on different streams. */
static rr_status prepare_grid_split(rr_device *device, const rr__realisation *g, cuda_module *m)
{
	cuda_device *cu = impl_of(device);
	const rr__cuda_driver *d = cu->driver;
	CUfunction functions[3] = {
	    [RR_ENTRY_SCALAR] = m->scalar, [RR_ENTRY_VEC] = m->vec, [RR_ENTRY_HEAD] = m->head};
	m->resident_groups = 0;
	for (int i = 0; i < 3; i++) {
		int fit = 0;
		m->entry_groups[i] = 0;
		if (!functions[i])
			continue;
		if (d->cuOccupancyMaxActiveBlocksPerMultiprocessor(
		        &fit, functions[i], g->threads, (size_t)g->dynamic_smem) != RR_CUDA_SUCCESS)
			fit = 0;
		int64_t blocks = (int64_t)fit * device->target.multiprocessors;
		if (blocks < g->blocks_per_row)
			return rr__fail(
			    RR_ERR_ILLEGAL_LAYOUT,
			    "S=grid with C = %d blocks per row: all of a row's blocks must be "
			    "resident at once, but this kernel fits %d block(s) per SM "
			    "(registers, %d threads, %lld bytes of dynamic shared memory) on %d "
			    "SMs; use a smaller C or W",
			    g->blocks_per_row, fit, g->threads, (long long)g->dynamic_smem,
			    device->target.multiprocessors);
		m->entry_groups[i] = blocks / g->blocks_per_row;
		if (m->entry_groups[i] > m->resident_groups)
			m->resident_groups = m->entry_groups[i];
	}
	size_t bytes = (size_t)(m->resident_groups * g->workspace_per_group);
	void *zeros = calloc(1, bytes);
	if (!zeros)
		return rr__fail(RR_ERR_NOMEM, "out of memory zeroing the grid workspace");
	rr_status status =
	    rr__cuda_check(d, d->cuMemAlloc(&m->workspace, bytes), "allocating the grid workspace");
	if (status == RR_OK)
		status = rr__cuda_check(d, d->cuMemcpyHtoD(m->workspace, zeros, bytes),
		                        "zeroing the grid workspace");
	free(zeros);
	if (status != RR_OK && m->workspace) {
		d->cuMemFree(m->workspace);
		m->workspace = 0;
	}
	return status;
}

/* Loads the cubin; one the driver refuses that came from the cache is discarded (said once on
 * stderr) and compiled afresh, so a damaged cache entry cannot fail a kernel forever. */
static rr_status load_cubin(rr_device *device, rr_program *program, rr__cuda_compiled *compiled,
                            CUmodule *module)
{
	cuda_device *cu = impl_of(device);
	rr_status status =
	    rr__cuda_check(cu->driver, cu->driver->cuModuleLoadData(module, compiled->cubin),
	                   "loading the compiled module");
	if (status == RR_OK || !compiled->from_cache)
		return status;
	rr__cuda_cache_discard(compiled->cache_key, rr_last_error());
	rr__clear_error();
	rr__cuda_compiled_free(compiled);
	status = rr__cuda_compile(program->source, cu->arch, 0, compiled);
	if (status == RR_OK)
		rr__sha256_hex(compiled->cubin, compiled->cubin_size, program->binary_hash);
	if (status == RR_OK)
		status = rr__cuda_check(cu->driver,
		                        cu->driver->cuModuleLoadData(module, compiled->cubin),
		                        "loading the compiled module");
	return status;
}

static rr_status cuda_compile(rr_device *device, rr_program *program)
{
	cuda_device *cu = impl_of(device);
	cuda_module *m = calloc(1, sizeof *m);
	if (!m)
		return rr__fail(RR_ERR_NOMEM, "out of memory loading a CUDA kernel");
	const rr__realisation *g = &program->realisation;
	rr__cuda_compiled compiled;
	memset(&compiled, 0, sizeof compiled);
	rr_status status = rr__cuda_compile(program->source, cu->arch, 0, &compiled);
	if (status == RR_OK)
		rr__sha256_hex(compiled.cubin, compiled.cubin_size, program->binary_hash);
	if (status == RR_OK)
		status = bind(device);
	if (status == RR_OK)
		status = load_cubin(device, program, &compiled, &m->module);
	rr__cuda_compiled_free(&compiled);
	if (status == RR_OK)
		status = load_functions(device, g, m);
	if (status == RR_OK)
		size_persistent_grid(device, g, m);
	if (status == RR_OK && g->grid_split)
		status = prepare_grid_split(device, g, m);
	if (status == RR_OK && g->col_copies > 0)
		status = rr__cuda_check(cu->driver,
		                        cu->driver->cuMemAlloc(&m->col_copies, (size_t)g->col_copies_bytes),
		                        "allocating the col inputs' copies");
	if (status == RR_OK && g->blocks_per_row > 8 && !g->grid_split && m->resident_clusters == 0)
		status =
		    rr__fail(RR_ERR_ILLEGAL_LAYOUT,
		             "C = %d blocks per cluster: the device cannot place one cluster of "
		             "this kernel (%d threads, %lld bytes of dynamic shared memory per "
		             "block); use C <= 8 or S=grid",
		             g->blocks_per_row, g->threads, (long long)g->dynamic_smem);
	if (status != RR_OK) {
		if (m->col_copies)
			cu->driver->cuMemFree(m->col_copies);
		if (m->module)
			cu->driver->cuModuleUnload(m->module);
		free(m);
		return rr__fail_context(status, "while compiling kernel '%s' for %s",
		                        program->kernel->name, cu->arch);
	}
	program->module = m;
	return RR_OK;
}

static void cuda_unload(rr_device *device, rr_program *program)
{
	cuda_module *m = program->module;
	if (!m)
		return;
	if (bind(device) == RR_OK) {
		impl_of(device)->driver->cuModuleUnload(m->module);
		if (m->workspace)
			impl_of(device)->driver->cuMemFree(m->workspace);
		if (m->col_copies)
			impl_of(device)->driver->cuMemFree(m->col_copies);
	}
	free(m);
	program->module = NULL;
}

static rr_status cuda_launch(rr_device *device, rr_program *program, int64_t rows,
                             const rr_arg *inputs, void *const *outputs, void *stream)
{
	cuda_module *m = program->module;
	const rr__realisation *g = &program->realisation;
	const rr_kernel *kernel = program->kernel;
	/* The base pointers are the caller's: their phases pick the entry (each row's head
	 * aligns its body; arrays at different phases take the scalar entry). */
	int vec = rr__realisation_vec_allowed(kernel, g, inputs, outputs);
	int entry = vec == RR_ENTRY_VEC && m->vec ? RR_ENTRY_VEC
	            : vec && m->head              ? RR_ENTRY_HEAD
	                                          : RR_ENTRY_SCALAR;
	CUfunction f = entry == RR_ENTRY_VEC    ? m->vec
	               : entry == RR_ENTRY_HEAD ? m->head
	                                        : m->scalar;
	int64_t resident = g->grid_split ? m->entry_groups[entry] : m->resident_groups;
	rr__cuda_launch_shape shape = {0};
	rr_status status = rr__cuda_launch_shape_of(g, rows, resident, vec, &shape);
	if (status != RR_OK)
		return status;
	CUdeviceptr pointers[2 * RR_MAX_IO];
	float values[RR_MAX_IO];
	long long row_count = rows;
	void *params[2 * RR_MAX_IO + 1];
	int n = 0;
	for (int k = 0; k < kernel->n_inputs; k++) {
		if (kernel->inputs[k].kind == RR_KIND_PARAM) {
			values[k] = (float)inputs[k].value;
			params[n++] = &values[k];
		} else {
			pointers[k] = (CUdeviceptr)(uintptr_t)inputs[k].data;
			params[n++] = &pointers[k];
		}
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		pointers[RR_MAX_IO + j] = (CUdeviceptr)(uintptr_t)outputs[j];
		params[n++] = &pointers[RR_MAX_IO + j];
	}
	params[n++] = &row_count;
	CUdeviceptr workspace = m->workspace;
	if (shape.workspace)
		params[n++] = &workspace;
	CUdeviceptr copies = m->col_copies;
	if (g->col_copies > 0)
		params[n++] = &copies;
	rr__cu_launch_attribute cluster = {.id = RR_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
	cluster.value.cluster_dim.x = (unsigned)shape.cluster;
	cluster.value.cluster_dim.y = cluster.value.cluster_dim.z = 1;
	if (shape.cooperative) /* the row's blocks wait for one another: all resident */
		cluster = (rr__cu_launch_attribute){.id = RR_CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
		                                    .value.cooperative = 1};
	rr__cu_launch_attribute attribute[2];
	int attributes = 0;
	if (shape.cluster > 1 || shape.cooperative)
		attribute[attributes++] = cluster;
	/* the row entry may start while the copies' entry runs: it waits for them (the emitted
	 * rr_wait_copies) only where a phase reads them */
	if (g->col_copies > 0 && !shape.cooperative && device->target.cc_major >= 9)
		attribute[attributes++] = (rr__cu_launch_attribute){
		    .id = RR_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
		    .value.programmatic = 1};
	rr__cu_launch_config config = {.grid_x = (unsigned)shape.blocks,
	                               .grid_y = 1,
	                               .grid_z = 1,
	                               .block_x = (unsigned)shape.threads,
	                               .block_y = 1,
	                               .block_z = 1,
	                               .shared_mem_bytes = (unsigned)shape.dynamic_smem,
	                               .stream = (CUstream)stream,
	                               .attrs = attributes ? attribute : NULL,
	                               .num_attrs = (unsigned)attributes};
	status = bind(device);
	if (status != RR_OK)
		return status;
	if (g->col_copies > 0) { /* the copies first, on the same stream */
		void *cols[RR_MAX_IO + 1];
		int c = 0;
		for (int k = 0; k < kernel->n_inputs; k++)
			if (kernel->inputs[k].kind == RR_KIND_COL)
				cols[c++] = &pointers[k];
		cols[c] = &copies;
		rr__cu_launch_config copy = {.grid_x = (unsigned)((g->col_copy_stride /
		                                                   g->head_align + 255) / 256),
		                             .grid_y = (unsigned)g->head_align,
		                             .grid_z = (unsigned)g->col_copies,
		                             .block_x = 256,
		                             .block_y = 1,
		                             .block_z = 1,
		                             .stream = (CUstream)stream};
		status = rr__cuda_check(
		    impl_of(device)->driver,
		    impl_of(device)->driver->cuLaunchKernelEx(&copy, m->cols, cols, NULL),
		    "launching the col inputs' copies");
		if (status != RR_OK)
			return status;
	}
	return rr__cuda_check(impl_of(device)->driver,
	                      impl_of(device)->driver->cuLaunchKernelEx(&config, f, params, NULL),
	                      "launching the kernel");
}

/* ---------------------------------------------------------------- memory */

static rr_status cuda_alloc(rr_device *device, size_t bytes, void **out)
{
	cuda_device *cu = impl_of(device);
	CUdeviceptr ptr = 0;
	rr_status status = bind(device);
	size_t free_bytes = 0, total_bytes = 0;
	if (status == RR_OK && cu->driver->cuMemGetInfo &&
	    cu->driver->cuMemGetInfo(&free_bytes, &total_bytes) == RR_CUDA_SUCCESS &&
	    bytes > free_bytes) {
		char asked[32], free_text[32], total_text[32];
		rr__format_bytes(bytes, asked, sizeof asked);
		rr__format_bytes(free_bytes, free_text, sizeof free_text);
		rr__format_bytes(total_bytes, total_text, sizeof total_text);
		return rr__fail(RR_ERR_NOMEM,
		                "cannot allocate %s (%zu bytes) on the GPU: only %s of its %s are "
		                "free; use a smaller shape",
		                asked, bytes, free_text, total_text);
	}
	if (status == RR_OK)
		status =
		    rr__cuda_check(cu->driver, cu->driver->cuMemAlloc(&ptr, bytes ? bytes : 256),
		                   "allocating device memory");
	if (status != RR_OK)
		return rr__fail_context(status == RR_ERR_DEVICE ? RR_ERR_NOMEM : status,
		                        "cannot allocate %zu bytes on the GPU", bytes);
	*out = (void *)(uintptr_t)ptr;
	return RR_OK;
}

static void cuda_free(rr_device *device, void *ptr)
{
	if (ptr && bind(device) == RR_OK)
		impl_of(device)->driver->cuMemFree((CUdeviceptr)(uintptr_t)ptr);
}

static rr_status cuda_upload(rr_device *device, void *dst, const void *src, size_t bytes)
{
	cuda_device *cu = impl_of(device);
	rr_status status = bind(device);
	if (status != RR_OK || bytes == 0)
		return status;
	return rr__cuda_check(cu->driver,
	                      cu->driver->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes),
	                      "copying to the GPU");
}

/* Waits for all work first: kernels on the caller's non-blocking streams included. */
static rr_status cuda_download(rr_device *device, void *dst, const void *src, size_t bytes)
{
	cuda_device *cu = impl_of(device);
	rr_status status = bind(device);
	if (status == RR_OK)
		status = rr__cuda_check(cu->driver, cu->driver->cuCtxSynchronize(),
		                        "waiting for the GPU before a copy back");
	if (status != RR_OK || bytes == 0)
		return status;
	return rr__cuda_check(cu->driver,
	                      cu->driver->cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes),
	                      "copying from the GPU");
}

static rr_status cuda_copy(rr_device *device, void *dst, const void *src, size_t bytes,
                           void *stream)
{
	cuda_device *cu = impl_of(device);
	rr_status status = bind(device);
	if (status != RR_OK || bytes == 0)
		return status;
	return rr__cuda_check(cu->driver,
	                      cu->driver->cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst,
	                                                    (CUdeviceptr)(uintptr_t)src, bytes,
	                                                    (CUstream)stream),
	                      "copying on the GPU");
}

static rr_status cuda_synchronize(rr_device *device)
{
	rr_status status = bind(device);
	if (status != RR_OK)
		return status;
	return rr__cuda_check(impl_of(device)->driver, impl_of(device)->driver->cuCtxSynchronize(),
	                      "waiting for the GPU");
}

/* ---------------------------------------------------------------- provenance */

/* The kernel module's version ("580.95.05"): the first word after "Module" in the driver's
 * proc file that starts with a digit and holds a dot (the words before it name the platform,
 * e.g. "x86_64"); "" when there is none. */
static void kernel_driver_version(char *out, size_t size)
{
	out[0] = 0;
	FILE *f = fopen("/proc/driver/nvidia/version", "r");
	if (!f)
		return;
	char line[512] = "";
	const char *p = fgets(line, sizeof line, f) ? strstr(line, "Module") : NULL;
	fclose(f);
	while (p && *p) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \t\n");
		if (n > 0 && *p >= '0' && *p <= '9' && memchr(p, '.', n) && n < size) {
			memcpy(out, p, n);
			out[n] = 0;
			return;
		}
		p += n;
	}
}

static rr_status cuda_properties(rr_device *device, rr__device_properties *out)
{
	cuda_device *cu = impl_of(device);
	const rr__cuda_driver *d = cu->driver;
	memset(out, 0, sizeof *out);
	d->cuDeviceGetName(out->name, (int)sizeof out->name, cu->device);
	rr__cu_uuid uuid;
	if (d->cuDeviceGetUuid && d->cuDeviceGetUuid(&uuid, cu->device) == RR_CUDA_SUCCESS) {
		const unsigned char *b = uuid.bytes;
		snprintf(out->uuid, sizeof out->uuid,
		         "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		         b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
		         b[12], b[13], b[14], b[15]);
	}
	out->cc_major = device->target.cc_major;
	out->cc_minor = device->target.cc_minor;
	out->multiprocessors = device->target.multiprocessors;
	size_t memory = 0;
	if (d->cuDeviceTotalMem(&memory, cu->device) == RR_CUDA_SUCCESS)
		out->memory_bytes = (int64_t)memory;
	out->l2_bytes = device->target.l2_bytes;
	out->sm_clock_mhz = attribute(cu, RR_CU_ATTR_CLOCK_RATE) / 1000;
	out->mem_clock_mhz = attribute(cu, RR_CU_ATTR_MEMORY_CLOCK_RATE) / 1000;
	int version = 0;
	d->cuDriverGetVersion(&version);
	char module[64];
	kernel_driver_version(module, sizeof module);
	char text[160];
	snprintf(text, sizeof text, "%s%sCUDA %d.%d", module, module[0] ? " / " : "",
	         version / 1000, (version % 1000) / 10);
	snprintf(out->driver_version, sizeof out->driver_version, "%.63s", text);
	const rr__nvrtc *nvrtc = NULL;
	if (rr__nvrtc_get(&nvrtc) == RR_OK)
		snprintf(out->compiler_version, sizeof out->compiler_version, "NVRTC %d.%d (%s)",
		         nvrtc->major, nvrtc->minor, nvrtc->library);
	return RR_OK;
}

/* ---------------------------------------------------------------- events, graphs, streams */

static rr_status cuda_event_create(rr_device *device, void **event)
{
	CUevent e = NULL;
	rr_status status = bind(device);
	if (status == RR_OK)
		status = rr__cuda_check(impl_of(device)->driver,
		                        impl_of(device)->driver->cuEventCreate(&e, 0),
		                        "creating an event");
	*event = e;
	return status;
}

static void cuda_event_destroy(rr_device *device, void *event)
{
	if (event && bind(device) == RR_OK)
		impl_of(device)->driver->cuEventDestroy((CUevent)event);
}

static rr_status cuda_event_record(rr_device *device, void *event, void *stream)
{
	rr_status status = bind(device);
	if (status != RR_OK)
		return status;
	return rr__cuda_check(
	    impl_of(device)->driver,
	    impl_of(device)->driver->cuEventRecord((CUevent)event, (CUstream)stream),
	    "recording an event");
}

static rr_status cuda_event_elapsed_ms(rr_device *device, void *start, void *end, float *ms)
{
	const rr__cuda_driver *d = impl_of(device)->driver;
	rr_status status = bind(device);
	if (status == RR_OK)
		status =
		    rr__cuda_check(d, d->cuEventSynchronize((CUevent)end), "waiting for an event");
	if (status == RR_OK)
		status = rr__cuda_check(d, d->cuEventElapsedTime(ms, (CUevent)start, (CUevent)end),
		                        "reading the time between two events");
	return status;
}

static rr_status cuda_stream_create(rr_device *device, void **stream)
{
	CUstream s = NULL;
	rr_status status = bind(device);
	if (status == RR_OK)
		status = rr__cuda_check(
		    impl_of(device)->driver,
		    impl_of(device)->driver->cuStreamCreate(&s, RR_CU_STREAM_NON_BLOCKING),
		    "creating a stream");
	*stream = s;
	return status;
}

static void cuda_stream_destroy(rr_device *device, void *stream)
{
	if (stream && bind(device) == RR_OK)
		impl_of(device)->driver->cuStreamDestroy((CUstream)stream);
}

/* The legacy default stream cannot be captured: a NULL stream is replaced by a new one, which
 * graph_end destroys. */
static rr_status cuda_graph_begin(rr_device *device, void **stream)
{
	rr_status status = RR_OK;
	if (!*stream) {
		status = cuda_stream_create(device, stream);
		impl_of(device)->capture = (CUstream)*stream;
	}
	if (status == RR_OK)
		status = bind(device);
	if (status == RR_OK)
		status =
		    rr__cuda_check(impl_of(device)->driver,
		                   impl_of(device)->driver->cuStreamBeginCapture(
		                       (CUstream)*stream, RR_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
		                   "starting a graph capture");
	return status;
}

static rr_status cuda_graph_end(rr_device *device, void *stream, void **graph)
{
	const rr__cuda_driver *d = impl_of(device)->driver;
	CUgraph captured = NULL;
	CUgraphExec exec = NULL;
	*graph = NULL;
	rr_status status = bind(device);
	if (status == RR_OK)
		status = rr__cuda_check(d, d->cuStreamEndCapture((CUstream)stream, &captured),
		                        "ending a graph capture");
	if (status == RR_OK)
		status = rr__cuda_check(d, d->cuGraphInstantiateWithFlags(&exec, captured, 0),
		                        "instantiating the captured graph");
	if (captured)
		d->cuGraphDestroy(captured);
	if (stream && (CUstream)stream == impl_of(device)->capture) {
		d->cuStreamDestroy((CUstream)stream);
		impl_of(device)->capture = NULL;
	}
	*graph = exec;
	return status;
}

static rr_status cuda_graph_launch(rr_device *device, void *graph, void *stream)
{
	rr_status status = bind(device);
	if (status != RR_OK)
		return status;
	return rr__cuda_check(
	    impl_of(device)->driver,
	    impl_of(device)->driver->cuGraphLaunch((CUgraphExec)graph, (CUstream)stream),
	    "launching a graph");
}

static void cuda_graph_destroy(rr_device *device, void *graph)
{
	if (graph && bind(device) == RR_OK)
		impl_of(device)->driver->cuGraphExecDestroy((CUgraphExec)graph);
}

static rr_status cuda_compile_check(const char *arch, const char *source, int *local_memory)
{
	const rr__nvrtc *nvrtc = NULL;
	rr_status status = rr__nvrtc_get(&nvrtc);
	if (status != RR_OK || !source)
		return status;
	rr__cuda_compiled compiled;
	status = rr__cuda_compile(source, arch, 0, &compiled);
	if (status == RR_OK && local_memory)
		*local_memory = rr__cuda_log_local_memory(compiled.log);
	rr__cuda_compiled_free(&compiled);
	return status;
}

static rr_status cuda_target_for_arch(const char *arch, rr__target *out)
{
	if (!arch)
		return rr__fail(RR_ERR_NO_DEVICE,
		                "the cuda target needs a GPU that answers or an architecture name");
	return rr__target_for_cuda_arch(arch, out);
}

const rr__backend_ops rr__cuda_backend = {
    .version = RR_BACKEND_OPS_VERSION,
    .name = "cuda",
    .report =
        {
            .copy_words = "device-to-device copy",
            .cache_words = "L2",
            .source_suffix = "cu",
            .bandwidth_unit = "TB/s",
            .bandwidth_bytes_per_us = 1e6,
            .headline_on_device = 1,
            .ceiling_note = "since a graph's memcpy node is slower than a stream memcpy",
            .copy_bytes = (int64_t)2 << 30,
            .read_rows = 16384,
            .read_cols = 32768,
            .cold_cache_bytes = 0,
            .numbered_devices = 1,
        },
    .target_for_arch = cuda_target_for_arch,
    .compile_check = cuda_compile_check,
    .open = cuda_open,
    .close = cuda_close,
    .emit = cuda_emit,
    .compile = cuda_compile,
    .unload = cuda_unload,
    .launch = cuda_launch,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .copy = cuda_copy,
    .synchronize = cuda_synchronize,
    .properties = cuda_properties,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_elapsed_ms = cuda_event_elapsed_ms,
    .graph_begin = cuda_graph_begin,
    .graph_end = cuda_graph_end,
    .graph_launch = cuda_graph_launch,
    .graph_destroy = cuda_graph_destroy,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
};
