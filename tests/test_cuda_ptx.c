/* What NVRTC makes of the emitted CUDA C, checked without a GPU: 16-byte global loads and
 * stores for aligned complete packs, no local memory (stack frame, spills, .local) on a grid
 * of plans, no block barrier when W <= 32, cluster instructions when C > 1, S=grid's arrival
 * count at any C, the 16-bit conversions, launch bounds raised for rows in flight and their
 * capped second compile, compile errors carrying the NVRTC log, the cubin cache, the sm_90
 * target, and opening the backend where there is no driver. Skipped (77) when NVRTC cannot be
 * opened. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda_shim.h"
#include "program/program.h"
#include "codegen/cuda_emit.h"
#include "harness.h"
#include "rowreduce.h"

typedef struct compiled_plan {
	char label[200];
	char *ptx;
	char *log;
	rr__realisation geometry;
} compiled_plan;

static rr_device target_device;

/* Emits and compiles one plan for sm_90; V = 0 means 16 bytes per pack. */
static int compile_plan(const char *kernel_name, rr_dtype dtype, int64_t cols, rr_layout layout,
                        compiled_plan *out)
{
	memset(out, 0, sizeof *out);
	if (layout.vec == 0)
		layout.vec = (int)(16 / rr_dtype_size(dtype));
	char text[128];
	rr_layout_format(&layout, text, sizeof text);
	snprintf(out->label, sizeof out->label, "%s %s N=%lld %s", kernel_name,
	         rr_dtype_name(dtype), (long long)cols, text);
	rr_kernel *kernel = NULL;
	rr_program *program = NULL;
	int ok = rr_kernel_load_builtin(kernel_name, &kernel) == RR_OK &&
	         rr__program_emit_only(&target_device, kernel, dtype, 1000, cols, &layout,
	                               &program) == RR_OK &&
	         (out->geometry = program->realisation, 1);
	CHECKF(ok, "%s: %s", out->label, rr_last_error());
	rr__cuda_compiled compiled;
	if (ok) {
		rr_status status =
		    rr__cuda_compile(rr_program_source(program), "sm_90", 1, &compiled);
		CHECKF(status == RR_OK, "%s: %s", out->label, rr_last_error());
		ok = status == RR_OK && compiled.ptx;
		if (ok) {
			out->ptx = compiled.ptx;
			out->log = compiled.log;
			compiled.ptx = compiled.log = NULL;
		}
		rr__cuda_compiled_free(&compiled);
	}
	rr_program_free(program);
	rr_kernel_free(kernel);
	return ok;
}

static void release(compiled_plan *plan)
{
	free(plan->ptx);
	free(plan->log);
	plan->ptx = plan->log = NULL;
}

