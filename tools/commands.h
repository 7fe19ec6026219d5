/* The subcommands of the rowreduce tool, one file each. Each returns the process exit code:
 * 0 success, 1 a failed check or validation, 2 bad usage or bad input. */
#ifndef RR_TOOLS_COMMANDS_H
#define RR_TOOLS_COMMANDS_H

#include <stdio.h>

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
/* A flag's value read by rr_parse_whole / rr_parse_real: 0, or prints "FLAG: why" and 2. */
int rr_tool_whole(const char *flag, const char *text, uint64_t least, uint64_t most, uint64_t *out);
int rr_tool_real(const char *flag, const char *text, double least, double most, double *out);
/* One flag a command reads: with `text`, a flag with a value ("--name value" or
 * "--name=value") stored there; with `on`, a switch set to 1. */
typedef struct rr_tool_flag {
	const char *name;
	const char **text;
	int *on;
} rr_tool_flag;
/* Reads argv[1..] against `flags` (ended by a NULL name); 0, or prints why (an unknown option, a
 * missing value; "see rowreduce COMMAND --help") and returns 2. */
int rr_tool_read_flags(int argc, char **argv, const rr_tool_flag *flags, const char *command);
/* What bench and tune both sweep and how they sample, as the text given (NULL: not given). */
typedef struct rr_tool_sweep {
	const char *kernels, *suite, *shapes, *dtypes, *backend, *out;
	const char *samples, *sample_ms, *warmup_ms, *seed;
} rr_tool_sweep;
/* Reads argv against the sweep's flags and the command's `extra` ones (ended by a NULL name),
 * then the sampling numbers given into *samples (1..100000), *sample_ms (0.001..60000),
 * *warmup_ms (0..600000) and *seed; 0, or prints why and returns 2. */
int rr_tool_read_sweep(int argc, char **argv, rr_tool_sweep *sweep, const rr_tool_flag *extra,
                       const char *command, int *samples, double *sample_ms, double *warmup_ms,
                       uint64_t *seed);
/* A flag's value read as a whole number in [least, most] into an int; 0, or prints why and 2. */
int rr_tool_count_flag(const char *flag, const char *text, int least, int most, int *out);
/* "--name value" or "--name=value" at argv[*i]: the value (advancing *i past a separate one),
 * or NULL when argv[*i] is not --name; sets *missing when --name is last with no value. */
const char *rr_tool_option_value(int argc, char **argv, int *i, const char *name, int *missing);
/* What run and emit both read: a loaded kernel, the shape, an element dtype and the layout. */
typedef struct rr_tool_problem {
	rr_kernel *kernel; /* the caller frees it */
	int64_t rows, cols;
	rr_dtype dtype;
	rr_layout layout;
	const rr_layout *fixed; /* &layout when --layout was given, else NULL (the planner's) */
} rr_tool_problem;
/* The flags run and emit share; each one's options struct starts with this. */
typedef struct rr_tool_problem_text {
	const char *kernel, *shape, *dtype, *layout, *backend;
} rr_tool_problem_text;
/* A command that reads a problem: its help, its option parser (0, or prints why and returns 2)
 * and what it does with the loaded problem (returns the exit code). */
typedef struct rr_tool_command {
	void (*usage)(FILE *out);
	int (*parse)(int argc, char **argv, void *options);
	int (*body)(const void *options, const rr_tool_problem *problem);
} rr_tool_command;
/* --help prints the usage; otherwise the options are parsed, then --shape, --dtype (f32, bf16
 * or f16), --layout when given and --kernel are read (bad ones print why and give 2), then the
 * body runs. `options` starts with an rr_tool_problem_text. Returns the exit code. */
int rr_tool_main(int argc, char **argv, const rr_tool_command *command, void *options);

#endif
