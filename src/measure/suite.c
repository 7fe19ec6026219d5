/* Shapes and suites: "MxN" lists from the command line and suite files (bench/suites/NAME.txt,
 * one shape per line, '#' comments). A suite NAME is looked up in the source tree the binary was
 * built from, then upward from the current folder and from the executable's folder. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/measure.h"

void rr_shape_list_free(rr_shape_list *list)
{
	free(list->rows);
	free(list->cols);
	memset(list, 0, sizeof *list);
}

static rr_status append(rr_shape_list *list, int64_t rows, int64_t cols)
{
	if (list->count == list->capacity) {
		int capacity = list->capacity ? 2 * list->capacity : 16;
		int64_t *r = realloc(list->rows, (size_t)capacity * sizeof *r);
		if (r)
			list->rows = r;
		int64_t *c = r ? realloc(list->cols, (size_t)capacity * sizeof *c) : NULL;
		if (!r || !c)
			return rr__fail(RR_ERR_NOMEM, "out of memory for %d shapes", capacity);
		list->cols = c;
		list->capacity = capacity;
	}
	list->rows[list->count] = rows;
	list->cols[list->count] = cols;
	list->count++;
	return RR_OK;
}

/* Exactly "MxN" over [text, text + length), read by rr_parse_shape. */
static rr_status parse_shape(const char *text, size_t length, int64_t *rows, int64_t *cols)
{
	char copy[64];
	if (length >= sizeof copy)
		return rr__fail(RR_ERR_INVALID_ARG, "'%.*s...' is too long for a shape MxN", 20,
		                text);
	memcpy(copy, text, length);
	copy[length] = 0;
	return rr_parse_shape(copy, rows, cols);
}

rr_status rr_shapes_parse(const char *text, rr_shape_list *list)
{
	const char *at = text;
	for (;;) {
		const char *comma = strchr(at, ',');
		size_t length = comma ? (size_t)(comma - at) : strlen(at);
		int64_t rows, cols;
		if (parse_shape(at, length, &rows, &cols) != RR_OK)
			return rr__fail_context(RR_ERR_INVALID_ARG, "shape list '%s'", text);
		rr_status status = append(list, rows, cols);
		if (status != RR_OK)
			return status;
		if (!comma)
			return RR_OK;
		at = comma + 1;
	}
}

static rr_status parse_suite_text(const char *path, char *text, rr_shape_list *list)
{
	int line_number = 0, found = 0;
	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		line_number++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		while (isspace((unsigned char)*line))
			line++;
		size_t length = strlen(line);
		while (length > 0 && isspace((unsigned char)line[length - 1]))
			line[--length] = 0;
		if (length > 0) {
			int64_t rows, cols;
			if (parse_shape(line, length, &rows, &cols) != RR_OK)
				return rr__fail_context(
				    RR_ERR_INVALID_ARG,
				    "%s:%d: one MxN per line, '#' starts a comment", path,
				    line_number);
			rr_status status = append(list, rows, cols);
			if (status != RR_OK)
				return status;
			found++;
		}
		line = next;
	}
	if (!found)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "%s:%d: the suite has no shapes: write one MxN per line", path,
		                line_number > 0 ? line_number : 1);
	return RR_OK;
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Looks for bench/suites/NAME.txt in `dir` and each folder above it. */
static int search_upward(const char *dir, const char *name, char *found, size_t size)
{
	char at[PATH_MAX];
	if (!dir || !dir[0] || strlen(dir) >= sizeof at)
		return 0;
	snprintf(at, sizeof at, "%s", dir);
	for (;;) {
		int length = snprintf(found, size, "%s/bench/suites/%s.txt", at, name);
		if (length > 0 && (size_t)length < size && is_file(found))
			return 1;
		char *slash = strrchr(at, '/');
		if (!slash || slash == at)
			break;
		*slash = 0;
	}
	int length = snprintf(found, size, "/bench/suites/%s.txt", name);
	return length > 0 && (size_t)length < size && is_file(found);
}

/* The source tree this file was compiled from (the build passes absolute paths). */
static void source_dir(char *out, size_t size)
{
	snprintf(out, size, "%s", __FILE__);
	char *tail = strstr(out, "/src/measure/suite.c");
	if (tail && out[0] == '/')
		*tail = 0;
	else
		out[0] = 0;
}

static int find_suite(const char *name, char *found, size_t size)
{
	char dir[PATH_MAX];
	const char *env = getenv("RR_SOURCE_DIR");
	if (env && search_upward(env, name, found, size))
		return 1;
	source_dir(dir, sizeof dir);
	if (dir[0] && search_upward(dir, name, found, size))
		return 1;
	if (getcwd(dir, sizeof dir) && search_upward(dir, name, found, size))
		return 1;
	if (realpath("/proc/self/exe", dir)) {
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		if (search_upward(dir, name, found, size))
			return 1;
	}
	return 0;
}

static int looks_like_path(const char *text)
{
	size_t length = strlen(text);
	return strchr(text, '/') || (length > 4 && strcmp(text + length - 4, ".txt") == 0) ||
	       is_file(text);
}

rr_status rr_suite_load(const char *name_or_path, rr_shape_list *list, char *path_out,
                         size_t path_size)
{
	char path[PATH_MAX];
	if (looks_like_path(name_or_path)) {
		snprintf(path, sizeof path, "%s", name_or_path);
	} else if (!find_suite(name_or_path, path, sizeof path)) {
		return rr__fail(RR_ERR_INVALID_ARG,
		                "no suite named '%s': looked for bench/suites/%s.txt in the source "
		                "tree, the current folder and the executable's folder, and their "
		                "parents; give a suite file's path instead",
		                name_or_path, name_or_path);
	}
	char *text = NULL;
	size_t size = 0;
	rr_status status = rr__read_file(path, &text, &size);
	if (status != RR_OK)
		return rr__fail_context(status, "cannot read the suite file");
	if (memchr(text, 0, size)) {
		free(text);
		return rr__fail(RR_ERR_INVALID_ARG, "%s:1: the suite file is not text", path);
	}
	status = parse_suite_text(path, text, list);
	free(text);
	if (status == RR_OK && path_out)
		snprintf(path_out, path_size, "%s", path);
	return status;
}
