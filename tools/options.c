/* Option parsing the subcommands share: "--name value" / "--name=value", and the shape, dtype
 * and layout that run and emit read alike, and numbers read by the library's one number
 * reader (rr_parse_whole, rr_parse_real), so every flag words a mistake the same way. */
#include <string.h>

#include "commands.h"

int rr_tool_parse_shape(const char *text, long long *rows, long long *cols)
{
	int64_t m = 0, n = 0;
	if (rr_parse_shape(text, &m, &n) != RR_OK) {
		rr_tool_fail(2, "--shape: %s", rr_last_error());
		return -1;
	}
	*rows = m;
	*cols = n;
	return 0;
}

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

int rr_tool_parse_problem(const char *shape, const char *dtype_text, const char *layout_text,
                          long long *rows, long long *cols, rr_dtype *dtype, rr_layout *layout)
{
	if (rr_tool_parse_shape(shape, rows, cols) != 0)
		return 2;
	if (rr_dtype_parse(dtype_text, dtype) != RR_OK || rr_dtype_check_element(*dtype) != RR_OK)
		return rr_tool_fail(2, "--dtype '%s' is not allowed: use f32, bf16 or f16",
		                    dtype_text);
	if (layout_text && rr_layout_parse(layout_text, layout) != RR_OK)
		return rr_tool_fail(2, "--layout '%s': %s", layout_text, rr_last_error());
	return 0;
}
