/* The cost model's coefficients as data: the named table (coeffs.h), the device class of a
 * target, the embedded class files and the text format `rowreduce tune --fit` writes. No state:
 * the planner resolves a class once per request. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/coeffs.h"
#include "util/util.h"

typedef struct coeff_info {
	const char *name;
	double hand;
	char backend;
	const char *doc;
} coeff_info;

static const coeff_info COEFFS[RR__COEFF_COUNT] = {
#define RR__COEFF_INFO(name, value, backend, doc) {#name, value, (#backend)[0], doc},
    RR__COST_COEFFS(RR__COEFF_INFO)
#undef RR__COEFF_INFO
};

const char *rr__coeff_name(int id)
{
	return id >= 0 && id < RR__COEFF_COUNT ? COEFFS[id].name : NULL;
}

double rr__coeff_hand_value(int id)
{
	return id >= 0 && id < RR__COEFF_COUNT ? COEFFS[id].hand : NAN;
}

char rr__coeff_backend(int id)
{
	return id >= 0 && id < RR__COEFF_COUNT ? COEFFS[id].backend : 0;
}

const char *rr__coeff_doc(int id)
{
	return id >= 0 && id < RR__COEFF_COUNT ? COEFFS[id].doc : NULL;
}

int rr__coeff_find(const char *name)
{
	for (int id = 0; id < RR__COEFF_COUNT; id++)
		if (!strcmp(COEFFS[id].name, name))
			return id;
	return -1;
}

void rr__cost_coeffs_default(rr__cost_coeffs *out)
{
	memset(out, 0, sizeof *out);
	snprintf(out->device_class, sizeof out->device_class, "default");
	snprintf(out->source, sizeof out->source, "the hand values (src/plan/coeffs.h)");
	for (int id = 0; id < RR__COEFF_COUNT; id++)
		out->value[id] = COEFFS[id].hand;
}

static const char *host_arch(void)
{
#if defined(__x86_64__)
	return "x86-64";
#elif defined(__aarch64__)
	return "aarch64";
#else
	return "other";
#endif
}

void rr__cost_coeffs_class_of(const rr__target *target, char *out, size_t size)
{
	if (target->kind == RR_TARGET_GPU)
		snprintf(out, size, "cuda/sm_%d%d", target->cc_major, target->cc_minor);
	else
		snprintf(out, size, "cpu/%s", host_arch());
}

static rr_status from_environment(const char *path, const char *wanted, rr__cost_coeffs *out)
{
	char *text = NULL;
	size_t size = 0;
	rr_status status = rr__read_file(path, &text, &size);
	if (status != RR_OK)
		status = rr__fail(RR_ERR_INVALID_ARG, "RR_COST_COEFFS=%s cannot be read: %s", path,
		                  rr_last_error());
	else if ((status = rr__cost_coeffs_parse(text, path, out)) != RR_OK)
		status = rr__fail(RR_ERR_INVALID_ARG, "RR_COST_COEFFS: %s", rr_last_error());
	else if (strcmp(out->device_class, wanted))
		status =
		    rr__fail(RR_ERR_INVALID_ARG,
		             "RR_COST_COEFFS=%s holds the coefficients of %s; this target is %s",
		             path, out->device_class, wanted);
	free(text);
	if (status != RR_OK)
		rr__cost_coeffs_default(out);
	else
		snprintf(out->source, sizeof out->source, "RR_COST_COEFFS=%.200s", path);
	return status;
}

rr_status rr__cost_coeffs_for(const rr__target *target, rr__cost_coeffs *out)
{
	char wanted[64];
	const char *path = getenv("RR_COST_COEFFS");
	rr__cost_coeffs_class_of(target, wanted, sizeof wanted);
	if (path && path[0])
		return from_environment(path, wanted, out);
	for (const rr__coeff_file *f = rr__coeff_files; f->name; f++) {
		/* A file that does not parse cannot be checked in: test_plan parses every one. */
		if (rr__cost_coeffs_parse(f->text, f->name, out) == RR_OK &&
		    !strcmp(out->device_class, wanted)) {
			snprintf(out->source, sizeof out->source,
			         "src/plan/coeffs/%.180s (embedded)", f->name);
			return RR_OK;
		}
	}
	rr__cost_coeffs_default(out);
	return RR_OK;
}

