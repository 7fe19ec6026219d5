/* The cuda backend on a GPU: every built-in over the row lengths, row counts, covering layouts
 * and dtypes of the cpu grid, validated against the float64 reference; sums bit for bit equal
 * to the cpu backend's for the same plan; misaligned pointers; wide rows (cluster, smem,
 * reread) and many short rows; device properties, events, streams and graphs. Skipped (77)
 * when no GPU answers. Programs are compiled in parallel first (NVRTC is the slow part). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda_shim.h"
#include "program/program.h"
#include "codegen/cuda_emit.h"
#include "harness.h"
#include "rowreduce.h"
#include "util/util.h"
#include "validate/validate.h"

static rr_device *gpu;

/* ---------------------------------------------------------------- running one program */

/* Fresh inputs, outputs poisoned on the device, one launch, every output validated. `shift`
 * moves every array by that many elements off its allocation's alignment (a view: each row's
 * head aligns its body). Returns 1 on success. */
static int run_validated(rr_program *program, int64_t rows, unsigned seed, int shift,
                         const char *label)
{
	const rr_kernel *kernel = program->kernel;
	rr_dtype dtype = program->dtype;
	int64_t cols = program->cols;
	size_t es = rr_dtype_size(dtype), offset = (size_t)shift * es;
	rr__host_inputs inputs;
	if (rr__inputs_make(kernel, rows, cols, dtype, seed, NULL, &inputs) != RR_OK) {
		CHECKF(0, "%s: inputs: %s", label, rr_last_error());
		return 0;
	}
	rr_arg args[RR_MAX_IO];
	void *blocks[2 * RR_MAX_IO] = {0}, *outputs[RR_MAX_IO] = {0}, *host[RR_MAX_IO] = {0};
	int ok = 1;
	for (int k = 0; k < inputs.count && ok; k++) {
		args[k] = inputs.args[k];
		if (!inputs.owned[k])
			continue;
		size_t shift_k = kernel->inputs[k].kind == RR_KIND_INDEX ? 0 : offset;
		ok = rr_device_alloc(gpu, inputs.bytes[k] + 64, &blocks[k]) == RR_OK &&
		     rr_device_upload(gpu, (char *)blocks[k] + shift_k, inputs.owned[k],
		                      inputs.bytes[k]) == RR_OK;
		args[k].data = (char *)blocks[k] + shift_k;
	}
	int64_t counts[RR_MAX_IO];
	for (int j = 0; j < kernel->n_outputs && ok; j++) {
		counts[j] = rr__output_elements(kernel, j, rows, cols);
		host[j] = malloc((size_t)counts[j] * es);
		rr__poison(host[j], dtype, counts[j]);
		ok = host[j] && rr_device_alloc(gpu, (size_t)counts[j] * es + 64,
		                                &blocks[RR_MAX_IO + j]) == RR_OK;
		outputs[j] = ok ? (char *)blocks[RR_MAX_IO + j] + offset : NULL;
		ok = ok &&
		     rr_device_upload(gpu, outputs[j], host[j], (size_t)counts[j] * es) == RR_OK;
	}
	ok = ok && rr_program_launch(program, rows, args, outputs, NULL) == RR_OK &&
	     rr_device_synchronize(gpu) == RR_OK;
	for (int j = 0; j < kernel->n_outputs && ok; j++)
		ok = rr_device_download(gpu, host[j], outputs[j], (size_t)counts[j] * es) == RR_OK;
	CHECKF(ok, "%s M=%lld: running failed: %s", label, (long long)rows, rr_last_error());
	if (ok) {
		rr__validation report;
		rr_status status =
		    rr__validate_outputs(kernel, rows, cols, dtype, &inputs, host, NULL, &report);
		CHECKF(status == RR_OK, "%s M=%lld (a view %d elements in): %s", label,
		       (long long)rows, shift, rr_last_error());
		ok = status == RR_OK;
	}
	for (int i = 0; i < 2 * RR_MAX_IO; i++)
		rr_device_free(gpu, blocks[i]);
	for (int j = 0; j < RR_MAX_IO; j++)
		free(host[j]);
	rr__inputs_free(&inputs);
	return ok;
}