/* The PTX of one entry: from its ".entry NAME" to the next ".entry" (or the end). */
static char *entry_body(const char *ptx, const char *name)
{
	char marker[128];
	snprintf(marker, sizeof marker, ".entry %s(", name);
	const char *begin = strstr(ptx, marker);
	if (!begin)
		return NULL;
	const char *end = strstr(begin + 1, ".entry ");
	size_t length = end ? (size_t)(end - begin) : strlen(begin);
	char *body = malloc(length + 1);
	memcpy(body, begin, length);
	body[length] = 0;
	return body;
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = text; p && (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* Every "N bytes stack frame, N bytes spill stores, N bytes spill loads" line says 0 and 0. */
static int no_local_memory(const compiled_plan *plan)
{
	int lines = 0;
	for (const char *p = plan->log; (p = strstr(p, "bytes stack frame")) != NULL; p++) {
		const char *q = p;
		while (q > plan->log && (q[-1] == ' ' || (q[-1] >= '0' && q[-1] <= '9')))
			q--;
		long frame = strtol(q, NULL, 10);
		const char *spill = strstr(p, "bytes spill stores");
		const char *r = spill;
		while (r && r > p && (r[-1] == ' ' || (r[-1] >= '0' && r[-1] <= '9')))
			r--;
		long spills = r ? strtol(r, NULL, 10) : -1;
		if (frame != 0 || spills != 0)
			return 0;
		lines++;
	}
	return lines > 0 && !strstr(plan->ptx, ".local");
}

/* ---------------------------------------------------------------- the checks */

static void check_vector_access(const char *kernel, rr_dtype dtype)
{
	compiled_plan plan;
	rr_layout layout = {256, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	if (!compile_plan(kernel, dtype, 4096, layout, &plan))
		return;
	CHECKF(plan.geometry.has_vec_entry && plan.geometry.access_bytes == 16,
	       "%s: access %d bytes", plan.label, plan.geometry.access_bytes);
	char *vec = entry_body(plan.ptx, plan.geometry.entry_vec);
	char *scalar = entry_body(plan.ptx, plan.geometry.entry_scalar);
	CHECKF(vec && scalar, "%s: both entries are in the PTX", plan.label);
	if (vec && scalar) {
		int loads = count(vec, "ld.global.nc.v4.") + count(vec, "ld.global.nc.v2.u64") +
		            count(vec, "ld.global.nc.v2.b64");
		int stores = count(vec, "st.global.v4.") + count(vec, "st.global.v2.u64") +
		             count(vec, "st.global.v2.b64");
		CHECKF(loads > 0, "%s: no 16-byte loads in the vectorised entry", plan.label);
		CHECKF(stores > 0, "%s: no 16-byte stores in the vectorised entry", plan.label);
		/* N = 4096 has no partial pack: nothing narrower than 16 bytes touches the row */
		CHECKF(count(vec, "st.global.f32") + count(vec, "st.global.u16") +
		               count(vec, "st.global.b16") ==
		           0,
		       "%s: narrow stores in the vectorised entry", plan.label);
		CHECKF(count(scalar, "ld.global.nc.v4.") == 0,
		       "%s: the scalar entry must not use vector loads", plan.label);
		if (dtype == RR_BF16)
			CHECKF(count(vec, "cvt.rn.bf16x2.f32") > 0, "%s: no packed bf16 rounding",
			       plan.label);
		if (dtype == RR_F16)
			CHECKF(count(vec, "cvt.rn.f16x2.f32") > 0 && count(vec, "cvt.f32.f16") > 0,
			       "%s: no f16 conversions", plan.label);
	}
	free(vec);
	free(scalar);
	release(&plan);
}

/* Odd rows (N·size not a multiple of 16 bytes) keep 16-byte accesses in the entry with a
 * head: the body's packs are aligned whatever N is; only the head and the partial pack go
 * element by element. There is no aligned entry to run for such N. */
static void check_head_access(const char *kernel, rr_dtype dtype, int64_t cols)
{
	compiled_plan plan;
	rr_layout layout = {256, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	if (!compile_plan(kernel, dtype, cols, layout, &plan))
		return;
	CHECKF(plan.geometry.has_vec_entry && !plan.geometry.has_aligned_entry &&
	           plan.geometry.access_bytes == 16,
	       "%s: access %d bytes, aligned entry %d", plan.label, plan.geometry.access_bytes,
	       plan.geometry.has_aligned_entry);
	char *head = entry_body(plan.ptx, plan.geometry.entry_head);
	char *aligned = entry_body(plan.ptx, plan.geometry.entry_vec);
	CHECKF(head && !aligned, "%s: the head entry, and no aligned one, is in the PTX",
	       plan.label);
	free(aligned);
	if (head) {
		int loads = count(head, "ld.global.nc.v4.") + count(head, "ld.global.nc.v2.u64") +
		            count(head, "ld.global.nc.v2.b64");
		int stores = count(head, "st.global.v4.") + count(head, "st.global.v2.u64") +
		             count(head, "st.global.v2.b64");
		CHECKF(loads > 0 && stores > 0, "%s: %d 16-byte loads, %d stores in the head entry",
		       plan.label, loads, stores);
	}
	CHECKF(no_local_memory(&plan), "%s uses local memory:\n%s", plan.label, plan.log);
	free(head);
	release(&plan);
}

static void check_no_local_memory(void)
{
	static const struct {
		const char *kernel;
		rr_dtype dtype;
		int64_t cols;
		rr_layout layout;
	} grid[] = {
	    {"softmax", RR_F32, 64, {8, 4, 1, 16, 1, RR_STORAGE_REGS, RR_GRID_ROWS}},
	    {"rmsnorm", RR_BF16, 4096, {256, 8, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_PERSISTENT}},
	    {"layernorm", RR_F32, 4103, {256, 4, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}},
	    {"add_layernorm", RR_BF16, 8192, {512, 8, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}},
	    {"cross_entropy", RR_F16, 32768, {1024, 8, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}},
	    {"softmax", RR_F32, 16384, {512, 4, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS}},
	    {"layernorm", RR_BF16, 131072, {512, 8, 1, 1, 8, RR_STORAGE_CLUSTER, RR_GRID_ROWS}},
	    {"sum", RR_F32, 262144, {1024, 4, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT}},
	};
	for (size_t i = 0; i < sizeof grid / sizeof grid[0]; i++) {
		compiled_plan plan;
		if (!compile_plan(grid[i].kernel, grid[i].dtype, grid[i].cols, grid[i].layout,
		                  &plan))
			continue;
		CHECKF(no_local_memory(&plan), "%s uses local memory:\n%s", plan.label, plan.log);
		release(&plan);
	}
}

static void check_barriers(void)
{
	compiled_plan plan;
	rr_layout warp = {32, 4, 1, 4, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	if (compile_plan("layernorm", RR_F32, 1024, warp, &plan)) {
		CHECKF(count(plan.ptx, "bar.sync") + count(plan.ptx, "barrier.sync") == 0,
		       "%s: a block barrier with W <= 32", plan.label);
		CHECKF(count(plan.ptx, "shfl.sync.bfly") > 0, "%s: no butterfly shuffles",
		       plan.label);
		release(&plan);
	}
	rr_layout block = {256, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	if (compile_plan("layernorm", RR_F32, 4096, block, &plan)) {
		CHECKF(count(plan.ptx, "bar.sync") + count(plan.ptx, "barrier.sync") > 0,
		       "%s: W > 32 needs the shared-memory stage", plan.label);
		release(&plan);
	}
	rr_layout cluster = {256, 4, 1, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_ROWS};
	if (compile_plan("softmax", RR_F32, 65536, cluster, &plan)) {
		CHECKF(count(plan.ptx, "barrier.cluster.arrive") > 0 &&
		           count(plan.ptx, "mapa.shared::cluster") > 0 &&
		           count(plan.ptx, "ld.shared::cluster") > 0,
		       "%s: no cluster barrier or distributed shared memory", plan.label);
		release(&plan);
	}
}

/* S=grid's arrival count: 32 bits where C is a power of two, 64 bits for any other C (a count
 * whose wrap past 2^32 would break its multiples of C); both assembled by ptxas. */
static void check_grid_counts(void)
{
	static const struct {
		const char *kernel;
		int C;
		const char *atom;
	} cases[] = {
	    {"sum", 64, "atom.add.acq_rel.gpu.global.u32"},
	    {"sum", 66, "atom.add.acq_rel.gpu.global.u64"},
	    {"softmax", 64, "atom.add.release.gpu.global.u32"},
	    {"softmax", 24, "atom.add.release.gpu.global.u64"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		compiled_plan plan;
		rr_layout grid = {32, 4, 1, 1, cases[i].C, RR_STORAGE_GRID, RR_GRID_PERSISTENT};
		if (!compile_plan(cases[i].kernel, RR_F32, 40003, grid, &plan))
			continue;
		CHECKF(count(plan.ptx, cases[i].atom) > 0, "%s: no %s", plan.label, cases[i].atom);
		CHECKF(no_local_memory(&plan), "%s: local memory", plan.label);
		release(&plan);
	}
}

/* The registers ptxas reports for entry `name` in a -v log; -1 when absent. */
static int entry_registers(const char *log, const char *name)
{
	char marker[128];
	snprintf(marker, sizeof marker, "'%s'", name);
	const char *p = log ? strstr(log, marker) : NULL;
	const char *used = p ? strstr(p, "Used ") : NULL;
	return used ? atoi(used + 5) : -1;
}

/* Launch bounds raised for 16-bit rows in flight (realise.c, rows_in_flight_blocks): the
 * source carries both counts; layernorm bf16 fits the raised one (at most 64 registers at 4
 * blocks of 256 threads), add_layernorm bf16 spills there, so the backend's second compile with
 * the capped counts is what comes back, without local memory; f32 rows are not raised. */
static void check_raised_launch_bounds(void)
{
	rr_layout row = {256, 8, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	compiled_plan plan;
	if (compile_plan("layernorm", RR_BF16, 8192, row, &plan)) {
		CHECKF(plan.geometry.min_blocks == 4 && plan.geometry.min_blocks_capped < 4,
		       "%s: min_blocks %d, capped %d", plan.label, plan.geometry.min_blocks,
		       plan.geometry.min_blocks_capped);
		int regs = entry_registers(plan.log, "rr_layernorm_vec");
		CHECKF(regs > 0 && regs <= 64, "%s: %d registers at 4 blocks", plan.label, regs);
		CHECKF(no_local_memory(&plan), "%s uses local memory:\n%s", plan.label, plan.log);
		release(&plan);
	}
	if (compile_plan("add_layernorm", RR_BF16, 8192, row, &plan)) {
		CHECKF(plan.geometry.min_blocks > plan.geometry.min_blocks_capped, "%s: not raised",
		       plan.label);
		int regs = entry_registers(plan.log, "rr_add_layernorm_vec");
		CHECKF(regs > 64, "%s: %d registers: not the capped build", plan.label, regs);
		CHECKF(no_local_memory(&plan), "%s uses local memory:\n%s", plan.label, plan.log);
		release(&plan);
	}
	rr_layout f32 = {256, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	if (compile_plan("layernorm", RR_F32, 8192, f32, &plan)) {
		CHECKF(plan.geometry.min_blocks == plan.geometry.min_blocks_capped,
		       "%s: raised for f32 rows", plan.label);
		release(&plan);
	}
}

/* The second compile's defines (rr__cuda_second_defines) from a first build's ptxas log: the
 * raised bounds capped where any entry spilled, unless the source gives its entry with a head
 * a bound of its own, which is capped alone where that entry spilled more than a few registers
 * and the others did not. */
static void check_second_defines(void)
{
	static const char *const raised = "#ifndef RR_MIN_BLOCKS_CAPPED\n";
	static const char *const both = "#ifndef RR_MIN_BLOCKS_CAPPED\n#ifndef RR_HEAD_CAPPED\n";
	static const char *const own = "#ifndef RR_HEAD_CAPPED\n";
	static const struct {
		const char *source;
		int head, scalar; /* spill store bytes in the log */
		int n;
		const char *first, *second;
	} cases[] = {
	    {"", 0, 64, 0, NULL, NULL},
	    {raised, 0, 0, 0, NULL, NULL},
	    {raised, 16, 0, 1, "-DRR_MIN_BLOCKS_CAPPED", NULL},
	    {raised, 0, 8, 1, "-DRR_MIN_BLOCKS_CAPPED", NULL},
	    {both, 16, 0, 0, NULL, NULL},
	    {both, 16, 176, 1, "-DRR_MIN_BLOCKS_CAPPED", NULL},
	    {both, 432, 0, 2, "-DRR_HEAD_CAPPED", "-DRR_MIN_BLOCKS_CAPPED"},
	    {own, 88, 0, 1, "-DRR_HEAD_CAPPED", NULL},
	    {own, 0, 88, 0, NULL, NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char log[1024];
		snprintf(log, sizeof log,
		         "ptxas info    : Function properties for rr_k_cols\n"
		         "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		         "ptxas info    : Function properties for rr_k_scalar\n"
		         "    %d bytes stack frame, %d bytes spill stores, %d bytes spill loads\n"
		         "ptxas info    : Function properties for rr_k_head\n"
		         "    %d bytes stack frame, %d bytes spill stores, %d bytes spill loads\n",
		         cases[c].scalar, cases[c].scalar, cases[c].scalar, cases[c].head / 2,
		         cases[c].head / 2, cases[c].head / 2);
		const char *defines[2] = {NULL, NULL};
		int n = rr__cuda_second_defines(cases[c].source, log, defines);
		CHECKF(n == cases[c].n, "case %zu: %d defines, expected %d", c, n, cases[c].n);
		for (int k = 0; k < n && k < cases[c].n; k++) {
			const char *want = k == 0 ? cases[c].first : cases[c].second;
			CHECKF(strcmp(defines[k], want) == 0, "case %zu: define %d is %s, expected %s", c,
			       k, defines[k], want);
		}
	}
}

/* Odd 16-bit rows whose col inputs come from the copies (realise.c, col_copies): the entry with
 * a head at most 64 registers (layernorm bf16 6143 at W = 128, where the scalar entry keeps
 * its own bound), or, where it spills there (add_layernorm bf16 20001 at W = 512, U = 2 in
 * shared memory), the scalar entry's bound and no local memory. */
static void check_col_copies_bounds(void)
{
	compiled_plan plan;
	rr_layout row = {128, 8, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	if (compile_plan("layernorm", RR_BF16, 6143, row, &plan)) {
		CHECKF(plan.geometry.col_copies == 2, "%s: %d col copies", plan.label,
		       plan.geometry.col_copies);
		int regs = entry_registers(plan.log, "rr_layernorm_head");
		CHECKF(regs > 0 && regs <= 64, "%s: %d registers in the entry with a head", plan.label,
		       regs);
		CHECKF(entry_registers(plan.log, "rr_layernorm_cols") > 0, "%s: no copies' entry",
		       plan.label);
		CHECKF(plan.ptx && strstr(plan.ptx, "griddepcontrol.wait"),
		       "%s: the row entries do not wait for the copies", plan.label);
		release(&plan);
	}
	rr_layout smem = {512, 8, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS};
	if (compile_plan("add_layernorm", RR_BF16, 20001, smem, &plan)) {
		int regs = entry_registers(plan.log, "rr_add_layernorm_head");
		CHECKF(regs > 64, "%s: %d registers: not the head's capped build", plan.label, regs);
		CHECKF(no_local_memory(&plan), "%s uses local memory:\n%s", plan.label, plan.log);
		release(&plan);
	}
}

/* Launch bounds raised for rows kept in shared memory (realise.c, smem_rows_blocks): layernorm
 * bf16 4096x32000 at W = 512 keeps 64 KB of row a block, room for three blocks an SM, and asks
 * ptxas for the two that 64 registers a thread allow, which it fits without local memory; not
 * raised for add_layernorm's computed keep, nor for clusters of two. */
static void check_smem_launch_bounds(void)
{
	rr_layout smem = {512, 8, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS};
	compiled_plan plan;
	if (compile_plan("layernorm", RR_BF16, 32000, smem, &plan)) {
		CHECKF(plan.geometry.min_blocks == 2 && plan.geometry.min_blocks_capped == 1,
		       "%s: min_blocks %d, capped %d", plan.label, plan.geometry.min_blocks,
		       plan.geometry.min_blocks_capped);
		int regs = entry_registers(plan.log, "rr_layernorm_vec");
		CHECKF(regs > 0 && regs <= 64, "%s: %d registers at 2 blocks", plan.label, regs);
		CHECKF(no_local_memory(&plan), "%s uses local memory:\n%s", plan.label, plan.log);
		release(&plan);
	}
	rr_layout cluster = {512, 8, 2, 1, 8, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT};
	if (compile_plan("add_layernorm", RR_BF16, 151936, cluster, &plan)) {
		CHECKF(plan.geometry.min_blocks == plan.geometry.min_blocks_capped,
		       "%s: raised for a computed keep", plan.label);
		release(&plan);
	}
	rr_layout pair = {256, 8, 2, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT};
	if (compile_plan("layernorm", RR_BF16, 50265, pair, &plan)) {
		CHECKF(plan.geometry.min_blocks == plan.geometry.min_blocks_capped,
		       "%s: raised for a cluster of two", plan.label);
		release(&plan);
	}
}

static void check_compile_errors_and_cache(void)
{
	rr__cuda_compiled compiled;
	rr_status status = rr__cuda_compile("this is not CUDA C;\n", "sm_90", 0, &compiled);
	CHECK(status == RR_ERR_COMPILE);
	CHECKF(strstr(rr_last_error(), "NVRTC") && strstr(rr_last_error(), "error"), "message: %s",
	       rr_last_error());
	CHECK(compiled.log && strstr(compiled.log, "error"));
	rr__cuda_compiled_free(&compiled);

	/* A fresh source (its text includes the time) compiles once, then comes from the cache. */
	char source[256];
	snprintf(source, sizeof source,
	         "extern \"C\" __global__ void probe_%ld(float *p) { p[threadIdx.x] = %ld.0f; }\n",
	         (long)getpid(), (long)rr__now());
	long before = rr__cuda_nvrtc_runs();
	CHECK(rr__cuda_compile(source, "sm_90", 1, &compiled) == RR_OK);
	CHECK(!compiled.from_cache && compiled.cubin_size > 0 && compiled.ptx);
	char first[65];
	snprintf(first, sizeof first, "%s", compiled.cache_key);
	rr__cuda_compiled_free(&compiled);
	CHECK(rr__cuda_compile(source, "sm_90", 1, &compiled) == RR_OK);
	CHECK(compiled.from_cache && compiled.cubin_size > 0 && compiled.ptx);
	CHECK(strcmp(first, compiled.cache_key) == 0);
	CHECK(rr__cuda_nvrtc_runs() == before + 1);
	rr__cuda_compiled_free(&compiled);
	CHECK(rr__cuda_compile(source, "sm_80", 0, &compiled) == RR_OK);
	CHECK(strcmp(first, compiled.cache_key) != 0); /* the arch is part of the key */
	rr__cuda_compiled_free(&compiled);
}

static void check_targets_and_open(void)
{
	rr__target t;
	CHECK(rr__target_for_cuda_arch("sm_90", &t) == RR_OK);
	CHECK(t.cc_major == 9 && t.cc_minor == 0 && t.has_clusters && t.max_cluster == 16);
	CHECK(t.max_workers == 1024 && t.warp_size == 32 && t.smem_per_group == 227 * 1024);
	CHECK(t.multiprocessors == 132 && strcmp(t.backend, "cuda") == 0);
	CHECK(rr__target_for_cuda_arch("sm_80", &t) == RR_OK && !t.has_clusters);
	CHECK(rr__target_for_cuda_arch("compute_90", &t) == RR_ERR_INVALID_ARG);
	CHECK(rr__target_for_cuda_arch("sm_", &t) == RR_ERR_INVALID_ARG);
	CHECK(strstr(rr_last_error(), "sm_XY") != NULL);

	rr_device *device = NULL;
	rr_status status = rr_device_open("cuda", &device);
	if (status == RR_OK) {
		CHECK(strcmp(rr_device_backend(device), "cuda") == 0);
		rr_device_close(device);
	} else {
		CHECK(status == RR_ERR_NO_DEVICE && device == NULL);
		CHECKF(strstr(rr_last_error(), "CUDA") != NULL, "message: %s", rr_last_error());
	}
}

int main(void)
{
	const rr__nvrtc *nvrtc = NULL;
	if (rr__nvrtc_get(&nvrtc) != RR_OK) {
		fprintf(stderr, "skipping: %s\n", rr_last_error());
		return RR_TEST_SKIP;
	}
	target_device.ops = &rr__cuda_backend;
	CHECK(rr__target_for_cuda_arch("sm_90", &target_device.target) == RR_OK);
	check_targets_and_open();
	check_vector_access("rmsnorm", RR_F32);
	check_vector_access("rmsnorm", RR_BF16);
	check_vector_access("softmax", RR_F16);
	check_head_access("rmsnorm", RR_BF16, 4099);
	check_head_access("softmax", RR_F32, 5003);
	check_head_access("add_layernorm", RR_F16, 1001);
	check_no_local_memory();
	check_barriers();
	check_grid_counts();
	check_raised_launch_bounds();
	check_second_defines();
	check_col_copies_bounds();
	check_smem_launch_bounds();
	check_compile_errors_and_cache();
	return rr_test_finish("test_cuda_ptx");
}
