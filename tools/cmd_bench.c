/* rowreduce bench: measures kernels over shapes and dtypes under the measurement contract
 * (validation first, phases sampled separately, ceilings in the same run) and writes
 * results.json, results.md and plot.svg into --out. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "rowreduce.h"
#include "rowreduce_measure.h"
#include "rowreduce_tune.h"

#define MAX_KERNELS 64
#define MAX_DTYPES 3

static void usage(FILE *out)
{
	fputs("usage: rowreduce bench --kernels K[,K...]|all (--suite NAME|FILE | --shapes LIST)\n"
	      "         --out DIR [--dtypes f32,bf16[,f16]] [--backend auto|cpu|cuda]\n"
	      "         [--plan auto|tuned|W=..,V=..,...] [--samples 7] [--sample-ms 20]\n"
	      "         [--warmup-ms 150] [--l2 hot|cold] [--seed S] [--capture-sources]\n"
	      "         [--no-ceilings]\n"
	      "\n"
	      "Measures every kernel x dtype x shape. Each configuration is built, its outputs\n"
	      "poisoned, run once per buffer set and validated element by element against the\n"
	      "float64 reference; only then is it timed. Compilation, uploads and validation\n"
	      "are never inside a sample. A configuration that fails validation is reported\n"
	      "with its first failing element and never timed.\n"
	      "\n"
	      "  --kernels LIST     built-in names or kernel files, comma-separated; all = the\n"
	      "                     six built-ins\n"
	      "  --suite NAME|FILE  shapes from a suite file: one MxN per line, '#' comments.\n"
	      "                     A NAME (seed, large, odd, wide, models) is\n"
	      "                     bench/suites/NAME.txt, looked up\n"
	      "                     under $RR_SOURCE_DIR, the source tree rowreduce was built\n"
	      "                     from, then upward from the current folder and from the\n"
	      "                     executable's folder\n"
	      "  --shapes LIST      shapes MxN, comma-separated (e.g. 64x4096,1024x1024)\n"
	      "  --dtypes LIST      element types among f32, bf16, f16 (default f32,bf16)\n"
	      "  --backend B        auto (default: cuda when a GPU answers, else cpu), cpu or\n"
	      "                     cuda\n"
	      "  --plan P           auto (default: the planner's choice) or a layout such as\n"
	      "                     W=32,V=4,U=1,R=1 (fields left out are chosen by the\n"
	      "                     planner). auto uses the tuning database's plan when it\n"
	      "                     has one (rowreduce tune), else the cost model; tuned\n"
	      "                     does the same and says so for every miss\n"
	      "  --samples K        samples per phase, 1..100000 (default 7)\n"
	      "  --sample-ms T      target duration of one sample in ms; the batch size is\n"
	      "                     calibrated to it (default 20)\n"
	      "  --warmup-ms T      warm-up before each configuration's samples, in ms\n"
	      "                     (default 150)\n"
	      "  --l2 hot|cold      hot (default): one buffer set, reused; cold: identical\n"
	      "                     sets rotated so the working set exceeds twice the cache\n"
	      "                     (the GPU's L2; 64 MiB on cpu), at most 262144 sets\n"
	      "  --seed S           seed of the random inputs (default 1)\n"
	      "  --capture-sources  write each generated source to\n"
	      "                     DIR/sources/<kernel>-<dtype>-<M>x<N>.c (cpu) or .cu (cuda)\n"
	      "  --no-ceilings      skip the copy and read ceilings\n"
	      "  --out DIR          results folder, created if needed; checked for writing\n"
	      "                     before anything is measured\n"
	      "  -h, --help         this text\n"
	      "\n"
	      "Phases, each sampled separately, never subtracted from one another (time per op):\n"
	      "  gpu         device events around a batch of launches on one stream, / batch\n"
	      "  gpu_graph   the batch captured once as a graph and replayed, / batch\n"
	      "  e2e         host wall time of the batch, launches and a final sync, / batch\n"
	      "  single      one launch + synchronize, host wall; a sample is the p50 of many\n"
	      "  single_gpu  the same single launches timed by device events\n"
	      "On cpu only e2e and single exist; the others are recorded unavailable, never\n"
	      "estimated.\n"
	      "\n"
	      "Ceilings, measured first with the same phases: a copy (on cuda a 2 GiB\n"
	      "device-to-device copy; on cpu a 256 MiB memory copy over the kernels' threads;\n"
	      "halved until both buffers fit in half the memory; bytes read + written) for\n"
	      "kernels that write a row output, and a read-only pass (on cuda the built-in sum\n"
	      "over a 16384x32768 f32 matrix; on cpu a vectorised sum of 128 MiB of f32 over\n"
	      "the kernels' threads, not a rowreduce kernel; bytes read) for the others.\n"
	      "Bandwidth = bytes_min / median (TB/s on cuda, GB/s on cpu), where bytes_min\n"
	      "reads each input once and writes each output once; the fraction of ceiling\n"
	      "divides it by the ceiling's best phase. Times print in us, ms or s.\n"
	      "\n"
	      "Writes DIR/results.json (raw samples and provenance, docs/results-schema.md),\n"
	      "DIR/results.md (the tables; \"validated\" counts output elements within\n"
	      "tolerance / compared, as run does) and DIR/plot.svg (bandwidth against N).\n"
	      "Progress goes to stderr.\n"
	      "\n"
	      "exit status: 0 every configuration validated and timed, 1 a validation failure,\n"
	      "2 bad usage or input (flag, suite, kernel, --out), a device that cannot be\n"
	      "opened, or a configuration that could not be built or run (it is recorded in\n"
	      "the results)\n",
	      out);
}

typedef struct bench_options {
	rr_tool_sweep sweep;
	const char *plan, *l2;
	int samples;
	double sample_ms, warmup_ms;
	uint64_t seed;
	int capture_sources, no_ceilings;
} bench_options;

static int parse_options(int argc, char **argv, bench_options *o)
{
	const rr_tool_flag extra[] = {{"--plan", &o->plan, NULL},
	                              {"--l2", &o->l2, NULL},
	                              {"--capture-sources", NULL, &o->capture_sources},
	                              {"--no-ceilings", NULL, &o->no_ceilings},
	                              {NULL, NULL, NULL}};
	if (rr_tool_read_sweep(argc, argv, &o->sweep, extra, "bench", &o->samples, &o->sample_ms,
	                       &o->warmup_ms, &o->seed))
		return 2;
	if (!o->sweep.kernels || !o->sweep.out || (!o->sweep.suite == !o->sweep.shapes))
		return rr_tool_fail(
		    2, "bench needs --kernels, exactly one of --suite and --shapes, and "
		       "--out (see rowreduce bench --help)");
	if (strcmp(o->l2, "hot") != 0 && strcmp(o->l2, "cold") != 0)
		return rr_tool_fail(2, "--l2 '%s' is not hot or cold", o->l2);
	return 0;
}

/* ---------------------------------------------------------------- what to measure */

