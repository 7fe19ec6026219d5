/* The text form of a layout, "W=32,V=4,U=1,R=1,C=1,S=regs,G=rows": what users pass on the
 * command line and what results files record. Fields left out stay 0 / AUTO for the planner. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

#define ALLOWED_KEYS                                                                               \
	"allowed keys: W (workers), V (vec), U (unroll), R (rows), C (blocks), "                   \
	"S (storage: regs, smem, cluster, reread, grid), G (grid: rows, persistent)"

typedef enum field { F_W, F_V, F_U, F_R, F_C, F_S, F_G, F_COUNT } field;

static const struct {
	const char *key, *long_name;
} keys[F_COUNT] = {
    [F_W] = {"W", "workers"}, [F_V] = {"V", "vec"},    [F_U] = {"U", "unroll"},
    [F_R] = {"R", "rows"},    [F_C] = {"C", "blocks"}, [F_S] = {"S", "storage"},
    [F_G] = {"G", "grid"},
};

static const char *const storage_names[] = {"auto", "regs", "smem", "cluster", "reread", "grid"};
static const char *const grid_names[] = {"auto", "rows", "persistent"};

static int find_key(const char *key, size_t length)
{
	for (int f = 0; f < F_COUNT; f++) {
		if ((strlen(keys[f].key) == length && strncasecmp(key, keys[f].key, length) == 0) ||
		    (strlen(keys[f].long_name) == length &&
		     strncasecmp(key, keys[f].long_name, length) == 0))
			return f;
	}
	return -1;
}

static int find_name(const char *const *names, int count, const char *value)
{
	for (int i = 0; i < count; i++)
		if (strcasecmp(value, names[i]) == 0)
			return i;
	return -1;
}

/* The most each number field may be, the same bounds the legality check applies on any
 * device (W·R and C are then checked against the device's own limits; C above a cluster's
 * size is for S=grid only). */
static const int most_allowed[F_COUNT] = {
    [F_W] = 1024, [F_V] = 16, [F_U] = 8, [F_R] = 1024, [F_C] = 1024,
};

static rr_status parse_int(const char *text, field f, int *out)
{
	uint64_t value = 0;
	if (rr_parse_whole(text, 1, (uint64_t)most_allowed[f], &value) != RR_OK) {
		char why[256];
		snprintf(why, sizeof why, "%s", rr_last_error());
		return rr__fail(RR_ERR_INVALID_ARG,
		                "layout field %s: %s (leave the key out to let the planner choose)",
		                keys[f].key, why);
	}
	*out = (int)value;
	return RR_OK;
}

/* Applies one "key=value" item (whitespace already trimmed). */
static rr_status parse_item(char *item, rr_layout *out, int seen[F_COUNT])
{
	char *equals = strchr(item, '=');
	if (!equals)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "layout item '%s' has no '=': write KEY=VALUE; %s", item,
		                ALLOWED_KEYS);
	char *key_end = equals;
	while (key_end > item && isspace((unsigned char)key_end[-1]))
		key_end--;
	char *value = equals + 1;
	while (isspace((unsigned char)*value))
		value++;
	int f = find_key(item, (size_t)(key_end - item));
	*key_end = 0;
	if (f < 0)
		return rr__fail(RR_ERR_INVALID_ARG, "unknown layout key '%s'; %s", item,
		                ALLOWED_KEYS);
	if (seen[f]++)
		return rr__fail(RR_ERR_INVALID_ARG, "layout key %s is given twice; %s", keys[f].key,
		                ALLOWED_KEYS);
	if (f == F_S || f == F_G) {
		int index =
		    f == F_S ? find_name(storage_names, 6, value) : find_name(grid_names, 3, value);
		if (index < 0)
			return rr__fail(RR_ERR_INVALID_ARG,
			                "layout %s = '%s' is not allowed (%s: %s)", keys[f].key,
			                value, f == F_S ? "storage" : "grid",
			                f == F_S ? "regs, smem, cluster, reread, grid, auto"
			                         : "rows, persistent, auto");
		if (f == F_S)
			out->storage = (rr_storage)index;
		else
			out->grid = (rr_grid)index;
		return RR_OK;
	}
	int *slot = f == F_W   ? &out->workers_per_row
	            : f == F_V ? &out->vec
	            : f == F_U ? &out->unroll
	            : f == F_R ? &out->rows_per_group
	                       : &out->blocks_per_row;
	return parse_int(value, (field)f, slot);
}

rr_status rr_layout_parse(const char *text, rr_layout *out)
{
	if (!text || !out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_layout_parse needs a text and an output");
	rr_layout layout = {0};
	int seen[F_COUNT] = {0};
	size_t length = strlen(text);
	char *copy = malloc(length + 1);
	if (!copy)
		return rr__fail(RR_ERR_NOMEM, "out of memory parsing layout '%s'", text);
	memcpy(copy, text, length + 1);
	rr_status status = RR_OK;
	int items = 0;
	char *cursor = copy;
	while (status == RR_OK && cursor) {
		char *comma = strchr(cursor, ',');
		if (comma)
			*comma = 0;
		while (isspace((unsigned char)*cursor))
			cursor++;
		char *end = cursor + strlen(cursor);
		while (end > cursor && isspace((unsigned char)end[-1]))
			*--end = 0;
		if (*cursor) {
			status = parse_item(cursor, &layout, seen);
			items++;
		} else if (comma || items > 0) {
			status = rr__fail(RR_ERR_INVALID_ARG,
			                  "layout '%s' has an empty item between commas; %s", text,
			                  ALLOWED_KEYS);
		}
		cursor = comma ? comma + 1 : NULL;
	}
	free(copy);
	if (status == RR_OK && items == 0)
		status = rr__fail(RR_ERR_INVALID_ARG,
		                  "the layout text is empty: write e.g. W=128,V=4,U=1,R=1; %s",
		                  ALLOWED_KEYS);
	if (status == RR_OK)
		*out = layout;
	return status;
}

int rr_layout_format(const rr_layout *layout, char *buf, size_t size)
{
	rr__buf text = {0};
	const int numbers[] = {layout->workers_per_row, layout->vec, layout->unroll,
	                       layout->rows_per_group, layout->blocks_per_row};
	for (int f = F_W; f <= F_C; f++)
		if (numbers[f] != 0)
			rr__buf_printf(&text, "%s%s=%d", text.length ? "," : "", keys[f].key,
			               numbers[f]);
	if (layout->storage > RR_STORAGE_AUTO && layout->storage <= RR_STORAGE_GRID)
		rr__buf_printf(&text, "%sS=%s", text.length ? "," : "",
		               storage_names[layout->storage]);
	if (layout->grid > RR_GRID_AUTO && layout->grid <= RR_GRID_PERSISTENT)
		rr__buf_printf(&text, "%sG=%s", text.length ? "," : "", grid_names[layout->grid]);
	int length = text.failed ? -1 : (int)text.length;
	if (buf && size > 0)
		snprintf(buf, size, "%s", text.data && !text.failed ? text.data : "");
	rr__buf_free(&text);
	return length;
}
