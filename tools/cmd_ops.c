/* rowreduce ops: the built-in kernels, each with its signature and a one-line analysis. */
#include <stdio.h>

#include "rowreduce.h"
#include "commands.h"

static void help(FILE *out)
{
	fprintf(out,
	        "usage: rowreduce ops\n\n"
	        "Lists the built-in kernels with their signatures and a one-line analysis\n"
	        "(rounds, reductions, online rewrites). 'rowreduce check NAME' prints the whole\n"
	        "analysis of one of them.\n");
}

static void summary(const rr_analysis_info *info, char *buf, size_t size)
{
	snprintf(buf, size, "%d round%s, %d reduction%s, %d online rewrite%s%s%s", info->rounds,
	         info->rounds == 1 ? "" : "s", info->reductions, info->reductions == 1 ? "" : "s",
	         info->online_rewrites, info->online_rewrites == 1 ? "" : "s",
	         info->exact_reductions ? ", exact reductions: " : "",
	         info->exact_reductions ? "yes" : "");
}

int rr_cmd_ops(int argc, char **argv)
{
	if (rr_tool_wants_help(argc, argv)) {
		help(stdout);
		return 0;
	}
	if (argc > 1) {
		help(stderr);
		return rr_tool_fail(2, "'ops' takes no arguments, got '%s'", argv[1]);
	}
	int code = 0;
	printf("built-in kernels:\n");
	for (const char *const *name = rr_builtin_names(); *name; name++) {
		rr_kernel *kernel = NULL;
		rr_analysis_info info;
		char sig[512], line[128];
		if (rr_kernel_load_builtin(*name, &kernel) != RR_OK ||
		    rr_kernel_signature(kernel, sig, sizeof sig) != RR_OK ||
		    rr_kernel_analysis(kernel, &info) != RR_OK) {
			code = rr_tool_fail(2, "built-in '%s': %s", *name, rr_last_error());
			rr_kernel_free(kernel);
			continue;
		}
		summary(&info, line, sizeof line);
		printf("  %-14s %s\n  %-14s %s\n", *name, sig, "", line);
		rr_kernel_free(kernel);
	}
	return code;
}
