/* The cpu backend's rows as lanes (codegen/c_emit_lanes.c): W = 1 plans on rows of up to
 * rr__cpu_lanes_max_n() elements run L rows a vector. Every built-in and a user kernel of every
 * operation validate against float64 in every dtype, at row counts that leave a partial block,
 * on views 0-3 elements into their buffers; their outputs are the bytes of the per-row code
 * (RR_CPU_ROWS_AS_LANES=0) for the same plan; and the source says rows run as lanes exactly
 * where they do. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/realise.h"
#include "harness.h"
#include "lang/ir.h"
#include "rowreduce.h"
#include "util/util.h"
#include "validate/validate.h"

#define MARKER "rows     as lanes"

/* Every operation of the kernel language on short rows: row, col, rowscalar and index inputs,
 * a param, max/min/sum in two rounds, each function on elements and on a row's scalars. */
static const char mix_text[] =
    "kernel lanes_mix\n"
    "  in    x : row\n"
    "  in    w : col\n"
    "  in    c : rowscalar\n"
    "  in    t : index\n"
    "  param k = 0.5\n"
    "  out   y : row\n"
    "  out   z : rowscalar\n"
    "  a = max(x)\n"
    "  b = min(x * w)\n"
    "  s = sum(tanh(x - a) * abs(w))\n"
    "  u = sum((x - s / N) * (x - s / N), exact)\n"
    "  y = log(abs(x) + 1) * exp(b - a) + max(x, c) - min(w, k) + sqrt(u + 1) * "
    "rsqrt(abs(c) + 1) - x / s\n"
    "  z = exp(-abs(c)) + log(s * s + 1) + tanh(b) + max(a, k) + min(c, b) + x[t] - 2 * 3 + "
    "sqrt(u) / N\n";

static rr_program *build(rr_device *device, const rr_kernel *kernel, rr_dtype dtype, int64_t cols,
                         const char *layout_text, int lanes)
{
	rr_layout layout;
	CHECK(rr_layout_parse(layout_text, &layout) == RR_OK);
	if (!lanes)
		setenv("RR_CPU_ROWS_AS_LANES", "0", 1);
	rr_program *program = NULL;
	rr_status status = rr_program_build(device, kernel, dtype, 1001, cols, &layout, &program);
	unsetenv("RR_CPU_ROWS_AS_LANES");
	CHECKF(status == RR_OK, "%s %s N=%lld %s: %s", kernel->name, rr_dtype_name(dtype),
	       (long long)cols, layout_text, rr_last_error());
	return status == RR_OK ? program : NULL;
}

/* Runs `program` on `inputs` with the row and col arrays and the outputs `offset` elements
 * into their buffers (poisoned first); outputs[j] gets the output's buffer (freed by the
 * caller), validated against float64 when `validate`. */
static void run(rr_program *program, const rr_kernel *kernel, rr_dtype dtype, int64_t rows,
                int64_t cols, const rr__host_inputs *inputs, int offset, int validate,
                char **outputs)
{
	const size_t es = rr_dtype_size(dtype);
	rr_arg args[RR_MAX_IO];
	void *copies[RR_MAX_IO] = {0}, *at[RR_MAX_IO] = {0};
	for (int k = 0; k < inputs->count; k++) {
		args[k] = inputs->args[k];
		rr_kind kind = kernel->inputs[k].kind;
		if (kind != RR_KIND_ROW && kind != RR_KIND_COL)
			continue;
		copies[k] = malloc(inputs->bytes[k] + 4 * es);
		memcpy((char *)copies[k] + (size_t)offset * es, inputs->owned[k], inputs->bytes[k]);
		args[k].data = (char *)copies[k] + (size_t)offset * es;
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		int64_t count = rr__output_elements(kernel, j, rows, cols);
		outputs[j] = calloc(1, (size_t)(count + 4) * es);
		at[j] = outputs[j] + (size_t)offset * es;
		rr__poison(at[j], dtype, count);
	}
	CHECK(rr_program_launch(program, rows, args, at, NULL) == RR_OK);
	if (validate) {
		rr__validation report;
		CHECKF(rr__validate_outputs(kernel, rows, cols, dtype, inputs, at, NULL, &report) ==
		           RR_OK,
		       "%s %s %lldx%lld, %d in: %s", kernel->name, rr_dtype_name(dtype),
		       (long long)rows, (long long)cols, offset, rr_last_error());
	}
	for (int k = 0; k < RR_MAX_IO; k++)
		free(copies[k]);
}

