/* Every built-in on the cpu backend over a grid of row lengths, row counts, a covering set of
 * layouts (every value of W, V, U, R and both storages appears) and every dtype, each output
 * validated against the float64 reference; and the named reasons of illegal layouts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rowreduce.h"
#include "util/util.h"
#include "validate/validate.h"

/* W in {1, 4, 32, 128}, V in {1, 2, 4, 8}, U in {1, 3}, R in {1, 4}, S in {regs, reread}. */
static const rr_layout grid[] = {
    {.workers_per_row = 1, .vec = 1, .unroll = 1, .rows_per_group = 1, .storage = RR_STORAGE_REGS},
    {.workers_per_row = 1,
     .vec = 8,
     .unroll = 3,
     .rows_per_group = 4,
     .storage = RR_STORAGE_REREAD},
    {.workers_per_row = 4, .vec = 2, .unroll = 1, .rows_per_group = 4, .storage = RR_STORAGE_REGS},
    {.workers_per_row = 4,
     .vec = 4,
     .unroll = 3,
     .rows_per_group = 1,
     .storage = RR_STORAGE_REREAD},
    {.workers_per_row = 32, .vec = 4, .unroll = 1, .rows_per_group = 1, .storage = RR_STORAGE_REGS},
    {.workers_per_row = 32,
     .vec = 1,
     .unroll = 3,
     .rows_per_group = 4,
     .storage = RR_STORAGE_REREAD},
    {.workers_per_row = 128,
     .vec = 8,
     .unroll = 3,
     .rows_per_group = 1,
     .storage = RR_STORAGE_REGS},
    {.workers_per_row = 128,
     .vec = 2,
     .unroll = 1,
     .rows_per_group = 4,
     .storage = RR_STORAGE_REREAD},
};
static const int64_t lengths[] = {1, 31, 33, 127, 128, 129, 257, 4103};
static const int64_t row_counts[] = {1, 5, 17};
static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};

typedef struct grid_counts {
	int validated_runs;
	int kept_regs, kept_reread; /* builds of kernels that keep a row, by storage */
	int regs_over_budget;       /* regs refused for its slots, run again with reread */
} grid_counts;

static int keeps_a_row(const rr_kernel *kernel)
{
	const char *name = rr_kernel_name(kernel);
	return strcmp(name, "sum") != 0 && strcmp(name, "cross_entropy") != 0;
}

static void run_rows(rr_program *program, const rr_kernel *kernel, rr_dtype dtype, int64_t cols,
                     unsigned seed, grid_counts *counts)
{
	for (size_t m = 0; m < sizeof row_counts / sizeof row_counts[0]; m++) {
		int64_t rows = row_counts[m];
		rr__host_inputs inputs;
		CHECK(rr__inputs_make(kernel, rows, cols, dtype, seed + (unsigned)m, NULL,
		                      &inputs) == RR_OK);
		void *outputs[RR_MAX_IO] = {0};
		for (int j = 0; j < rr_kernel_num_outputs(kernel); j++) {
			int64_t count = rr__output_elements(kernel, j, rows, cols);
			outputs[j] = malloc((size_t)count * rr_dtype_size(dtype));
			rr__poison(outputs[j], dtype, count);
		}
		CHECK(rr_program_launch(program, rows, inputs.args, outputs, NULL) == RR_OK);
		rr__validation report;
		rr_status status = rr__validate_outputs(kernel, rows, cols, dtype, &inputs, outputs,
		                                        NULL, &report);
		char plan[128];
		rr_layout_format(rr_program_layout(program), plan, sizeof plan);
		CHECKF(status == RR_OK, "%s %s %s M=%lld N=%lld: %s", rr_kernel_name(kernel),
		       rr_dtype_name(dtype), plan, (long long)rows, (long long)cols,
		       rr_last_error());
		CHECK(report.validated == report.total &&
		      report.total == rr_kernel_num_outputs(kernel));
		counts->validated_runs += status == RR_OK;
		for (int j = 0; j < rr_kernel_num_outputs(kernel); j++)
			free(outputs[j]);
		rr__inputs_free(&inputs);
	}
}

