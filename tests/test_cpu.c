/* The cpu backend: sums equal bit for bit an independent "private sums in slot order, then the
 * butterfly tree" for each plan; the compile cache is reused; a compiler that fails or is
 * missing is a clear RR_ERR_COMPILE; launch and open reject bad arguments. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/cpu.h"
#include "backend/cpu_pool.h"
#include "codegen/c_emit.h"
#include "harness.h"
#include "rowreduce.h"
#include "util/util.h"
#include "validate/validate.h"

static unsigned long long rng = 0x1234abcdull;

/* DESIGN.md §4 written out again: a row at x starts with h elements up to its first
 * min(V·4, 16)-byte boundary (the head), element j of it on worker W - 1 - j % W; the body
 * follows at h. Worker w sums its head elements, then the body elements it owns in slot order
 * (chunk by chunk, element by element), then for each xor offset (within a warp of 32 from
 * the largest down, then across warps from the largest down) every worker adds its partner's
 * partial. */
static float expected_sum(const float *x, int64_t n, int W, int V)
{
	float part[1024], next[1024];
	uintptr_t access = V * 4 < 16 ? (uintptr_t)V * 4 : 16;
	int64_t h = (int64_t)((access - (uintptr_t)x % access) % access / 4);
	h = h < n ? h : n;
	for (int w = 0; w < W; w++) {
		float acc = 0.0f;
		for (int64_t j = W - 1 - w; j < h; j += W)
			acc = acc + x[j];
		for (int64_t chunk = 0; h + (chunk * W + w) * V < n; chunk++)
			for (int e = 0; e < V; e++) {
				int64_t i = h + (chunk * W + w) * V + e;
				if (i < n)
					acc = acc + x[i];
			}
		part[w] = acc;
	}
	int offsets[32], steps = 0;
	for (int o = (W < 32 ? W : 32) / 2; o >= 1; o /= 2)
		offsets[steps++] = o;
	for (int o = W / 2; o >= 32; o /= 2)
		offsets[steps++] = o;
	for (int s = 0; s < steps; s++) {
		for (int w = 0; w < W; w++)
			next[w] = part[w] + part[w ^ offsets[s]];
		memcpy(part, next, (size_t)W * sizeof *part);
	}
	return part[0];
}

/* One plan's sums over rows of x viewed `offset` elements in, against expected_sum. */
static int compare_sums(rr_program *program, const int *plan, int64_t n, int offset)
{
	const int64_t rows = 3;
	float *x = malloc((size_t)(rows * n + 4) * sizeof *x);
	float out[3];
	int compared = 0;
	for (int64_t i = 0; i < rows * n + 4; i++)
		x[i] = (float)rr_test_uniform(&rng, -3.0, 3.0);
	rr__poison(out, RR_F32, rows);
	rr_arg arg = {.data = x + offset, .dtype = RR_F32};
	void *outputs[1] = {out};
	CHECK(rr_program_launch(program, rows, &arg, outputs, NULL) == RR_OK);
	for (int64_t r = 0; r < rows; r++) {
		float want = expected_sum(x + offset + r * n, n, plan[0], plan[1]);
		CHECKF(memcmp(&want, &out[r], sizeof want) == 0,
		       "W=%d V=%d U=%d N=%lld offset %d row %lld: got %.9g, want %.9g bit for bit",
		       plan[0], plan[1], plan[2], (long long)n, offset, (long long)r,
		       (double)out[r], (double)want);
		compared++;
	}
	free(x);
	return compared;
}

static void test_sum_bitwise(rr_device *device, const rr_kernel *sum)
{
	static const int plans[][3] = {{1, 1, 1},   {1, 4, 3},  {2, 2, 2},  {4, 8, 1},
	                               {32, 4, 1},  {32, 1, 3}, {64, 2, 1}, {128, 4, 2},
	                               {128, 1, 1}, {16, 16, 8}};
	static const int64_t lengths[] = {1, 7, 33, 100, 257, 1031, 4103};
	const int64_t rows = 3;
	int compared = 0;
	for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
		for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
			int64_t n = lengths[k];
			rr_layout layout = {.workers_per_row = plans[p][0],
			                    .vec = plans[p][1],
			                    .unroll = plans[p][2],
			                    .rows_per_group = 1};
			rr_program *program = NULL;
			rr_status status =
			    rr_program_build(device, sum, RR_F32, rows, n, &layout, &program);
			CHECKF(status == RR_OK, "W=%d V=%d U=%d N=%lld: %s", plans[p][0],
			       plans[p][1], plans[p][2], (long long)n, rr_last_error());
			if (status != RR_OK)
				continue;
			const rr_layout *used = rr_program_layout(program);
			CHECK(used->workers_per_row == plans[p][0] && used->vec == plans[p][1] &&
			      used->unroll == plans[p][2]);
			/* Aligned rows, then views 1, 2 and 3 elements in (each row's head). */
			for (int offset = 0; offset < 4; offset++)
				compared += compare_sums(program, plans[p], n, offset);
			rr_program_free(program);
		}
	}
	CHECK(compared ==
	      (int)(sizeof plans / sizeof plans[0] * sizeof lengths / sizeof lengths[0]) * 3 * 4);
}

/* Runs `program` on fresh inputs whose row and col arrays are views `offset` elements into
 * their buffers, outputs `out_offset` elements in, and validates every output. */
static void validate_view(rr_program *program, const rr_kernel *kernel, rr_dtype dtype,
                          int64_t rows, int64_t cols, int offset, int out_offset)
{
	size_t es = rr_dtype_size(dtype);
	rr__host_inputs inputs;
	CHECK(rr__inputs_make(kernel, rows, cols, dtype, 77u + (unsigned)offset, NULL, &inputs) ==
	      RR_OK);
	rr_arg args[RR_MAX_IO];
	void *copies[RR_MAX_IO] = {0}, *buffers[RR_MAX_IO] = {0}, *outputs[RR_MAX_IO] = {0};
	for (int k = 0; k < inputs.count; k++) {
		args[k] = inputs.args[k];
		rr_kind kind = kernel->inputs[k].kind;
		if (kind != RR_KIND_ROW && kind != RR_KIND_COL)
			continue;
		copies[k] = malloc(inputs.bytes[k] + 4 * es);
		memcpy((char *)copies[k] + (size_t)offset * es, inputs.owned[k], inputs.bytes[k]);
		args[k].data = (char *)copies[k] + (size_t)offset * es;
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		int64_t count = rr__output_elements(kernel, j, rows, cols);
		buffers[j] = malloc((size_t)count * es + 4 * es);
		outputs[j] = (char *)buffers[j] + (size_t)out_offset * es;
		rr__poison(outputs[j], dtype, count);
	}
	CHECK(rr_program_launch(program, rows, args, outputs, NULL) == RR_OK);
	rr__validation report;
	rr_status status =
	    rr__validate_outputs(kernel, rows, cols, dtype, &inputs, outputs, NULL, &report);
	CHECKF(status == RR_OK, "%s %s %lldx%lld, inputs %d and outputs %d elements in: %s",
	       kernel->name, rr_dtype_name(dtype), (long long)rows, (long long)cols, offset,
	       out_offset, rr_last_error());
	for (int k = 0; k < RR_MAX_IO; k++) {
		free(copies[k]);
		free(buffers[k]);
	}
	rr__inputs_free(&inputs);
}

/* Every built-in with the planner's plan on views 1, 2 and 3 elements into their buffers (a
 * tensor view one element in), outputs shifted alike or left aligned, in every dtype. */
static void test_misaligned_views(rr_device *device)
{
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};
	const char *const *names = rr_builtin_names();
	const int64_t rows = 5, cols = 1001;
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (int d = 0; kernel && d < 3; d++) {
			rr_program *program = NULL;
			CHECKF(rr_program_build(device, kernel, dtypes[d], rows, cols, NULL,
			                        &program) == RR_OK,
			       "%s: %s", names[k], rr_last_error());
			for (int offset = 1; program && offset <= 3; offset++) {
				validate_view(program, kernel, dtypes[d], rows, cols, offset,
				              offset);
				validate_view(program, kernel, dtypes[d], rows, cols, offset, 0);
			}
			rr_program_free(program);
		}
		rr_kernel_free(kernel);
	}
}

/* Plans of V > 1 read a complete chunk's packs as whole vectors and pick each lane's element
 * (cpu_vec.h's rr_pick_packs), and store an output phase's packs so (store_packs): every
 * built-in in every dtype, on views 0 to 3 elements into their buffers (the vectors start at
 * the head's end, not on a boundary), with 16, 8 and 4 lanes a vector (AVX-512, AVX2, SSE) and
 * one plan of two vectors a row (BLOCKS = 2) that re-reads its rows. A lane given another
 * lane's element, or a value stored in another's place, fails validation. */
static void test_packed_lanes(rr_device *device)
{
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};
	static const char *const layouts[] = {"W=16,V=2,U=1,R=1", "W=8,V=4,U=2,R=1",
	                                      "W=32,V=4,U=1,R=2,S=reread"};
	static const char *const flags[] = {"-O1", "-O1 -mno-avx512f", "-O1 -mno-avx"};
	const char *const *names = rr_builtin_names();
	const int64_t rows = 5, cols = 1001;
	int built = 0;
	for (int f = 0; f < 3; f++) {
#if !defined(__x86_64__)
		if (f > 0)
			break;
#endif
		setenv("RR_CFLAGS", flags[f], 1);
		for (int k = 0; names[k]; k++) {
			rr_kernel *kernel = NULL;
			CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
			for (int d = 0; kernel && d < 3; d++) {
				/* each dtype under each plan over the three targets */
				rr_layout layout;
				CHECK(rr_layout_parse(layouts[(d + f) % 3], &layout) == RR_OK);
				rr_program *program = NULL;
				CHECKF(rr_program_build(device, kernel, dtypes[d], rows, cols,
				                        &layout, &program) == RR_OK,
				       "%s %s %s (%s): %s", names[k], rr_dtype_name(dtypes[d]),
				       layouts[(d + f) % 3], flags[f], rr_last_error());
				for (int offset = 0; program && offset <= 3; offset++)
					validate_view(program, kernel, dtypes[d], rows, cols,
					              offset, offset);
				built += program != NULL;
				rr_program_free(program);
			}
			rr_kernel_free(kernel);
		}
	}
	setenv("RR_CFLAGS", "-O1", 1);
	CHECK(built >= 6 * 3);
}

/* softmax f32 takes its split's maxima over the row's aligned vectors (c_emit.c,
 * emit_extrema_lines): rows 1 to 4 elements into their buffer, each with one element of 100 among
 * zeros at its start (in the masked lead), middle, or near its end (in the masked tail, or the
 * guarded last chunk). A maximum missed there leaves m = 0, and exp(100 - 0) overflows: the
 * element's output must be 1 (the others e^-100 / (1 + (N - 1) e^-100)), every output finite. */
static void test_aligned_extrema(rr_device *device)
{
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("softmax", &kernel) == RR_OK);
	const int64_t rows = 8, cols = 4099;
	const int64_t at[8] = {0, 1, 2, cols / 2, cols - 20, cols - 17, cols - 4, cols - 1};
	rr_program *program = NULL;
	CHECKF(kernel &&
	           rr_program_build(device, kernel, RR_F32, rows, cols, NULL, &program) == RR_OK,
	       "%s", rr_last_error());
	/* sizes rounded up to the alignment, as aligned_alloc asks */
	const size_t in_bytes = ((size_t)(rows * cols + 64) * sizeof(float) + 63) / 64 * 64;
	const size_t out_bytes = ((size_t)(rows * cols) * sizeof(float) + 63) / 64 * 64;
	float *buffer = aligned_alloc(64, in_bytes), *y = aligned_alloc(64, out_bytes);
	for (int offset = 1; program && buffer && y && offset <= 4; offset++) {
		float *x = buffer + offset;
		memset(buffer, 0, in_bytes);
		for (int64_t r = 0; r < rows; r++)
			x[r * cols + at[r]] = 100.0f;
		rr_arg arg = {.data = x, .dtype = RR_F32};
		void *outputs[1] = {y};
		CHECK(rr_program_launch(program, rows, &arg, outputs, NULL) == RR_OK);
		int bad = 0;
		for (int64_t r = 0; r < rows; r++)
			for (int64_t i = 0; i < cols; i++) {
				float got = y[r * cols + i];
				bad += !(isfinite(got) && got >= 0 &&
				         (i != at[r] || fabsf(got - 1) < 1e-6f));
			}
		CHECKF(bad == 0, "softmax f32 %lldx%lld, %d elements in: %d outputs wrong",
		       (long long)rows, (long long)cols, offset, bad);
	}
	free(buffer);
	free(y);
	rr_program_free(program);
	rr_kernel_free(kernel);
}

