/* rowreduce: the command-line front door. Dispatches to one file per subcommand. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rowreduce.h"
#include "commands.h"

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *summary;
} commands[] = {
    {"check", rr_cmd_check, "type-check a kernel and print its analysis"},
    {"ops", rr_cmd_ops, "list the built-in kernels and their signatures"},
    {"run", rr_cmd_run, "run one kernel on random inputs and validate it"},
    {"emit", rr_cmd_emit, "print the generated C or CUDA C source of a plan"},
    {"bench", rr_cmd_bench, "measure kernels and write results.json and results.md"},
    {"replay", rr_cmd_replay, "measure two results files' plans against each other, ABBA"},
    {"verify", rr_cmd_verify, "recompute every number of a results folder from its samples"},
    {"tune", rr_cmd_tune, "find the best plan by measurement and store it in the database"},
    {"db", rr_cmd_db, "list, show, export, import or clear the tuning database"},
};

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: rowreduce <command> [options]   (rowreduce <command> --help for more)\n\n"
	        "commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-6s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
	        "\nexit status: 0 success, 1 a failed check or validation, 2 bad usage or input\n");
}

int rr_tool_fail(int code, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fputs("rowreduce: ", stderr);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	va_end(args);
	return code;
}

int rr_tool_exit_code(int status)
{
	return status == RR_OK ? 0 : status == RR_ERR_VALIDATION ? 1 : 2;
}

int rr_tool_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("rowreduce %s (%s)\n", rr_version(), rr_git_commit());
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "rowreduce: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
