/* rowreduce run: one kernel on fresh random inputs, every output element validated against the
 * float64 reference, then the host wall time of a synchronized launch (median of --repeat). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rowreduce.h"
#include "util/util.h"
#include "measure/measure.h"
#include "validate/validate.h"

#define MAX_PARAMS 16

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: rowreduce run --kernel NAME|FILE --shape MxN [--dtype f32|bf16|f16]\n"
	    "                     [--layout W=32,V=4,U=1,R=1] [--backend auto|cpu|cuda]\n"
	    "                     [--seed S] [--param NAME=VALUE]... [--repeat K]\n"
	    "\n"
	    "Runs one kernel once on fresh random inputs (row values in [-3, 3], never zero; col\n"
	    "values in [0.5, 1.5]; index values in [0, N)) with every output poisoned with NaN,\n"
	    "validates every output element against the float64 reference, then times it.\n"
	    "\n"
	    "  --kernel NAME|FILE   a built-in (see `rowreduce ops`) or a kernel file\n"
	    "  --shape MxN          M rows of N elements, both at least 1 (e.g. 4096x4096)\n"
	    "  --dtype T            element type in memory: f32 (default), bf16 or f16\n"
	    "  --layout TEXT        the plan, fields W=,V=,U=,R= and optionally C=,S=,G=\n"
	    "                       (S=regs|smem|cluster|reread, G=rows|persistent); fields left\n"
	    "                       out are chosen by the planner (default: all of them)\n"
	    "  --backend B          auto (default: cuda when a GPU answers, else cpu), cpu or "
	    "cuda\n"
	    "  --seed S             seed of the random inputs (default 1)\n"
	    "  --param NAME=VALUE   override a param's default (repeatable), e.g. --param "
	    "eps=1e-5\n"
	    "  --repeat K           timed launches, at least 1 (default 5)\n"
	    "  -h, --help           this text\n"
	    "\n"
	    "Prints the complete plan, each output's max abs/rel error, `validated E/E elements\n"
	    "in K/K outputs` (output elements within tolerance / compared, the count bench\n"
	    "reports), and the host wall time of one synchronized launch (in us, ms or s): the\n"
	    "median of K launches after one warm-up launch. The C compiler is $RR_CC (default\n"
	    "cc) with extra flags $RR_CFLAGS; compiled kernels are cached under $RR_CACHE_DIR\n"
	    "(default ~/.cache/rowreduce).\n"
	    "\n"
	    "exit status: 0 every output validated, 1 a validation failure (the first failing\n"
	    "element is printed), 2 bad usage, bad input, a rejected layout or a compile error\n");
}

typedef struct run_options {
	const char *kernel, *shape, *dtype, *layout, *backend;
	const char *params[MAX_PARAMS + 1];
	int n_params;
	uint64_t seed;
	uint64_t repeat;
} run_options;

static int parse_options(int argc, char **argv, run_options *o)
{
	o->dtype = "f32";
	o->backend = "auto";
	o->seed = 1;
	o->repeat = 5;
	for (int i = 1; i < argc; i++) {
		int missing = 0;
		const char *v;
		if ((v = rr_tool_option_value(argc, argv, &i, "--kernel", &missing)))
			o->kernel = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--shape", &missing)))
			o->shape = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--dtype", &missing)))
			o->dtype = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--layout", &missing)))
			o->layout = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--backend", &missing)))
			o->backend = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--seed", &missing))) {
			if (rr_tool_whole("--seed", v, 0, UINT64_MAX, &o->seed))
				return 2;
		} else if ((v = rr_tool_option_value(argc, argv, &i, "--repeat", &missing))) {
			if (rr_tool_whole("--repeat", v, 1, 1000000, &o->repeat))
				return 2;
		} else if ((v = rr_tool_option_value(argc, argv, &i, "--param", &missing))) {
			if (o->n_params == MAX_PARAMS)
				return rr_tool_fail(2, "at most %d --param options", MAX_PARAMS);
			o->params[o->n_params++] = v;
		} else if (missing) {
			return rr_tool_fail(2, "%s needs a value (see rowreduce run --help)",
			                    argv[i]);
		} else {
			return rr_tool_fail(2, "unknown option '%s' (see rowreduce run --help)",
			                    argv[i]);
		}
		if (missing)
			return rr_tool_fail(2, "%s needs a value (see rowreduce run --help)",
			                    argv[i]);
	}
	if (!o->kernel || !o->shape)
		return rr_tool_fail(2, "run needs --kernel and --shape (see rowreduce run --help)");
	return 0;
}

/* Device buffers for inputs and outputs, uploaded and poisoned. */
typedef struct run_buffers {
	rr_arg args[RR_MAX_IO];
	void *inputs[RR_MAX_IO];
	void *outputs[RR_MAX_IO];
	void *host_outputs[RR_MAX_IO];
	size_t output_bytes[RR_MAX_IO];
} run_buffers;