/* The online (max, sum) kernels on both sides of the row length up to which the C emitter
 * splits the pair into a max pass and a sum pass (rows in cache, exp kept for the output):
 * the split at the limit, the one online pass just past it, aligned and one element in. */
static void test_split_limit(rr_device *device)
{
	static const char *const names[] = {"softmax", "cross_entropy"};
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16};
	for (int k = 0; k < 2; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (int d = 0; kernel && d < 2; d++) {
			int64_t limit = rr__c_split_max_cols(kernel, dtypes[d]);
			CHECKF(limit >= 4096, "%s: split up to %lld elements", names[k],
			       (long long)limit);
			for (int64_t cols = limit; limit > 0 && cols <= limit + 1; cols++) {
				rr_program *program = NULL;
				CHECKF(rr_program_build(device, kernel, dtypes[d], 3, cols, NULL,
				                        &program) == RR_OK,
				       "%s: %s", names[k], rr_last_error());
				for (int offset = 0; program && offset <= 1; offset++)
					validate_view(program, kernel, dtypes[d], 3, cols, offset,
					              offset);
				rr_program_free(program);
			}
		}
		rr_kernel_free(kernel);
	}
}

/* The split's bound follows the core's L2 (rr__c_split_bytes): at least 512 KiB, and three
 * quarters of the L2 where the system reports a larger one, so that softmax f32's one row of
 * 131073 elements runs split on a core of 2 MiB of L2 (1 MiB of row and cache). */
static void test_split_bytes(void)
{
	const int64_t bytes = rr__c_split_bytes();
	CHECKF(bytes >= 512 * 1024, "split bound %lld bytes", (long long)bytes);
#if defined(_SC_LEVEL2_CACHE_SIZE)
	const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	if (l2 > 0)
		CHECKF(bytes >= (int64_t)l2 / 4 * 3 && bytes <= (int64_t)l2,
		       "split bound %lld bytes for %ld of L2", (long long)bytes, l2);
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("softmax", &kernel) == RR_OK);
	if (kernel && l2 >= 2 * 1024 * 1024)
		CHECKF(rr__c_split_max_cols(kernel, RR_F32) >= 131073,
		       "softmax f32 split up to %lld elements with %ld of L2",
		       (long long)rr__c_split_max_cols(kernel, RR_F32), l2);
	rr_kernel_free(kernel);
#endif
}

/* Row outputs that round 1 computes (h = x + r) are written there and read back by the later
 * passes (c_emit.c, rr__c_early_outputs): every output still validates where h is the kernel's
 * only row output (no output phase is left), where the output phase reads it back
 * (add_layernorm), with and without a guarded last chunk, rows aligned or not, launches that
 * stream or not (h in scratch then where an output phase streams it), and with h written over x
 * in place. The source says which outputs are written early. */
static void test_early_outputs(rr_device *device)
{
	static const char text[] = "kernel residual_sum\n  in x : row\n  in r : row\n"
	                           "  out h : row\n  out s : rowscalar\n  h = x + r\n"
	                           "  s = sum(h)\n";
	static const rr_layout layouts[] = {{.workers_per_row = 16,
	                                     .vec = 1,
	                                     .unroll = 1,
	                                     .rows_per_group = 1,
	                                     .storage = RR_STORAGE_REREAD},
	                                    {.workers_per_row = 32,
	                                     .vec = 1,
	                                     .unroll = 3,
	                                     .rows_per_group = 2,
	                                     .storage = RR_STORAGE_REREAD}};
	const int64_t rows = 5, lengths[2] = {1001, 1024};
	rr_kernel *kernels[2] = {NULL, NULL};
	CHECK(rr_kernel_load_string(text, strlen(text), "<residual_sum>", &kernels[0]) == RR_OK);
	CHECK(rr_kernel_load_builtin("add_layernorm", &kernels[1]) == RR_OK);
	for (int k = 0; k < 2; k++) {
		for (int c = 0; kernels[k] && c < 4; c++) {
			const int64_t cols = lengths[c % 2];
			rr_program *program = NULL;
			CHECKF(rr_program_build(device, kernels[k], RR_F32, rows, cols,
			                        &layouts[c / 2], &program) == RR_OK,
			       "%s: %s", rr_kernel_name(kernels[k]), rr_last_error());
			if (!program)
				continue;
			CHECK(strstr(rr_program_source(program),
			             " * early    h written in round 1") != NULL);
			for (int streamed = 0; streamed < 2; streamed++) { /* and past the caches */
				if (streamed)
					setenv("RR_STREAM_BYTES", "0", 1);
				for (int offset = 0; offset <= 4; offset += 4)
					validate_view(program, kernels[k], RR_F32, rows, cols, offset,
					              offset);
				unsetenv("RR_STREAM_BYTES");
			}
			rr_program_free(program);
		}
	}
	/* add_layernorm with h written over x: every pass after the first reads h, not x */
	rr_program *program = NULL;
	const int64_t cols = 1001;
	CHECK(kernels[1] &&
	      rr_program_build(device, kernels[1], RR_F32, rows, cols, NULL, &program) == RR_OK);
	rr__host_inputs inputs;
	if (program &&
	    rr__inputs_make(kernels[1], rows, cols, RR_F32, 9u, NULL, &inputs) == RR_OK) {
		rr_arg args[RR_MAX_IO];
		float *x = malloc((size_t)(rows * cols) * sizeof *x);
		float *y = malloc((size_t)(rows * cols) * sizeof *y);
		memcpy(x, inputs.owned[0], (size_t)(rows * cols) * sizeof *x);
		for (int k = 0; k < inputs.count; k++)
			args[k] = inputs.args[k];
		args[0].data = x;
		void *outputs[2] = {y, x};
		rr__poison(y, RR_F32, rows * cols);
		CHECK(rr_program_launch(program, rows, args, outputs, NULL) == RR_OK);
		rr__validation report;
		CHECKF(rr__validate_outputs(kernels[1], rows, cols, RR_F32, &inputs, outputs, NULL,
		                            &report) == RR_OK,
		       "add_layernorm f32 with h over x: %s", rr_last_error());
		free(x);
		free(y);
		rr__inputs_free(&inputs);
	}
	rr_program_free(program);
	rr_kernel_free(kernels[0]);
	rr_kernel_free(kernels[1]);
}

/* 16-bit rows keep the values round 1 computes (h = x + r) as f32 in scratch and read them back
 * in the later passes (c_emit.c, rr__c_derived_keeps): every output validates where h is the
 * kernel's only row output and where the output phase reads it back (add_layernorm), bf16 and
 * f16, with and without a guarded last chunk, rows aligned or not; and with h written over x in
 * place (the passes after round 1 read neither x nor r). The source says which values are kept. */
static void test_held_values(rr_device *device)
{
	static const char text[] = "kernel residual_sum\n  in x : row\n  in r : row\n"
	                           "  out h : row\n  out s : rowscalar\n  h = x + r\n"
	                           "  s = sum(h)\n";
	static const rr_layout layouts[] = {{.workers_per_row = 16,
	                                     .vec = 1,
	                                     .unroll = 1,
	                                     .rows_per_group = 1,
	                                     .storage = RR_STORAGE_REREAD},
	                                    {.workers_per_row = 32,
	                                     .vec = 1,
	                                     .unroll = 3,
	                                     .rows_per_group = 2,
	                                     .storage = RR_STORAGE_REREAD}};
	static const rr_dtype dtypes[] = {RR_BF16, RR_F16};
	const int64_t rows = 5, lengths[2] = {1001, 1024};
	rr_kernel *kernels[2] = {NULL, NULL};
	CHECK(rr_kernel_load_string(text, strlen(text), "<residual_sum>", &kernels[0]) == RR_OK);
	CHECK(rr_kernel_load_builtin("add_layernorm", &kernels[1]) == RR_OK);
	for (int k = 0; k < 2; k++) {
		for (int c = 0; kernels[k] && c < 8; c++) {
			const int64_t cols = lengths[c % 2];
			const rr_dtype dtype = dtypes[c / 4];
			rr_program *program = NULL;
			CHECKF(rr_program_build(device, kernels[k], dtype, rows, cols,
			                        &layouts[c / 2 % 2], &program) == RR_OK,
			       "%s: %s", rr_kernel_name(kernels[k]), rr_last_error());
			if (!program)
				continue;
			CHECKF(strstr(rr_program_source(program), " * storage  e") != NULL &&
			           strstr(rr_program_source(program), "kept in private slots after "
			                                              "round 1") != NULL,
			       "%s %s: no value kept after round 1", rr_kernel_name(kernels[k]),
			       rr_dtype_name(dtype));
			for (int offset = 0; offset <= 4; offset += 4)
				validate_view(program, kernels[k], dtype, rows, cols, offset,
				              offset);
			rr_program_free(program);
		}
	}
	/* Longer rows (c_emit.h, RR_CPU_HELD_LONG_BYTES): bf16 rows of whole lines keep h up to
	 * 512 KiB of it, validated; rows of odd length, past the bound, and f16 keep their code. */
	static const struct {
		rr_dtype dtype;
		int64_t cols;
		int held;
	} longer[] = {{RR_BF16, 32768, 1}, {RR_BF16, 131072, 1}, {RR_BF16, 32769, 0},
	              {RR_BF16, 131104, 0}, {RR_F16, 32768, 0}};
	for (size_t c = 0; kernels[1] && c < sizeof longer / sizeof longer[0]; c++) {
		rr_program *program = NULL;
		CHECKF(rr_program_build(device, kernels[1], longer[c].dtype, 2, longer[c].cols,
		                        &layouts[0], &program) == RR_OK,
		       "add_layernorm: %s", rr_last_error());
		if (!program)
			continue;
		const int held =
		    strstr(rr_program_source(program), "kept in private slots after round 1") != NULL;
		CHECKF(held == longer[c].held, "add_layernorm %s x %lld: h kept %d",
		       rr_dtype_name(longer[c].dtype), (long long)longer[c].cols, held);
		validate_view(program, kernels[1], longer[c].dtype, 2, longer[c].cols, 0, 0);
		rr_program_free(program);
	}
	/* add_layernorm bf16 with h written over x */
	rr_program *program = NULL;
	const int64_t cols = 1001;
	CHECK(kernels[1] && rr_program_build(device, kernels[1], RR_BF16, rows, cols, &layouts[0],
	                                     &program) == RR_OK);
	rr__host_inputs inputs;
	if (program &&
	    rr__inputs_make(kernels[1], rows, cols, RR_BF16, 9u, NULL, &inputs) == RR_OK) {
		rr_arg args[RR_MAX_IO];
		uint16_t *x = malloc((size_t)(rows * cols) * sizeof *x);
		uint16_t *y = malloc((size_t)(rows * cols) * sizeof *y);
		memcpy(x, inputs.owned[0], (size_t)(rows * cols) * sizeof *x);
		for (int k = 0; k < inputs.count; k++)
			args[k] = inputs.args[k];
		args[0].data = x;
		void *outputs[2] = {y, x};
		rr__poison(y, RR_BF16, rows * cols);
		CHECK(rr_program_launch(program, rows, args, outputs, NULL) == RR_OK);
		rr__validation report;
		CHECKF(rr__validate_outputs(kernels[1], rows, cols, RR_BF16, &inputs, outputs, NULL,
		                            &report) == RR_OK,
		       "add_layernorm bf16 with h over x: %s", rr_last_error());
		free(x);
		free(y);
		rr__inputs_free(&inputs);
	}
	rr_program_free(program);
	rr_kernel_free(kernels[0]);
	rr_kernel_free(kernels[1]);
}

