/* rowreduce emit --check-all: every built-in kernel × dtype × a representative grid of plans,
 * emitted as CUDA C for a named architecture and compiled to cubins with NVRTC. No GPU is
 * needed; a compile failure prints the head of the NVRTC log and fails the command. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rowreduce.h"

/* One plan of the grid: row length and layout; V = 0 means 16 bytes per pack (4 for f32, 8 for
 * 16-bit types), V = -1 half of that. */
typedef struct grid_plan {
	int64_t cols;
	int W, V, U, R, C;
	rr_storage storage;
	rr_grid grid;
} grid_plan;

static const grid_plan plans[] = {
    {64, 8, 0, 1, 16, 1, RR_STORAGE_REGS, RR_GRID_ROWS},       /* short rows, 16 per block */
    {31, 4, 2, 1, 8, 1, RR_STORAGE_REGS, RR_GRID_ROWS},        /* tail only, R > 1 */
    {64, 8, 0, 1, 16, 1, RR_STORAGE_REGS, RR_GRID_PERSISTENT}, /* persistent grid */
    {4096, 128, 0, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
    {4096, 256, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
    {4096, 512, 0, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_PERSISTENT},
    {4096, 256, -1, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}, /* 8-byte packs */
    {4103, 256, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},  /* misaligned N */
    {16384, 512, 0, 1, 1, 1, RR_STORAGE_REREAD, RR_GRID_ROWS},
    {16384, 512, 0, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS},
    {32768, 1024, 0, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
    {32768, 1024, 0, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT},
    {131072, 1024, 0, 1, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS}, /* fits only one-phase kernels */
    {131072, 1024, 0, 1, 1, 8, RR_STORAGE_CLUSTER, RR_GRID_ROWS},
    {131072, 512, 0, 2, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT},
    {262144, 1024, 0, 1, 1, 8, RR_STORAGE_CLUSTER, RR_GRID_ROWS},
    {262144, 1024, 0, 1, 1, 8, RR_STORAGE_REREAD, RR_GRID_ROWS},
    {262144, 1024, 0, 1, 1, 16, RR_STORAGE_CLUSTER, RR_GRID_ROWS}, /* non-portable */
    /* rows split over the grid: kept in registers, in shared memory, an odd N */
    {2097152, 1024, 0, 1, 1, 128, RR_STORAGE_GRID, RR_GRID_PERSISTENT},
    {1048576, 128, 0, 2, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT},
    {4000037, 1024, 0, 1, 1, 256, RR_STORAGE_GRID, RR_GRID_PERSISTENT},
};

static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};

/* The shapes of the seed and large bench suites (and the few-row shapes of the wide one, where
 * the planner splits rows over the grid): the planner's own choice for each is compiled
 * too, so a layout the cost model would pick that spills to local memory fails here. */
static const long long suite_shapes[][2] = {
    {1, 127},      {17, 257},     {64, 4096},   {1024, 4096},  {65536, 128},
    {32768, 1024}, {16384, 4096}, {8192, 8192}, {4096, 32768}, {1024, 131072},
    {256, 262144}, {16, 1048576}, {4, 2097152}, {2, 4000037}}; /* the last three: the wide suite's
                                                                  few rows */
#define N_SUITE_SHAPES (sizeof suite_shapes / sizeof suite_shapes[0])

typedef struct job {
	char label[160];
	char *source;
	rr_status status;
	char error[700];
	int local_memory; /* the ptxas report shows a stack frame or spills */
	int same_as;      /* an earlier job with the same source (compiled once), or -1 */
} job;

typedef struct queue {
	job *jobs;
	int count, next;
	const char *backend, *arch;
	pthread_mutex_t lock;
} queue;

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: rowreduce emit --check-all [--backend cuda] [--arch sm_90] [--kernel NAME]\n"
	    "                      [--jobs N]\n"
	    "\n"
	    "Emits every built-in kernel (or only NAME) in f32, bf16 and f16 under a grid of "
	    "plans\n"
	    "(short rows with R > 1, N = 4096 with W 128/256/512, misaligned N, U 1 and 2, smem,\n"
	    "cluster and reread storage up to N = 262144, persistent grids, rows split over the\n"
	    "grid up to N = 4000037) and compiles each "
	    "with\n"
	    "NVRTC for the architecture (default sm_90), and also the planner's own choice for\n"
	    "every shape of the seed and large bench suites in f32 and bf16 (the dtypes they are\n"
	    "benchmarked in). No GPU is needed. Plans the legality\n"
	    "check rejects for a kernel are counted and skipped. Prints one line per failure with\n"
	    "the head of the NVRTC log, one line per kernel whose ptxas report shows a stack "
	    "frame\n"
	    "or spills (local memory), then `compiled K/K kernels`.\n"
	    "\n"
	    "exit status: 0 all compiled without local memory, 1 a compilation failed or a kernel\n"
	    "uses local memory, 2 bad usage or NVRTC absent\n");
}

