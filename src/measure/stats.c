/* Statistics over raw samples: medians, ranges, percentiles, per-round p50s, paired ratios and
 * a bootstrap interval. Every formula is simple enough that a reader of results.json recomputes
 * it exactly from the samples stored there. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y ? 1 : 0;
}

/* A sorted copy; NULL on out of memory. */
static double *sorted_copy(const double *values, size_t n)
{
	double *copy = malloc(n * sizeof *copy);
	if (!copy)
		return NULL;
	memcpy(copy, values, n * sizeof *copy);
	qsort(copy, n, sizeof *copy, compare_doubles);
	return copy;
}

static double median_of_sorted(const double *sorted, size_t n)
{
	if (n % 2 == 1)
		return sorted[n / 2];
	return (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double rr__stats_median(const double *values, size_t n)
{
	if (n == 0)
		return NAN;
	double *sorted = sorted_copy(values, n);
	if (!sorted)
		return NAN;
	double result = median_of_sorted(sorted, n);
	free(sorted);
	return result;
}

double rr__stats_min(const double *values, size_t n)
{
	if (n == 0)
		return NAN;
	double result = values[0];
	for (size_t i = 1; i < n; i++)
		if (values[i] < result)
			result = values[i];
	return result;
}

double rr__stats_max(const double *values, size_t n)
{
	if (n == 0)
		return NAN;
	double result = values[0];
	for (size_t i = 1; i < n; i++)
		if (values[i] > result)
			result = values[i];
	return result;
}

double rr__stats_percentile(const double *values, size_t n, double p)
{
	if (n == 0 || !(p >= 0 && p <= 1))
		return NAN;
	double *sorted = sorted_copy(values, n);
	if (!sorted)
		return NAN;
	double h = (double)(n - 1) * p;
	size_t low = (size_t)floor(h);
	double result = sorted[low];
	if (low + 1 < n)
		result += (h - (double)low) * (sorted[low + 1] - sorted[low]);
	free(sorted);
	return result;
}

double rr__stats_round_p50s(const double *values, size_t rounds, size_t per_round, double *p50s)
{
	if (rounds == 0 || per_round == 0)
		return NAN;
	for (size_t r = 0; r < rounds; r++)
		p50s[r] = rr__stats_median(values + r * per_round, per_round);
	return rr__stats_median(p50s, rounds);
}

double rr__stats_paired_ratio(const double *a, const double *b, size_t rounds, double *ratios)
{
	if (rounds == 0)
		return NAN;
	for (size_t r = 0; r < rounds; r++)
		ratios[r] = a[r] / b[r];
	return rr__stats_median(ratios, rounds);
}

static uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

rr_status rr__stats_bootstrap_median(const double *values, size_t n, size_t resamples,
                                     double confidence, uint64_t seed, double *lo, double *hi)
{
	if (n == 0 || resamples == 0)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "a bootstrap interval needs at least one value and one resample "
		                "(got %zu values, %zu resamples)",
		                n, resamples);
	if (!(confidence > 0 && confidence < 1))
		return rr__fail(RR_ERR_INVALID_ARG, "bootstrap confidence %g is outside (0, 1)",
		                confidence);
	double *draw = malloc(n * sizeof *draw);
	double *medians = malloc(resamples * sizeof *medians);
	if (!draw || !medians) {
		free(draw);
		free(medians);
		return rr__fail(RR_ERR_NOMEM, "out of memory for a bootstrap of %zu resamples",
		                resamples);
	}
	uint64_t state = seed ? seed : 0x9e3779b97f4a7c15ull;
	for (size_t r = 0; r < resamples; r++) {
		for (size_t i = 0; i < n; i++)
			draw[i] = values[xorshift64(&state) % n];
		qsort(draw, n, sizeof *draw, compare_doubles);
		medians[r] = median_of_sorted(draw, n);
	}
	double tail = (1 - confidence) / 2;
	*lo = rr__stats_percentile(medians, resamples, tail);
	*hi = rr__stats_percentile(medians, resamples, 1 - tail);
	free(draw);
	free(medians);
	return RR_OK;
}

char *rr__format_duration(double us, double unit_of, int with_unit, char *out, size_t size)
{
	double pick = unit_of > 0 ? unit_of : us;
	double scale = pick >= 1e6 ? 1e6 : pick >= 1e3 ? 1e3 : 1;
	const char *unit = scale == 1e6 ? "s" : scale == 1e3 ? "ms" : "µs";
	double value = us / scale;
	int decimals = value >= 100 ? 1 : value >= 10 ? 2 : 3;
	snprintf(out, size, "%.*f%s%s", decimals, value, with_unit ? " " : "",
	         with_unit ? unit : "");
	return out;
}