/* 16-bit cols read as f32 from scratch (rr__c_wide_cols): layernorm (w, b) and rmsnorm (w) in
 * bf16 and f16, at row lengths where their f32 cols take at most RR_CPU_WIDE_COL_BYTES (1024,
 * a guarded last chunk at 1029, 8192 at the bound for two cols) and past it (8193 for
 * layernorm: the cols read as before). The source widens exactly where the bound says, and
 * f32 never does. 96 rows: several chunks a thread, so the launch's later calls read the cols
 * their thread widened on its first (RR_CPU_COLS_READY); three launches on the same program
 * with other inputs each (views 0, 1 and 3 elements in), so cols widened in one launch are
 * never read in the next. Every output validated against float64. */
static void test_widened_cols(rr_device *device)
{
	static const char *const names[] = {"layernorm", "rmsnorm"};
	static const rr_dtype dtypes[] = {RR_BF16, RR_F16, RR_F32};
	static const int64_t lengths[] = {1024, 1029, 8192, 8193};
	const int64_t rows = 96;
	for (int k = 0; k < 2; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		const int cols_in = k == 0 ? 2 : 1;
		for (int c = 0; kernel && c < 12; c++) {
			const int64_t cols = lengths[c % 4];
			const rr_dtype dtype = dtypes[c / 4];
			if (dtype == RR_F32 && cols > 1024)
				continue;
			rr_program *program = NULL;
			CHECKF(rr_program_build(device, kernel, dtype, rows, cols, NULL,
			                        &program) == RR_OK,
			       "%s: %s", names[k], rr_last_error());
			if (!program)
				continue;
			const int expect =
			    dtype != RR_F32 && cols_in * 4 * cols <= RR_CPU_WIDE_COL_BYTES;
			const char *src = rr_program_source(program);
			CHECKF((strstr(src, "load_widened(colf") != NULL) == expect &&
			           (strstr(src, "#define WIDE_COLS 0 ") == NULL) == expect,
			       "%s %s N=%lld: cols widened %d, expected %d", names[k],
			       rr_dtype_name(dtype), (long long)cols,
			       strstr(src, "load_widened(colf") != NULL, expect);
			for (int offset = 0; offset <= 3; offset += 1 + (offset == 1))
				validate_view(program, kernel, dtype, rows, cols, offset, offset);
			rr_program_free(program);
		}
		rr_kernel_free(kernel);
	}
}

/* Runs `program` on `inputs` (arrays `offset` elements into their buffers, outputs alike) into
 * fresh poisoned outputs, each `out_bytes[j]` long; RR_STREAM_BYTES set to `bound` (NULL:
 * unset) for the launch. */
static void run_outputs(rr_program *program, const rr_kernel *kernel, rr_dtype dtype, int64_t rows,
                        int64_t cols, const rr__host_inputs *inputs, int offset, const char *bound,
                        void **copies, char **outputs)
{
	size_t es = rr_dtype_size(dtype);
	rr_arg args[RR_MAX_IO];
	for (int k = 0; k < inputs->count; k++) {
		args[k] = inputs->args[k];
		if (copies[k])
			args[k].data = (char *)copies[k] + (size_t)offset * es;
	}
	void *at[RR_MAX_IO] = {0};
	for (int j = 0; j < kernel->n_outputs; j++) {
		int64_t count = rr__output_elements(kernel, j, rows, cols);
		size_t bytes =
		    ((size_t)(count + 32) * es + 63) / 64 * 64; /* offsets up to 48 bytes */
		outputs[j] =
		    aligned_alloc(64, bytes); /* offset 0: every row on a vector boundary */
		memset(outputs[j], 0, bytes);
		at[j] = outputs[j] + (size_t)offset * es;
		rr__poison(at[j], dtype, count);
	}
	if (bound)
		setenv("RR_STREAM_BYTES", bound, 1);
	else
		unsetenv("RR_STREAM_BYTES");
	CHECK(rr_program_launch(program, rows, args, at, NULL) == RR_OK);
	unsetenv("RR_STREAM_BYTES");
	rr__validation report;
	CHECKF(rr__validate_outputs(kernel, rows, cols, dtype, inputs, at, NULL, &report) == RR_OK,
	       "%s %s %lldx%lld, %d in, RR_STREAM_BYTES=%s: %s", kernel->name, rr_dtype_name(dtype),
	       (long long)rows, (long long)cols, offset, bound ? bound : "(unset)",
	       rr_last_error());
}

/* The row and col arrays of `inputs`, each copied `bytes` into a buffer of its own (freed by the
 * caller; NULL for the other inputs). */
static void copy_offset(const rr_kernel *kernel, const rr__host_inputs *inputs, size_t bytes,
                        void **copies)
{
	for (int i = 0; i < inputs->count; i++) {
		rr_kind kind = kernel->inputs[i].kind;
		if (kind != RR_KIND_ROW && kind != RR_KIND_COL)
			continue;
		copies[i] = calloc(1, inputs->bytes[i] + 64);
		memcpy((char *)copies[i] + bytes, inputs->owned[i], inputs->bytes[i]);
	}
}

/* Whether `program` writes the same bytes streamed (RR_STREAM_BYTES=0) as not, its arrays
 * `offset` elements into their buffers; the outputs compared are counted in *compared. */
static void compare_streamed(rr_program *program, const rr_kernel *kernel, rr_dtype dtype,
                             int64_t rows, int64_t cols, int offset, int *compared)
{
	size_t es = rr_dtype_size(dtype);
	rr__host_inputs inputs;
	CHECK(rr__inputs_make(kernel, rows, cols, dtype, 5u, NULL, &inputs) == RR_OK);
	void *copies[RR_MAX_IO] = {0};
	char *plain[RR_MAX_IO] = {0}, *streamed[RR_MAX_IO] = {0};
	copy_offset(kernel, &inputs, offset * es, copies);
	run_outputs(program, kernel, dtype, rows, cols, &inputs, offset, NULL, copies, plain);
	run_outputs(program, kernel, dtype, rows, cols, &inputs, offset, "0", copies, streamed);
	for (int j = 0; j < kernel->n_outputs; j++) {
		int64_t count = rr__output_elements(kernel, j, rows, cols);
		CHECKF(memcmp(plain[j], streamed[j], (size_t)(count + 32) * es) == 0,
		       "%s %s %lldx%lld, %d in: output %s differs when streamed", kernel->name,
		       rr_dtype_name(dtype), (long long)rows, (long long)cols, offset,
		       kernel->outputs[j].name);
		(*compared)++;
		free(plain[j]);
		free(streamed[j]);
	}
	for (int i = 0; i < RR_MAX_IO; i++)
		free(copies[i]);
	rr__inputs_free(&inputs);
}

/* A launch large enough to write its row outputs past the caches (forced here on small ones
 * with RR_STREAM_BYTES=0) writes the same bytes as one that does not: every built-in, every
 * dtype, rows aligned, 16, 32 and 48 bytes in (with AVX-512, f32 rows past a line are stored
 * as aligned lines across two vectors, shifted by each), and 1, 3 and 15 elements in (f32
 * rows there too, their first and last pieces by masked stores; elsewhere ordinary stores);
 * and rows of 1003, 127 and 21 elements, each row at another offset (f32, and bf16 rows of
 * whole lines 16-48 bytes in: the pieces of one row's last line and the next row's first
 * carried from row to row, rr_carry). */
static void test_streaming_stores(rr_device *device)
{
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};
	static const int64_t cols[] = {1024, 1003, 127, 21};
	const char *const *names = rr_builtin_names();
	const int64_t rows = 7;
	int compared = 0;
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (int d = 0; kernel && d < 3; d++) {
			for (int c = 0; c < 4; c++) {
				size_t es = rr_dtype_size(dtypes[d]);
				rr_program *program = NULL;
				CHECKF(rr_program_build(device, kernel, dtypes[d], rows, cols[c], NULL,
				                        &program) == RR_OK,
				       "%s: %s", names[k], rr_last_error());
				const int offsets[7] = {0,  (int)(16 / es), (int)(32 / es), (int)(48 / es),
				                        1, 3,              15};
				for (int o = 0; program && o < (c == 0 ? 7 : 2); o++)
					compare_streamed(program, kernel, dtypes[d], rows, cols[c],
					                 offsets[c == 0 ? o : 5 * o], &compared);
				rr_program_free(program);
			}
		}
		rr_kernel_free(kernel);
	}
	CHECK(compared >= 6 * 3 * 9);
}

/* test_streaming_stores' f32 comparison compiled without AVX-512 (x86-64: the AVX2 form of
 * rr_aligner where the machine has AVX2, its 16-byte case and rows at other offsets, whose
 * spans are two rotated vectors blended, and store_tail's non-temporal lanes; SSE elsewhere). */
static void test_streaming_stores_avx2(rr_device *device)
{
#if defined(__x86_64__)
	static const int64_t cols[] = {1024, 1003, 127};
	const char *const *names = rr_builtin_names();
	int compared = 0;
	setenv("RR_CFLAGS", "-O1 -mno-avx512f", 1);
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (int c = 0; kernel && c < 3; c++) {
			rr_program *program = NULL;
			CHECKF(rr_program_build(device, kernel, RR_F32, 7, cols[c], NULL,
			                        &program) == RR_OK,
			       "%s without AVX-512: %s", names[k], rr_last_error());
			const int offsets[5] = {0, 4, 1, 3, 7};
			for (int o = 0; program && o < 5; o++)
				compare_streamed(program, kernel, RR_F32, 7, cols[c], offsets[o],
				                 &compared);
			rr_program_free(program);
		}
		rr_kernel_free(kernel);
	}
	setenv("RR_CFLAGS", "-O1", 1);
	CHECK(compared >= 6 * 2 * 5);
#else
	(void)device;
#endif
}

/* Whether `program` writes the same bytes with its rows split over threads as whole, on
 * every row (RR_CPU_ROW_PARTS=all) and on the launch's last rows (unset), against none (0);
 * the outputs compared are counted in *compared. */
static void compare_parts(rr_program *program, const rr_kernel *kernel, rr_dtype dtype,
                          int64_t rows, int64_t cols, int offset, int *compared)
{
	static const char *const settings[] = {"0", "all", NULL};
	size_t es = rr_dtype_size(dtype);
	rr__host_inputs inputs;
	CHECK(rr__inputs_make(kernel, rows, cols, dtype, 7u, NULL, &inputs) == RR_OK);
	void *copies[RR_MAX_IO] = {0};
	char *out[3][RR_MAX_IO] = {{0}};
	copy_offset(kernel, &inputs, offset * es, copies);
	for (int s = 0; s < 3; s++) {
		if (settings[s])
			setenv("RR_CPU_ROW_PARTS", settings[s], 1);
		else
			unsetenv("RR_CPU_ROW_PARTS");
		run_outputs(program, kernel, dtype, rows, cols, &inputs, offset, NULL, copies,
		            out[s]);
	}
	unsetenv("RR_CPU_ROW_PARTS");
	for (int j = 0; j < kernel->n_outputs; j++) {
		int64_t count = rr__output_elements(kernel, j, rows, cols);
		for (int s = 1; s < 3; s++)
			CHECKF(memcmp(out[0][j], out[s][j], (size_t)(count + 32) * es) == 0,
			       "%s %s %lldx%lld, %d in: output %s differs with RR_CPU_ROW_PARTS=%s",
			       kernel->name, rr_dtype_name(dtype), (long long)rows, (long long)cols,
			       offset, kernel->outputs[j].name,
			       settings[s] ? settings[s] : "(unset)");
		(*compared)++;
		for (int s = 0; s < 3; s++)
			free(out[s][j]);
	}
	for (int i = 0; i < RR_MAX_IO; i++)
		free(copies[i]);
	rr__inputs_free(&inputs);
}

static int has_row_output(const rr_kernel *kernel)
{
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			return 1;
	return 0;
}

/* Rows split over threads (c_emit.h's rr_cpu_row_part; the backend splits the rows a launch
 * would leave one thread alone with): every built-in in f32, bf16 and f16, under the planner's
 * plan and under plans of 4 to 16 blocks of workers (W = 256 and 64; V = 4 with a head where
 * the rows start off a pack), rows of 16384 and 20001 elements (a guarded last chunk), aligned
 * and one element in: the source has the parts exactly where rr__c_row_parts says (from
 * RR_CPU_PARTS_MIN_N elements, no 16-bit row output), and split rows write the same bytes as
 * whole ones, validated against float64. Shorter rows get no parts. */