/* The lanes program validates at M = 1, 17 and 1001 (a partial block; M < L), its arrays
 * 0-3 elements in, and writes the per-row program's bytes (NULL: validation alone). Returns
 * the outputs compared. */
static int check_rows(rr_program *lanes, rr_program *per_row, const rr_kernel *kernel,
                      rr_dtype dtype, int64_t cols)
{
	static const int64_t row_counts[] = {1, 17, 1001};
	const size_t es = rr_dtype_size(dtype);
	int compared = 0;
	for (size_t m = 0; m < sizeof row_counts / sizeof row_counts[0]; m++) {
		const int64_t rows = row_counts[m];
		rr__host_inputs inputs;
		CHECK(rr__inputs_make(kernel, rows, cols, dtype, 11u + (unsigned)m, NULL,
		                      &inputs) == RR_OK);
		for (int offset = 0; offset < 4; offset++) {
			char *a[RR_MAX_IO] = {0}, *b[RR_MAX_IO] = {0};
			run(lanes, kernel, dtype, rows, cols, &inputs, offset, 1, a);
			if (per_row)
				run(per_row, kernel, dtype, rows, cols, &inputs, offset, 0, b);
			for (int j = 0; j < kernel->n_outputs; j++) {
				int64_t count = rr__output_elements(kernel, j, rows, cols);
				if (per_row) {
					CHECKF(memcmp(a[j], b[j], (size_t)(count + 4) * es) == 0,
					       "%s %s %lldx%lld, %d in: output %s differs from "
					       "the per-row code's",
					       kernel->name, rr_dtype_name(dtype), (long long)rows,
					       (long long)cols, offset, kernel->outputs[j].name);
					compared++;
				}
				free(a[j]);
				free(b[j]);
			}
		}
		rr__inputs_free(&inputs);
	}
	return compared;
}

/* Every built-in and the user kernel in f32, bf16 and f16 at N = 1, 2, 3, 5, 7, 8 (the lane
 * permutes), 9-16 (the transposition at 16 lanes) and 17, with W = 1, V = 1 (the planner's
 * plans there), and V = 4 at 7 and 13 (a head and packs in the per-row code, the same element
 * order): validated, the per-row code's bytes, and the marker in the source up to
 * rr__cpu_lanes_max_n() (17: per-row code, validated alike); the per-row program's source has no
 * marker. */
static void test_short_rows(rr_device *device)
{
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};
	static const int64_t lengths[] = {1, 2, 3, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
	const char *const *names = rr_builtin_names();
	int kernels = 0, compared = 0;
	for (int k = 0; k < 16; k++) {
		rr_kernel *kernel = NULL;
		if (names[k])
			CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		else
			CHECK(rr_kernel_load_string(mix_text, strlen(mix_text), "<mix>", &kernel) ==
			      RR_OK);
		for (int d = 0; kernel && d < 3; d++) {
			for (size_t n = 0; n < sizeof lengths / sizeof lengths[0]; n++) {
				const int64_t cols = lengths[n];
				const char *layout = "W=1,V=1,U=1,R=512";
				for (int v = 0; v < 1 + (cols == 7 || cols == 13); v++) {
					if (v)
						layout = "W=1,V=4,U=1,R=256";
					rr_program *lanes =
					    build(device, kernel, dtypes[d], cols, layout, 1);
					rr_program *per_row =
					    build(device, kernel, dtypes[d], cols, layout, 0);
					if (lanes && per_row) {
						CHECKF(!strstr(rr_program_source(lanes), MARKER) ==
						           (cols > rr__cpu_lanes_max_n()),
						       "%s N=%lld: rows as lanes where they should "
						       "not be, or not where they should",
						       kernel->name, (long long)cols);
						CHECK(!strstr(rr_program_source(per_row), MARKER));
						compared += check_rows(lanes, per_row, kernel,
						                       dtypes[d], cols);
					}
					rr_program_free(lanes);
					rr_program_free(per_row);
				}
			}
		}
		kernels += kernel != NULL;
		rr_kernel_free(kernel);
		if (!names[k])
			break;
	}
	CHECK(kernels == 7);
	CHECKF(compared > 7 * 3 * 15 * 3 * 4, "%d outputs compared", compared);
}