static void label_of(const rr_kernel *kernel, rr_dtype dtype, int64_t cols, const rr_layout *layout,
                     char *out, size_t size)
{
	char text[128] = "planner";
	if (layout)
		rr_layout_format(layout, text, sizeof text);
	snprintf(out, size, "%s %s N=%lld %s", rr_kernel_name(kernel), rr_dtype_name(dtype),
	         (long long)cols, text);
}

/* ---------------------------------------------------------------- parallel precompile */

typedef struct compile_queue {
	char **sources;
	int count, next;
	pthread_mutex_t lock;
	char arch[16];
} compile_queue;

static void *compile_worker(void *arg)
{
	compile_queue *q = arg;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		int i = q->next < q->count ? q->next++ : -1;
		pthread_mutex_unlock(&q->lock);
		if (i < 0)
			return NULL;
		rr__cuda_compiled compiled;
		rr__cuda_compile(q->sources[i], q->arch, 0,
		                 &compiled); /* failures resurface later */
		rr__cuda_compiled_free(&compiled);
	}
}

static void queue_add(compile_queue *q, const rr_kernel *kernel, rr_dtype dtype, int64_t rows,
                      int64_t cols, const rr_layout *layout)
{
	rr_program *program = NULL;
	if (rr__program_emit_only(gpu, kernel, dtype, rows, cols, layout, &program) != RR_OK)
		return;
	q->sources = realloc(q->sources, (size_t)(q->count + 1) * sizeof *q->sources);
	q->sources[q->count++] = strdup(rr_program_source(program));
	rr_program_free(program);
}

static void queue_run(compile_queue *q)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = cores > 1 ? (int)(cores > 32 ? 32 : cores) : 1;
	pthread_t ids[32];
	rr__target_cuda_arch_name(&gpu->target, q->arch, sizeof q->arch);
	pthread_mutex_init(&q->lock, NULL);
	int started = 0;
	for (; started < threads; started++)
		if (pthread_create(&ids[started], NULL, compile_worker, q) != 0)
			break;
	if (started == 0)
		compile_worker(q);
	for (int i = 0; i < started; i++)
		pthread_join(ids[i], NULL);
	pthread_mutex_destroy(&q->lock);
	for (int i = 0; i < q->count; i++)
		free(q->sources[i]);
	free(q->sources);
	memset(q, 0, sizeof *q);
}

/* ---------------------------------------------------------------- the cpu grid, on the GPU */