static void test_row_parts(rr_device *device)
{
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};
	static const int64_t cols[] = {16384, 20001};
	static const char *const layouts[] = {NULL, "W=256,V=1", "W=64,V=4"};
	const char *const *names = rr_builtin_names();
	const int64_t rows = 3;
	const long runs = rr__cpu_row_part_runs();
	int compared = 0, split = 0;
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (int d = 0; kernel && d < 3; d++)
			for (int c = 0; c < 2; c++)
				for (int l = 0; l < 3; l++) {
					rr_layout layout;
					if (layouts[l])
						CHECK(rr_layout_parse(layouts[l], &layout) ==
						      RR_OK);
					rr_program *program = NULL;
					CHECKF(rr_program_build(
					           device, kernel, dtypes[d], rows, cols[c],
					           layouts[l] ? &layout : NULL, &program) == RR_OK,
					       "%s %s %s: %s", names[k], rr_dtype_name(dtypes[d]),
					       layouts[l] ? layouts[l] : "planned",
					       rr_last_error());
					if (!program)
						continue;
					const int parts = rr__c_row_parts(
					    kernel, &program->realisation, dtypes[d]);
					const int has = strstr(rr_program_source(program),
					                       "rr_cpu_row_part(") != NULL;
					CHECKF(has == parts && parts == (dtypes[d] == RR_F32 ||
					                                 !has_row_output(kernel)),
					       "%s %s %lld: parts in the source %d, "
					       "rr__c_row_parts %d",
					       names[k], rr_dtype_name(dtypes[d]),
					       (long long)cols[c], has, parts);
					split += parts;
					for (int offset = 0; parts && offset <= 1; offset++)
						compare_parts(program, kernel, dtypes[d], rows,
						              cols[c], offset, &compared);
					rr_program_free(program);
				}
		rr_kernel_free(kernel);
	}
	CHECKF(compared >= 4 * 2 * 3 * 2 * 2 && split > 0, "%d outputs compared", compared);
	/* two parts where the machine runs two threads or more (W = 256 f32 rows take two) */
	CHECKF(rr__pool_threads() < 2 || rr__cpu_row_part_runs() - runs >= 4 * 2 * 2 * 2,
	       "%ld launches split rows", rr__cpu_row_part_runs() - runs);
	rr_kernel *sum = NULL;
	rr_program *program = NULL;
	CHECK(rr_kernel_load_builtin("sum", &sum) == RR_OK);
	if (sum && rr_program_build(device, sum, RR_F32, rows, RR_CPU_PARTS_MIN_N - 1, NULL,
	                            &program) == RR_OK)
		CHECK(strstr(rr_program_source(program), "rr_cpu_row_part(") == NULL);
	rr_program_free(program);
	rr_kernel_free(sum);
}

/* Softmax f32 rows from IN_ROW_MIN_N (16384) elements keep the split's cache in their output
 * row even in launches that stream (c_emit.c), where the source's RR_CACHE_IN_ROW says so (not
 * with AVX-512): the source turns the row's stream off between IN_ROW_MIN_N and SPLIT_MAX_N,
 * and its piped rows (every target) leave those rows to one_row.
 * Compiled with RR_CACHE_IN_ROW 1 and 0 (either target's form on this machine), the outputs
 * streamed equal the plain ones, both validated against float64 (rows aligned, 16 bytes in and
 * one element in; a guarded last chunk or not; and a row under the bound, which streams with
 * its cache in scratch). */
static void test_long_rows_in_row(rr_device *device)
{
	static const int64_t cols[] = {16384, 16389, 16383};
	static const char *const flags[] = {"-O1 -DRR_CACHE_IN_ROW=1", "-O1 -DRR_CACHE_IN_ROW=0"};
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("softmax", &kernel) == RR_OK);
	int compared = 0;
	for (int f = 0; kernel && f < 2; f++) {
		setenv("RR_CFLAGS", flags[f], 1);
		for (int c = 0; c < 3; c++) {
			rr_program *program = NULL;
			CHECKF(rr_program_build(device, kernel, RR_F32, 3, cols[c], NULL,
			                        &program) == RR_OK,
			       "softmax f32 3x%lld %s: %s", (long long)cols[c], flags[f],
			       rr_last_error());
			if (!program)
				continue;
			CHECK(
			    strstr(
			        rr_program_source(program),
			        "if (RR_CACHE_IN_ROW && N >= IN_ROW_MIN_N && N <= SPLIT_MAX_N) /* "
			        "the cache in the row */") != NULL);
			CHECK(strstr(rr_program_source(program), "#define IN_ROW_MIN_N 16384") !=
			      NULL);
			/* piped on every target, but not past the bound where the row holds it */
			CHECK(
			    strstr(rr_program_source(program),
			           "N <= PIPED_MAX_N && !(RR_CACHE_IN_ROW && N >= IN_ROW_MIN_N)") !=
			    NULL);
			const int offsets[3] = {0, 4, 1};
			for (int o = 0; o < 3; o++)
				compare_streamed(program, kernel, RR_F32, 3, cols[c], offsets[o],
				                 &compared);
			rr_program_free(program);
		}
	}
	setenv("RR_CFLAGS", "-O1", 1);
	CHECK(compared == 18);
	rr_kernel_free(kernel);
}

/* How many times `source` has `#pragma GCC unroll COUNT` before a loop beginning `loop`. */
static int unrolled(const char *source, const char *count, const char *loop)
{
	char pragma[64];
	snprintf(pragma, sizeof pragma, "#pragma GCC unroll %s\n", count);
	int found = 0;
	for (const char *at = strstr(source, pragma); at; at = strstr(at + 1, pragma)) {
		const char *next = at + strlen(pragma);
		next += strspn(next, "\t ");
		found += strncmp(next, loop, strlen(loop)) == 0;
	}
	return found;
}

/* The loops that were bound by fetching their own code (c_emit.c, session 34): the tree's
 * steps unrolled (every offset a constant), softmax f32's output phase from the cache four
 * chunks an iteration where the launch streams and the in-place finish unrolled four times
 * where it does not. Chunk counts of every remainder by four (64-67 at W = 16) and a guarded
 * chunk, rows aligned, 4 and 1 elements in: the source has the forms, the streamed and the
 * in-place outputs are the same bytes and both validate against float64. */
static void test_fetch_bound_loops(rr_device *device)
{
	static const int64_t cols[] = {1024, 1040, 1056, 1072, 1081};
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("softmax", &kernel) == RR_OK);
	int compared = 0;
	for (int c = 0; kernel && c < 5; c++) {
		rr_program *program = NULL;
		rr_layout layout = {0};
		CHECK(rr_layout_parse("W=16,V=1,U=1,R=2,S=reread", &layout) == RR_OK);
		CHECKF(rr_program_build(device, kernel, RR_F32, 5, cols[c], &layout, &program) ==
		           RR_OK,
		       "softmax f32 5x%lld: %s", (long long)cols[c], rr_last_error());
		if (!program)
			continue;
		const char *source = rr_program_source(program);
		/* one_row's max tree, its sum pass's two copies' (the ranged one: c_emit.c,
		 * stored_ranged) and the online pass's, and the piped row's three */
		const int piped = strstr(source, "RR_INLINE void one_row_piped(") != NULL;
		CHECK(piped);
		CHECK(unrolled(source, "16", "for (int step = 0, done = 0;") == 4 + 3 * piped);
		CHECK(unrolled(source, "4", "for (; k + L <= count; k += L) {") == 1);
		CHECK(strstr(source, "for (; chunk + 4 <= chunks; chunk += 4) {") != NULL);
		const int offsets[3] = {0, 4, 1};
		for (int o = 0; o < 3; o++)
			compare_streamed(program, kernel, RR_F32, 5, cols[c], offsets[o],
			                 &compared);
		rr_program_free(program);
	}
	CHECK(compared == 15);
	rr_kernel_free(kernel);
}

/* The sum's single pass computes its prefetch distance once, before its chunk loop (c_emit.c,
 * emit_traversal): inside the loop GCC kept prefetch_single's tests as branches. The source
 * declares `ahead` before the loop and prefetches in0 + ahead + i in it, for rows under and
 * over 16 KiB (a row on, 8 KiB on); streamed outputs (two rows on for short rows) equal the
 * plain ones, rows aligned, 16 bytes in and one element in. */
static void test_single_pass_prefetch(rr_device *device)
{
	static const rr_dtype dtypes[2] = {RR_F32, RR_BF16};
	static const int64_t cols[2] = {1000, 12345};
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("sum", &kernel) == RR_OK);
	int compared = 0;
	for (int c = 0; kernel && c < 4; c++) {
		const rr_dtype dtype = dtypes[c % 2];
		rr_program *program = NULL;
		rr_layout layout = {0};
		CHECK(rr_layout_parse("W=16,V=1,U=1,R=2", &layout) == RR_OK);
		CHECKF(rr_program_build(device, kernel, dtype, 5, cols[c / 2], &layout, &program) ==
		           RR_OK,
		       "sum %s: %s", rr_dtype_name(dtype), rr_last_error());
		if (!program)
			continue;
		const char *source = rr_program_source(program);
		const char *ahead =
		    strstr(source, "const int64_t ahead = prefetch_single(N, stream);");
		const char *loop = strstr(source, "for (; chunk + U <= chunks; chunk += U) {");
		CHECKF(ahead && loop && ahead < loop, "sum %s: the distance before the loop",
		       rr_dtype_name(dtype));
		CHECKF(loop && strstr(loop, "__builtin_prefetch(in0 + ahead + i);") != NULL,
		       "sum %s: the loop's prefetch", rr_dtype_name(dtype));
		CHECKF(strstr(source, "prefetch_single(N, stream) + i") == NULL,
		       "sum %s: a distance computed in the loop", rr_dtype_name(dtype));
		const int offsets[3] = {0, (int)(16 / rr_dtype_size(dtype)), 1};
		for (int o = 0; o < 3; o++)
			compare_streamed(program, kernel, dtype, 5, cols[c / 2], offsets[o],
			                 &compared);
		rr_program_free(program);
	}
	CHECK(compared == 12);
	rr_kernel_free(kernel);
}

/* In launches that stream, a 16-bit output phase of several row outputs stores each in a loop
 * of its own (c_emit.c, emit_run_loops; where it prefetches the next row: bf16):
 * add_layernorm bf16, h kept (N <= 4096) or recomputed from x and r, an odd number of chunks
 * and a guarded last one: the source has the loops and the streamed outputs equal the plain
 * ones (rows aligned, 16 bytes in, 1 in). */
static void test_run_loops_apart(rr_device *device)
{
	static const int64_t cols[] = {1024, 4099, 8195};
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("add_layernorm", &kernel) == RR_OK);
	int compared = 0;
	for (int c = 0; kernel && c < 3; c++) {
		rr_program *program = NULL;
		CHECKF(rr_program_build(device, kernel, RR_BF16, 5, cols[c], NULL, &program) ==
		           RR_OK,
		       "add_layernorm bf16 5x%lld: %s", (long long)cols[c], rr_last_error());
		if (!program)
			continue;
		CHECK(strstr(rr_program_source(program), "for (chunk = run_start;") != NULL);
		const int offsets[3] = {0, 8, 1};
		for (int o = 0; o < 3; o++)
			compare_streamed(program, kernel, RR_BF16, 5, cols[c], offsets[o],
			                 &compared);
		rr_program_free(program);
	}
	CHECK(compared == 3 * 3 * 2);
	rr_kernel_free(kernel);
}

/* Runs `program` on `inputs` (row and col arrays `offset` elements into copies of their own;
 * specials != 0 puts NaNs of both signs with payloads and infinities into some rows of input 0)
 * into outputs allocated here, `offset` elements in, streamed where `stream` says. */
