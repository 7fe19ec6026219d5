/* rowreduce check: type-checks kernels (files or built-in names) and prints their analysis.
 * A bad kernel prints the parser's "FILE:LINE:COL: error: ..." line alone on stderr, so editors
 * can jump to it, and exits 2. */
#include <stdio.h>
#include <string.h>

#include "rowreduce.h"
#include "commands.h"

static void help(FILE *out)
{
	fprintf(out,
	        "usage: rowreduce check FILE|NAME...\n\n"
	        "Type-checks each kernel (a .rr file, or the name of a built-in: see 'rowreduce "
	        "ops')\nand prints its inputs, outputs, reductions with their rounds, the online "
	        "rewrites,\nthe number of rounds, exact reductions and whether the row must be "
	        "stored between\nrounds.\n\n"
	        "exit status: 0 every kernel checks, 2 a kernel has an error (printed as\n"
	        "FILE:LINE:COL: error: ... on stderr) or the usage is wrong\n");
}

int rr_cmd_check(int argc, char **argv)
{
	if (rr_tool_wants_help(argc, argv)) {
		help(stdout);
		return 0;
	}
	if (argc < 2) {
		help(stderr);
		return 2;
	}
	int code = 0;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1] != 0) {
			code = rr_tool_fail(
			    2, "unknown option '%s' for check; expected FILE or NAME", argv[i]);
			continue;
		}
		rr_kernel *kernel = NULL;
		rr_status status = rr_kernel_load(argv[i], &kernel);
		if (status != RR_OK) {
			fprintf(stderr, "%s\n", rr_last_error());
			code = 2;
			continue;
		}
		if (i > 1)
			putchar('\n');
		status = rr_kernel_print(kernel, stdout);
		rr_kernel_free(kernel);
		if (status != RR_OK)
			code = rr_tool_fail(rr_tool_exit_code(status), "%s", rr_last_error());
	}
	return code;
}