static void *compile_worker(void *arg)
{
	queue *q = arg;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		int i = q->next < q->count ? q->next++ : -1;
		pthread_mutex_unlock(&q->lock);
		if (i < 0)
			return NULL;
		job *j = &q->jobs[i];
		if (j->same_as >= 0)
			continue;
		j->status =
		    rr_source_compile_check(q->backend, q->arch, j->source, &j->local_memory);
		if (j->status != RR_OK)
			snprintf(j->error, sizeof j->error, "%s", rr_last_error());
	}
}

static int vec_for(int v, rr_dtype dtype)
{
	int full = dtype == RR_F32 ? 4 : 8;
	return v == 0 ? full : v < 0 ? full / 2 : v;
}

/* Emits the grid for one kernel into jobs; counts illegal plans. */
static int emit_kernel(const queue *q, const char *name, job *jobs, int *count, int *illegal)
{
	rr_kernel *kernel = NULL;
	if (rr_kernel_load_builtin(name, &kernel) != RR_OK)
		return rr_tool_fail(2, "cannot load built-in '%s': %s", name, rr_last_error());
	size_t n_plans = sizeof plans / sizeof plans[0];
	for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
		/* The suites are benchmarked in f32 and bf16; f16 planner choices are not yet
		 * free of spills (bench/NOTES.md). */
		size_t n_suite = dtypes[d] == RR_F16 ? 0 : N_SUITE_SHAPES;
		for (size_t p = 0; p < n_plans + n_suite; p++) {
			rr_layout layout = {0},
			          used = {0}; /* a suite shape: all left to the planner */
			long long rows = 1000, cols;
			if (p < n_plans) {
				const grid_plan *g = &plans[p];
				rr_layout fixed = {
				    g->W,   vec_for(g->V, dtypes[d]), g->U, g->R, g->C, g->storage,
				    g->grid};
				layout = fixed;
				cols = g->cols;
			} else {
				rows = suite_shapes[p - n_plans][0];
				cols = suite_shapes[p - n_plans][1];
			}
			char *source = NULL, plan[128];
			rr_status status = rr_source_emit(q->backend, q->arch, kernel, dtypes[d],
			                                  rows, cols, &layout, &source, &used);
			if (status == RR_ERR_ILLEGAL_LAYOUT) {
				(*illegal)++;
				continue;
			}
			rr_layout_format(status == RR_OK ? &used : &layout, plan, sizeof plan);
			if (status != RR_OK) {
				/* A bad --arch is bad usage; anything else is a failed check. */
				int code = status == RR_ERR_INVALID_ARG ? 2 : 1;
				rr_tool_fail(code, "%s %s N=%lld %s: emit failed: %s", name,
				             rr_dtype_name(dtypes[d]), cols, plan, rr_last_error());
				rr_kernel_free(kernel);
				return code;
			}
			job *j = &jobs[(*count)++];
			snprintf(j->label, sizeof j->label, "%s %s %lldx%lld %s%s", name,
			         rr_dtype_name(dtypes[d]), rows, cols, plan,
			         p < n_plans ? "" : " (the planner's choice)");
			j->source = source;
		}
	}
	rr_kernel_free(kernel);
	return 0;
}

/* A source's code: what follows its leading comment, the plan as asked for (two plans that
 * realise the same code print different plans there). */
static const char *code_of(const char *source)
{
	const char *end = strncmp(source, "/*", 2) == 0 ? strstr(source, "*/") : NULL;
	return end ? end + 2 : source;
}

/* Plans that realise the same code (a storage or grid mode a kernel does not use, a planner's
 * choice that is also a grid plan) emit the same code: each is compiled once (28 of the 501
 * sources of the whole grid differed only in their leading comment). */