static void run_special(rr_program *program, const rr_kernel *kernel, int64_t rows, int64_t cols,
                        const rr__host_inputs *inputs, int offset, int specials, int stream,
                        char **outputs)
{
	static const uint16_t special[] = {0x7fc1, 0xffa5, 0x7f81, 0x7f80, 0xff80, 0x8000};
	const size_t es = sizeof(uint16_t);
	rr_arg args[RR_MAX_IO];
	void *copies[RR_MAX_IO] = {0}, *at[RR_MAX_IO] = {0};
	for (int k = 0; k < inputs->count; k++) {
		args[k] = inputs->args[k];
		rr_kind kind = kernel->inputs[k].kind;
		if (kind != RR_KIND_ROW && kind != RR_KIND_COL)
			continue;
		copies[k] = calloc(1, inputs->bytes[k] + 64);
		memcpy((char *)copies[k] + (size_t)offset * es, inputs->owned[k], inputs->bytes[k]);
		args[k].data = (char *)copies[k] + (size_t)offset * es;
	}
	uint16_t *x = (uint16_t *)((char *)copies[0] + (size_t)offset * es);
	for (int64_t row = 1; specials && row < rows; row += 3)
		for (int t = 0; t < 1 + (int)(row % 4); t++)
			x[row * cols + (row * 37 + t * 301) % cols] =
			    special[(row + t) % (sizeof special / sizeof special[0])];
	for (int j = 0; j < kernel->n_outputs; j++) {
		size_t bytes = (size_t)(rr__output_elements(kernel, j, rows, cols) + 64) * es;
		outputs[j] = aligned_alloc(64, (bytes + 63) / 64 * 64);
		memset(outputs[j], 0x5a, (bytes + 63) / 64 * 64);
		at[j] = outputs[j] + (size_t)offset * es;
	}
	setenv("RR_STREAM_BYTES", stream ? "0" : "1000000000000", 1);
	CHECK(rr_program_launch(program, rows, args, at, NULL) == RR_OK);
	unsetenv("RR_STREAM_BYTES");
	for (int k = 0; k < RR_MAX_IO; k++)
		free(copies[k]);
}

/* Whether the bf16 arrays a and b of n values are the same bytes, where both are NaN
 * whatever their payloads: a sum that meets two NaNs keeps the one the compiler's order of
 * the commutative add puts first, and two builds of one source may order it differently
 * (bench/NOTES.md, sessions 30 and 34). */
static int same_or_both_nan(const void *a, const void *b, size_t n)
{
	const uint16_t *x = a, *y = b;
	for (size_t k = 0; k < n; k++)
		if (x[k] != y[k] && !((x[k] & 0x7fff) > 0x7f80 && (y[k] & 0x7fff) > 0x7f80))
			return 0;
	return 1;
}

/* bf16 rows in pair order (c_emit.c, paired_order; device/cpu_vec.h, paired_bf16): the same source
 * compiled as it is and with RR_BF16_NATURAL defined (natural order) writes the same bytes (NaN
 * payloads aside: same_or_both_nan), rows with NaNs (payloads, both signs) and infinities,
 * streamed or not, rows aligned, 16 bytes in and one element in: layernorm and rmsnorm with x
 * re-read (the output phase's runs in pair order) and kept (S=regs: kept in pair order, the
 * rounds' sums put back in worker order), add_layernorm with x and r kept, with h held from round
 * 1 (N <= 4096, and rows of whole lines up to 131072: in pair order) and recomputed (rows past
 * that, or not of whole lines: two output loops when streaming), W = 32 and 16 (on AVX-512 the
 * pair order takes W a multiple of 32 and two row inputs: add_layernorm's W = 32 and 64 cases),
 * N with whole runs, an odd chunk (1056, 1008, 496, 8224, 131104, 1088) and a guarded one (1041,
 * 1040, 1001, 489, 8209, 8208: with a col tail past the last 16); the pair-order build validated
 * against float64 on clean rows. */
static void test_paired_order(rr_device *device)
{
	static const struct {
		const char *kernel, *layout;
		int64_t lengths[4];
		int kept; /* rows kept or values held: the rounds in pair order too */
	} cases[] = {{"layernorm", "W=32,V=1,U=1,R=1,S=reread", {1024, 1056, 1041, 1040}, 0},
	             {"rmsnorm", "W=32,V=1,U=1,R=1,S=reread", {1024, 1056, 1041, 1040}, 0},
	             {"layernorm", "W=32,V=1,U=2,R=1,S=regs", {1024, 1056, 1041, 1040}, 1},
	             {"rmsnorm", "W=16,V=1,U=1,R=8,S=regs", {1024, 1008, 1001, 992}, 1},
	             {"add_layernorm", "W=16,V=1,U=1,R=2,S=regs", {512, 496, 489, 480}, 1},
	             {"add_layernorm", "W=16,V=1,U=1,R=8,S=reread", {1024, 1008, 1001, 992}, 1},
	             {"add_layernorm", "W=32,V=1,U=1,R=1,S=reread", {8192, 8224, 16384, 32768}, 1},
	             {"add_layernorm", "W=32,V=1,U=1,R=1,S=reread", {131136, 131104, 8209, 8208}, 0},
	             {"add_layernorm", "W=64,V=1,U=2,R=2,S=regs", {1024, 1088, 1041, 1040}, 1}};
	const int64_t rows = 24;
	int compared = 0;
	for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(cases[t].kernel, &kernel) == RR_OK);
		rr_layout layout;
		CHECK(rr_layout_parse(cases[t].layout, &layout) == RR_OK);
		for (int c = 0; kernel && c < 4; c++) {
			const int64_t cols = cases[t].lengths[c];
			rr_program *paired = NULL, *natural = NULL;
			CHECKF(rr_program_build(device, kernel, RR_BF16, rows, cols, &layout,
			                        &paired) == RR_OK,
			       "%s %s: %s", cases[t].kernel, cases[t].layout, rr_last_error());
			setenv("RR_CFLAGS", "-O1 -DRR_BF16_NATURAL", 1);
			CHECKF(rr_program_build(device, kernel, RR_BF16, rows, cols, &layout,
			                        &natural) == RR_OK,
			       "%s %s: %s", cases[t].kernel, cases[t].layout, rr_last_error());
			setenv("RR_CFLAGS", "-O1", 1);
			if (!paired || !natural) {
				rr_program_free(paired);
				rr_program_free(natural);
				continue;
			}
			const char *src = rr_program_source(paired);
			const int kept = cases[t].kept;
			CHECKF(
			    strstr(src, "rr_load_bf16_paired(in0, i, b & 1)") != NULL &&
			        (strstr(src, "rr_widen_col_paired(to + ") != NULL) ==
			            ((strcmp(cases[t].kernel, "rmsnorm") == 0 ? 1 : 2) * 4 * cols <=
			             RR_CPU_WIDE_COL_BYTES) &&
			        (strstr(src, "[b] = rr_unpair_lo(p, q);") != NULL) == kept &&
			        strcmp(src, rr_program_source(natural)) == 0,
			    "%s bf16 %s N=%lld: not the pair-order source", cases[t].kernel,
			    cases[t].layout, (long long)cols);
			validate_view(paired, kernel, RR_BF16, rows, cols, 0, 0);
			rr__host_inputs inputs;
			CHECK(rr__inputs_make(kernel, rows, cols, RR_BF16, 9u + (unsigned)c, NULL,
			                      &inputs) == RR_OK);
			const int offsets[3] = {0, 8, 1};
			for (int v = 0; v < 6; v++) {
				char *a[RR_MAX_IO] = {0}, *b[RR_MAX_IO] = {0};
				run_special(paired, kernel, rows, cols, &inputs, offsets[v % 3], 1,
				            v / 3, a);
				run_special(natural, kernel, rows, cols, &inputs, offsets[v % 3], 1,
				            v / 3, b);
				size_t bytes = (size_t)(rows * cols + 64) * sizeof(uint16_t);
				for (int j = 0; j < kernel->n_outputs; j++)
					CHECKF(same_or_both_nan(a[j], b[j], bytes / 2),
					       "%s bf16 %s %lldx%lld, %d in, stream %d: output %d "
					       "differs in pair order",
					       cases[t].kernel, cases[t].layout, (long long)rows,
					       (long long)cols, offsets[v % 3], v / 3, j);
				const uint16_t *y = (const uint16_t *)a[0] + offsets[v % 3];
				int nans = 0;
				for (int64_t e = 0; e < rows * cols; e++)
					nans += (y[e] & 0x7fff) > 0x7f80;
				CHECK(nans >= cols); /* a NaN row at least */
				compared++;
				for (int j = 0; j < RR_MAX_IO; j++) {
					free(a[j]);
					free(b[j]);
				}
			}
			rr__inputs_free(&inputs);
			rr_program_free(paired);
			rr_program_free(natural);
		}
		rr_kernel_free(kernel);
	}
	CHECK(compared == 9 * 4 * 6);
}

/* Row r of `cols` elements made one of the rows that test an exp(x - m) range's edges, by
 * r % kinds: 1 an element 87.5 to 207.5 under the row's max, 2 one -inf, 3 a quiet NaN with low
 * payload bits and a -NaN, 4 one +inf, 5 every element times 50, 6 an element exactly `edge`
 * under the max, 7 the last element (in the guarded chunk, if any) 120 under it, 8 a -NaN whose
 * low 9 payload bits are set (t << 23 of its x - m is not 0); 0 and the rest unchanged. */
static void make_special_row(float *row, int64_t cols, int64_t r, int kinds, float edge)
{
	const int64_t at = (r * 37 + 11) % cols;
	float m = row[0];
	for (int64_t j = 1; j < cols; j++)
		m = row[j] > m ? row[j] : m;
	uint32_t bits = 0x7fc00000u | (uint32_t)(r * 4099u & 0x3fffffu);
	switch (r % kinds) {
	case 1:
		row[at] = m - 87.5f - (float)(r % 5) * 30.0f;
		break;
	case 2:
		row[at] = -INFINITY;
		break;
	case 3:
		memcpy(&row[at], &bits, sizeof bits);
		row[(at + 5) % cols] = -NAN;
		break;
	case 4:
		row[at] = INFINITY;
		break;
	case 5:
		for (int64_t j = 0; j < cols; j++)
			row[j] *= 50.0f;
		break;
	case 6:
		row[at] = m - edge;
		break;
	case 7:
		row[cols - 1] = m - 120.0f;
		break;
	case 8:
		bits = 0xffc001ffu;
		memcpy(&row[at], &bits, sizeof bits);
		break;
	default:
		break;
	}
}

/* cross_entropy f32's sum pass without exp's clamp to -87 where the max pass finds every
 * x - m of the row at -87 or more (c_emit.c, summed_range_max): the source built as it is and
 * with RR_SUMMED_RANGED 0 (the clamp on every row) writes the same loss bits, on rows in range
 * and rows with an element 87 to 200 under the max, -inf, +inf, NaNs with payloads, a spread of
 * +-150, and the element at the max - 87 exactly; rows aligned, 4 and 16 bytes in; N with and
 * without a guarded chunk, over and under 1024 (under it the max pass takes no least value). The
 * ranged build validates against float64. */
