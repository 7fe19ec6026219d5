/* rowreduce verify: audits a results folder (bench, replay or peers) by recomputing every
 * statistic and every results.md number from the raw samples; see rowreduce_replay.h. */
#include <stdio.h>

#include "commands.h"
#include "rowreduce.h"
#include "rowreduce_replay.h"

static void usage(FILE *out)
{
	fputs("usage: rowreduce verify DIR\n"
	      "\n"
	      "Audits a results folder written by rowreduce bench, rowreduce replay or\n"
	      "bench/peers/torch_peers.py. From the raw samples in DIR/results.json it\n"
	      "recomputes every median, min, max, TB/s, fraction of ceiling, ceiling best and\n"
	      "summary count (and, for a replay, every round median, paired ratio, range,\n"
	      "bootstrap interval and verdict); renders DIR/results.md again from those values\n"
	      "with the code that wrote it and compares it cell by cell; checks that validated\n"
	      "counts are consistent (and, for built-in kernels, equal the outputs' size), that\n"
	      "every timed number sits under a phase name, that captured sources hash to the\n"
	      "recorded SHA-256 and name the row's plan, that the rowreduce binary (and shared\n"
	      "library) still at the recorded path hashes as recorded, and for a replay that\n"
	      "each side was replayed with the plan frozen in the copy of its input (whose\n"
	      "SHA-256 is recorded).\n"
	      "\n"
	      "Prints one line per check, OK or MISMATCH; each mismatch names the JSON path or\n"
	      "the results.md table, row and column.\n"
	      "\n"
	      "exit status: 0 every check passed, 1 a mismatch, 2 the folder cannot be read\n"
	      "(a missing file, JSON that does not parse, a value of the wrong type)\n",
	      out);
}

int rr_cmd_verify(int argc, char **argv)
{
	if (rr_tool_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-')
		return rr_tool_fail(
		    2, "verify takes one results folder (see rowreduce verify --help)");
	rr_status status = rr_verify_dir(argv[1], stdout);
	fflush(stdout);
	if (status != RR_OK && status != RR_ERR_VALIDATION)
		return rr_tool_fail(2, "%s", rr_last_error());
	return status == RR_OK ? 0 : 1;
}