typedef struct bench_plan {
	rr_kernel *kernels[MAX_KERNELS];
	int n_kernels;
	rr_dtype dtypes[MAX_DTYPES];
	int n_dtypes;
	rr_shape_list shapes;
	int has_layout, tuned;
	rr_layout layout;
} bench_plan;

static void plan_free(bench_plan *p)
{
	for (int k = 0; k < p->n_kernels; k++)
		rr_kernel_free(p->kernels[k]);
	rr_shape_list_free(&p->shapes);
}

static int load_kernel(bench_plan *p, const char *name)
{
	if (p->n_kernels == MAX_KERNELS)
		return rr_tool_fail(2, "at most %d kernels per bench", MAX_KERNELS);
	for (int k = 0; k < p->n_kernels; k++)
		if (strcmp(rr_kernel_name(p->kernels[k]), name) == 0)
			return 0; /* listed twice: measure once */
	if (rr_kernel_load(name, &p->kernels[p->n_kernels]) != RR_OK)
		return rr_tool_fail(2, "cannot load kernel '%s': %s", name, rr_last_error());
	p->n_kernels++;
	return 0;
}

static int load_kernels(bench_plan *p, const char *list)
{
	if (strcmp(list, "all") == 0) {
		for (const char *const *name = rr_builtin_names(); *name; name++)
			if (load_kernel(p, *name))
				return 2;
		return 0;
	}
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return rr_tool_fail(2, "out of memory");
	int code = 0;
	for (char *name = strtok_r(copy, ",", &save); name && !code;
	     name = strtok_r(NULL, ",", &save))
		code = load_kernel(p, name);
	free(copy);
	if (!code && p->n_kernels == 0)
		code = rr_tool_fail(2, "--kernels '%s' names no kernel", list);
	return code;
}

static int parse_dtypes(bench_plan *p, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return rr_tool_fail(2, "out of memory");
	int code = 0;
	for (char *name = strtok_r(copy, ",", &save); name && !code;
	     name = strtok_r(NULL, ",", &save)) {
		rr_dtype dtype;
		if (rr_dtype_parse(name, &dtype) != RR_OK ||
		    rr_dtype_check_element(dtype) != RR_OK) {
			code = rr_tool_fail(2, "--dtypes: '%s' is not one of f32, bf16, f16", name);
			break;
		}
		int seen = 0;
		for (int d = 0; d < p->n_dtypes; d++)
			seen |= p->dtypes[d] == dtype;
		if (!seen)
			p->dtypes[p->n_dtypes++] = dtype;
	}
	free(copy);
	if (!code && p->n_dtypes == 0)
		code =
		    rr_tool_fail(2, "--dtypes '%s' names no dtype (allowed: f32, bf16, f16)", list);
	return code;
}

