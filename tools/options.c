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