static const rr_layout grid_layouts[] = {
    {1, 1, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
    {1, 8, 3, 4, 1, RR_STORAGE_REREAD, RR_GRID_ROWS},
    {4, 2, 1, 4, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
    {4, 4, 3, 1, 1, RR_STORAGE_REREAD, RR_GRID_PERSISTENT},
    {32, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
    {32, 1, 3, 4, 1, RR_STORAGE_REREAD, RR_GRID_ROWS},
    {128, 8, 3, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
    {128, 2, 1, 4, 1, RR_STORAGE_REREAD, RR_GRID_PERSISTENT},
    {64, 4, 2, 2, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT},
    {32, 4, 1, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_ROWS},
    /* 16-byte packs of 16-bit rows kept raw, copied by cp.async (odd lengths: the headed
     * entry; f32 takes 32-byte packs and keeps f32) */
    {64, 8, 1, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS},
};
static const int64_t grid_lengths[] = {1, 31, 33, 127, 128, 129, 257, 4103};
static const int64_t grid_rows[] = {1, 5, 17};
static const rr_dtype all_dtypes[] = {RR_F32, RR_BF16, RR_F16};

/* A layout the legality check refuses for its register slots runs with reread instead. */
static rr_status build(const rr_kernel *kernel, rr_dtype dtype, int64_t rows, int64_t cols,
                       rr_layout *layout, rr_program **program)
{
	rr_status status = rr_program_build(gpu, kernel, dtype, rows, cols, layout, program);
	if (status == RR_ERR_ILLEGAL_LAYOUT && layout->storage != RR_STORAGE_REREAD) {
		layout->storage = RR_STORAGE_REREAD;
		layout->blocks_per_row = 1;
		status = rr_program_build(gpu, kernel, dtype, rows, cols, layout, program);
	}
	return status;
}

static void grid(rr_kernel **kernels, int n_kernels)
{
	compile_queue q = {0};
	for (int k = 0; k < n_kernels; k++)
		for (size_t d = 0; d < 3; d++)
			for (size_t n = 0; n < sizeof grid_lengths / sizeof grid_lengths[0]; n++)
				for (size_t l = 0; l < sizeof grid_layouts / sizeof grid_layouts[0];
				     l++) {
					rr_layout layout = grid_layouts[l];
					queue_add(&q, kernels[k], all_dtypes[d], 17,
					          grid_lengths[n], &layout);
				}
	queue_run(&q);
	int validated = 0, runs = 0;
	for (int k = 0; k < n_kernels; k++)
		for (size_t d = 0; d < 3; d++)
			for (size_t n = 0; n < sizeof grid_lengths / sizeof grid_lengths[0]; n++)
				for (size_t l = 0; l < sizeof grid_layouts / sizeof grid_layouts[0];
				     l++) {
					rr_layout layout = grid_layouts[l];
					rr_program *program = NULL;
					char label[256];
					rr_status status =
					    build(kernels[k], all_dtypes[d], 17, grid_lengths[n],
					          &layout, &program);
					label_of(kernels[k], all_dtypes[d], grid_lengths[n],
					         &layout, label, sizeof label);
					CHECKF(status == RR_OK, "%s: %s", label, rr_last_error());
					if (status != RR_OK)
						continue;
					for (size_t m = 0; m < 3; m++, runs++)
						validated +=
						    run_validated(program, grid_rows[m],
						                  (unsigned)(runs + 1), 0, label);
					rr_program_free(program);
				}
	fprintf(stderr, "grid: %d/%d runs validated\n", validated, runs);
}

/* ---------------------------------------------------------------- sums, bit for bit */

static void bitwise_sum(rr_device *cpu, const rr_kernel *sum, rr_dtype dtype, int64_t cols,
                        rr_layout layout)
{
	int64_t rows = 37;
	char label[256];
	label_of(sum, dtype, cols, &layout, label, sizeof label);
	rr_program *on_gpu = NULL, *on_cpu = NULL;
	rr_layout cpu_layout = layout;
	cpu_layout.grid = RR_GRID_ROWS;
	if (rr_program_build(gpu, sum, dtype, rows, cols, &layout, &on_gpu) != RR_OK ||
	    rr_program_build(cpu, sum, dtype, rows, cols, &cpu_layout, &on_cpu) != RR_OK) {
		CHECKF(0, "%s: build: %s", label, rr_last_error());
		rr_program_free(on_gpu);
		return;
	}
	rr__host_inputs inputs;
	CHECK(rr__inputs_make(sum, rows, cols, dtype, 99, NULL, &inputs) == RR_OK);
	size_t es = rr_dtype_size(dtype), bytes = (size_t)rows * es;
	void *x = NULL, *s = NULL, *from_gpu = malloc(bytes), *from_cpu = malloc(bytes);
	char *view = malloc(inputs.bytes[0] + 4 * es);
	CHECK(rr_device_alloc(gpu, inputs.bytes[0] + 4 * es, &x) == RR_OK);
	CHECK(rr_device_alloc(gpu, bytes, &s) == RR_OK);
	/* Rows on a boundary, then views 1, 2 and 3 elements in: the same heads on both. */
	for (int shift = 0; shift <= 3; shift++) {
		size_t at = (size_t)shift * es;
		CHECK(rr_device_upload(gpu, (char *)x + at, inputs.owned[0], inputs.bytes[0]) ==
		      RR_OK);
		memcpy(view + at, inputs.owned[0], inputs.bytes[0]);
		rr_arg arg = inputs.args[0];
		arg.data = (char *)x + at;
		CHECK(rr_program_launch(on_gpu, rows, &arg, &s, NULL) == RR_OK);
		CHECK(rr_device_download(gpu, from_gpu, s, bytes) == RR_OK);
		arg.data = view + at;
		CHECK(rr_program_launch(on_cpu, rows, &arg, &from_cpu, NULL) == RR_OK);
		CHECKF(memcmp(from_gpu, from_cpu, bytes) == 0,
		       "%s (a view %d elements in): cuda and cpu sums differ in bits", label,
		       shift);
	}
	free(view);
	rr_device_free(gpu, x);
	rr_device_free(gpu, s);
	free(from_gpu);
	free(from_cpu);
	rr__inputs_free(&inputs);
	rr_program_free(on_gpu);
	rr_program_free(on_cpu);
}

static void bitwise_sums(void)
{
	rr_device *cpu = NULL;
	rr_kernel *sum = NULL;
	if (rr_device_open("cpu", &cpu) != RR_OK || rr_kernel_load_builtin("sum", &sum) != RR_OK) {
		CHECKF(0, "cpu backend or sum: %s", rr_last_error());
		rr_device_close(cpu);
		return;
	}
	static const int widths[] = {64, 128, 256};
	static const int vecs[] = {1, 2, 4};
	for (size_t w = 0; w < 3; w++)
		for (size_t v = 0; v < 3; v++)
			for (int u = 1; u <= 2; u++) {
				rr_layout layout = {widths[w], vecs[v],         u,           1,
				                    1,         RR_STORAGE_REGS, RR_GRID_ROWS};
				bitwise_sum(cpu, sum, RR_F32, 5003, layout);
				bitwise_sum(cpu, sum, RR_BF16, 4096, layout);
				bitwise_sum(cpu, sum, RR_BF16, 4099, layout);
			}
	rr_layout warp_rows = {16, 2, 1, 8, 1, RR_STORAGE_REGS, RR_GRID_PERSISTENT};
	bitwise_sum(cpu, sum, RR_F32, 1000, warp_rows);
	rr_kernel_free(sum);
	rr_device_close(cpu);
}

/* ---------------------------------------------------------------- misaligned, wide, many */

/* Aligned and odd rows (4099) on views 1, 2 and 3 elements in: the entries with a head. The odd
 * rows twice, built for 9 rows (16-bit col inputs read shifted) and for rows not known (read
 * from the copies the launch writes first, rr__realisation.col_copies). */
static void misaligned(rr_kernel **kernels, int n_kernels)
{
	static const int64_t lengths[] = {4096, 4099, 4099};
	static const int64_t hints[] = {9, 9, 0};
	for (int k = 0; k < n_kernels; k++)
		for (size_t d = 0; d < 3; d++)
			for (size_t n = 0; n < 3; n++) {
				rr_layout layout = {
				    256,         (int)(16 / rr_dtype_size(all_dtypes[d])),
				    2,           1,
				    1,           RR_STORAGE_REGS,
				    RR_GRID_ROWS};
				rr_program *program = NULL;
				char label[256];
				label_of(kernels[k], all_dtypes[d], lengths[n], &layout, label,
				         sizeof label);
				CHECKF(build(kernels[k], all_dtypes[d], hints[n], lengths[n], &layout,
				             &program) == RR_OK,
				       "%s (rows hint %lld): %s", label, (long long)hints[n],
				       rr_last_error());
				if (!program)
					continue;
				for (int shift = 0; shift <= 3; shift++)
					run_validated(program, 9, 5u + (unsigned)shift, shift,
					              label);
				rr_program_free(program);
			}
}

static void wide_rows(rr_kernel **kernels, int n_kernels)
{
	static const int64_t lengths[] = {65536, 131072, 262144};
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16};
	compile_queue q = {0};
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < n_kernels; k++)
			for (size_t d = 0; d < 2; d++)
				for (size_t n = 0; n < 3; n++)
					for (int choice = 0; choice < 5; choice++) {
						int v = (int)(16 / rr_dtype_size(dtypes[d]));
						rr_layout explicit_layouts[] = {
						    {0},
						    {1024, v, 1, 1, 8, RR_STORAGE_CLUSTER,
						     RR_GRID_ROWS},
						    {1024, v, 2, 1, 4, RR_STORAGE_CLUSTER,
						     RR_GRID_PERSISTENT},
						    {1024, v, 1, 1, 1, RR_STORAGE_REREAD,
						     RR_GRID_ROWS},
						    /* non-portable: sm_90 opts in */
						    {1024, v, 1, 1, 16, RR_STORAGE_CLUSTER,
						     RR_GRID_ROWS}};
						rr_layout *layout =
						    choice ? &explicit_layouts[choice] : NULL;
						if (pass == 0) {
							queue_add(&q, kernels[k], dtypes[d], 3,
							          lengths[n], layout);
							continue;
						}
						char label[256];
						label_of(kernels[k], dtypes[d], lengths[n], layout,
						         label, sizeof label);
						rr_program *program = NULL;
						rr_status status =
						    rr_program_build(gpu, kernels[k], dtypes[d], 3,
						                     lengths[n], layout, &program);
						if (status == RR_ERR_ILLEGAL_LAYOUT && choice)
							continue; /* e.g. two kept rows over a
							             cluster's smem */
						CHECKF(status == RR_OK, "%s: %s", label,
						       rr_last_error());
						if (status != RR_OK)
							continue;
						run_validated(program, 3, 21, 0, label);
						run_validated(program, 1, 22, 0, label);
						rr_program_free(program);
					}
		if (q.count)
			queue_run(&q);
	}
}

/* Two launches of one program on the same inputs give the same bits (the fixed trees, and for
 * S=grid the fixed combination of the blocks' partials). */
static void same_bits_twice(rr_program *program, int64_t rows, const char *label)
{
	const rr_kernel *kernel = program->kernel;
	size_t es = rr_dtype_size(program->dtype);
	rr__host_inputs inputs;
	CHECK(rr__inputs_make(kernel, rows, program->cols, program->dtype, 91, NULL, &inputs) ==
	      RR_OK);
	rr_arg args[RR_MAX_IO];
	void *device_in[RR_MAX_IO] = {0}, *first[RR_MAX_IO] = {0}, *second[RR_MAX_IO] = {0};
	int ok = 1;
	for (int k = 0; k < inputs.count && ok; k++) {
		args[k] = inputs.args[k];
		if (!inputs.owned[k])
			continue;
		ok = rr_device_alloc(gpu, inputs.bytes[k], &device_in[k]) == RR_OK &&
		     rr_device_upload(gpu, device_in[k], inputs.owned[k], inputs.bytes[k]) == RR_OK;
		args[k].data = device_in[k];
	}
	size_t bytes[RR_MAX_IO] = {0};
	for (int j = 0; j < kernel->n_outputs && ok; j++) {
		bytes[j] = (size_t)rr__output_elements(kernel, j, rows, program->cols) * es;
		ok = rr_device_alloc(gpu, bytes[j], &first[j]) == RR_OK &&
		     rr_device_alloc(gpu, bytes[j], &second[j]) == RR_OK;
	}
	ok = ok && rr_program_launch(program, rows, args, first, NULL) == RR_OK &&
	     rr_program_launch(program, rows, args, second, NULL) == RR_OK &&
	     rr_device_synchronize(gpu) == RR_OK;
	CHECKF(ok, "%s: two launches failed: %s", label, rr_last_error());
	for (int j = 0; j < kernel->n_outputs && ok; j++) {
		char *a = malloc(bytes[j]), *b = malloc(bytes[j]);
		CHECK(a && b && rr_device_download(gpu, a, first[j], bytes[j]) == RR_OK &&
		      rr_device_download(gpu, b, second[j], bytes[j]) == RR_OK);
		CHECKF(a && b && memcmp(a, b, bytes[j]) == 0,
		       "%s: output %d differs between two "
		       "launches",
		       label, j);
		free(a);
		free(b);
	}
	for (int k = 0; k < RR_MAX_IO; k++) {
		rr_device_free(gpu, device_in[k]);
		rr_device_free(gpu, first[k]);
		rr_device_free(gpu, second[k]);
	}
	rr__inputs_free(&inputs);
}

/* Whether any S=grid layout is legal for the workload: a row whose segments at the most
 * blocks per row the planner offers (C <= SMs) are still over a block's shared memory cannot
 * be split over the grid (add_layernorm's two kept values over 2 x 4000037 in f32). */
static int grid_legal(rr_kernel *kernel, rr_dtype dtype, int64_t rows, int64_t cols)
{
	rr_layout grid_only = {0, 0, 0, 0, 0, RR_STORAGE_GRID, 0};
	rr_program *program = NULL;
	rr_status status = rr_program_build(gpu, kernel, dtype, rows, cols, &grid_only, &program);
	rr_program_free(program);
	return status == RR_OK;
}

/* Rows split over the grid (S=grid): the planner's choice for few very wide rows, and
 * explicit layouts that keep the segment in registers or shared memory, with more rows than
 * resident groups (the groups loop, the workspace's parity alternates) and an odd N. */
static void split_rows(rr_kernel **kernels, int n_kernels)
{
	static const struct {
		int64_t rows, cols;
		int W, U, C; /* W = 0: the planner's choice */
	} cases[] = {
	    {4, 2097152, 0, 0, 0},   {2, 4000037, 0, 0, 0},    {16, 1048576, 0, 0, 0},
	    {40, 65536, 256, 2, 64}, {3, 1048576, 128, 2, 64}, {5, 4000037, 1024, 1, 256},
	    {7, 100003, 32, 1, 16},
	};
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16};
	for (int k = 0; k < n_kernels; k++)
		for (size_t d = 0; d < 2; d++)
			for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
				int v = (int)(16 / rr_dtype_size(dtypes[d]));
				rr_layout fixed = {cases[i].W,        v,
				                   cases[i].U,        1,
				                   cases[i].C,        RR_STORAGE_GRID,
				                   RR_GRID_PERSISTENT};
				rr_layout *layout = cases[i].W ? &fixed : NULL;
				char label[256];
				label_of(kernels[k], dtypes[d], cases[i].cols, layout, label,
				         sizeof label);
				rr_program *program = NULL;
				rr_status status =
				    rr_program_build(gpu, kernels[k], dtypes[d], cases[i].rows,
				                     cases[i].cols, layout, &program);
				if (status == RR_ERR_ILLEGAL_LAYOUT && layout)
					continue; /* e.g. two kept values over the block's smem */
				CHECKF(status == RR_OK, "%s: %s", label, rr_last_error());
				if (status != RR_OK)
					continue;
				const rr_layout *used = rr_program_layout(program);
				CHECKF(layout || cases[i].rows > 8 ||
				           used->storage == RR_STORAGE_GRID ||
				           !grid_legal(kernels[k], dtypes[d], cases[i].rows,
				                       cases[i].cols),
				       "%s: the planner did not split %lld rows over the grid",
				       label, (long long)cases[i].rows);
				run_validated(program, cases[i].rows, 41, 0, label);
				run_validated(program, 1, 42, 1, label);
				same_bits_twice(program, cases[i].rows, label);
				rr_program_free(program);
			}
}