/* With 8 and 4 lanes a vector (AVX2, SSE: rows as long as the vector or longer at N = 7-16,
 * the permutes drawing from more vectors), and with the transposition from N = 2 on at 16, 8
 * and 4 lanes (RR_ROWS_TRANSPOSE_MIN_N; rows of up to L elements): softmax, layernorm and the
 * user kernel validate and match the per-row code's bytes. */
static void test_narrow_vectors(rr_device *device)
{
	static const char *const flags[] = {"-O1 -mno-avx512f", "-O1 -mno-avx",
	                                    "-O1 -DRR_ROWS_TRANSPOSE_MIN_N=2",
	                                    "-O1 -mno-avx512f -DRR_ROWS_TRANSPOSE_MIN_N=2",
	                                    "-O1 -mno-avx -DRR_ROWS_TRANSPOSE_MIN_N=2"};
	static const char *const names[] = {"softmax", "layernorm", NULL};
	static const int64_t lengths[] = {2, 3, 4, 7, 8, 9, 12, 16};
	int compared = 0;
	for (int f = 0; f < 5; f++) {
		setenv("RR_CFLAGS", flags[f], 1);
		for (int k = 0; k < 3; k++) {
			rr_kernel *kernel = NULL;
			if (names[k])
				CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
			else
				CHECK(rr_kernel_load_string(mix_text, strlen(mix_text), "<mix>",
				                            &kernel) == RR_OK);
			for (int d = 0; kernel && d < 2; d++) {
				const rr_dtype dtype = d ? RR_BF16 : RR_F32;
				for (size_t n = 0; n < sizeof lengths / sizeof lengths[0]; n++) {
					const char *layout = "W=1,V=1,U=1,R=512";
					rr_program *lanes =
					    build(device, kernel, dtype, lengths[n], layout, 1);
					rr_program *per_row =
					    build(device, kernel, dtype, lengths[n], layout, 0);
					if (lanes && per_row)
						compared += check_rows(lanes, per_row, kernel,
						                       dtype, lengths[n]);
					rr_program_free(lanes);
					rr_program_free(per_row);
				}
			}
			rr_kernel_free(kernel);
		}
	}
	setenv("RR_CFLAGS", "-O1", 1);
	CHECKF(compared >= 5 * 3 * 2 * 8 * 3 * 4, "%d outputs compared", compared);
}

/* Rows past the bound, and W > 1, keep the per-row code. */
static void test_per_row_kept(rr_device *device)
{
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("layernorm", &kernel) == RR_OK);
	if (!kernel)
		return;
	rr_program *longer =
	    build(device, kernel, RR_F32, rr__cpu_lanes_max_n() + 1, "W=1,V=1,U=1,R=512", 1);
	rr_program *wider = build(device, kernel, RR_F32, 8, "W=2,V=1,U=1,R=512", 1);
	if (longer)
		CHECK(!strstr(rr_program_source(longer), MARKER));
	if (wider)
		CHECK(!strstr(rr_program_source(wider), MARKER));
	rr_program_free(longer);
	rr_program_free(wider);
	rr_kernel_free(kernel);
}

int main(void)
{
	char cache[] = "/tmp/rr-test-cpu-lanes-XXXXXX";
	if (!mkdtemp(cache)) {
		fprintf(stderr, "cannot create a temporary cache folder\n");
		return 1;
	}
	if (!getenv("RR_CACHE_DIR"))
		setenv("RR_CACHE_DIR", cache, 1);
	setenv("RR_CFLAGS", "-O1", 1);
	rr_device *device = NULL;
	CHECK(rr_device_open("cpu", &device) == RR_OK);
	if (device) {
		test_short_rows(device);
		test_narrow_vectors(device);
		test_per_row_kept(device);
	}
	rr_device_close(device);
	rmdir(cache);
	return rr_test_finish("test_cpu_lanes");
}
