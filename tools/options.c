/* Option parsing the subcommands share: "--name value" / "--name=value", and the shape, dtype
 * and layout that run and emit read alike, with the same messages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int rr_tool_parse_shape(const char *text, long long *rows, long long *cols)
{
	char *end = NULL;
	errno = 0;
	long long m = text ? strtoll(text, &end, 10) : 0;
	if (text && end != text && (*end == 'x' || *end == 'X') && errno == 0) {
		const char *rest = end + 1;
		long long n = strtoll(rest, &end, 10);
		if (end != rest && *end == 0 && errno == 0 && m >= 1 && n >= 1) {
			*rows = m;
			*cols = n;
			return 0;
		}
	}
	rr_tool_fail(2,
	             "--shape '%s' is not MxN with M >= 1 rows and N >= 1 columns (e.g. 4096x4096)",
	             text ? text : "");
	return -1;
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
	if (rr_dtype_parse(dtype_text, dtype) != RR_OK ||
	    (*dtype != RR_F32 && *dtype != RR_BF16 && *dtype != RR_F16))
		return rr_tool_fail(2, "--dtype '%s' is not allowed: use f32, bf16 or f16",
		                    dtype_text);
	if (layout_text && rr_layout_parse(layout_text, layout) != RR_OK)
		return rr_tool_fail(2, "--layout '%s': %s", layout_text, rr_last_error());
	return 0;
}