static void test_summed_ranged(rr_device *device)
{
	static const int64_t lengths[] = {1024, 1040, 4100, 65536, 1000};
	const int64_t rows = 24;
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("cross_entropy", &kernel) == RR_OK);
	for (size_t c = 0; kernel && c < sizeof lengths / sizeof lengths[0]; c++) {
		const int64_t cols = lengths[c];
		rr_program *ranged = NULL, *clamped = NULL;
		CHECKF(rr_program_build(device, kernel, RR_F32, rows, cols, NULL, &ranged) == RR_OK,
		       "%s", rr_last_error());
		setenv("RR_CFLAGS", "-O1 -DRR_SUMMED_RANGED=0", 1);
		CHECKF(rr_program_build(device, kernel, RR_F32, rows, cols, NULL, &clamped) ==
		           RR_OK,
		       "%s", rr_last_error());
		setenv("RR_CFLAGS", "-O1", 1);
		if (!ranged || !clamped) {
			rr_program_free(ranged);
			rr_program_free(clamped);
			continue;
		}
		const char *src = rr_program_source(ranged);
		CHECKF(strstr(src, "rr_vexp_nonpos_summed_ranged(e") != NULL &&
		           strstr(src, "RR_SUMMED_RANGED && lo") != NULL &&
		           strstr(src, "= rr_vmin_acc(low") != NULL &&
		           strcmp(src, rr_program_source(clamped)) == 0,
		       "cross_entropy f32 N=%lld: not the source with the ranged sum pass",
		       (long long)cols);
		validate_view(ranged, kernel, RR_F32, rows, cols, 0, 0);
		rr__host_inputs inputs;
		CHECK(rr__inputs_make(kernel, rows, cols, RR_F32, 31u + (unsigned)c, NULL,
		                      &inputs) == RR_OK);
		static const int offsets[] = {0, 1, 4};
		for (int o = 0; o < 3; o++) {
			float *x = calloc((size_t)(rows * cols + 16), sizeof(float));
			float *loss[2] = {calloc((size_t)rows + 16, sizeof(float)),
			                  calloc((size_t)rows + 16, sizeof(float))};
			if (!x || !loss[0] || !loss[1]) {
				CHECK(0);
				free(x), free(loss[0]), free(loss[1]);
				continue;
			}
			float *row0 = x + offsets[o];
			memcpy(row0, inputs.owned[0], (size_t)(rows * cols) * sizeof(float));
			for (int64_t r = 0; r < rows; r++)
				make_special_row(row0 + r * cols, cols, r, 8, 87.0f);
			for (int b = 0; b < 2; b++) {
				rr_arg args[RR_MAX_IO];
				for (int k = 0; k < inputs.count; k++)
					args[k] = inputs.args[k];
				args[0].data = row0;
				void *out[RR_MAX_IO] = {loss[b] + offsets[o]};
				CHECK(rr_program_launch(b ? clamped : ranged, rows, args, out,
				                        NULL) == RR_OK);
			}
			/* A NaN loss may carry either NaN's sign: which operand of an add or a
			 * max the hardware passes on is the compiler's choice of operand order,
			 * which the two builds may make differently. */
			for (int b = 0; b < 2; b++)
				for (int64_t r = 0; r < rows + 16; r++)
					if (isnan(loss[b][r]))
						loss[b][r] = NAN;
			CHECKF(memcmp(loss[0], loss[1], (size_t)(rows + 16) * sizeof(float)) == 0,
			       "cross_entropy f32 %lldx%lld, %d in: the ranged sum pass changes a "
			       "loss",
			       (long long)rows, (long long)cols, offsets[o]);
			int finite = 0;
			for (int64_t r = 0; r < rows; r++)
				finite += isfinite(loss[0][offsets[o] + r]);
			CHECK(finite >= rows / 2 && finite < rows);
			free(x), free(loss[0]), free(loss[1]);
		}
		rr__inputs_free(&inputs);
		rr_program_free(ranged);
		rr_program_free(clamped);
	}
	rr_kernel_free(kernel);
}

/* The number of times `needle` occurs in `text`. */
static int occurrences(const char *text, const char *needle)
{
	int n = 0;
	for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
		n++;
	return n;
}

/* Whether the source the planner builds for `kernel` at 24 x cols calls rr_vexp_nonpos_ranged. */
static int source_takes_ranged_exp(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                                   int64_t cols)
{
	rr_program *program = NULL;
	CHECKF(rr_program_build(device, kernel, dtype, 24, cols, NULL, &program) == RR_OK, "%s",
	       rr_last_error());
	const int takes = program && strstr(rr_program_source(program), "rr_vexp_nonpos_ranged(e");
	rr_program_free(program);
	return takes;
}

/* One launch of softmax f32 over `x` (rows x cols, `offset` elements into its buffer), RR_STREAM
 * BYTES `stream` (NULL: the launch's own choice, "0": streamed), into out + offset. */
static void run_softmax(rr_program *program, float *x, int64_t rows, int64_t cols, int offset,
                        const char *stream, float *out)
{
	if (stream)
		setenv("RR_STREAM_BYTES", stream, 1);
	rr_arg arg = {.data = x + offset, .dtype = RR_F32};
	void *outputs[1] = {out + offset};
	rr__poison(out, RR_F32, rows * cols + 16);
	CHECK(rr_program_launch(program, rows, &arg, outputs, NULL) == RR_OK);
	if (stream)
		unsetenv("RR_STREAM_BYTES");
}

/* softmax f32's sum pass without exp's rare-lane test where the max pass finds every x - m of
 * the row at -86.5 or more (c_emit.c, stored_ranged): the source takes rr_vexp_nonpos_ranged in
 * one_row and in one_row_piped where the max feeds only exp(x - m), and not for bf16,
 * cross_entropy (its max is in the loss: the summed form) or a softmax whose max feeds its output
 * too. Built as it is and with RR_NONPOS_RANGED 0 (the tested form on every row), the outputs
 * are the same bits (NaNs as NaN: which of a row's two NaNs its sum carries is the compiler's
 * operand order), and the ranged build validates against float64, on rows in range and rows
 * with an element 87.5 to 207.5 under the max, -inf, +inf, two NaNs, one NaN whose low payload
 * bits are set, a spread of +-150, the element at the max - 86.5 exactly and one at the max - 120
 * in the last chunk; rows aligned and one element in, streamed (piped rows; from 16384 elements
 * the cache in the row) and not; N with and without a guarded chunk, and 1000 (under 1024 the
 * max pass takes no least value, the test stays). */
static void test_nonpos_ranged(rr_device *device)
{
	static const int64_t lengths[] = {1040, 4100, 16400, 1000};
	const int64_t rows = 27;
	rr_kernel *kernel = NULL, *other = NULL;
	CHECK(rr_kernel_load_builtin("softmax", &kernel) == RR_OK);
	if (kernel)
		CHECK(!source_takes_ranged_exp(device, kernel, RR_BF16, 4096));
	CHECK(rr_kernel_load_builtin("cross_entropy", &other) == RR_OK);
	if (other)
		CHECK(!source_takes_ranged_exp(device, other, RR_F32, 4096));
	rr_kernel_free(other);
	other = NULL;
	static const char shifted[] =
	    "kernel softmax_plus_max\n  in x : row\n  out y : row\n"
	    "  m = max(x)\n  s = sum(exp(x - m))\n  y = exp(x - m) / s + m\n";
	CHECKF(rr_kernel_load_string(shifted, sizeof shifted - 1, "shifted", &other) == RR_OK, "%s",
	       rr_last_error());
	if (other)
		CHECK(!source_takes_ranged_exp(device, other, RR_F32, 4096));
	rr_kernel_free(other);
	for (size_t c = 0; kernel && c < sizeof lengths / sizeof lengths[0]; c++) {
		const int64_t cols = lengths[c];
		rr_program *ranged = NULL, *tested = NULL;
		CHECKF(rr_program_build(device, kernel, RR_F32, rows, cols, NULL, &ranged) == RR_OK,
		       "%s", rr_last_error());
		setenv("RR_CFLAGS", "-O1 -DRR_NONPOS_RANGED=0", 1);
		CHECKF(rr_program_build(device, kernel, RR_F32, rows, cols, NULL, &tested) == RR_OK,
		       "%s", rr_last_error());
		setenv("RR_CFLAGS", "-O1", 1);
		if (!ranged || !tested) {
			rr_program_free(ranged);
			rr_program_free(tested);
			continue;
		}
		const char *src = rr_program_source(ranged);
		CHECKF(occurrences(src, "RR_NONPOS_RANGED && lo") == 2 &&
		           strstr(src, "one_row_piped(") != NULL &&
		           occurrences(src, "rr_vexp_nonpos_ranged(e") >= 4 &&
		           strstr(src, "= rr_vmin_acc(low") != NULL &&
		           strcmp(src, rr_program_source(tested)) == 0,
		       "softmax f32 N=%lld: not the source with the ranged sum pass in one_row and "
		       "one_row_piped",
		       (long long)cols);
		rr__host_inputs inputs;
		CHECK(rr__inputs_make(kernel, rows, cols, RR_F32, 41u + (unsigned)c, NULL,
		                      &inputs) == RR_OK);
		float *x0 = inputs.owned[0];
		for (int64_t r = 0; r < rows; r++)
			make_special_row(x0 + r * cols, cols, r, 9, 86.5f);
		const size_t floats = (size_t)(rows * cols + 16);
		float *x = malloc(floats * sizeof(float));
		float *out[2] = {malloc(floats * sizeof(float)), malloc(floats * sizeof(float))};
		for (int o = 0; x && out[0] && out[1] && o < 2; o++)
			for (int streamed = 0; streamed < 2; streamed++) {
				memcpy(x + o, x0, (size_t)(rows * cols) * sizeof(float));
				const char *stream = streamed ? "0" : NULL;
				run_softmax(ranged, x, rows, cols, o, stream, out[0]);
				run_softmax(tested, x, rows, cols, o, stream, out[1]);
				for (int b = 0; b < 2; b++)
					for (size_t i = 0; i < floats; i++)
						if (isnan(out[b][i]))
							out[b][i] = NAN;
				CHECKF(memcmp(out[0], out[1], floats * sizeof(float)) == 0,
				       "softmax f32 %lldx%lld, %d in%s: the ranged sum pass "
				       "changes an output",
				       (long long)rows, (long long)cols, o,
				       streamed ? ", streamed" : "");
				run_softmax(ranged, x, rows, cols, o, stream, out[0]);
				void *outputs[1] = {out[0] + o};
				rr__validation report;
				CHECKF(rr__validate_outputs(kernel, rows, cols, RR_F32, &inputs,
				                            outputs, NULL, &report) == RR_OK,
				       "softmax f32 %lldx%lld, %d in%s, the ranged sum pass: %s",
				       (long long)rows, (long long)cols, o,
				       streamed ? ", streamed" : "", rr_last_error());
			}
		CHECK(x && out[0] && out[1]);
		free(x), free(out[0]), free(out[1]);
		rr__inputs_free(&inputs);
		rr_program_free(ranged);
		rr_program_free(tested);
	}
	rr_kernel_free(kernel);
}

/* In launches that stream, the output phase of the norms prefetches the next row of every row
 * input (c_emit.c, prefetch_in_output), f32 and bf16, re-read and kept rows alike, in a copy of
 * the phase of its own: the source has that copy with one prefetch a row input (and counts
 * the row inputs for prefetch_ahead's distance; add_layernorm f32's h, written in round 1, is
 * prefetched for writing), and the streamed outputs equal the plain ones (rows aligned and 16
 * bytes in, a guarded last chunk or not, the bf16 phase's two-chunk runs with U = 2 and
 * U = 1). */
static void test_output_prefetch(rr_device *device)
{
	static const char *const names[] = {"rmsnorm", "layernorm", "add_layernorm"};
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16};
	static const rr_layout layouts[] = {{.workers_per_row = 16,
	                                     .vec = 1,
	                                     .unroll = 1,
	                                     .rows_per_group = 1,
	                                     .storage = RR_STORAGE_REREAD},
	                                    {.workers_per_row = 32,
	                                     .vec = 1,
	                                     .unroll = 2,
	                                     .rows_per_group = 2,
	                                     .storage = RR_STORAGE_REGS}};
	const int64_t rows = 5, lengths[2] = {1001, 1024};
	int compared = 0;
	for (int k = 0; k < 3; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (int c = 0; kernel && c < 2 * 2 * 2; c++) {
			const rr_dtype dtype = dtypes[c % 2];
			const int64_t cols = lengths[c / 2 % 2];
			rr_program *program = NULL;
			CHECKF(rr_program_build(device, kernel, dtype, rows, cols, &layouts[c / 4],
			                        &program) == RR_OK,
			       "%s: %s", names[k], rr_last_error());
			if (!program)
				continue;
			const char *source = rr_program_source(program);
			char row_inputs[64]; /* prefetch_ahead's bytes a row: every row input's */
			snprintf(row_inputs, sizeof row_inputs, "#define ROW_INPUTS %d ",
			         k == 2 ? 2 : 1);
			CHECKF(strstr(source, row_inputs) != NULL, "%s: want %s", names[k],
			       row_inputs);
			const char *branch = strstr(source, "if (stream) { /* past the caches");
			CHECKF(branch != NULL, "%s %s: no streaming copy of the output phase",
			       names[k], rr_dtype_name(dtype));
			for (int i = 0; branch && i < kernel->n_inputs; i++) {
				char prefetch[96];
				snprintf(
				    prefetch, sizeof prefetch,
				    "__builtin_prefetch(in%d + prefetch_ahead(N, stream) + i);", i);
				CHECKF((strstr(branch, prefetch) != NULL) ==
				           (kernel->inputs[i].kind == RR_KIND_ROW),
				       "%s %s: input %d's next-row prefetch", names[k],
				       rr_dtype_name(dtype), i);
			}
			/* add_layernorm f32 re-read writes h in round 1, to scratch where the
			 * launch streams; the streamed output phase stores it (no line of the
			 * row fetched for it) */
			const int early = k == 2 && dtype == RR_F32 && c / 4 == 0;
			CHECKF(strstr(source, "__builtin_prefetch(out1") == NULL,
			       "%s %s: an output's lines fetched", names[k], rr_dtype_name(dtype));
			CHECKF((strstr(source, "io_t *const early1 = stream ? (io_t *)(void *)(scratch "
			                       "+ early_rows_at(N)") != NULL) == early,
			       "%s %s: h in scratch where streamed", names[k], rr_dtype_name(dtype));
			CHECKF(!branch || !early ||
			           strstr(branch, "rr_store_aligned(&aligned1, out1, i, stream, e") !=
			               NULL,
			       "%s %s: the early output streamed by the output phase", names[k],
			       rr_dtype_name(dtype));
			const int offsets[2] = {0, (int)(16 / rr_dtype_size(dtype))};
			for (int o = 0; o < 2; o++)
				compare_streamed(program, kernel, dtype, rows, cols, offsets[o],
				                 &compared);
			rr_program_free(program);
		}
		rr_kernel_free(kernel);
	}
	CHECK(compared >= 3 * 8 * 2);
}