static void buffers_free(rr_device *device, run_buffers *b)
{
	for (int k = 0; k < RR_MAX_IO; k++) {
		rr_device_free(device, b->inputs[k]);
		rr_device_free(device, b->outputs[k]);
		free(b->host_outputs[k]);
	}
}

static rr_status buffers_make(rr_device *device, const rr_kernel *kernel, int64_t rows,
                              int64_t cols, rr_dtype dtype, const rr__host_inputs *host,
                              run_buffers *b)
{
	rr_status status = RR_OK;
	for (int k = 0; k < kernel->n_inputs && status == RR_OK; k++) {
		b->args[k] = host->args[k];
		if (!host->owned[k])
			continue;
		status = rr_device_alloc(device, host->bytes[k], &b->inputs[k]);
		if (status == RR_OK)
			status =
			    rr_device_upload(device, b->inputs[k], host->owned[k], host->bytes[k]);
		b->args[k].data = b->inputs[k];
	}
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++) {
		int64_t count = rr__output_elements(kernel, j, rows, cols);
		b->output_bytes[j] = (size_t)count * rr_dtype_size(dtype);
		b->host_outputs[j] = malloc(b->output_bytes[j]);
		if (!b->host_outputs[j])
			return rr__fail(RR_ERR_NOMEM, "out of memory for output '%s'",
			                kernel->outputs[j].name);
		rr__poison(b->host_outputs[j], dtype, count);
		status = rr_device_alloc(device, b->output_bytes[j], &b->outputs[j]);
		if (status == RR_OK)
			status = rr_device_upload(device, b->outputs[j], b->host_outputs[j],
			                          b->output_bytes[j]);
	}
	return status;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static rr_status time_launches(rr_program *program, rr_device *device, int64_t rows, run_buffers *b,
                               long repeat, double *median_us)
{
	double *samples = malloc((size_t)repeat * sizeof *samples);
	if (!samples)
		return rr__fail(RR_ERR_NOMEM, "out of memory for %ld timings", repeat);
	rr_status status = rr_program_launch(program, rows, b->args, b->outputs, NULL);
	if (status == RR_OK)
		status = rr_device_synchronize(device); /* the warm-up: not timed */
	for (long r = 0; r < repeat && status == RR_OK; r++) {
		double start = rr__now();
		status = rr_program_launch(program, rows, b->args, b->outputs, NULL);
		if (status == RR_OK)
			status = rr_device_synchronize(device);
		samples[r] = (rr__now() - start) * 1e6;
	}
	if (status == RR_OK) {
		qsort(samples, (size_t)repeat, sizeof *samples, compare_doubles);
		*median_us = repeat % 2 ? samples[repeat / 2]
		                        : 0.5 * (samples[repeat / 2 - 1] + samples[repeat / 2]);
	}
	free(samples);
	return status;
}

static void print_report(const rr_kernel *kernel, const rr__validation *report)
{
	for (int j = 0; j < report->total; j++) {
		const rr__output_check *c = &report->outputs[j];
		printf(
		    "output    %s: max abs error %.3g, max rel error %.3g over %lld elements%s\n",
		    c->name, c->max_abs_error, c->max_rel_error, (long long)c->elements,
		    c->failures ? " FAILED" : "");
		if (c->failures)
			printf("          %lld elements out of tolerance; first at row %lld, "
			       "column %lld: "
			       "got %.9g, want %.9g\n",
			       (long long)c->failures, (long long)c->first_row,
			       (long long)c->first_col, c->first_got, c->first_want);
	}
	printf("tolerance |got - want| <= %.3g * max|want| + %.3g * |want|\n",
	       report->tolerance.atol, report->tolerance.rtol);
	long long elements = 0, failures = 0;
	for (int j = 0; j < report->total; j++) {
		elements += report->outputs[j].elements;
		failures += report->outputs[j].failures;
	}
	/* The count bench reports too: output elements within tolerance / compared. */
	printf("validated %lld/%lld elements in %d/%d outputs of %s\n", elements - failures,
	       elements, report->validated, report->total, kernel->name);
}