static void many_short_rows(rr_kernel **kernels, int n_kernels)
{
	for (int k = 0; k < n_kernels; k++)
		for (size_t d = 0; d < 2; d++) {
			rr_program *program = NULL;
			char label[256];
			label_of(kernels[k], all_dtypes[d], 64, NULL, label, sizeof label);
			CHECKF(rr_program_build(gpu, kernels[k], all_dtypes[d], 100000, 64, NULL,
			                        &program) == RR_OK,
			       "%s: %s", label, rr_last_error());
			if (!program)
				continue;
			run_validated(program, 100000, 31, 0, label);
			run_validated(program, 1, 32, 0, label);
			rr_program_free(program);
		}
}

/* ---------------------------------------------------------------- device services */

static void services(rr_kernel *softmax)
{
	const rr__backend_ops *ops = gpu->ops;
	rr__device_properties p;
	CHECK(ops->properties(gpu, &p) == RR_OK);
	CHECKF(strncmp(p.uuid, "GPU-", 4) == 0 && strlen(p.uuid) == 40, "uuid '%s'", p.uuid);
	CHECK(p.cc_major >= 7 && p.multiprocessors > 0 && p.memory_bytes > 0 && p.l2_bytes > 0);
	CHECK(strstr(p.compiler_version, "NVRTC") != NULL &&
	      strstr(p.driver_version, "CUDA") != NULL);
	fprintf(stderr, "device: %s %s sm_%d%d, %d SMs, %lld MiB, L2 %lld MiB, %d/%d MHz, %s, %s\n",
	        p.name, p.uuid, p.cc_major, p.cc_minor, p.multiprocessors,
	        (long long)(p.memory_bytes >> 20), (long long)(p.l2_bytes >> 20), p.sm_clock_mhz,
	        p.mem_clock_mhz, p.driver_version, p.compiler_version);

	rr_program *program = NULL;
	rr_layout layout = {256, 4, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	CHECK(rr_program_build(gpu, softmax, RR_F32, 64, 4096, &layout, &program) == RR_OK);
	if (!program)
		return;
	CHECK(strlen(rr_program_binary_hash(program)) == 64);
	int64_t rows = 64, n = rows * 4096;
	void *x = NULL, *y = NULL, *stream = NULL, *start = NULL, *end = NULL, *graph = NULL;
	CHECK(rr_device_alloc(gpu, (size_t)n * 4, &x) == RR_OK);
	CHECK(rr_device_alloc(gpu, (size_t)n * 4, &y) == RR_OK);
	CHECK(ops->copy(gpu, y, x, (size_t)n * 4, NULL) == RR_OK);
	CHECK(ops->stream_create(gpu, &stream) == RR_OK && stream);
	CHECK(ops->event_create(gpu, &start) == RR_OK && ops->event_create(gpu, &end) == RR_OK);
	rr_arg arg = {.data = x, .dtype = RR_F32};
	CHECK(ops->event_record(gpu, start, stream) == RR_OK);
	CHECK(rr_program_launch(program, rows, &arg, &y, stream) == RR_OK);
	CHECK(ops->event_record(gpu, end, stream) == RR_OK);
	float ms = -1;
	CHECK(ops->event_elapsed_ms(gpu, start, end, &ms) == RR_OK && ms >= 0);
	void *capture = stream;
	CHECK(ops->graph_begin(gpu, &capture) == RR_OK);
	CHECK(rr_program_launch(program, rows, &arg, &y, capture) == RR_OK);
	CHECK(ops->graph_end(gpu, capture, &graph) == RR_OK && graph);
	CHECK(ops->graph_launch(gpu, graph, stream) == RR_OK);
	CHECK(rr_device_synchronize(gpu) == RR_OK);
	ops->graph_destroy(gpu, graph);
	ops->event_destroy(gpu, start);
	ops->event_destroy(gpu, end);
	ops->stream_destroy(gpu, stream);
	rr_device_free(gpu, x);
	rr_device_free(gpu, y);
	run_validated(program, rows, 77, 0, "softmax after the services");
	rr_program_free(program);
}

int main(void)
{
	rr_status status = rr_device_open("cuda", &gpu);
	if (status == RR_ERR_NO_DEVICE) {
		fprintf(stderr, "skipping: %s\n", rr_last_error());
		return RR_TEST_SKIP;
	}
	CHECKF(status == RR_OK, "open: %s", rr_last_error());
	if (status != RR_OK)
		return rr_test_finish("gpu_cuda");
	fprintf(stderr, "device %s\n", rr_device_name(gpu));
	const char *const *names = rr_builtin_names();
	rr_kernel *kernels[16];
	int n_kernels = 0;
	for (; names[n_kernels] && n_kernels < 16; n_kernels++)
		CHECK(rr_kernel_load_builtin(names[n_kernels], &kernels[n_kernels]) == RR_OK);
	rr_kernel *softmax = NULL;
	CHECK(rr_kernel_load_builtin("softmax", &softmax) == RR_OK);
	services(softmax);
	bitwise_sums();
	misaligned(kernels, n_kernels);
	many_short_rows(kernels, n_kernels);
	wide_rows(kernels, n_kernels);
	split_rows(kernels, n_kernels);
	grid(kernels, n_kernels);
	for (int k = 0; k < n_kernels; k++)
		rr_kernel_free(kernels[k]);
	rr_kernel_free(softmax);
	rr_device_close(gpu);
	return rr_test_finish("gpu_cuda");
}
