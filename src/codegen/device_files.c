/* Finds the sections of the embedded device files (see device_files.h); the emitters print them
 * byte for byte, so generated sources read like the files a person edits. */
#include <string.h>

#include "codegen/device_files.h"

#define MARKER "//@ "

const char *rr__device_file_text(const char *name)
{
	for (const rr__device_file *f = rr__device_files; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f->text;
	return NULL;
}

/* The start of the line after the one at `p` (the terminating zero on the last line). */
static const char *next_line(const char *p)
{
	const char *newline = strchr(p, '\n');
	return newline ? newline + 1 : p + strlen(p);
}

static int is_marker(const char *p)
{
	return strncmp(p, MARKER, strlen(MARKER)) == 0;
}

/* The line at `p` is the marker of `section`. */
static int is_marker_of(const char *p, const char *section)
{
	const char *name = p + strlen(MARKER);
	size_t n = strlen(section);
	return is_marker(p) && strncmp(name, section, n) == 0 && (name[n] == '\n' || !name[n]);
}

int rr__device_section(const char *name, const char *section, const char **text, size_t *length)
{
	const char *file = rr__device_file_text(name);
	for (const char *p = file; p && *p; p = next_line(p)) {
		if (!is_marker_of(p, section))
			continue;
		const char *start = next_line(p), *end = start;
		while (*end && !is_marker(end))
			end = next_line(end);
		*text = start;
		*length = (size_t)(end - start);
		return 1;
	}
	*text = NULL;
	*length = 0;
	return 0;
}

void rr__device_emit(rr__buf *out, const char *name, const char *section)
{
	const char *text;
	size_t length;
	if (rr__device_section(name, section, &text, &length))
		rr__buf_append(out, text, length);
	else
		rr__buf_printf(out, "#error \"rowreduce: device section %s of %s is missing\"\n",
		               section, name);
}