static void run_case(rr_device *device, const rr_kernel *kernel, rr_layout layout, rr_dtype dtype,
                     int64_t cols, grid_counts *counts)
{
	layout.blocks_per_row = 1;
	layout.grid = RR_GRID_ROWS;
	rr_program *program = NULL;
	rr_status status = rr_program_build(device, kernel, dtype, 17, cols, &layout, &program);
	if (status == RR_ERR_ILLEGAL_LAYOUT && layout.storage == RR_STORAGE_REGS) {
		CHECKF(strstr(rr_last_error(), "register budget") != NULL, "%s", rr_last_error());
		counts->regs_over_budget++;
		layout.storage = RR_STORAGE_REREAD;
		status = rr_program_build(device, kernel, dtype, 17, cols, &layout, &program);
	}
	CHECKF(status == RR_OK, "%s %s N=%lld: %s", rr_kernel_name(kernel), rr_dtype_name(dtype),
	       (long long)cols, rr_last_error());
	if (status != RR_OK)
		return;
	/* The plan is followed as given. */
	CHECK(memcmp(rr_program_layout(program), &layout, sizeof layout) == 0);
	if (keeps_a_row(kernel)) {
		counts->kept_regs += layout.storage == RR_STORAGE_REGS;
		counts->kept_reread += layout.storage == RR_STORAGE_REREAD;
	}
	run_rows(program, kernel, dtype, cols, (unsigned)(cols * 31 + layout.workers_per_row),
	         counts);
	rr_program_free(program);
}

static void expect_illegal(rr_device *device, const rr_kernel *kernel, const char *layout_text,
                           int64_t cols, const char *reason)
{
	rr_layout layout;
	CHECK(rr_layout_parse(layout_text, &layout) == RR_OK);
	rr_program *program = NULL;
	rr_status status = rr_program_build(device, kernel, RR_F32, 4, cols, &layout, &program);
	CHECKF(status == RR_ERR_ILLEGAL_LAYOUT, "%s on %s: %s", layout_text, rr_kernel_name(kernel),
	       rr_status_string(status));
	CHECKF(strstr(rr_last_error(), reason) != NULL, "%s: message lacks '%s': %s", layout_text,
	       reason, rr_last_error());
	CHECK(program == NULL);
}

static void test_illegal(rr_device *device)
{
	rr_kernel *layernorm = NULL, *exact = NULL;
	static const char exact_text[] = "kernel exact_sum\n  in x : row\n  out s : rowscalar\n"
	                                 "  s = sum(x * 2, exact)\n";
	CHECK(rr_kernel_load("layernorm", &layernorm) == RR_OK);
	CHECK(rr_kernel_load_string(exact_text, strlen(exact_text), "<exact>", &exact) == RR_OK);
	if (!layernorm || !exact)
		return;
	expect_illegal(device, layernorm, "W=3,V=4,U=1,R=1", 256, "power of two");
	expect_illegal(device, layernorm, "W=32,V=5,U=1,R=1", 256, "vector width");
	expect_illegal(device, exact, "W=4,V=1,U=1,R=1", 256, "exact");
	expect_illegal(device, layernorm, "W=1,V=1,U=1,R=1,S=regs", 4103, "register budget");
	/* The exact sum runs on one worker in index order, and validates. */
	grid_counts counts = {0};
	rr_layout one = {.workers_per_row = 1,
	                 .vec = 4,
	                 .unroll = 2,
	                 .rows_per_group = 1,
	                 .storage = RR_STORAGE_REGS};
	run_case(device, exact, one, RR_F32, 1031, &counts);
	CHECK(counts.validated_runs == 3);
	rr_kernel_free(layernorm);
	rr_kernel_free(exact);
}

int main(void)
{
	double start = rr__now();
	if (!getenv("RR_CFLAGS"))
		setenv("RR_CFLAGS", "-O1", 1);
	rr_device *device = NULL;
	CHECK(rr_device_open("cpu", &device) == RR_OK);
	if (!device)
		return rr_test_finish("test_cpu_grid");
	grid_counts counts = {0};
	int expected = 0;
	for (const char *const *name = rr_builtin_names(); *name; name++) {
		rr_kernel *kernel = NULL;
		CHECKF(rr_kernel_load(*name, &kernel) == RR_OK, "%s: %s", *name, rr_last_error());
		if (!kernel)
			continue;
		for (size_t l = 0; l < sizeof grid / sizeof grid[0]; l++)
			for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
				for (size_t n = 0; n < sizeof lengths / sizeof lengths[0]; n++) {
					run_case(device, kernel, grid[l], dtypes[d], lengths[n],
					         &counts);
					expected += (int)(sizeof row_counts / sizeof row_counts[0]);
				}
		rr_kernel_free(kernel);
	}
	CHECK(expected > 0 && counts.validated_runs == expected);
	/* Both storages were really exercised on kernels that keep a row. */
	CHECK(counts.kept_regs > 0 && counts.kept_reread > 0);
	test_illegal(device);
	rr_device_close(device);
	printf("test_cpu_grid: %d validated runs (%d kept with regs, %d with reread, %d regs over "
	       "budget) in %.1f s\n",
	       counts.validated_runs, counts.kept_regs, counts.kept_reread, counts.regs_over_budget,
	       rr__now() - start);
	return rr_test_finish("test_cpu_grid");
}