/* Everything after the kernel is loaded; returns the exit code. */
static int run_kernel(const run_options *o, const rr_kernel *kernel, int64_t rows, int64_t cols,
                      rr_dtype dtype, const rr_layout *layout)
{
	rr_device *device = NULL;
	rr_program *program = NULL;
	rr__host_inputs host = {0};
	run_buffers buffers = {0};
	int code = 2;
	rr_status status = rr_device_open(o->backend, &device);
	if (status != RR_OK) {
		rr_tool_fail(2, "cannot open backend '%s': %s", o->backend, rr_last_error());
		return 2;
	}
	status = rr__inputs_make(kernel, rows, cols, dtype, o->seed, o->params, &host);
	if (status == RR_OK)
		status = rr_program_build(device, kernel, dtype, rows, cols, layout, &program);
	if (status != RR_OK) {
		rr_tool_fail(2, "%s", rr_last_error());
		goto done;
	}
	char plan[256];
	rr_layout_format(rr_program_layout(program), plan, sizeof plan);
	printf("kernel    %s\n", kernel->name);
	printf("device    %s: %s\n", rr_device_backend(device), rr_device_name(device));
	printf("shape     M=%lld N=%lld dtype=%s\n", (long long)rows, (long long)cols,
	       rr_dtype_name(dtype));
	printf("plan      %s\n", plan);
	rr_plan_stats stats;
	rr_program_plan_stats(program, &stats);
	if (stats.planned)
		printf("planner   %d layouts considered: %d rejected as illegal, %d merged as "
		       "duplicates, %d ranked by the cost model\n",
		       stats.considered, stats.rejected, stats.merged, stats.candidates);
	printf("source    sha256 %s\n", rr_program_source_hash(program));
	printf("binary    sha256 %s\n", rr_program_binary_hash(program));
	status = buffers_make(device, kernel, rows, cols, dtype, &host, &buffers);
	if (status == RR_OK)
		status = rr_program_launch(program, rows, buffers.args, buffers.outputs, NULL);
	if (status == RR_OK)
		status = rr_device_synchronize(device);
	for (int j = 0; j < kernel->n_outputs && status == RR_OK; j++)
		status = rr_device_download(device, buffers.host_outputs[j], buffers.outputs[j],
		                            buffers.output_bytes[j]);
	if (status != RR_OK) {
		rr_tool_fail(2, "%s", rr_last_error());
		goto done;
	}
	rr__validation report;
	status = rr__validate_outputs(kernel, rows, cols, dtype, &host, buffers.host_outputs, NULL,
	                              &report);
	if (status != RR_OK && status != RR_ERR_VALIDATION) {
		rr_tool_fail(2, "%s", rr_last_error());
		goto done;
	}
	print_report(kernel, &report);
	if (status == RR_ERR_VALIDATION) {
		code = rr_tool_fail(1, "validation failed: %s", rr_last_error());
		goto done;
	}
	double median_us = 0;
	status = time_launches(program, device, rows, &buffers, (long)o->repeat, &median_us);
	if (status != RR_OK) {
		rr_tool_fail(2, "%s", rr_last_error());
		goto done;
	}
	char shown[32];
	printf("time      %s (host wall of one synchronized launch, median of %ld after a "
	       "warm-up)\n",
	       rr__format_duration(median_us, 0, 1, shown, sizeof shown), (long)o->repeat);
	code = 0;
done:
	buffers_free(device, &buffers);
	rr_program_free(program);
	rr__inputs_free(&host);
	rr_device_close(device);
	return code;
}

int rr_cmd_run(int argc, char **argv)
{
	if (rr_tool_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	run_options o = {0};
	if (parse_options(argc, argv, &o) != 0)
		return 2;
	long long rows, cols;
	rr_dtype dtype;
	rr_layout layout = {0};
	if (rr_tool_parse_problem(o.shape, o.dtype, o.layout, &rows, &cols, &dtype, &layout) != 0)
		return 2;
	rr_kernel *kernel = NULL;
	if (rr_kernel_load(o.kernel, &kernel) != RR_OK)
		return rr_tool_fail(2, "cannot load kernel '%s': %s", o.kernel, rr_last_error());
	int code = run_kernel(&o, kernel, rows, cols, dtype, o.layout ? &layout : NULL);
	rr_kernel_free(kernel);
	return code;
}
