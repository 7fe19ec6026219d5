/* rowreduce replay: measures the frozen plans of two results files against each other in
 * position-balanced rounds and writes results.json and results.md; see rowreduce_replay.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rowreduce.h"
#include "rowreduce_replay.h"

static void usage(FILE *out)
{
	fputs("usage: rowreduce replay --reference A/results.json --candidate B/results.json\n"
	      "         --out DIR [--rounds 4] [--samples 9] [--sample-ms 30] [--warmup-ms 200]\n"
	      "         [--l2 hot|cold] [--backend auto|cpu|cuda] [--bootstrap N]\n"
	      "         [--bootstrap-seed S] [--kernels K[,K...]] [--dtypes D[,D...]]\n"
	      "         [--capture-sources] [--allow-rebuild] [--time-limit S]\n"
	      "         [--skip-identical]\n"
	      "\n"
	      "Replays the plans recorded by two rowreduce bench runs against each other.\n"
	      "Workloads (kernel, dtype, MxN) measured in both files are rebuilt with their\n"
	      "frozen plans; each side is validated in full against the float64 reference\n"
	      "before it is timed. In every round each workload runs its reference (A) and\n"
	      "candidate (B) as ABBA, and the next round as BAAB, so neither side always goes\n"
	      "first; a round runs every workload whose buffers fit in memory with the others\n"
	      "before the next round starts. Per workload and phase: the median of per-round\n"
	      "medians of each side, the median of the paired per-round ratios A µs / B µs\n"
	      "(the candidate's speed-up) with their min-max, and a verdict: \"candidate\n"
	      "faster\" when every round's ratio is above 1, \"reference faster\" when every\n"
	      "one is below 1, else \"not demonstrated\" (never a win).\n"
	      "\n"
	      "  --reference A      results.json (or its folder) of rowreduce bench: side A\n"
	      "  --candidate B      the same for side B\n"
	      "  --out DIR          results folder: results.json, results.md, and copies of\n"
	      "                     the inputs (reference.json, candidate.json)\n"
	      "  --rounds R         rounds, 1..1000 (default 4)\n"
	      "  --samples K        samples per phase at each of a side's two positions in a\n"
	      "                     round (default 9)\n"
	      "  --sample-ms T      target duration of one sample (default 30)\n"
	      "  --warmup-ms T      warm-up before each position's samples (default 200)\n"
	      "  --l2 hot|cold      default: the mode both inputs recorded\n"
	      "  --backend B        default: the backend both inputs recorded\n"
	      "  --bootstrap N      also a percentile bootstrap 95% interval of each median\n"
	      "                     ratio from N resamples of the rounds (fixed seed, recorded)\n"
	      "  --bootstrap-seed S seed of the bootstrap (default 1)\n"
	      "  --kernels LIST     replay only these kernels (the others are listed as not\n"
	      "                     replayed); --dtypes LIST the same for dtypes: a long\n"
	      "                     replay split into several runs\n"
	      "  --time-limit S     seconds, 1..604800: in the first block no round starts\n"
	      "                     that would end past S (the replay keeps the rounds\n"
	      "                     run, at least one), and no later block starts that\n"
	      "                     would (estimated from the blocks so far): its workloads\n"
	      "                     are listed as not replayed; what ran is written and\n"
	      "                     auditable as usual\n"
	      "  --capture-sources  write each side's generated source under DIR/sources/\n"
	      "  --allow-rebuild    replay even when a kernel text, generated source or\n"
	      "                     library hash differs from the one an input recorded (the\n"
	      "                     differences are recorded); without it the replay refuses\n"
	      "  --skip-identical   list a workload whose two sides recorded the same plan and\n"
	      "                     generated source as not replayed (the same kernel on both\n"
	      "                     sides) instead of measuring it\n"
	      "\n"
	      "A side written by bench/peers/torch_peers.py is refused: replay cannot re-run\n"
	      "Python peers. bench/compare_torch.py is the A/B against a peer: rowreduce and\n"
	      "the peers in one process, in rounds whose order rotates and reverses, with\n"
	      "paired per-round ratios, in the same schema (audit it with rowreduce verify).\n"
	      "\n"
	      "exit status: 0 every side validated and timed, 1 a side failed validation (it\n"
	      "is recorded, not timed), 2 bad usage or input, a refused replay (a hash differs,\n"
	      "a plan does not rebuild), or a side that could not be measured\n",
	      out);
}

static int parse_count(const char *flag, const char *text, long lo, long hi, int *out)
{
	char *end = NULL;
	errno = 0;
	long value = strtol(text, &end, 10);
	if (!*text || *end || errno || value < lo || value > hi)
		return rr_tool_fail(2, "%s '%s' is not a whole number from %ld to %ld", flag, text,
		                    lo, hi);
	*out = (int)value;
	return 0;
}

static int parse_ms(const char *flag, const char *text, double lo, double *out)
{
	char *end = NULL;
	errno = 0;
	double value = strtod(text, &end);
	if (!*text || *end || errno || !(value >= lo && value <= 600000))
		return rr_tool_fail(2, "%s '%s' is not a number of ms from %g to 600000", flag,
		                    text, lo);
	*out = value;
	return 0;
}

static int parse_value(rr_replay_options *o, const char *flag, const char *v)
{
	if (strcmp(flag, "--reference") == 0)
		o->reference = v;
	else if (strcmp(flag, "--candidate") == 0)
		o->candidate = v;
	else if (strcmp(flag, "--out") == 0)
		o->out_dir = v;
	else if (strcmp(flag, "--backend") == 0)
		o->backend = v;
	else if (strcmp(flag, "--kernels") == 0)
		o->kernels = v;
	else if (strcmp(flag, "--dtypes") == 0)
		o->dtypes = v;
	else if (strcmp(flag, "--l2") == 0) {
		if (strcmp(v, "hot") != 0 && strcmp(v, "cold") != 0)
			return rr_tool_fail(2, "--l2 '%s' is not hot or cold", v);
		o->l2 = v;
	} else if (strcmp(flag, "--rounds") == 0)
		return parse_count(flag, v, 1, 1000, &o->rounds);
	else if (strcmp(flag, "--samples") == 0)
		return parse_count(flag, v, 1, 100000, &o->samples);
	else if (strcmp(flag, "--bootstrap") == 0)
		return parse_count(flag, v, 1, 1000000, &o->bootstrap);
	else if (strcmp(flag, "--bootstrap-seed") == 0) {
		int seed = 0;
		if (parse_count(flag, v, 1, 2147483647, &seed))
			return 2;
		o->bootstrap_seed = (uint64_t)seed;
	} else if (strcmp(flag, "--sample-ms") == 0)
		return parse_ms(flag, v, 0.001, &o->sample_ms);
	else if (strcmp(flag, "--warmup-ms") == 0)
		return parse_ms(flag, v, 0, &o->warmup_ms);
	else if (strcmp(flag, "--time-limit") == 0) {
		char *end = NULL;
		errno = 0;
		double value = strtod(v, &end);
		if (!*v || *end || errno || !(value >= 1 && value <= 604800))
			return rr_tool_fail(2,
			                    "--time-limit '%s' is not a number of seconds from 1 "
			                    "to 604800",
			                    v);
		o->time_limit_s = value;
	}
	return 0;
}

static int parse_options(int argc, char **argv, rr_replay_options *o)
{
	static const char *const flags[] = {
	    "--reference",      "--candidate", "--out",       "--backend",   "--l2",
	    "--rounds",         "--samples",   "--bootstrap", "--sample-ms", "--warmup-ms",
	    "--bootstrap-seed", "--kernels",   "--dtypes",    "--time-limit"};
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--capture-sources") == 0) {
			o->capture_sources = 1;
			continue;
		}
		if (strcmp(argv[i], "--allow-rebuild") == 0) {
			o->allow_rebuild = 1;
			continue;
		}
		if (strcmp(argv[i], "--skip-identical") == 0) {
			o->skip_identical = 1;
			continue;
		}
		int matched = 0, missing = 0;
		for (size_t f = 0; f < sizeof flags / sizeof *flags && !matched; f++) {
			const char *v = rr_tool_option_value(argc, argv, &i, flags[f], &missing);
			if (missing)
				return rr_tool_fail(
				    2, "%s needs a value (see rowreduce replay --help)", flags[f]);
			if (!v)
				continue;
			matched = 1;
			if (parse_value(o, flags[f], v))
				return 2;
		}
		if (!matched)
			return rr_tool_fail(2, "unknown option '%s' (see rowreduce replay --help)",
			                    argv[i]);
	}
	if (!o->reference || !o->candidate || !o->out_dir)
		return rr_tool_fail(2, "replay needs --reference, --candidate and --out (see "
		                       "rowreduce replay --help)");
	return 0;
}

int rr_cmd_replay(int argc, char **argv)
{
	if (rr_tool_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	rr_replay_options o = {.rounds = 4,
	                       .samples = 9,
	                       .sample_ms = 30,
	                       .warmup_ms = 200,
	                       .argc = argc,
	                       .argv = argv,
	                       .progress = stderr};
	if (parse_options(argc, argv, &o))
		return 2;
	rr_status status = rr_replay_run(&o);
	if (status == RR_OK || status == RR_ERR_VALIDATION)
		printf("wrote %s/results.json and %s/results.md\n", o.out_dir, o.out_dir);
	if (status != RR_OK)
		return rr_tool_fail(rr_tool_exit_code(status), "%s", rr_last_error());
	return 0;
}