/* ---------------------------------------------------------------- the text format */

static int is_blank(const char *line)
{
	line += strspn(line, " \t\r");
	return *line == '\0' || *line == '#';
}

static rr_status parse_line(char *line, const char *origin, int number, rr__cost_coeffs *out,
                            int *seen, int *has_class)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	char name[64], value_text[64], extra[2];
	int fields = sscanf(line, "%63s %63s %1s", name, value_text, extra);
	if (fields != 2)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "%s:%d: expected \"name value\" (or \"class NAME\"), got \"%s\"",
		                origin, number, line);
	if (!strcmp(name, "class")) {
		if (*has_class)
			return rr__fail(RR_ERR_INVALID_ARG, "%s:%d: a second class line", origin,
			                number);
		*has_class = 1;
		snprintf(out->device_class, sizeof out->device_class, "%s", value_text);
		return RR_OK;
	}
	int id = rr__coeff_find(name);
	if (id < 0)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "%s:%d: no cost coefficient is named \"%s\" (src/plan/coeffs.h lists "
		    "them)",
		    origin, number, name);
	if (seen[id])
		return rr__fail(RR_ERR_INVALID_ARG, "%s:%d: \"%s\" is given twice", origin, number,
		                name);
	char *end = NULL;
	errno = 0;
	double value = strtod(value_text, &end);
	if (errno || *end || !(value > 0) || !isfinite(value))
		return rr__fail(RR_ERR_INVALID_ARG,
		                "%s:%d: \"%s\" must be a positive finite number, got \"%s\"",
		                origin, number, name, value_text);
	seen[id] = 1;
	out->value[id] = value;
	return RR_OK;
}

rr_status rr__cost_coeffs_parse(const char *text, const char *origin, rr__cost_coeffs *out)
{
	int seen[RR__COEFF_COUNT] = {0}, has_class = 0, number = 0;
	rr_status status = RR_OK;
	rr__cost_coeffs_default(out);
	while (status == RR_OK && *text) {
		size_t length = strcspn(text, "\n");
		char line[512];
		number++;
		if (length >= sizeof line)
			return rr__fail(RR_ERR_INVALID_ARG,
			                "%s:%d: line longer than %zu characters", origin, number,
			                sizeof line - 1);
		memcpy(line, text, length);
		line[length] = '\0';
		text += length + (text[length] == '\n');
		if (!is_blank(line))
			status = parse_line(line, origin, number, out, seen, &has_class);
	}
	if (status == RR_OK && !has_class)
		status = rr__fail(RR_ERR_INVALID_ARG, "%s: no \"class NAME\" line", origin);
	return status;
}

static int in_class(const rr__cost_coeffs *c, int id)
{
	char backend = COEFFS[id].backend;
	if (backend == 'A' || !strcmp(c->device_class, "default"))
		return 1;
	return backend == (strncmp(c->device_class, "cuda/", 5) ? 'C' : 'G');
}

char *rr__cost_coeffs_format(const rr__cost_coeffs *c, const char *header)
{
	size_t size = strlen(header) + 128 + (size_t)RR__COEFF_COUNT * 200, used = 0;
	char *text = malloc(size);
	if (!text)
		return NULL;
	used += (size_t)snprintf(text + used, size - used, "%s%sclass %s\n", header,
	                         header[0] && header[strlen(header) - 1] != '\n' ? "\n" : "",
	                         c->device_class);
	for (int id = 0; id < RR__COEFF_COUNT && used < size; id++)
		if (in_class(c, id))
			used += (size_t)snprintf(text + used, size - used, "%-30s %-12.6g # %s\n",
			                         COEFFS[id].name, c->value[id], COEFFS[id].doc);
	return text;
}