static int prepare(bench_plan *p, const bench_options *o)
{
	p->tuned = strcmp(o->plan, "tuned") == 0;
	if ((p->tuned || strcmp(o->plan, "auto") == 0) && rr_tune_db_check(NULL) != RR_OK)
		return rr_tool_fail(2, "--plan %s: %s", o->plan, rr_last_error());
	if (strcmp(o->plan, "auto") != 0 && !p->tuned) {
		if (rr_layout_parse(o->plan, &p->layout) != RR_OK)
			return rr_tool_fail(2, "--plan '%s': %s", o->plan, rr_last_error());
		p->has_layout = 1;
	}
	if (load_kernels(p, o->sweep.kernels) || parse_dtypes(p, o->sweep.dtypes))
		return 2;
	rr_status status = o->sweep.suite ? rr_suite_load(o->sweep.suite, &p->shapes, NULL, 0)
	                                  : rr_shapes_parse(o->sweep.shapes, &p->shapes);
	if (status != RR_OK)
		return rr_tool_fail(2, "%s: %s", o->sweep.suite ? "--suite" : "--shapes",
		                    rr_last_error());
	return 0;
}

/* ---------------------------------------------------------------- progress */

typedef struct progress {
	double start, rows_start, last_print;
	int index, total, tty;
	char label[160];
} progress;

static double now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void progress_line(progress *g, const char *what)
{
	double now = now_seconds(), elapsed = now - g->start;
	if (!g->tty && now - g->last_print < 2.0)
		return; /* logs get a line every few seconds, not every phase */
	g->last_print = now;
	char left[48] = "";
	if (g->index > 0 && g->total > g->index)
		snprintf(left, sizeof left, ", ~%.0f s left",
		         (now - g->rows_start) / g->index * (g->total - g->index));
	fprintf(stderr, "%s%s: %s, %.1f s elapsed%s%s", g->tty ? "\r\033[K" : "", g->label, what,
	        elapsed, left, g->tty ? "" : "\n");
	fflush(stderr);
}

static void on_phase(void *context, const char *phase)
{
	char what[64];
	snprintf(what, sizeof what, "%s phase", phase);
	progress_line(context, what);
}

static void progress_end(progress *g)
{
	if (g->tty && g->last_print > 0)
		fputs("\r\033[K", stderr);
}

/* ---------------------------------------------------------------- the run */

static void report_row(const char *label, const rr_bench_row *row)
{
	if (row->state == RR_BENCH_INVALID)
		fprintf(stderr,
		        "rowreduce: %s FAILED validation (not timed): output '%s' of set %d at row "
		        "%lld, column %lld: got %.9g, expected %.9g (tolerance %.3g)\n",
		        label, row->failed_output, row->failed_set, (long long)row->failed_row,
		        (long long)row->failed_col, row->failed_got, row->failed_expected,
		        row->failed_tolerance);
	else if (row->state == RR_BENCH_ERROR)
		fprintf(stderr, "rowreduce: %s not measured: %s\n", label, row->error);
}

/* Builds and benchmarks one configuration; a build that fails is recorded as an error row. */
static void bench_one(const bench_options *o, const bench_plan *p, rr_device *device,
                      rr_bench *bench, rr_kernel *kernel, rr_dtype dtype, int64_t rows,
                      int64_t cols, rr_bench_row *row)
{
	rr_program *program = NULL;
	rr_layout tuned = {0};
	int hit = 0;
	memset(row, 0, sizeof *row);
	row->state = RR_BENCH_ERROR;
	rr_status status =
	    p->tuned ? rr_tune_lookup(device, kernel, dtype, rows, cols, NULL, NULL, &tuned, &hit)
	             : RR_OK;
	if (p->tuned && status == RR_OK)
		fprintf(stderr, "rowreduce: --plan tuned: %s for %s %s %lldx%lld%s\n",
		        hit ? "database hit" : "MISS", rr_kernel_name(kernel), rr_dtype_name(dtype),
		        (long long)rows, (long long)cols,
		        hit ? "" : ", the cost model's plan is used");
	if (status == RR_OK)
		status = rr_program_build(device, kernel, dtype, rows, cols,
		                          hit             ? &tuned
		                          : p->has_layout ? &p->layout
		                                          : NULL,
		                          &program);
	if (status != RR_OK) {
		snprintf(row->error, sizeof row->error, "%s", rr_last_error());
		rr_bench_add_error(bench, kernel, dtype, rows, cols, row->error);
		return;
	}
	rr_bench_program(bench, program, rows, o->capture_sources ? o->sweep.out : NULL, row);
	rr_program_free(program);
}

