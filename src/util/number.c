/* The one reader of numbers (seeds, params, shapes, layouts, counts): whole numbers are digits
 * only, so "-1" is refused like "abc" and never wraps around; messages say what was wrong and
 * what is allowed. Also the one writer of real numbers a person reads back ("30", "1e-6"). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

rr_status rr_parse_whole(const char *text, uint64_t least, uint64_t most, uint64_t *out)
{
	const char *shown = text ? text : "";
	int digits = 0, over = 0;
	uint64_t value = 0;
	for (const char *p = shown; *p; p++) {
		if (*p < '0' || *p > '9') {
			digits = 0;
			break;
		}
		unsigned d = (unsigned)(*p - '0');
		if (value > (UINT64_MAX - d) / 10)
			over = 1;
		else
			value = value * 10 + d;
		digits++;
	}
	if (digits == 0)
		return rr__fail(RR_ERR_INVALID_ARG, "'%s' is not a whole number from %llu to %llu",
		                shown, (unsigned long long)least, (unsigned long long)most);
	if (over || value > most)
		return rr__fail(RR_ERR_INVALID_ARG, "'%s' exceeds the most allowed, %llu", shown,
		                (unsigned long long)most);
	if (value < least)
		return rr__fail(RR_ERR_INVALID_ARG, "'%s' is below the least allowed, %llu", shown,
		                (unsigned long long)least);
	if (out)
		*out = value;
	return RR_OK;
}

rr_status rr_parse_real(const char *text, double least, double most, double *out)
{
	const char *shown = text ? text : "";
	char *end = NULL;
	errno = 0;
	double value = strtod(shown, &end);
	int unbounded = least <= -DBL_MAX && most >= DBL_MAX;
	char lo[32], hi[32];
	rr__format_real(least, lo);
	rr__format_real(most, hi);
	/* strtod also reads "nan", "inf" and hex; only finite decimal text is a number here. */
	int malformed = !*shown || end == shown || *end || !isfinite(value) ||
	                strpbrk(shown, "xXnN") != NULL || shown[0] == ' ';
	if (malformed && unbounded)
		return rr__fail(RR_ERR_INVALID_ARG, "'%s' is not a finite number (e.g. 1e-5)",
		                shown);
	if (malformed)
		return rr__fail(RR_ERR_INVALID_ARG, "'%s' is not a number from %s to %s", shown, lo,
		                hi);
	if (value > most)
		return rr__fail(RR_ERR_INVALID_ARG, "'%s' exceeds the most allowed, %s", shown, hi);
	if (value < least)
		return rr__fail(RR_ERR_INVALID_ARG, "'%s' is below the least allowed, %s", shown,
		                lo);
	if (out)
		*out = value;
	return RR_OK;
}

/* "1e-06" -> "1e-6", "1e+20" -> "1e20": the exponent as a person writes it. */
static void tidy_exponent(char *text)
{
	char *e = strchr(text, 'e');
	if (!e)
		return;
	char *from = e + 1, *to = e + 1;
	if (*from == '+')
		from++;
	else if (*from == '-')
		*to++ = *from++;
	while (*from == '0' && from[1])
		from++;
	memmove(to, from, strlen(from) + 1);
}

void rr__format_real(double value, char out[32])
{
	if (value == floor(value) && fabs(value) < 1e15) {
		snprintf(out, 32, "%.0f", value); /* whole numbers as written: 30, not 3e+01 */
		if (strcmp(out, "-0") == 0 && !signbit(value))
			snprintf(out, 32, "0");
		return;
	}
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(out, 32, "%.*g", digits, value);
		if (strtod(out, NULL) == value || value != value)
			break;
	}
	tidy_exponent(out);
}

#define MOST_DIMENSION ((uint64_t)1 << 31)

/* One side of a shape, whole and in 1..2^31; names the side on failure. */
static rr_status parse_side(const char *text, size_t length, const char *side, int64_t *out)
{
	char copy[64];
	uint64_t value = 0;
	snprintf(copy, sizeof copy, "%.*s", (int)(length < 63 ? length : 63), text);
	if (length >= sizeof copy || rr_parse_whole(copy, 1, MOST_DIMENSION, &value) != RR_OK) {
		char why[256];
		snprintf(why, sizeof why, "%s",
		         length >= sizeof copy ? "too long" : rr_last_error());
		return rr__fail(RR_ERR_INVALID_ARG, "%s: %s", side, why);
	}
	*out = (int64_t)value;
	return RR_OK;
}

rr_status rr_parse_shape(const char *text, int64_t *rows, int64_t *cols)
{
	const char *shown = text ? text : "";
	const char *x = strpbrk(shown, "xX");
	int64_t m = 0, n = 0;
	if (!x || strpbrk(x + 1, "xX"))
		return rr__fail(RR_ERR_INVALID_ARG,
		                "'%s' is not a shape: expected MxN, M rows and N columns (e.g. "
		                "4096x4096)",
		                shown);
	if (parse_side(shown, (size_t)(x - shown), "M (rows)", &m) != RR_OK ||
	    parse_side(x + 1, strlen(x + 1), "N (columns)", &n) != RR_OK)
		return rr__fail_context(RR_ERR_INVALID_ARG, "shape '%s'", shown);
	*rows = m;
	*cols = n;
	return RR_OK;
}
