/* rowreduce tune: finds the best layout of each kernel x dtype x shape by measurement, stores
 * it in the tuning database and reports how far the cost model's pick was from it (regret).
 * The work is the library's (rr_tune_run); this file only reads the command line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rowreduce.h"
#include "rowreduce_tune.h"

static void usage(FILE *out)
{
	fputs(
	    "usage: rowreduce tune --kernels K[,K...]|all (--suite NAME|FILE | --shapes LIST)\n"
	    "         --out DIR [--dtypes f32,bf16] [--objective gpu|wall]\n"
	    "         [--max-candidates 8] [--budget-s S] [--devices all|0,1,...]\n"
	    "         [--workers N] [--backend auto|cpu|cuda] [--db FILE] [--retune]\n"
	    "         [--samples 5] [--sample-ms 5] [--warmup-ms 20] [--rounds 4] [--seed 1]\n"
	    "       rowreduce tune --fit DIR|FILE[,...] --out COEFFICIENTS.txt\n"
	    "\n"
	    "For every kernel x dtype x shape: a record in the tuning database for this device,\n"
	    "toolchain, rowreduce version, kernel text, dtype, M, N and objective is reported and\n"
	    "not measured. Otherwise the planner's legal candidates (duplicates merged; S=grid's\n"
	    "C = SMs / M wherever it qualifies, which the planner offers only where it measured\n"
	    "faster) are each validated against the float64 reference, then timed; a candidate\n"
	    "that fails validation, cannot be built, or lacks the objective's timer is rejected\n"
	    "with its reason and never ranked. When the candidates fit --max-candidates and the\n"
	    "budget all are measured; otherwise the model's top half plus coordinate descent\n"
	    "from the model's pick. The two fastest and the model's pick are compared again in\n"
	    "--rounds position-balanced rounds (ABBA); a finalist as fast as the leader in some\n"
	    "round is a tie, won by the simpler plan. The winner is compiled again with an empty\n"
	    "compile cache, validated and measured fresh, and stored with its regret\n"
	    "(model pick time / best time - 1).\n"
	    "\n"
	    "  --objective O      gpu: device-event time (the gpu phase; needs device timers),\n"
	    "                     wall: host time of a batch (the e2e phase). Default: gpu on\n"
	    "                     cuda, wall on cpu\n"
	    "  --max-candidates N candidates measured per workload (default 8)\n"
	    "  --budget-s S       seconds of candidate measurement for the whole run, shared\n"
	    "                     evenly by the workloads (default 0: no limit)\n"
	    "  --devices D        all: one worker process per GPU; 0,1,...: one per ordinal\n"
	    "                     listed (repeat one to run several workers on it). Workloads\n"
	    "                     are shared out; a worker that dies loses only its workload\n"
	    "                     in flight, which another worker retries\n"
	    "  --workers N        N worker processes on device 0 (as --devices 0,0,...)\n"
	    "  --db FILE          the tuning database (default $RR_TUNING_DB, else\n"
	    "                     ~/.cache/rowreduce/tuning.sqlite)\n"
	    "  --retune           measure even what the database holds, and replace it\n"
	    "  --samples, --sample-ms, --warmup-ms, --seed   as for bench, per measurement\n"
	    "  --rounds R         finalist rounds, 2..64 (default 4)\n"
	    "  --out DIR          results.json (the measurement contract's, with a tuning\n"
	    "                     section: docs/results-schema.md), rewritten after every\n"
	    "                     workload, so a run stopped from outside keeps the workloads\n"
	    "                     it finished; workers/ holds each worker's own file\n"
	    "\n"
	    "--fit fits the cost model's coefficients (src/plan/coeffs.h) of one device class\n"
	    "(cuda/sm_90, cpu/x86-64, ...) to the measured candidates of tune results (a\n"
	    "results.json or a folder holding one): a coordinate search from the hand values\n"
	    "that minimises the regret of the model's pick on two thirds of the workloads; the\n"
	    "third whose hash of \"kernel dtype MxN\" is 0 mod 3 is held out and its regret\n"
	    "printed apart. Writes COEFFICIENTS.txt atomically, headed by this command, the data\n"
	    "and the regret table; the planner uses src/plan/coeffs/<class>.txt after a rebuild\n"
	    "(tools/dev/fit-cpu.sh re-fits the CPU class in one step).\n"
	    "\n"
	    "exit status: 0 every workload tuned or found, 1 a workload with no candidate that\n"
	    "could be ranked, 2 bad usage or input, an unusable database (damaged, newer\n"
	    "schema, read-only location), or a device that failed\n",
	    out);
}

static int parse_options(int argc, char **argv, rr_tune_options *o, const char **fit)
{
	const char *candidates = NULL, *workers = NULL, *rounds = NULL, *budget = NULL;
	const rr_tool_flag extra[] = {{"--objective", &o->objective, NULL},
	                              {"--devices", &o->devices, NULL},
	                              {"--db", &o->db_path, NULL},
	                              {"--fit", fit, NULL},
	                              {"--max-candidates", &candidates, NULL},
	                              {"--workers", &workers, NULL},
	                              {"--rounds", &rounds, NULL},
	                              {"--budget-s", &budget, NULL},
	                              {"--retune", NULL, &o->retune},
	                              {NULL, NULL, NULL}};
	rr_tool_sweep s = {.dtypes = o->dtypes, .backend = o->backend};
	if (rr_tool_read_sweep(argc, argv, &s, extra, "tune", &o->samples, &o->sample_ms,
	                       &o->warmup_ms, &o->seed) ||
	    (candidates &&
	     rr_tool_count_flag("--max-candidates", candidates, 1, 100000, &o->max_candidates)) ||
	    (workers && rr_tool_count_flag("--workers", workers, 1, 64, &o->workers)) ||
	    (rounds && rr_tool_count_flag("--rounds", rounds, 2, 64, &o->rounds)) ||
	    (budget && rr_tool_real("--budget-s", budget, 0, 1e7, &o->budget_s)))
		return 2;
	o->kernels = s.kernels;
	o->suite = s.suite;
	o->shapes = s.shapes;
	o->dtypes = s.dtypes;
	o->backend = s.backend;
	o->out = s.out;
	if (*fit && !o->out)
		return rr_tool_fail(2, "--fit needs --out (the coefficients file to write)");
	if (!*fit && (!o->kernels || !o->out || (!o->suite == !o->shapes)))
		return rr_tool_fail(2, "tune needs --kernels, exactly one of --suite and --shapes, "
		                       "and --out (see rowreduce tune --help)");
	if (o->devices && o->workers)
		return rr_tool_fail(2, "give --devices or --workers, not both");
	return 0;
}

/* --fit: each entry a results.json or a folder holding one. */
static rr_status run_fit(const char *list, const char *out, int argc, char **argv)
{
	char *copy = strdup(list), *save = NULL, *paths[256];
	char command[4096] = "rowreduce";
	int n = 0;
	for (int i = 0; i < argc; i++) /* the command that fitted them, recorded in the file */
		snprintf(command + strlen(command), sizeof command - strlen(command), " %s",
		         argv[i]);
	for (char *item = copy ? strtok_r(copy, ",", &save) : NULL; item && n < 256;
	     item = strtok_r(NULL, ",", &save)) {
		size_t length = strlen(item);
		paths[n] = malloc(length + 16);
		if (!paths[n])
			break;
		snprintf(paths[n], length + 16, "%s%s", item,
		         length > 5 && !strcmp(item + length - 5, ".json") ? "" : "/results.json");
		n++;
	}
	rr_status status = rr_tune_fit((const char *const *)paths, n, command, out);
	if (status == RR_OK)
		printf("wrote %s (%d results files)\n", out, n);
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(copy);
	return status;
}

int rr_cmd_tune(int argc, char **argv)
{
	if (rr_tool_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	rr_tune_options o = {.dtypes = "f32,bf16",
	                     .backend = "auto",
	                     .max_candidates = 8,
	                     .samples = 5,
	                     .sample_ms = 5,
	                     .warmup_ms = 20,
	                     .rounds = 4,
	                     .seed = 1,
	                     .argc = argc,
	                     .argv = argv};
	const char *fit = NULL;
	if (parse_options(argc, argv, &o, &fit))
		return 2;
	rr_status status = fit ? run_fit(fit, o.out, argc, argv) : rr_tune_run(&o);
	if (status != RR_OK)
		return rr_tool_fail(rr_tool_exit_code(status), "%s", rr_last_error());
	return 0;
}
