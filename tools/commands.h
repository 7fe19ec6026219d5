/* The subcommands of the rowreduce tool, one file each. Each returns the process exit code:
 * 0 success, 1 a failed check or validation, 2 bad usage or bad input. */
#ifndef RR_TOOLS_COMMANDS_H
#define RR_TOOLS_COMMANDS_H

int rr_cmd_check(int argc, char **argv);
int rr_cmd_ops(int argc, char **argv);
int rr_cmd_run(int argc, char **argv);
int rr_cmd_emit(int argc, char **argv);
int rr_cmd_bench(int argc, char **argv);
/* rowreduce emit --check-all (tools/emit_check_all.c): emits and checks every built-in plan. */
int rr_cmd_emit_check_all(int argc, char **argv);

/* Prints "rowreduce: <message>" and the last library error to stderr; returns `code`. */
int rr_tool_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit code for a library status: 1 for RR_ERR_VALIDATION, 2 for the rest. */
int rr_tool_exit_code(int status);
/* 1 when argv holds -h or --help. */
int rr_tool_wants_help(int argc, char **argv);
/* Parses "MxN" (both at least 1) into rows and cols; 0 on success, else prints why and -1. */
int rr_tool_parse_shape(const char *text, long long *rows, long long *cols);

#endif