/* Every kernel x dtype x shape; counts[state] of the rows. */
static void run_rows(const bench_options *o, const bench_plan *p, rr_device *device,
                     rr_bench *bench, progress *g, int counts[3])
{
	g->total = p->n_kernels * p->n_dtypes * p->shapes.count;
	g->rows_start = now_seconds();
	for (int k = 0; k < p->n_kernels; k++)
		for (int d = 0; d < p->n_dtypes; d++)
			for (int s = 0; s < p->shapes.count; s++) {
				rr_bench_row row;
				snprintf(g->label, sizeof g->label, "[%d/%d] %s %s %lldx%lld",
				         g->index + 1, g->total, rr_kernel_name(p->kernels[k]),
				         rr_dtype_name(p->dtypes[d]), (long long)p->shapes.rows[s],
				         (long long)p->shapes.cols[s]);
				progress_line(g, "build and validation");
				bench_one(o, p, device, bench, p->kernels[k], p->dtypes[d],
				          p->shapes.rows[s], p->shapes.cols[s], &row);
				report_row(strchr(g->label, ' ') + 1, &row);
				counts[row.state]++;
				g->index++;
			}
}

static int write_results(const bench_options *o, rr_bench *bench, const int counts[3])
{
	if (rr_bench_write(bench, o->sweep.out) != RR_OK)
		return rr_tool_fail(2, "%s", rr_last_error());
	printf("%d configurations: %d validated and timed, %d failed validation, %d not measured\n",
	       counts[0] + counts[1] + counts[2], counts[RR_BENCH_MEASURED],
	       counts[RR_BENCH_INVALID], counts[RR_BENCH_ERROR]);
	printf("wrote %s/results.json, %s/results.md and %s/plot.svg\n", o->sweep.out, o->sweep.out,
	       o->sweep.out);
	return counts[RR_BENCH_ERROR] ? 2 : counts[RR_BENCH_INVALID] ? 1 : 0;
}

static int run(int argc, char **argv, const bench_options *o, const bench_plan *p)
{
	rr_device *device = NULL;
	rr_bench *bench = NULL;
	if (rr_device_open(o->sweep.backend, &device) != RR_OK)
		return rr_tool_fail(2, "cannot open backend '%s': %s", o->sweep.backend,
		                    rr_last_error());
	progress g = {.start = now_seconds(), .tty = isatty(2)};
	rr_bench_options options = {.samples = (int)o->samples,
	                            .sample_ms = o->sample_ms,
	                            .warmup_ms = o->warmup_ms,
	                            .cold = strcmp(o->l2, "cold") == 0,
	                            .seed = o->seed,
	                            .plan = o->plan,
	                            .on_phase = on_phase,
	                            .context = &g};
	if (rr_bench_open(device, &options, argc, argv, &bench) != RR_OK) {
		rr_device_close(device);
		return rr_tool_fail(2, "%s", rr_last_error());
	}
	if (!o->no_ceilings) {
		snprintf(g.label, sizeof g.label, "[ceilings]");
		rr_bench_ceilings(bench);
		for (int c = 0; c < RR_BENCH_CEILINGS; c++) {
			const char *name = "", *why = rr_bench_ceiling_error(bench, c, &name);
			if (why)
				fprintf(stderr, "rowreduce: the %s ceiling was not measured: %s\n",
				        name, why);
		}
	}
	int counts[3] = {0, 0, 0};
	run_rows(o, p, device, bench, &g, counts);
	progress_end(&g);
	int code = write_results(o, bench, counts);
	rr_bench_close(bench);
	rr_device_close(device);
	return code;
}

int rr_cmd_bench(int argc, char **argv)
{
	bench_options o = {.sweep = {.dtypes = "f32,bf16", .backend = "auto"},
	                   .plan = "auto",
	                   .l2 = "hot",
	                   .samples = 7,
	                   .sample_ms = 20,
	                   .warmup_ms = 150,
	                   .seed = 1};
	if (rr_tool_wants_help(argc, argv))
		return usage(stdout), 0;
	if (parse_options(argc, argv, &o))
		return 2;
	bench_plan p = {0};
	int code = prepare(&p, &o);
	if (code == 0 && rr_bench_prepare_dir(o.sweep.out, o.capture_sources) != RR_OK)
		code = rr_tool_fail(2, "--out: %s", rr_last_error());
	if (code == 0)
		code = run(argc, argv, &o, &p);
	plan_free(&p);
	return code;
}