/* Round 1 of rmsnorm and layernorm f32 fetches the first eighth of the next row in launches
 * that stream (c_emit.c, prefetch_lead_in_round): the source calls prefetch_lead for the row
 * input in the packs of round 1's pass and nowhere after it (not in later rounds, not in the
 * output phase); bf16, add_layernorm (two row inputs) and the kernels without that output
 * phase (sum, softmax, cross_entropy) not at all;
 * streamed outputs equal the plain ones (odd and even lengths, rows aligned, 16 bytes in and
 * one element in, re-read and kept rows). */
static void test_round_lead(rr_device *device)
{
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16};
	static const rr_layout layouts[] = {{.workers_per_row = 16,
	                                     .vec = 1,
	                                     .unroll = 1,
	                                     .rows_per_group = 1,
	                                     .storage = RR_STORAGE_REREAD},
	                                    {.workers_per_row = 32,
	                                     .vec = 1,
	                                     .unroll = 2,
	                                     .rows_per_group = 2,
	                                     .storage = RR_STORAGE_REGS}};
	const char *const *names = rr_builtin_names();
	const int64_t rows = 5, lengths[2] = {1001, 1023};
	int compared = 0, leading = 0;
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		const int norm = !strcmp(names[k], "rmsnorm") || !strcmp(names[k], "layernorm") ||
		                 !strcmp(names[k], "add_layernorm");
		const int leads = norm && strcmp(names[k], "add_layernorm") != 0;
		for (int c = 0; kernel && c < 2 * 2 * 2; c++) {
			const rr_dtype dtype = dtypes[c % 2];
			const int64_t cols = lengths[c / 2 % 2];
			rr_program *program = NULL;
			CHECKF(rr_program_build(device, kernel, dtype, rows, cols,
			                        norm ? &layouts[c / 4] : NULL, &program) == RR_OK,
			       "%s: %s", names[k], rr_last_error());
			if (!program)
				continue;
			const char *source = rr_program_source(program);
			const char *round1 = strstr(source, "/* round 1:");
			const char *after = round1 ? strstr(round1, "/* round 2:") : NULL;
			if (!after && round1)
				after = strstr(round1, "/* output phase");
			const int want = leads && dtype == RR_F32;
			for (int i = 0; round1 && i < kernel->n_inputs; i++) {
				char call[64];
				snprintf(call, sizeof call, "prefetch_lead(in%d, N, h, i);", i);
				const char *at = strstr(source, call);
				const int row = kernel->inputs[i].kind == RR_KIND_ROW;
				CHECKF((at != NULL) == (want && row), "%s %s %lld: input %d's lead",
				       names[k], rr_dtype_name(dtype), (long long)cols, i);
				CHECKF(!at || (at > round1 && after && at < after),
				       "%s %s: the lead outside round 1's pass", names[k],
				       rr_dtype_name(dtype));
				const char *last = at;
				while (last && strstr(last + 1, call))
					last = strstr(last + 1, call);
				CHECKF(!last || last < after, "%s %s: a lead after round 1",
				       names[k], rr_dtype_name(dtype));
				leading += at != NULL;
			}
			const int offsets[3] = {0, (int)(16 / rr_dtype_size(dtype)), 1};
			for (int o = 0; norm && o < 3; o++)
				compare_streamed(program, kernel, dtype, rows, cols, offsets[o],
				                 &compared);
			rr_program_free(program);
		}
		rr_kernel_free(kernel);
	}
	CHECK(compared >= 3 * 8 * 3);
	CHECKF(leading == (1 + 1) * 4, "%d leads", leading);
}

/* Streaming stays on unless two row outputs and a row input sit within RR_CPU_ALIAS_BYTES of
 * each other modulo 4 KiB (NumPy's arrays 16 bytes apart), either way round and across a page
 * boundary; one output near an input, or two outputs near each other alone, keep it. */
static void test_outputs_alias(void)
{
	static char page[5 * 4096];
	const void *in[2];
	void *out[2];
	in[0] = page, in[1] = page + 4096 + 16;
	out[0] = page + 2 * 4096 + 32, out[1] = page + 3 * 4096 + 48;
	CHECK(rr__cpu_outputs_alias(in, 2, out, 2));
	out[0] = page + 2 * 4096 + 4064, out[1] = page + 3 * 4096 + 4080; /* just below in[0] */
	CHECK(rr__cpu_outputs_alias(in, 2, out, 2));
	in[1] = page + 4096 + 2048; /* one input near the outputs is enough */
	CHECK(rr__cpu_outputs_alias(in, 2, out, 2));
	out[0] = page + 2 * 4096 + 32, out[1] = page + 3 * 4096 + 1024; /* one output near */
	CHECK(!rr__cpu_outputs_alias(in, 2, out, 2));
	out[0] = page + 2 * 4096 + 1024, out[1] = page + 3 * 4096 + 1040; /* outputs near, alone */
	CHECK(!rr__cpu_outputs_alias(in, 2, out, 2));
	out[0] = page + 2 * 4096 + RR_CPU_ALIAS_BYTES + 64, out[1] = out[0];
	CHECK(!rr__cpu_outputs_alias(in, 2, out, 2));
	out[0] = page + 2 * 4096 + RR_CPU_ALIAS_BYTES;
	CHECK(rr__cpu_outputs_alias(in, 2, out, 2));
	CHECK(!rr__cpu_outputs_alias(in, 2, out, 1)); /* a single output never */
}

/* The aliased placement turns streaming off on Zen 3 and unmeasured CPUs, not on Intel's or
 * Zen 4 (family 25 model 17 streamed it in 0.69-0.87 of the time, bench/lab/s62-cpu). */
static void test_alias_stalls(void)
{
	CHECK(rr__cpu_alias_stalls("AuthenticAMD", 25, 1));   /* Zen 3, EPYC */
	CHECK(rr__cpu_alias_stalls("AuthenticAMD", 25, 33));  /* Zen 3, desktop */
	CHECK(!rr__cpu_alias_stalls("AuthenticAMD", 25, 17)); /* Zen 4, EPYC */
	CHECK(!rr__cpu_alias_stalls("AuthenticAMD", 25, 97)); /* Zen 4, desktop */
	CHECK(!rr__cpu_alias_stalls("AuthenticAMD", 25, 160));
	CHECK(rr__cpu_alias_stalls("AuthenticAMD", 25, 0x90)); /* outside the models listed */
	CHECK(rr__cpu_alias_stalls("AuthenticAMD", 25, 0x50)); /* Zen 3, mobile */
	CHECK(rr__cpu_alias_stalls("AuthenticAMD", 26, 17)); /* unmeasured */
	CHECK(rr__cpu_alias_stalls("AuthenticAMD", 23, 49));
	CHECK(!rr__cpu_alias_stalls("GenuineIntel", 6, 143));
	CHECK(rr__cpu_alias_stalls("HygonGenuine", 24, 1));
	CHECK(rr__cpu_alias_stalls("", 0, 0)); /* no /proc/cpuinfo */
}

/* Files in `dir` whose name ends with `suffix`. */
static int count_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	int count = 0;
	if (!d)
		return -1;
	for (struct dirent *entry; (entry = readdir(d));) {
		size_t length = strlen(entry->d_name), tail = strlen(suffix);
		count += length > tail && strcmp(entry->d_name + length - tail, suffix) == 0;
	}
	closedir(d);
	return count;
}

