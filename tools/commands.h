/* The subcommands of the rowreduce tool, one file each. Each returns the process exit code:
 * 0 success, 1 a failed check or validation, 2 bad usage or bad input. */
#ifndef RR_TOOLS_COMMANDS_H
#define RR_TOOLS_COMMANDS_H

#include "rowreduce.h"

int rr_cmd_check(int argc, char **argv);
int rr_cmd_ops(int argc, char **argv);
int rr_cmd_run(int argc, char **argv);
int rr_cmd_emit(int argc, char **argv);
int rr_cmd_bench(int argc, char **argv);
int rr_cmd_replay(int argc, char **argv);
int rr_cmd_verify(int argc, char **argv);
int rr_cmd_tune(int argc, char **argv);
int rr_cmd_db(int argc, char **argv);
/* rowreduce emit --check-all (tools/emit_check_all.c): emits and checks every built-in plan. */
int rr_cmd_emit_check_all(int argc, char **argv);

/* Prints "rowreduce: <message>" and the last library error to stderr; returns `code`. */
int rr_tool_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit code for a library status: 1 for RR_ERR_VALIDATION, 2 for the rest. */
int rr_tool_exit_code(int status);
/* 1 when argv holds -h or --help. */
int rr_tool_wants_help(int argc, char **argv);
/* Parses "MxN" (rr_parse_shape) into rows and cols; 0 on success, else prints why and -1. */
int rr_tool_parse_shape(const char *text, long long *rows, long long *cols);
/* A flag's value read by rr_parse_whole / rr_parse_real: 0, or prints "FLAG: why" and 2. */
int rr_tool_whole(const char *flag, const char *text, uint64_t least, uint64_t most, uint64_t *out);
int rr_tool_real(const char *flag, const char *text, double least, double most, double *out);
/* "--name value" or "--name=value" at argv[*i]: the value (advancing *i past a separate one),
 * or NULL when argv[*i] is not --name; sets *missing when --name is last with no value. */
const char *rr_tool_option_value(int argc, char **argv, int *i, const char *name, int *missing);
/* --shape, --dtype (f32, bf16 or f16) and, when given, --layout; 0, or prints why and 2. */
int rr_tool_parse_problem(const char *shape, const char *dtype_text, const char *layout_text,
                          long long *rows, long long *cols, rr_dtype *dtype, rr_layout *layout);

#endif
