/* Option parsing the subcommands share: "--name value" / "--name=value", and the shape, dtype
 * and layout that run and emit read alike, and numbers read by the library's one number
 * reader (rr_parse_whole, rr_parse_real), so every flag words a mistake the same way. */
#include <string.h>

#include "commands.h"

int rr_tool_whole(const char *flag, const char *text, uint64_t least, uint64_t most, uint64_t *out)
{
	if (rr_parse_whole(text, least, most, out) != RR_OK)
		return rr_tool_fail(2, "%s: %s", flag, rr_last_error());
	return 0;
}

int rr_tool_real(const char *flag, const char *text, double least, double most, double *out)
{
	if (rr_parse_real(text, least, most, out) != RR_OK)
		return rr_tool_fail(2, "%s: %s", flag, rr_last_error());
	return 0;
}

int rr_tool_read_flags(int argc, char **argv, const rr_tool_flag *flags, const char *command)
{
	for (int i = 1; i < argc; i++) {
		int matched = 0, missing = 0;
		for (const rr_tool_flag *f = flags; f->name && !matched && !missing; f++) {
			if (f->on && strcmp(argv[i], f->name) == 0) {
				*f->on = matched = 1;
				continue;
			}
			const char *v =
			    f->text ? rr_tool_option_value(argc, argv, &i, f->name, &missing)
			            : NULL;
			if (v) {
				*f->text = v;
				matched = 1;
			}
		}
		if (missing)
			return rr_tool_fail(2, "%s needs a value (see rowreduce %s --help)",
			                    argv[i], command);
		if (!matched)
			return rr_tool_fail(2, "unknown option '%s' (see rowreduce %s --help)",
			                    argv[i], command);
	}
	return 0;
}

#define MAX_FLAGS 32

int rr_tool_read_sweep(int argc, char **argv, rr_tool_sweep *s, const rr_tool_flag *extra,
                       const char *command, int *samples, double *sample_ms, double *warmup_ms,
                       uint64_t *seed)
{
	rr_tool_flag flags[MAX_FLAGS] = {
	    {"--kernels", &s->kernels, NULL},     {"--suite", &s->suite, NULL},
	    {"--shapes", &s->shapes, NULL},       {"--dtypes", &s->dtypes, NULL},
	    {"--backend", &s->backend, NULL},     {"--out", &s->out, NULL},
	    {"--samples", &s->samples, NULL},     {"--sample-ms", &s->sample_ms, NULL},
	    {"--warmup-ms", &s->warmup_ms, NULL}, {"--seed", &s->seed, NULL}};
	int n = 10;
	for (; extra->name && n < MAX_FLAGS - 1; extra++)
		flags[n++] = *extra;
	if (rr_tool_read_flags(argc, argv, flags, command) ||
	    (s->samples && rr_tool_count_flag("--samples", s->samples, 1, 100000, samples)) ||
	    (s->sample_ms && rr_tool_real("--sample-ms", s->sample_ms, 0.001, 60000, sample_ms)) ||
	    (s->warmup_ms && rr_tool_real("--warmup-ms", s->warmup_ms, 0, 600000, warmup_ms)) ||
	    (s->seed && rr_tool_whole("--seed", s->seed, 0, UINT64_MAX, seed)))
		return 2;
	return 0;
}

int rr_tool_count_flag(const char *flag, const char *text, int least, int most, int *out)
{
	uint64_t value = 0;
	if (rr_tool_whole(flag, text, (uint64_t)least, (uint64_t)most, &value))
		return 2;
	*out = (int)value;
	return 0;
}

const char *rr_tool_option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t length = strlen(name);
	if (strncmp(argv[*i], name, length) != 0)
		return NULL;
	if (argv[*i][length] == '=')
		return argv[*i] + length + 1;
	if (argv[*i][length] != 0)
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static int load_problem(const rr_tool_problem_text *text, rr_tool_problem *out)
{
	memset(out, 0, sizeof *out);
	if (rr_parse_shape(text->shape, &out->rows, &out->cols) != RR_OK)
		return rr_tool_fail(2, "--shape: %s", rr_last_error());
	if (rr_dtype_parse(text->dtype, &out->dtype) != RR_OK ||
	    rr_dtype_check_element(out->dtype) != RR_OK)
		return rr_tool_fail(2, "--dtype '%s' is not allowed: use f32, bf16 or f16",
		                    text->dtype);
	if (text->layout && rr_layout_parse(text->layout, &out->layout) != RR_OK)
		return rr_tool_fail(2, "--layout '%s': %s", text->layout, rr_last_error());
	out->fixed = text->layout ? &out->layout : NULL;
	if (rr_kernel_load(text->kernel, &out->kernel) != RR_OK)
		return rr_tool_fail(2, "cannot load kernel '%s': %s", text->kernel,
		                    rr_last_error());
	return 0;
}

int rr_tool_main(int argc, char **argv, const rr_tool_command *command, void *options)
{
	if (rr_tool_wants_help(argc, argv)) {
		command->usage(stdout);
		return 0;
	}
	rr_tool_problem problem;
	if (command->parse(argc, argv, options) != 0 || load_problem(options, &problem) != 0)
		return 2;
	int code = command->body(options, &problem);
	rr_kernel_free(problem.kernel);
	return code;
}
