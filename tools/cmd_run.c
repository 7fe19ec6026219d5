/* rowreduce run: one kernel on fresh random inputs, every output element validated against the
 * float64 reference, then the host wall time of a synchronized launch (median of --repeat). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rowreduce.h"
#include "rowreduce_measure.h"

#define MAX_PARAMS 16 /* --param options */

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
	    "                       (S=regs|smem|cluster|reread|grid, G=rows|persistent);\n"
	    "                       fields left out are chosen by the planner (default: all)\n"
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
	rr_tool_problem_text text;          /* first: rr_tool_main reads it */
	const char *params[MAX_PARAMS + 1]; /* NULL-terminated */
	int n_params;
	uint64_t seed;
	uint64_t repeat;
} run_options;

static int parse_options(int argc, char **argv, void *options)
{
	run_options *o = options;
	o->text.dtype = "f32";
	o->text.backend = "auto";
	o->seed = 1;
	o->repeat = 5;
	for (int i = 1; i < argc; i++) {
		int missing = 0;
		const char *v;
		if ((v = rr_tool_option_value(argc, argv, &i, "--kernel", &missing)))
			o->text.kernel = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--shape", &missing)))
			o->text.shape = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--dtype", &missing)))
			o->text.dtype = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--layout", &missing)))
			o->text.layout = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--backend", &missing)))
			o->text.backend = v;
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
	if (!o->text.kernel || !o->text.shape)
		return rr_tool_fail(2, "run needs --kernel and --shape (see rowreduce run --help)");
	return 0;
}

static void print_report(const rr_run *run, const rr_kernel *kernel, const rr_run_report *report)
{
	for (int j = 0; j < report->outputs; j++) {
		rr_output_check c;
		if (rr_run_output(run, j, &c) != RR_OK)
			continue;
		printf(
		    "output    %s: max abs error %.3g, max rel error %.3g over %lld elements%s\n",
		    c.name, c.max_abs_error, c.max_rel_error, (long long)c.elements,
		    c.failures ? " FAILED" : "");
		if (c.failures)
			printf("          %lld elements out of tolerance; first at row %lld, "
			       "column %lld: got %.9g, want %.9g\n",
			       (long long)c.failures, (long long)c.first_row,
			       (long long)c.first_col, c.first_got, c.first_want);
	}
	printf("tolerance |got - want| <= %.3g * max|want| + %.3g * |want|\n", report->atol,
	       report->rtol);
	/* The count bench reports too: output elements within tolerance / compared. */
	printf("validated %lld/%lld elements in %d/%d outputs of %s\n",
	       (long long)report->elements_valid, (long long)report->elements,
	       report->outputs_valid, report->outputs, rr_kernel_name(kernel));
}

static void print_plan(const rr_tool_problem *p, rr_device *device, const rr_program *program)
{
	char plan[256];
	rr_layout_format(rr_program_layout(program), plan, sizeof plan);
	printf("kernel    %s\n", rr_kernel_name(p->kernel));
	printf("device    %s: %s\n", rr_device_backend(device), rr_device_name(device));
	printf("shape     M=%lld N=%lld dtype=%s\n", (long long)p->rows, (long long)p->cols,
	       rr_dtype_name(p->dtype));
	printf("plan      %s\n", plan);
	rr_plan_stats stats;
	rr_program_plan_stats(program, &stats);
	if (stats.planned)
		printf("planner   %d layouts considered: %d rejected as illegal, %d merged as "
		       "duplicates, %d ranked by the cost model\n",
		       stats.considered, stats.rejected, stats.merged, stats.candidates);
	printf("source    sha256 %s\n", rr_program_source_hash(program));
	printf("binary    sha256 %s\n", rr_program_binary_hash(program));
}

/* Validates, then times; returns the exit code. */
static int check_and_time(const run_options *o, const rr_tool_problem *p, rr_run *run)
{
	rr_run_report report;
	rr_status status = rr_run_validate(run, &report);
	if (status != RR_OK && status != RR_ERR_VALIDATION)
		return rr_tool_fail(2, "%s", rr_last_error());
	print_report(run, p->kernel, &report);
	if (status == RR_ERR_VALIDATION)
		return rr_tool_fail(1, "validation failed: %s", rr_last_error());
	double median_us = 0;
	if (rr_run_time(run, (int)o->repeat, &median_us) != RR_OK)
		return rr_tool_fail(2, "%s", rr_last_error());
	char shown[32];
	printf("time      %s (host wall of one synchronized launch, median of %d after a "
	       "warm-up)\n",
	       rr_format_duration(median_us, shown, sizeof shown), (int)o->repeat);
	return 0;
}

/* Everything after the problem is read; returns the exit code. */
static int run_kernel(const void *options, const rr_tool_problem *p)
{
	const run_options *o = options;
	rr_device *device = NULL;
	rr_program *program = NULL;
	rr_run *run = NULL;
	if (rr_device_open(o->text.backend, &device) != RR_OK)
		return rr_tool_fail(2, "cannot open backend '%s': %s", o->text.backend,
		                    rr_last_error());
	int code = 2;
	if (rr_program_build(device, p->kernel, p->dtype, p->rows, p->cols, p->fixed, &program) !=
	    RR_OK)
		rr_tool_fail(2, "%s", rr_last_error());
	else if (rr_run_create(program, p->rows, o->seed, o->params, &run) != RR_OK)
		rr_tool_fail(2, "%s", rr_last_error()); /* a bad --param: nothing printed yet */
	else {
		print_plan(p, device, program);
		code = check_and_time(o, p, run);
	}
	rr_run_free(run);
	rr_program_free(program);
	rr_device_close(device);
	return code;
}

int rr_cmd_run(int argc, char **argv)
{
	static const rr_tool_command command = {usage, parse_options, run_kernel};
	run_options o = {0};
	return rr_tool_main(argc, argv, &command, &o);
}