static void mark_same_sources(queue *q)
{
	for (int i = 0; i < q->count; i++) {
		job *j = &q->jobs[i];
		j->same_as = -1;
		for (int e = 0; e < i && j->same_as < 0; e++)
			if (q->jobs[e].same_as < 0 &&
			    strcmp(code_of(q->jobs[e].source), code_of(j->source)) == 0)
				j->same_as = e;
	}
}

/* A job compiled once for an earlier one takes that one's outcome. */
static void copy_same_outcomes(queue *q)
{
	for (int i = 0; i < q->count; i++) {
		job *j = &q->jobs[i];
		if (j->same_as < 0)
			continue;
		const job *first = &q->jobs[j->same_as];
		j->status = first->status;
		j->local_memory = first->local_memory;
		memcpy(j->error, first->error, sizeof j->error);
	}
}

static int parse(int argc, char **argv, queue *q, const char **only, int *threads)
{
	for (int i = 1; i < argc; i++) {
		int missing = 0;
		const char *v;
		uint64_t jobs = 0;
		if (strcmp(argv[i], "--check-all") == 0)
			continue;
		if ((v = rr_tool_option_value(argc, argv, &i, "--arch", &missing)))
			q->arch = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--backend", &missing)))
			q->backend = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--kernel", &missing)))
			*only = v;
		else if ((v = rr_tool_option_value(argc, argv, &i, "--jobs", &missing))) {
			if (rr_tool_whole("--jobs", v, 1, 64, &jobs))
				return 2;
			*threads = (int)jobs;
		} else
			return rr_tool_fail(2, "%s %s (see rowreduce emit --check-all --help)",
			                    missing ? argv[i] : "unknown option",
			                    missing ? "needs a value" : argv[i]);
	}
	return 0;
}

static int report(const queue *q, int illegal)
{
	int ok = 0, local = 0;
	for (int i = 0; i < q->count; i++) {
		const job *j = &q->jobs[i];
		if (j->status != RR_OK) {
			printf("FAILED %s: %s\n", j->label, j->error);
			continue;
		}
		ok++;
		if (j->local_memory) {
			local++;
			printf("local memory: %s (ptxas reports a stack frame or spills)\n",
			       j->label);
		}
	}
	printf("compiled %d/%d kernels for %s (%d plans skipped as illegal for their kernel; %d "
	       "use local memory)\n",
	       ok, q->count, q->arch, illegal, local);
	return ok == q->count && local == 0 ? 0 : 1;
}

int rr_cmd_emit_check_all(int argc, char **argv)
{
	if (rr_tool_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	const char *only = NULL;
	int threads = 2;
	queue q = {.backend = "cuda", .arch = "sm_90"};
	if (parse(argc, argv, &q, &only, &threads) != 0)
		return 2;
	/* The compiler is there and the backend has a compile-only check (cuda). */
	if (rr_source_compile_check(q.backend, q.arch, NULL, NULL) != RR_OK)
		return rr_tool_fail(2, "%s", rr_last_error());
	const char *const *names = rr_builtin_names();
	int n_kernels = 0;
	while (names[n_kernels])
		n_kernels++;
	size_t capacity = (size_t)n_kernels * (sizeof dtypes / sizeof dtypes[0]) *
	                  (sizeof plans / sizeof plans[0] + N_SUITE_SHAPES);
	q.jobs = calloc(capacity, sizeof(job));
	if (!q.jobs)
		return rr_tool_fail(2, "out of memory");
	pthread_mutex_init(&q.lock, NULL);
	int illegal = 0, code = 0, matched = 0;
	for (int k = 0; k < n_kernels && code == 0; k++) {
		if (only && strcmp(only, names[k]) != 0)
			continue;
		matched = 1;
		code = emit_kernel(&q, names[k], q.jobs, &q.count, &illegal);
	}
	if (code == 0 && !matched)
		code = rr_tool_fail(2, "--kernel '%s' is not a built-in (see rowreduce ops)", only);
	if (code == 0) {
		mark_same_sources(&q);
		pthread_t workers[64];
		int started = 0;
		for (; started < threads; started++)
			if (pthread_create(&workers[started], NULL, compile_worker, &q) != 0)
				break;
		if (started == 0)
			compile_worker(&q);
		for (int i = 0; i < started; i++)
			pthread_join(workers[i], NULL);
		copy_same_outcomes(&q);
		code = report(&q, illegal);
	}
	for (int i = 0; i < q.count; i++)
		rr_free(q.jobs[i].source);
	free(q.jobs);
	pthread_mutex_destroy(&q.lock);
	return code;
}