/* Removes a folder and everything under it. */
static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	for (struct dirent *entry; d && (entry = readdir(d));) {
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		char child[4400];
		snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
		struct stat st;
		if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(child);
		else
			unlink(child);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

/* Removes the test's cache folder: <cache>/cpu with its objects and precompiled preludes. */
static void remove_cache(const char *cache)
{
	remove_tree(cache);
	CHECK(access(cache, F_OK) != 0);
}

/* The name of the first `prelude-*` folder in `dir` ("" when there is none). */
static void find_prelude(const char *dir, char *name, size_t size)
{
	name[0] = 0;
	DIR *d = opendir(dir);
	for (struct dirent *entry; d && (entry = readdir(d));)
		if (strncmp(entry->d_name, "prelude-", 8) == 0) {
			snprintf(name, size, "%s", entry->d_name);
			break;
		}
	if (d)
		closedir(d);
}

static int file_exists(const char *folder, const char *name)
{
	char path[4700];
	snprintf(path, sizeof path, "%s/%s", folder, name);
	return access(path, F_OK) == 0;
}

/* The precompiled prelude changes no byte of a kernel object: the object built with it in one
 * cache equals the one built in a second cache where the prelude is marked unusable (so the
 * compiler parses the headers as text). A damaged .gch is not an error: the build still
 * succeeds. */
static void test_prelude(rr_device *device, const rr_kernel *kernel, const char *cache)
{
	char first_cache[4200], second_cache[4200], dir[4096], folder[4600], name[256];
	snprintf(first_cache, sizeof first_cache, "%s/prelude-a", cache);
	snprintf(second_cache, sizeof second_cache, "%s/prelude-b", cache);
	rr_layout layout = {.workers_per_row = 4, .vec = 4, .unroll = 1, .rows_per_group = 2};
	rr_program *with = NULL, *without = NULL, *damaged = NULL;

	setenv("RR_CACHE_DIR", first_cache, 1);
	rr__cpu_cache_dir(dir, sizeof dir);
	CHECK(rr_program_build(device, kernel, RR_BF16, 3, 77, &layout, &with) == RR_OK);
	find_prelude(dir, name, sizeof name);
	CHECK(name[0] != 0);
	snprintf(folder, sizeof folder, "%s/%s", dir, name);
	CHECK(file_exists(folder, "rr_prelude.h"));
	/* gcc and clang both build it; another compiler may mark it unusable */
	CHECK(file_exists(folder, "rr_prelude.h.gch") || file_exists(folder, "unusable"));

	setenv("RR_CACHE_DIR", second_cache, 1);
	rr__cpu_cache_dir(dir, sizeof dir);
	snprintf(folder, sizeof folder, "%s/%s", dir, name);
	CHECK(rr__mkdir_p(folder) == RR_OK);
	char marker[4700];
	snprintf(marker, sizeof marker, "%s/unusable", folder);
	CHECK(rr__write_file_atomic(marker, "", 0) == RR_OK);
	CHECK(rr_program_build(device, kernel, RR_BF16, 3, 77, &layout, &without) == RR_OK);
	CHECK(!file_exists(folder, "rr_prelude.h.gch"));
	if (with && without)
		CHECK(strcmp(rr_program_binary_hash(with), rr_program_binary_hash(without)) == 0);

	/* A damaged precompiled header in the first cache: a new kernel still builds, and the
	 * header is built again (a compiler that reads it would otherwise skip it every time). */
	setenv("RR_CACHE_DIR", first_cache, 1);
	rr__cpu_cache_dir(dir, sizeof dir);
	snprintf(folder, sizeof folder, "%s/%s/rr_prelude.h.gch", dir, name);
	int had_gch = access(folder, F_OK) == 0;
	if (had_gch)
		CHECK(rr__write_file_atomic(folder, "not a precompiled header", 24) == RR_OK);
	layout.unroll = 2;
	CHECK(rr_program_build(device, kernel, RR_BF16, 3, 77, &layout, &damaged) == RR_OK);
	if (had_gch) {
		char *text = NULL;
		size_t size = 0;
		CHECK(rr__read_file(folder, &text, &size) == RR_OK);
		CHECKF(text && size > 24 && strncmp(text, "not a precompiled", 17) != 0,
		       "the damaged %s was not built again (%zu bytes)", folder, size);
		free(text);
	}
	rr_program_free(with);
	rr_program_free(without);
	rr_program_free(damaged);
	setenv("RR_CACHE_DIR", cache, 1);
}

/* A program built twice runs the compiler once; the shared object is in the cache folder. */
static void test_cache_reuse(rr_device *device, const rr_kernel *kernel, const char *cache)
{
	setenv("RR_CACHE_DIR", cache, 1);
	rr_layout layout = {.workers_per_row = 8, .vec = 2, .unroll = 2, .rows_per_group = 1};
	long before = rr__cpu_compiler_runs();
	rr_program *first = NULL, *second = NULL;
	CHECK(rr_program_build(device, kernel, RR_F16, 4, 300, &layout, &first) == RR_OK);
	CHECK(rr__cpu_compiler_runs() == before + 1);
	/* A different N shares the object: N is a run-time argument. */
	CHECK(rr_program_build(device, kernel, RR_F16, 4, 301, &layout, &second) == RR_OK);
	CHECK(rr__cpu_compiler_runs() == before + 1);
	rr_program *third = NULL;
	CHECK(rr_program_build(device, kernel, RR_F16, 4, 300, &layout, &third) == RR_OK);
	CHECK(rr__cpu_compiler_runs() == before + 1);
	rr_program_free(third);
	if (first && second) {
		CHECK(strcmp(rr_program_source_hash(first), rr_program_source_hash(second)) == 0);
		CHECK(strcmp(rr_program_binary_hash(first), rr_program_binary_hash(second)) == 0);
		CHECK(strlen(rr_program_binary_hash(first)) == 64);
		char dir[4096];
		rr__cpu_cache_dir(dir, sizeof dir);
		CHECK(strncmp(dir, cache, strlen(cache)) == 0);
		CHECK(count_files(dir, ".so") == 1);
	}
	rr_program_free(first);
	rr_program_free(second);
}

typedef struct build_job {
	rr_device *device;
	const rr_kernel *kernel;
	rr_status status;
	char binary_hash[65];
} build_job;

static void *build_in_thread(void *arg)
{
	build_job *job = arg;
	rr_layout layout = {.workers_per_row = 16, .vec = 4, .unroll = 3, .rows_per_group = 2};
	rr_program *program = NULL;
	job->status =
	    rr_program_build(job->device, job->kernel, RR_BF16, 8, 999, &layout, &program);
	if (program)
		snprintf(job->binary_hash, sizeof job->binary_hash, "%s",
		         rr_program_binary_hash(program));
	rr_program_free(program);
	return NULL;
}

/* Two threads building one new program at once both succeed and load the same object. */
static void test_concurrent_builds(rr_device *device, const rr_kernel *kernel)
{
	build_job jobs[2] = {{.device = device, .kernel = kernel},
	                     {.device = device, .kernel = kernel}};
	pthread_t threads[2];
	for (int t = 0; t < 2; t++)
		CHECK(pthread_create(&threads[t], NULL, build_in_thread, &jobs[t]) == 0);
	for (int t = 0; t < 2; t++)
		pthread_join(threads[t], NULL);
	CHECK(jobs[0].status == RR_OK && jobs[1].status == RR_OK);
	CHECK(strcmp(jobs[0].binary_hash, jobs[1].binary_hash) == 0);
}

/* The generated code's half-precision conversions give the bits of util.h's for every finite
 * or infinite input pattern: y = x * 1.5 rounds one f32 product per element. */
static void test_conversions(rr_device *device)
{
	static const char text[] = "kernel scale\n  in x : row\n  out y : row\n  y = x * 1.5\n";
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_string(text, strlen(text), "<scale>", &kernel) == RR_OK);
	if (!kernel)
		return;
	const int64_t n = 65536;
	uint16_t *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
	for (int64_t i = 0; i < n; i++)
		x[i] = (uint16_t)i;
	rr_dtype dtypes[2] = {RR_BF16, RR_F16};
	for (int d = 0; d < 2; d++) {
		rr_layout layout = {
		    .workers_per_row = 4, .vec = 8, .unroll = 2, .rows_per_group = 1};
		rr_program *program = NULL;
		CHECK(rr_program_build(device, kernel, dtypes[d], 1, n, &layout, &program) ==
		      RR_OK);
		if (!program)
			continue;
		rr_arg arg = {.data = x, .dtype = dtypes[d]};
		void *outputs[1] = {y};
		CHECK(rr_program_launch(program, 1, &arg, outputs, NULL) == RR_OK);
		int mismatches = 0;
		for (int64_t i = 0; i < n; i++) {
			float v =
			    dtypes[d] == RR_BF16 ? rr__bf16_to_f32(x[i]) : rr__f16_to_f32(x[i]);
			if (isnan(v))
				continue;
			float product = v * 1.5f;
			uint16_t want = dtypes[d] == RR_BF16 ? rr__f32_to_bf16(product)
			                                     : rr__f32_to_f16(product);
			mismatches += y[i] != want;
		}
		CHECKF(mismatches == 0, "%s: %d elements differ from util.h's rounding",
		       rr_dtype_name(dtypes[d]), mismatches);
		rr_program_free(program);
	}
	free(x);
	free(y);
	rr_kernel_free(kernel);
}

static void expect_compile_error(rr_device *device, const rr_kernel *kernel, const char *cc,
                                 const char *cflags, const char *needle)
{
	setenv("RR_CC", cc, 1);
	setenv("RR_CFLAGS", cflags, 1);
	rr_layout layout = {.workers_per_row = 2, .vec = 1, .unroll = 1, .rows_per_group = 1};
	rr_program *program = NULL;
	rr_status status = rr_program_build(device, kernel, RR_F32, 1, 10, &layout, &program);
	CHECKF(status == RR_ERR_COMPILE, "RR_CC=%s RR_CFLAGS=%s: status %s", cc, cflags,
	       rr_status_string(status));
	CHECKF(strstr(rr_last_error(), needle) != NULL, "message lacks '%s': %s", needle,
	       rr_last_error());
	CHECK(program == NULL);
	rr_program_free(program);
}

static void test_compile_errors(rr_device *device, const rr_kernel *kernel)
{
	const char *cc = getenv("RR_CC");
	char saved_cc[512] = "";
	if (cc)
		snprintf(saved_cc, sizeof saved_cc, "%s", cc);
	expect_compile_error(device, kernel, "/nonexistent/rr-cc", "-O1", "/nonexistent/rr-cc");
	expect_compile_error(device, kernel, "false", "-O1", "rejected");
	expect_compile_error(device, kernel, saved_cc[0] ? saved_cc : "cc",
	                     "-O1 -include /nonexistent/rr-header.h", "rr-header.h");
	if (saved_cc[0])
		setenv("RR_CC", saved_cc, 1);
	else
		unsetenv("RR_CC");
	setenv("RR_CFLAGS", "-O1", 1);
}

static void test_arguments(rr_device *device)
{
	rr_device *bad = NULL;
	CHECK(rr_device_open("tpu", &bad) == RR_ERR_INVALID_ARG && bad == NULL);
	CHECKF(strstr(rr_last_error(), "cpu") != NULL, "%s", rr_last_error());
	CHECK(strcmp(rr_device_backend(device), "cpu") == 0);
	CHECK(strlen(rr_device_name(device)) > 0);

	rr_kernel *ce = NULL;
	CHECK(rr_kernel_load("cross_entropy", &ce) == RR_OK);
	rr_program *program = NULL;
	CHECK(rr_program_build(device, ce, RR_F64, 1, 10, NULL, &program) == RR_ERR_INVALID_ARG);
	CHECK(rr_program_build(device, ce, RR_F32, 1, 0, NULL, &program) == RR_ERR_INVALID_ARG);
	CHECK(rr_program_build(device, ce, RR_F32, 4, 10, NULL, &program) == RR_OK);
	if (program) {
		float x[40], loss[4];
		int64_t t[4] = {0, 9, 3, 4};
		for (int i = 0; i < 40; i++)
			x[i] = (float)rr_test_uniform(&rng, -3.0, 3.0);
		rr_arg args[2] = {{.data = x, .dtype = RR_F32}, {.data = t, .dtype = RR_I64}};
		void *outputs[1] = {loss};
		CHECK(rr_program_launch(program, -1, args, outputs, NULL) == RR_ERR_INVALID_ARG);
		args[1].dtype = RR_F32;
		CHECK(rr_program_launch(program, 4, args, outputs, NULL) == RR_ERR_INVALID_ARG);
		CHECKF(strstr(rr_last_error(), "i64") != NULL, "%s", rr_last_error());
		args[1].dtype = RR_I64;
		args[0].data = NULL;
		CHECK(rr_program_launch(program, 4, args, outputs, NULL) == RR_ERR_INVALID_ARG);
		args[0].data = x;
		CHECK(rr_program_launch(program, 4, args, outputs, NULL) == RR_OK);
		/* The loss of row 1 by hand: logsumexp minus the target's value. */
		double m = -INFINITY, s = 0;
		for (int i = 10; i < 20; i++)
			m = fmax(m, x[i]);
		for (int i = 10; i < 20; i++)
			s += exp(x[i] - m);
		double want = m + log(s) - x[10 + 9];
		CHECKF(fabs(loss[1] - want) < 1e-5 * fmax(1.0, fabs(want)), "loss %g want %g",
		       (double)loss[1], want);
		/* An index outside [0, N) is refused by the launch; below it, the kernel's own
		 * gather reads NaN for it, never memory (the cuda launch relies on that). */
		int64_t outside[4] = {-1, 10, 1000000, 2};
		args[1].data = outside;
		CHECK(rr_program_launch(program, 4, args, outputs, NULL) == RR_ERR_INVALID_ARG);
		CHECKF(strstr(rr_last_error(), "is -1 at row 0"), "%s", rr_last_error());
		CHECK(program->device->ops->launch(program->device, program, 4, args, outputs,
		                                   NULL) == RR_OK);
		CHECK(isnan(loss[0]) && isnan(loss[1]) && isnan(loss[2]) && !isnan(loss[3]));
		const char *source = rr_program_source(program);
		CHECK(strstr(source, "plan     W=") != NULL);
		CHECK(strstr(source, "kernel cross_entropy") != NULL);
		CHECK(strlen(rr_program_source_hash(program)) == 64);
	}
	rr_program_free(program);
	rr_kernel_free(ce);
}

int main(void)
{
	char cache[] = "/tmp/rr-test-cpu-XXXXXX";
	if (!mkdtemp(cache)) {
		fprintf(stderr, "cannot create a temporary cache folder\n");
		return 1;
	}
	if (!getenv("RR_CACHE_DIR"))
		setenv("RR_CACHE_DIR", cache, 1);
	setenv("RR_CFLAGS", "-O1", 1);
	rr_device *device = NULL;
	CHECK(rr_device_open("cpu", &device) == RR_OK);
	rr_kernel *sum = NULL;
	CHECK(rr_kernel_load("sum", &sum) == RR_OK);
	if (device && sum) {
		test_sum_bitwise(device, sum);
		test_misaligned_views(device);
		test_packed_lanes(device);
		test_aligned_extrema(device);
		test_split_limit(device);
		test_split_bytes();
		test_early_outputs(device);
		test_held_values(device);
		test_widened_cols(device);
		test_streaming_stores(device);
		test_streaming_stores_avx2(device);
		test_row_parts(device);
		test_long_rows_in_row(device);
		test_fetch_bound_loops(device);
		test_single_pass_prefetch(device);
		test_run_loops_apart(device);
		test_paired_order(device);
		test_summed_ranged(device);
		test_nonpos_ranged(device);
		test_output_prefetch(device);
		test_round_lead(device);
		test_outputs_alias();
		test_alias_stalls();
		test_arguments(device);
		test_conversions(device);
		test_cache_reuse(device, sum, cache);
		test_prelude(device, sum, cache);
		test_concurrent_builds(device, sum);
		test_compile_errors(device, sum);
	}
	rr_kernel_free(sum);
	rr_device_close(device);
	remove_cache(cache);
	return rr_test_finish("test_cpu");
}
