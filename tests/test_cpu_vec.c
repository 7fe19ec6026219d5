/* The cpu backend's vector math (src/codegen/device/cpu_vec.h) against float64: exp, log and
 * tanh swept over their ranges with the error bound the header states, the special values,
 * and max/min's NaN and signed-zero rules. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* W = 32 and two row inputs: the pair order on every target that takes it (paired_bf16) */
#define W 32
#define ROW_INPUTS 2
#include "codegen/device/cpu_vec.h"
#include "harness.h"
#include "util/util.h"

/* |got - want| in units of the f32 spacing at want (2^-149 below FLT_MIN). */
static double ulp_error(float got, double want)
{
	if (isnan(want))
		return isnan(got) ? 0 : INFINITY;
	if (isinf(want) || fabs(want) > FLT_MAX)
		return (double)got == (want > 0 ? INFINITY : -INFINITY) ? 0 : INFINITY;
	double a = fabs(want);
	double spacing = a < FLT_MIN ? ldexp(1.0, -149) : ldexp(1.0, ilogb(a) - 23);
	return fabs((double)got - want) / spacing;
}

static float from_bits(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

typedef vf (*vector_fn)(vf);

/* The worst error of fn against ref over the floats with bit patterns [lo, hi] of one sign,
 * every `stride`-th, L lanes at a time. */
static double sweep(vector_fn fn, double (*ref)(double), uint32_t lo, uint32_t hi, uint32_t stride,
                    uint32_t sign, float *worst_at)
{
	double worst = 0;
	for (uint64_t b = lo; b <= hi; b += (uint64_t)stride * L) {
		vf x;
		for (int l = 0; l < L; l++) {
			uint64_t bits = b + (uint64_t)l * stride;
			x[l] = from_bits((uint32_t)(bits > hi ? hi : bits) | sign);
		}
		vf y = fn(x);
		for (int l = 0; l < L; l++) {
			double e = ulp_error(y[l], ref((double)x[l]));
			if (e > worst) {
				worst = e;
				*worst_at = x[l];
			}
		}
	}
	return worst;
}

static uint32_t bits_of(float f)
{
	uint32_t b;
	memcpy(&b, &f, sizeof b);
	return b;
}

static void check_bound(const char *name, double worst, float at, double bound)
{
	printf("%s: worst %.3f ULP (at %.9g), bound %.0f\n", name, worst, (double)at, bound);
	CHECKF(worst <= bound, "%s: %.3f ULP at %.9g over the bound of %.0f", name, worst,
	       (double)at, bound);
}

static void test_exp(void)
{
	float at = 0;
	double w = sweep(rr_vexp, exp, 0, bits_of(89.0f), 97, 0, &at);
	float at2 = 0;
	double w2 = sweep(rr_vexp, exp, 0, bits_of(86.5f), 97, 0x80000000u, &at2);
	check_bound("exp [0, 89]", w, at, 2);
	check_bound("exp [-86.5, 0]", w2, at2, 2);
	vf s = rr_vexp(rr_vsplat(0.0f));
	CHECK(s[0] == 1.0f);
	s = rr_vexp(rr_vsplat(INFINITY));
	CHECK(s[0] == INFINITY);
	s = rr_vexp(rr_vsplat(-INFINITY));
	CHECK(s[0] == 0.0f);
	s = rr_vexp(rr_vsplat(NAN));
	CHECK(isnan(s[0]));
	s = rr_vexp(rr_vsplat(100.0f));
	CHECK(s[0] == INFINITY);
	s = rr_vexp(rr_vsplat(-200.0f));
	CHECK(s[0] == 0.0f);
#if defined(__AVX512F__) && L == 16
	/* gradual underflow: subnormal results within 2 units of 2^-149 */
	float at3 = 0;
	double w3 = sweep(rr_vexp, exp, bits_of(86.5f), bits_of(110.0f), 7, 0x80000000u, &at3);
	check_bound("exp [-110, -86.5]", w3, at3, 2);
#else
	s = rr_vexp(rr_vsplat(-86.6f)); /* under 2^-125: flushed, as the header says */
	CHECK(s[0] == 0.0f);
#endif
	s = rr_vexp(rr_vsplat(88.72f));
	CHECK(s[0] > 3.3e38f && s[0] < INFINITY);
}

/* rr_vexp_nonpos is rr_vexp bit for bit on its domain (x <= 0 or NaN): every 13th float of
 * [-inf, -0], lanes mixed so that one lane out of range takes the others through the fix-up
 * too; and the range tests see every lane. */
static void test_exp_nonpos(void)
{
	long mismatches = 0;
	float first = 0;
	for (uint64_t b = 0; b <= 0x7f800000u; b += 13u * L) {
		vf x;
		for (int l = 0; l < L; l++) {
			uint64_t bits = b + (uint64_t)l * 13u;
			x[l] = from_bits((uint32_t)(bits > 0x7f800000u ? 0x7f800000u : bits) |
			                 0x80000000u);
		}
		if ((b / (13u * L)) % 5 == 0)
			x[(b / 13u) % L] = NAN;
		vf want = rr_vexp(x), got = rr_vexp_nonpos(x);
		for (int l = 0; l < L; l++) {
			uint32_t w = bits_of(want[l]), g = bits_of(got[l]);
			if (w != g && !(isnan(want[l]) && isnan(got[l]))) {
				if (mismatches++ == 0)
					first = x[l];
			}
		}
	}
	CHECKF(mismatches == 0, "exp_nonpos differs from exp %ld times, first at %.9g", mismatches,
	       (double)first);
	vf s = rr_vexp_nonpos(rr_vsplat(-0.0f));
	CHECK(s[0] == 1.0f);
	s = rr_vexp_nonpos(rr_vsplat(-INFINITY));
	CHECK(s[0] == 0.0f);
	s = rr_vexp_nonpos(rr_vsplat(NAN));
	CHECK(isnan(s[0]));
	for (int l = 0; l < L; l++) {
		vf x = rr_vsplat(-1.0f);
		CHECK(!rr_vany_outside(x, 86.5f) && !rr_vany_below(x, -86.5f));
		x[l] = -87.0f;
		CHECKF(rr_vany_outside(x, 86.5f) && rr_vany_below(x, -86.5f), "lane %d", l);
		x[l] = 87.0f;
		CHECKF(rr_vany_outside(x, 86.5f) && !rr_vany_below(x, -86.5f), "lane %d", l);
		x[l] = NAN;
		CHECKF(rr_vany_outside(x, 86.5f) && rr_vany_below(x, -86.5f), "lane %d", l);
		x[l] = -86.5f;
		CHECKF(!rr_vany_outside(x, 86.5f) && !rr_vany_below(x, -86.5f), "lane %d", l);
	}
}

/* rr_vexp_nonpos_bf16 within its relative bound on [-86.5, -0] (every 7th float, all lanes
 * mixed), exact at -0, and as rr_vexp_nonpos at -inf, NaN and below 2^-125. */
static void test_exp_nonpos_bf16(void)
{
	double worst = 0;
	float at = 0;
	const uint32_t hi = bits_of(86.5f);
	for (uint64_t b = 0; b <= hi; b += 7u * L) {
		vf x;
		for (int l = 0; l < L; l++) {
			uint64_t bits = b + (uint64_t)l * 7u;
			x[l] = from_bits((uint32_t)(bits > hi ? hi : bits) | 0x80000000u);
		}
		vf y = rr_vexp_nonpos_bf16(x);
		for (int l = 0; l < L; l++) {
			double want = exp((double)x[l]), e = fabs((double)y[l] - want) / want;
			if (!(e <= worst)) {
				worst = e;
				at = x[l];
			}
		}
	}
	printf("exp_nonpos_bf16 [-86.5, 0]: worst relative error %.3g (at %.9g), bound 1.1e-4\n",
	       worst, (double)at);
	CHECKF(worst <= 1.1e-4, "exp_nonpos_bf16: relative error %.3g at %.9g", worst, (double)at);
	/* the edges exactly as rr_vexp_nonpos; under 2^-125 within the bound or 2 units of 2^-149
	 */
	const float edges[] = {-0.0f, 0.0f, -INFINITY, NAN, -200.0f, -86.6f, -103.0f};
	for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
		vf x = rr_vsplat(-1.0f);
		x[k % L] = edges[k];
		const float got = rr_vexp_nonpos_bf16(x)[k % L], want = rr_vexp_nonpos(x)[k % L];
		const int same = bits_of(got) == bits_of(want) || (isnan(got) && isnan(want));
		const int under = edges[k] < -86.5f && edges[k] >= -110.0f; /* NaN is not */
		CHECKF(under ? fabs((double)got - want) <= 1.1e-4 * want + ldexp(2.0, -149) : same,
		       "exp_nonpos_bf16(%g) = %.9g, rr_vexp_nonpos %.9g", (double)edges[k],
		       (double)got, (double)want);
	}
}

/* rr_vexp_nonpos_bf16_ranged is rr_vexp_nonpos_bf16 bit for bit on [-86.5, -0] (every 7th
 * float, lanes mixed, the ends exactly) and on every quiet NaN whose low 16 bits are zero (the
 * NaNs of x - m for bf16 x and m), in every lane beside ordinary values. */
static void test_exp_nonpos_bf16_ranged(void)
{
	long mismatches = 0;
	float first = 0;
	const uint32_t hi = bits_of(86.5f);
	for (uint64_t b = 0; b <= hi + 7u * L; b += 7u * L) {
		vf x;
		for (int l = 0; l < L; l++) {
			uint64_t bits = b + (uint64_t)l * 7u;
			x[l] = from_bits((uint32_t)(bits > hi ? hi : bits) | 0x80000000u);
		}
		x[(b / 7u) % L] = (b / (7u * L)) % 2 ? 0.0f : -86.5f;
		const vf want = rr_vexp_nonpos_bf16(x), got = rr_vexp_nonpos_bf16_ranged(x);
		for (int l = 0; l < L; l++)
			if (bits_of(want[l]) != bits_of(got[l]) && mismatches++ == 0)
				first = x[l];
	}
	CHECKF(mismatches == 0, "exp_nonpos_bf16_ranged differs %ld times, first at %.9g",
	       mismatches, (double)first);
	int nan_mismatches = 0;
	for (uint32_t top = 0x7fc0; top <= 0xffff; top++) {
		if ((top & 0x7fc0) != 0x7fc0)
			continue;
		for (int lane = 0; lane < L; lane++) {
			vf x = rr_vsplat(-0.75f);
			x[lane] = from_bits(top << 16);
			const vf want = rr_vexp_nonpos_bf16(x), got = rr_vexp_nonpos_bf16_ranged(x);
			for (int l = 0; l < L; l++)
				nan_mismatches += bits_of(want[l]) != bits_of(got[l]);
		}
	}
	CHECKF(nan_mismatches == 0, "exp_nonpos_bf16_ranged: %d lanes differ beside NaNs",
	       nan_mismatches);
}

/* rr_vexp_nonpos_ranged is rr_vexp_nonpos bit for bit on [-86.5, -0] (every 7th float, lanes
 * mixed, the ends exactly) and on every quiet NaN of either sign (any payload: x - m carries
 * x's), beside ordinary values in the other lanes. */
static void test_exp_nonpos_ranged(void)
{
	long mismatches = 0;
	float first = 0;
	const uint32_t hi = bits_of(86.5f);
	for (uint64_t b = 0; b <= hi + 7u * L; b += 7u * L) {
		vf x;
		for (int l = 0; l < L; l++) {
			uint64_t bits = b + (uint64_t)l * 7u;
			x[l] = from_bits((uint32_t)(bits > hi ? hi : bits) | 0x80000000u);
		}
		x[(b / 7u) % L] = (b / (7u * L)) % 2 ? -0.0f : -86.5f;
		const vf want = rr_vexp_nonpos(x), got = rr_vexp_nonpos_ranged(x);
		for (int l = 0; l < L; l++)
			if (bits_of(want[l]) != bits_of(got[l]) && mismatches++ == 0)
				first = x[l];
	}
	CHECKF(mismatches == 0, "exp_nonpos_ranged differs %ld times, first at %.9g", mismatches,
	       (double)first);
	CHECK(rr_vexp_nonpos_ranged(rr_vsplat(-0.0f))[0] == 1.0f);
	long nan_mismatches = 0;
	uint32_t nan_first = 0;
	for (uint64_t b = 0; b < 0x800000u; b += L) {
		vf x;
		for (int l = 0; l < L; l++) /* quiet NaNs, the sign by the payload's parity */
			x[l] = from_bits(0x7fc00000u | (uint32_t)((b + l) >> 1) |
			                 (uint32_t)((b + l) & 1) << 31);
		x[(b / L) % L] = -1.25f;
		const vf want = rr_vexp_nonpos(x), got = rr_vexp_nonpos_ranged(x);
		for (int l = 0; l < L; l++)
			if (bits_of(want[l]) != bits_of(got[l]) && nan_mismatches++ == 0)
				nan_first = bits_of(x[l]);
	}
	CHECKF(nan_mismatches == 0, "exp_nonpos_ranged differs on %ld NaNs, first 0x%08x",
	       nan_mismatches, nan_first);
}

/* rr_bf16_extrema against the float comparisons: random rows of 0 to 100 values, of 100 to
 * 299 and of 1000 (every length class of the vector loops and their ends), starting at every
 * element of a 64-byte span (the lead to the 32- and 64-byte aligned loads), drawn from
 * ordinary values, zeros, infinities, subnormals and NaNs of both signs, some rows all of one
 * sign. Where it answers, *max is the largest value that is no NaN (+0 over -0) and *min the
 * smallest (-0 under +0), or a NaN where a negative NaN is present; it declines exactly where a
 * positive NaN is or every value is NaN. */
static void test_bf16_extrema(void)
{
	static const uint16_t specials[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x0001, 0x8001,
	                                    0x7f7f, 0xff7f, 0x7fc0, 0xffc0, 0x7f81, 0xffff,
	                                    0x3f80, 0xbf80, 0x42ad, 0xc2ad};
	uint64_t state = 0x9e3779b97f4a7c15ull;
	int wrong = 0;
	for (int trial = 0; trial < 20000; trial++) {
		_Alignas(64) uint16_t buffer[1032];
		uint16_t *row = buffer + trial % 32; /* every start within 64 bytes */
		const int n = trial % 5 == 4 ? 1000 : trial % 5 == 3 ? 100 + trial % 200 : trial % 101;
		/* how often specials appear: never, rarely, often; NaNs only in some trials */
		const int odds = trial % 3 == 0 ? 0 : trial % 3 == 1 ? 50 : 4;
		const int nans = trial % 7 < 3;
		for (int k = 0; k < n; k++) {
			state ^= state << 13, state ^= state >> 7, state ^= state << 17;
			uint16_t v = (uint16_t)(state >> 20);
			if (odds && (state >> 40) % (uint64_t)odds == 0)
				v = specials[(state >> 50) % (nans ? 16 : 8)];
			else if ((v & 0x7f80) == 0x7f80) /* ordinary values: no NaN, no infinity */
				v ^= 0x0100;
			/* rows of one sign, where the unsigned extrema decide */
			if (trial % 11 == 0)
				v |= 0x8000;
			else if (trial % 11 == 1)
				v &= 0x7fff;
			row[k] = v;
		}
		int pos_nan = 0, neg_nan = 0, values = 0;
		float want_max = -INFINITY, want_min = INFINITY;
		for (int k = 0; k < n; k++) {
			const float f = rr__bf16_to_float(row[k]);
			if (isnan(f)) {
				pos_nan |= !signbit(f), neg_nan |= signbit(f) != 0;
				continue;
			}
			values++;
			if (f > want_max || (f == 0 && want_max == 0 && !signbit(f)))
				want_max = f;
			if (f < want_min || (f == 0 && want_min == 0 && signbit(f)))
				want_min = f;
		}
		float got_max = 0, got_min = 0;
		const int answered = rr_bf16_extrema(row, n, &got_max, &got_min);
		const int want_answer = !pos_nan && values > 0;
		int ok = answered == want_answer;
		if (ok && answered) {
			ok = bits_of(got_max) == bits_of(want_max) &&
			     (neg_nan ? isnan(got_min) : bits_of(got_min) == bits_of(want_min));
		}
		if (!ok && wrong++ < 5)
			CHECKF(
			    0,
			    "bf16 extrema of %d values (trial %d): answered %d max %g min %g, want "
			    "%d %g %g",
			    n, trial, answered, (double)got_max, (double)got_min, want_answer,
			    (double)want_max, (double)want_min);
	}
	CHECK(wrong == 0);
}

/* rr_vexp_nonpos_summed within its relative bound on [-87, -0] (every 7th float, all lanes
 * mixed), exact at -0, NaN kept, and below -87 (and -inf) at most exp(-87) with the bound.
 * The bound: 3.8e-6 + 1.9e-9 |k| where rr_vfma rounds once (ln 2 in one part), 4e-6 where it
 * does not (two parts): the degree-4 polynomial's truncation 3.57e-6 and the f32 roundings. */
static double exp_summed_bound(double x)
{
#if (defined(__AVX512F__) && L == 16) || (defined(__FMA__) && (L == 8 || L == 4))
	return 3.8e-6 + 1.9e-9 * fabs(nearbyint(x / M_LN2));
#else
	(void)x;
	return 4e-6;
#endif
}

/* The polynomial device/cpu_vec.h states for rr_vexp_nonpos_summed, in float64: exp(r) ~ 1 +
 * r (c1 + r (c2 + r (c3 + r c4))) on |r| <= ln 2 / 2 (bench/lab/s33b-cpu/remez4.py). On
 * [-ln 2 / 2, 0], where k = 0 and r = x, the f32 function must be this polynomial within the
 * f32 roundings of its four multiply-adds (a few units of 2^-24), far under the 3.57e-6 by
 * which it differs from exp: the stated form (and so the stated bound) is the one compiled. */
static double exp_summed_polynomial(double r)
{
	return 1 + r * (9.999514222e-01 +
	                r * (4.999595284e-01 + r * (1.680882871e-01 + r * 4.238152876e-02)));
}

static void test_exp_nonpos_summed(void)
{
	double worst = 0, worst_near = 0; /* of error / bound; error for x >= -1 */
	float at = 0;
	const uint32_t hi = bits_of(87.0f);
	for (uint64_t b = 0; b <= hi; b += 7u * L) {
		vf x;
		for (int l = 0; l < L; l++) {
			uint64_t bits = b + (uint64_t)l * 7u;
			x[l] = from_bits((uint32_t)(bits > hi ? hi : bits) | 0x80000000u);
		}
		vf y = rr_vexp_nonpos_summed(x);
		for (int l = 0; l < L; l++) {
			double want = exp((double)x[l]), e = fabs((double)y[l] - want) / want;
			if (!(e / exp_summed_bound(x[l]) <= worst)) {
				worst = e / exp_summed_bound(x[l]);
				at = x[l];
			}
			if (x[l] >= -1.0f && e > worst_near)
				worst_near = e;
		}
	}
	printf("exp_nonpos_summed [-87, 0]: worst relative error %.3g of its bound (at %.9g), "
	       "on [-1, 0] %.3g\n",
	       worst, (double)at, worst_near);
	CHECKF(worst <= 1, "exp_nonpos_summed: relative error %.3g of the bound at %.9g", worst,
	       (double)at);
	double worst_form = 0;
	for (uint32_t b = 0; b <= bits_of(0.34f); b += 97u * L) {
		vf x;
		for (int l = 0; l < L; l++)
			x[l] = -from_bits(b + (uint32_t)l * 97u);
		const vf y = rr_vexp_nonpos_summed(x);
		for (int l = 0; l < L; l++) {
			const double want = exp_summed_polynomial((double)x[l]);
			if (fabs((double)y[l] - want) / want > worst_form)
				worst_form = fabs((double)y[l] - want) / want;
		}
	}
	printf("exp_nonpos_summed [-0.34, 0]: worst %.3g from its stated polynomial\n", worst_form);
	CHECKF(worst_form <= 4e-7, "exp_nonpos_summed is %.3g from its stated polynomial",
	       worst_form);
	const double floor = exp(-87.0) * (1 + exp_summed_bound(-87.0));
	const float edges[] = {-0.0f, 0.0f, -INFINITY, NAN, -87.0001f, -88.0f, -103.0f, -1e30f};
	for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
		vf x = rr_vsplat(-1.0f);
		x[k % L] = edges[k];
		const vf y = rr_vexp_nonpos_summed(x);
		const float got = y[k % L];
		if (isnan(edges[k]))
			CHECKF(isnan(got), "exp_nonpos_summed(NaN) = %.9g", (double)got);
		else if (edges[k] == 0)
			CHECKF(got == 1.0f, "exp_nonpos_summed(%g) = %.9g", (double)edges[k],
			       (double)got);
		else
			CHECKF(got >= 0 && got <= floor, "exp_nonpos_summed(%g) = %.9g, over %.9g",
			       (double)edges[k], (double)got, floor);
		CHECKF(fabs((double)y[(k + 1) % L] - exp(-1.0)) <= exp_summed_bound(-1) * exp(-1.0),
		       "exp_nonpos_summed(-1) beside %g: %.9g", (double)edges[k],
		       (double)y[(k + 1) % L]);
	}
}

static void test_log(void)
{
	float at = 0;
	double w = sweep(rr_vlog, log, 1, 0x7f7fffffu, 331, 0, &at);
	check_bound("log (0, FLT_MAX]", w, at, 2);
	vf s = rr_vlog(rr_vsplat(1.0f));
	CHECK(s[0] == 0.0f);
	s = rr_vlog(rr_vsplat(0.0f));
	CHECK(s[0] == -INFINITY);
	s = rr_vlog(rr_vsplat(-0.0f));
	CHECK(s[0] == -INFINITY);
	s = rr_vlog(rr_vsplat(-1.0f));
	CHECK(isnan(s[0]));
	s = rr_vlog(rr_vsplat(INFINITY));
	CHECK(s[0] == INFINITY);
	s = rr_vlog(rr_vsplat(NAN));
	CHECK(isnan(s[0]));
}

static void test_tanh(void)
{
	float at = 0, at2 = 0;
	double w = sweep(rr_vtanh, tanh, 0, bits_of(12.0f), 97, 0, &at);
	double w2 = sweep(rr_vtanh, tanh, 0, bits_of(12.0f), 97, 0x80000000u, &at2);
	check_bound("tanh [0, 12]", w, at, 3);
	check_bound("tanh [-12, 0]", w2, at2, 3);
	vf s = rr_vtanh(rr_vsplat(-0.0f));
	CHECK(s[0] == 0.0f && signbit(s[0]));
	s = rr_vtanh(rr_vsplat(INFINITY));
	CHECK(s[0] == 1.0f);
	s = rr_vtanh(rr_vsplat(-1e30f));
	CHECK(s[0] == -1.0f);
	s = rr_vtanh(rr_vsplat(NAN));
	CHECK(isnan(s[0]));
}

/* max/min: the other operand when one is NaN (fmaxf/fminf), the first when they are equal. */
static void test_max_min(void)
{
	const float values[] = {NAN, -INFINITY, -1.5f, -0.0f, 0.0f, 2.0f, INFINITY};
	const int count = (int)(sizeof values / sizeof values[0]);
	for (int i = 0; i < count; i++)
		for (int j = 0; j < count; j++) {
			float a = values[i], b = values[j];
			const float mx = rr_vmax(rr_vsplat(a), rr_vsplat(b))[0];
			const float mn = rr_vmin(rr_vsplat(a), rr_vsplat(b))[0];
			float want_max = isnan(b) ? a : isnan(a) ? b : a >= b ? a : b;
			float want_min = isnan(b) ? a : isnan(a) ? b : a <= b ? a : b;
			CHECKF(memcmp(&mx, &want_max, sizeof want_max) == 0 ||
			           (isnan(mx) && isnan(want_max)),
			       "max(%g, %g) = %g", (double)a, (double)b, (double)mx);
			CHECKF(memcmp(&mn, &want_min, sizeof want_min) == 0 ||
			           (isnan(mn) && isnan(want_min)),
			       "min(%g, %g) = %g", (double)a, (double)b, (double)mn);
			if (!isnan(a) && !isnan(b) && a != b) {
				CHECK(mx == fmaxf(a, b));
				CHECK(mn == fminf(a, b));
			}
		}
}

/* A 16-bit vector store's bits are its scalar conversion's: every 97th bit pattern of both
 * signs, L at a time, and `edges` one by one in every lane, the other lanes 1.0 (`one`). */
static void check_store16(const char *name, void (*store)(uint16_t *, vf),
                          uint16_t (*scalar)(float), uint16_t one, const uint32_t *edges,
                          size_t n_edges)
{
	int wrong = 0;
	for (uint64_t b = 0; b < 0x100000000ull; b += 97ull * L) {
		vf v;
		for (int l = 0; l < L; l++)
			v[l] = from_bits((uint32_t)(b + 97ull * (uint64_t)l));
		uint16_t got[L];
		store(got, v);
		for (int l = 0; l < L; l++)
			if (got[l] != scalar(v[l]) && wrong++ < 5)
				CHECKF(0, "%s of 0x%08x: 0x%04x, want 0x%04x", name,
				       (unsigned)(b + 97ull * l), got[l], scalar(v[l]));
	}
	CHECK(wrong == 0);
	for (size_t e = 0; e < n_edges; e++)
		for (int lane = 0; lane < L; lane++) {
			vf v = rr_vsplat(1.0f);
			v[lane] = from_bits(edges[e]);
			uint16_t got[L];
			store(got, v);
			CHECKF(got[lane] == scalar(v[lane]) && got[(lane + 1) % L] == one,
			       "%s of 0x%08x in lane %d: 0x%04x, want 0x%04x", name,
			       (unsigned)edges[e], lane, got[lane], scalar(v[lane]));
		}
}

/* The vector bf16 store's bits are the scalar conversion's (round to nearest even, NaN quiet
 * and NaN, overflow to infinity), the ties, NaNs and edges included. */
static void test_bf16_store(void)
{
	static const uint32_t edges[] = {0x00000000, 0x80000000, 0x3f808000, 0x3f818000, 0x3f807fff,
	                                 0x3f808001, 0x7f7fffff, 0x7f7f8000, 0xff7f8000, 0x7f800000,
	                                 0xff800000, 0x7f800001, 0x7fc00000, 0xffffffff, 0x7fff8000,
	                                 0x00008000, 0x00018000, 0x807fffff};
	check_store16("bf16", rr_store_bf16, rr__f32_to_bf16, 0x3f80, edges,
	              sizeof edges / sizeof edges[0]);
}

/* The guarded chunk's accesses (one masked load or store where the target has them): at every
 * count of lanes left, none to more than L, and at every element offset from a 64-byte
 * boundary, lanes_valid sets exactly the lanes before N, load_lanes_guarded reads them and 0
 * elsewhere, store_lanes_guarded writes them and nothing around them. */
static void test_guarded_lanes(void)
{
	float row[4 * L] __attribute__((aligned(64)));
	float out[4 * L] __attribute__((aligned(64)));
	for (int k = 0; k < 4 * L; k++)
		row[k] = (float)(k + 1);
	int failures = 0;
	for (int offset = 0; offset < L; offset++)
		for (int64_t left = -1; left <= L + 1; left++) {
			const int64_t i = offset + L, N = i + left;
			const vi valid = lanes_valid(i, N);
			const vf got = load_lanes_guarded(row, i, N);
			for (int k = 0; k < 4 * L; k++)
				out[k] = -1.0f;
			if (left > 0)
				store_lanes_guarded(out, i, N, got);
			for (int l = 0; l < L; l++) {
				const int present = l < left;
				failures += valid[l] != (present ? -1 : 0);
				failures += left > 0 && got[l] != (present ? row[i + l] : 0.0f);
			}
			for (int k = 0; k < 4 * L; k++) /* the lanes before N, at most L of them */
				failures +=
				    out[k] !=
				    (left > 0 && k >= i && k < N && k < i + L ? row[k] : -1.0f);
		}
	CHECKF(failures == 0, "guarded lanes: %d wrong lanes or elements", failures);
}

/* rr_store_aligned: whole vectors at every element offset from a 64-byte boundary, 1 to 5 of
 * them, leave exactly store_lanes's values (element k of vector c = c * L + k + 1) and nothing
 * outside [start, start + count * L), rotating or not, streamed (in aligned halves where the
 * row is 16 bytes off a 32-byte vector) or not. */
static void test_aligned_stores(void)
{
	enum { SLACK = 64 };
	_Alignas(64) float row[SLACK + 6 * L + SLACK];
	for (int offset = 0; offset < L; offset++)
		for (int count = 1; count <= 5; count++)
			for (int mode = 0; mode < 4; mode++) {
				const int stream = mode & 1, rotate = mode >> 1;
				for (size_t k = 0; k < sizeof row / sizeof row[0]; k++)
					row[k] = -1.0f;
				float *p = row + SLACK + offset;
				rr_carry carry;
				memset(&carry, 0, sizeof carry);
				rr_aligner a = rr_aligner_begin(p, stream, rotate, &carry);
				for (int c = 0; c < count; c++) {
					/* every lane is set below; gcc 13 asks for a start */
					vf v = rr_vsplat(0.0f);
					for (int l = 0; l < L; l++)
						v[l] = (float)(c * L + l + 1);
					rr_store_aligned(&a, p, (int64_t)c * L, stream, v);
				}
				rr_aligner_end(&a, p);
				rr_carry_flush(&carry);
#if defined(__SSE__)
				_mm_sfence();
#endif
				int wrong = 0;
				for (int k = -SLACK - offset; k < 6 * L + SLACK - offset; k++) {
					const float want =
					    k >= 0 && k < count * L ? (float)(k + 1) : -1.0f;
					wrong += p[k] != want;
				}
				CHECKF(wrong == 0,
				       "offset %d, %d vectors, stream %d, rotate %d: %d elements "
				       "wrong",
				       offset, count, stream, rotate, wrong);
			}
}

/* rr_store_bf16_run: 1 to 17 vectors at each element offset from a 64-byte boundary leave
 * exactly rr_store_bf16's bits and nothing else, streamed or not, with and without a subnormal
 * or a NaN lane in one of them (the one test for all; odd counts end with a vector alone; up to
 * 16 converted two at a time before the lane test, 17 tested first), and the values are ties
 * (k * (1 + 2^-8)) so that the rounding is tested too. */
static void test_bf16_runs(void)
{
	enum { SLACK = 32, MOST = 17 };
	_Alignas(64) uint16_t row[SLACK + (MOST + 1) * L + SLACK];
	for (int offset = 0; offset < L; offset++)
		for (int count = 1; count <= MOST; count++)
			for (int variant = 0; variant < 6; variant++) {
				const int stream = variant & 1, special = variant >> 1;
				for (size_t k = 0; k < sizeof row / sizeof row[0]; k++)
					row[k] = 0xdead;
				uint16_t *p = row + SLACK + offset, want[MOST * L];
				vf v[MOST];
				for (int c = 0; c < count; c++) {
					for (int l = 0; l < L; l++)
						v[c][l] = (float)(c * L + l + 1) * 1.00390625f;
					if (special == 1 && c == count - 1)
						/* 0x80105564: bf16 0x8010 */
						v[c][offset % L] = -1.5e-39f;
					if (special == 2 && c == (offset + count) % count) {
						const uint32_t signalling =
						    0xff800001u; /* bf16 0xffc0 */
						memcpy(&v[c][(offset + 3) % L], &signalling, 4);
					}
					rr_store_bf16(want + c * L, v[c]);
				}
				rr_store_bf16_run(p, v, count, stream);
#if defined(__SSE__)
				_mm_sfence();
#endif
				int wrong = 0;
				for (int k = -SLACK - offset; k < (MOST + 1) * L + SLACK - offset;
				     k++)
					wrong +=
					    p[k] != (k >= 0 && k < count * L ? want[k] : 0xdead);
				CHECKF(
				    wrong == 0,
				    "bf16 run at offset %d, %d vectors, stream %d, special %d: %d "
				    "wrong",
				    offset, count, stream, special, wrong);
			}
	_Alignas(64) uint16_t one[L];
	vf tiny = rr_vsplat(1.0f);
	tiny[3] = -1.5e-39f;
	rr_store_bf16_run(one, &tiny, 1, 0);
	CHECKF(one[3] == 0x8010 && one[2] == 0x3f80, "subnormal lane stored as 0x%04x", one[3]);
}

/* rr_store_bf16_run over the rounding's edges (ties to even both ways, carries into the
 * exponent, overflow to infinity, subnormals, and NaNs where `nans` says): the bits of the
 * scalar conversion, two vectors at a time, every edge in every lane. */
static void test_bf16_run_edges(void)
{
	static const uint32_t edges[] = {
	    0x00000000, 0x80000000, 0x3f808000, 0x3f818000, 0x3f807fff, 0x3f808001, 0x7f7fffff,
	    0x7f7f8000, 0xff7f8000, 0x7f800000, 0xff800000, 0x00008000, 0x00018000, 0x807fffff,
	    0x7f800001, 0x7fc00000, 0xffffffff, 0x7fff8000, 0x4b7fffff, 0xc0ff8000};
	enum { EDGES = sizeof edges / sizeof edges[0], FINITE = 14 };
	for (int nans = 0; nans <= 1; nans++)
		for (int start = 0; start < EDGES; start++) {
			vf v[2];
			uint32_t bits[2 * L];
			for (int k = 0; k < 2 * L; k++) {
				bits[k] = edges[(start + k) % (nans ? EDGES : FINITE)];
				memcpy(&v[k / L][k % L], &bits[k], 4);
			}
			_Alignas(64) uint16_t got[2 * L];
			rr_store_bf16_run(got, v, 2, 0);
			for (int k = 0; k < 2 * L; k++) {
				float value;
				memcpy(&value, &bits[k], 4);
				CHECKF(got[k] == rr__f32_to_bf16(value),
				       "bf16 run of 0x%08x: 0x%04x, want 0x%04x", (unsigned)bits[k],
				       got[k], rr__f32_to_bf16(value));
			}
		}
}

/* rr_store_bf16_run's rounding for every bf16 (every top half, NaNs apart) with the low
 * halves where rounding to nearest even decides: 0, a tie, one either side of it and all ones,
 * beside an odd and an even top half: the scalar conversion's bits, two vectors at a time. */
static void test_bf16_run_sweep(void)
{
	static const uint32_t lows[] = {0x0000, 0x7fff, 0x8000, 0x8001, 0xffff};
	int wrong = 0;
	for (uint32_t top = 0; top < 0x10000u; top += 2 * L)
		for (size_t w = 0; w < sizeof lows / sizeof lows[0]; w++) {
			vf v[2];
			uint32_t bits[2 * L];
			for (int k = 0; k < 2 * L; k++) {
				bits[k] = (top + (uint32_t)k) << 16 | lows[(w + (size_t)k) % 5];
				if ((bits[k] & 0x7f800000u) == 0x7f800000u && (bits[k] & 0x7fffffu))
					bits[k] = 0x3f808000u; /* NaNs: test_bf16_run_edges */
				memcpy(&v[k / L][k % L], &bits[k], 4);
			}
			_Alignas(64) uint16_t got[2 * L];
			rr_store_bf16_run(got, v, 2, 0);
			for (int k = 0; k < 2 * L; k++) {
				float value;
				memcpy(&value, &bits[k], 4);
				if (got[k] != rr__f32_to_bf16(value) && wrong++ < 5)
					CHECKF(0, "bf16 run of 0x%08x: 0x%04x, want 0x%04x",
					       (unsigned)bits[k], got[k], rr__f32_to_bf16(value));
			}
		}
	CHECK(wrong == 0);
}

/* rr_store_bf16_run on runs without a tie, which round half up (cpu_vec.h): every top half
 * beside low halves on both sides of a tie, streamed and not, in runs of 4 vectors; then the
 * same runs with one word 0x8000 in one lane (a tie's low half, or a high half 0x8000: -0 to a
 * negative subnormal), which take the exact rounding for the whole run. The scalar
 * conversion's bits everywhere. */
static void test_bf16_run_half_up(void)
{
	static const uint32_t lows[] = {0x0000, 0x0001, 0x7ffe, 0x7fff,
	                                0x8001, 0x8002, 0xfffe, 0xffff};
	enum { LOWS = sizeof lows / sizeof lows[0], RUN = 4 };
	int wrong = 0;
	for (uint32_t top = 0; top < 0x10000u; top += RUN * L)
		for (int variant = 0; variant < 2 * LOWS + 4; variant++) {
			const int stream = variant & 1, kind = variant >> 1;
			vf v[RUN];
			uint32_t bits[RUN * L];
			for (int k = 0; k < RUN * L; k++) {
				bits[k] = (top + (uint32_t)k) << 16 | lows[(kind + k) % LOWS];
				if ((bits[k] & 0x7f800000u) == 0x7f800000u && (bits[k] & 0x7fffffu))
					bits[k] = 0x3f808001u; /* NaNs: test_bf16_run_edges */
			}
			if (kind >= LOWS) { /* one special word in a lane that moves with top */
				const int at = (int)(top / (RUN * L) * 7 % (RUN * L));
				bits[at] = kind == LOWS ? (bits[at] & 0xffff0000u) | 0x8000u
				                        : 0x80000000u | (bits[at] & 0x7fffu);
			}
			for (int k = 0; k < RUN * L; k++)
				memcpy(&v[k / L][k % L], &bits[k], 4);
			_Alignas(64) uint16_t got[RUN * L];
			rr_store_bf16_run(got, v, RUN, stream);
#if defined(__SSE__)
			_mm_sfence();
#endif
			for (int k = 0; k < RUN * L; k++) {
				float value;
				memcpy(&value, &bits[k], 4);
				if (got[k] != rr__f32_to_bf16(value) && wrong++ < 5)
					CHECKF(0, "bf16 run of 0x%08x: 0x%04x, want 0x%04x",
					       (unsigned)bits[k], got[k], rr__f32_to_bf16(value));
			}
		}
	CHECK(wrong == 0);
}

/* rr_load_bf16: every 16-bit pattern, L at a time, is the f32 with those bits on top. */
static void test_bf16_load(void)
{
	int wrong = 0;
	for (uint32_t b = 0; b < 0x10000u; b += L) {
		uint16_t bits[L];
		for (int l = 0; l < L; l++)
			bits[l] = (uint16_t)(b + (uint32_t)l);
		const vf v = rr_load_bf16(bits);
		for (int l = 0; l < L; l++) {
			uint32_t got;
			memcpy(&got, &v[l], sizeof got);
			if (got != (uint32_t)bits[l] << 16 && wrong++ < 5)
				CHECKF(0, "bf16 0x%04x loaded as 0x%08x", bits[l], (unsigned)got);
		}
	}
	CHECK(wrong == 0);
}

/* rr_load_f16: every 16-bit pattern, L at a time, loads as the scalar conversion's bits (NaN
 * quiet, subnormals exact). */
static void test_f16_load(void)
{
	int wrong = 0;
	for (uint32_t b = 0; b < 0x10000u; b += L) {
		uint16_t bits[L];
		for (int l = 0; l < L; l++)
			bits[l] = (uint16_t)(b + (uint32_t)l);
		const vf v = rr_load_f16(bits);
		for (int l = 0; l < L; l++) {
			const float want = rr__f16_to_f32(bits[l]);
			uint32_t got_bits, want_bits;
			memcpy(&got_bits, &v[l], sizeof got_bits);
			memcpy(&want_bits, &want, sizeof want_bits);
			if (got_bits != want_bits && wrong++ < 5)
				CHECKF(0, "f16 0x%04x loaded as 0x%08x, want 0x%08x", bits[l],
				       (unsigned)got_bits, (unsigned)want_bits);
		}
	}
	CHECK(wrong == 0);
}

/* The vector f16 store's bits are the scalar conversion's (round to nearest even, subnormal
 * results, overflow to infinity, NaN as sign | 0x7e00), the ties, NaNs and edges included. */
static void test_f16_store(void)
{
	static const uint32_t edges[] = {0x00000000, 0x80000000, 0x3f801000, 0x3f803000, 0x3f800fff,
	                                 0x3f801001, 0x477fe000, 0x477fefff, 0x477ff000, 0xc77ff000,
	                                 0x7f7fffff, 0x7f800000, 0xff800000, 0x7f800001, 0x7fc00000,
	                                 0xffffffff, 0x7fbfe000, 0x33000000, 0x33000001, 0x33800000,
	                                 0x387fc000, 0x38800000, 0x00000001, 0x807fffff};
	check_store16("f16", rr_store_f16, rr__f32_to_f16, 0x3c00, edges,
	              sizeof edges / sizeof edges[0]);
}

/* rr_store_f16_run: 1 to 4 vectors at each element offset from a 64-byte boundary leave
 * exactly rr_store_f16's bits and nothing else, streamed or not, with and without a NaN lane
 * (a payload the instruction would keep) in one of them. */
static void test_f16_runs(void)
{
	enum { SLACK = 32 };
	_Alignas(64) uint16_t row[SLACK + 5 * L + SLACK];
	for (int offset = 0; offset < L; offset++)
		for (int count = 1; count <= 4; count++)
			for (int variant = 0; variant < 4; variant++) {
				const int stream = variant & 1, nan = variant >> 1;
				for (size_t k = 0; k < sizeof row / sizeof row[0]; k++)
					row[k] = 0xdead;
				uint16_t *p = row + SLACK + offset, want[4 * L];
				vf v[4];
				for (int c = 0; c < count; c++) {
					for (int l = 0; l < L; l++)
						v[c][l] = (float)(c * L + l + 1) * 1.000244140625f;
					if (nan && c == count - 1)
						v[c][offset % L] = from_bits(0xffc12345);
					rr_store_f16(want + c * L, v[c]);
				}
				rr_store_f16_run(p, v, count, stream);
#if defined(__SSE__)
				_mm_sfence();
#endif
				int wrong = 0;
				for (int k = -SLACK - offset; k < 5 * L + SLACK - offset; k++)
					wrong +=
					    p[k] != (k >= 0 && k < count * L ? want[k] : 0xdead);
				CHECKF(
				    wrong == 0,
				    "f16 run at offset %d, %d vectors, stream %d, NaN %d: %d wrong",
				    offset, count, stream, nan, wrong);
			}
	_Alignas(64) uint16_t one[L];
	vf odd = rr_vsplat(1.0f);
	odd[3] = from_bits(0x7fc12345);
	rr_store_f16_run(one, &odd, 1, 0);
	CHECKF(one[3] == 0x7e00 && one[2] == 0x3c00, "NaN lane stored as 0x%04x", one[3]);
}

/* The element of a row that lane l of vector k holds in pair order (RR_BF16_PAIRED: 2L
 * elements a pair of vectors, each 8 of them four in the first vector and the next four in
 * the second: 0-3 and 8-11 in the first, 4-7 and 12-15 in the second with 8 lanes), or in
 * natural order where the target keeps it. */
static int paired_element(int k, int l)
{
#if RR_BF16_PAIRED
	return k / 2 * 2 * L + l / 4 * 8 + l % 4 + (k & 1) * 4;
#else
	return k * L + l;
#endif
}

/* The pair-order path of device/cpu_vec.h (paired_bf16) against the natural one: rows of 2,
 * 4 and 6 vectors of random bf16 bits (NaNs with payloads of both signs, infinities, zeros,
 * subnormals among them) at every element offset from a 64-byte boundary. rr_load_bf16_paired
 * and rr_widen_col_paired give each lane its element's exact bits (paired_element); values
 * computed in pair order and stored by rr_store_bf16_run_paired leave the bytes that the same
 * values in natural order leave through rr_store_bf16_run, streamed or not, with a NaN in the
 * run or none, the f32 values ties of the bf16 rounding (low halves 0x8000) and their
 * neighbours, and nothing outside the run. */
static void test_bf16_paired(void)
{
	enum { SLACK = 32, MOST = 6 };
	_Alignas(64) uint16_t row[SLACK + MOST * L + SLACK], got[SLACK + MOST * L + SLACK],
	    want[SLACK + MOST * L + SLACK];
	static const uint16_t lows[] = {0x8000, 0x7fff, 0x8001, 0x0000, 0xffff};
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	int checked = 0;
	for (int offset = 0; offset < 16; offset++)
		for (int count = 2; count <= MOST; count += 2)
			for (int variant = 0; variant < 4; variant++) {
				const int stream = variant & 1, nan = variant >> 1;
				uint16_t *p = row + SLACK + offset;
				for (int e = 0; e < count * L; e++) {
					seed =
					    seed * 6364136223846793005ull + 1442695040888963407ull;
					uint16_t bits = (uint16_t)(seed >> 40);
					if ((bits & 0x7f80) == 0x7f80 && !nan)
						bits &= 0xbfff; /* no NaN, no infinity */
					p[e] = bits;
				}
				if (nan)
					p[(offset * 7) % (count * L)] = 0xffa5;
				float wide[MOST * L];
				rr_widen_col_paired(wide, p, count * L);
				vf paired[MOST], natural[MOST];
				int wrong = 0;
				for (int k = 0; k < count; k++) {
					const vf loaded =
					    rr_load_bf16_paired(p, (int64_t)k * L, k & 1);
					vf widened;
					memcpy(&widened, wide + k * L, sizeof widened);
					for (int l = 0; l < L; l++) {
						const int e = paired_element(k, l);
						uint32_t b = (uint32_t)p[e] << 16, lb, wb;
						memcpy(&lb, &((float *)&loaded)[l], 4);
						memcpy(&wb, &((float *)&widened)[l], 4);
						wrong += lb != b || wb != b;
						/* an f32 value per element: its bf16 with a low
						 * half */
						b |= (uint32_t)lows[(e + offset) % 5];
						paired[k][l] = from_bits(b);
						((float *)&natural[e / L])[e % L] = from_bits(b);
					}
				}
				CHECKF(wrong == 0,
				       "paired loads at offset %d, %d vectors: %d lanes wrong",
				       offset, count, wrong);
				uint16_t *g = got + SLACK + offset, *w = want + SLACK + offset;
				for (size_t e = 0; e < sizeof got / sizeof got[0]; e++)
					got[e] = want[e] = 0xdead;
				rr_store_bf16_run_paired(g, paired, count, stream);
				rr_store_bf16_run(w, natural, count, stream);
#if defined(__SSE__)
				_mm_sfence();
#endif
				CHECKF(memcmp(got, want, sizeof got) == 0,
				       "paired run at offset %d, %d vectors, stream %d, NaN %d "
				       "differs",
				       offset, count, stream, nan);
				int outside = 0;
				for (int e = -SLACK - offset; e < MOST * L + SLACK - offset; e++)
					outside += (e < 0 || e >= count * L) && g[e] != 0xdead;
				CHECK(outside == 0);
				checked++;
			}
	CHECK(checked == 16 * 3 * 4);
	/* rr_unpair_lo/hi put a pair loaded in pair order back in worker order: lane l of the
	 * first holds element l, of the second element L + l (the rounds' accumulators) */
	_Alignas(64) uint16_t seq[2 * L];
	for (int e = 0; e < 2 * L; e++)
		seq[e] = rr__bf16_from_float((float)e);
	const vf p0 = rr_load_bf16_paired(seq, 0, 0), p1 = rr_load_bf16_paired(seq, L, 1);
	const vf lo = rr_unpair_lo(p0, p1), hi = rr_unpair_hi(p0, p1);
	int misplaced = 0;
	for (int l = 0; l < L; l++)
		misplaced += lo[l] != (float)l || hi[l] != (float)(L + l);
	CHECKF(misplaced == 0, "rr_unpair_lo/hi: %d lanes out of worker order", misplaced);
#if (defined(__AVX2__) && !defined(__AVX512F__)) || defined(__AVX512BW__)
	CHECK(RR_BF16_PAIRED == 1); /* this target takes the pair order */
#endif
}

int main(void)
{
	test_bf16_load();
	test_f16_load();
	test_f16_store();
	test_f16_runs();
	test_aligned_stores();
	test_guarded_lanes();
	test_bf16_runs();
	test_bf16_run_edges();
	test_bf16_run_sweep();
	test_bf16_run_half_up();
	test_bf16_paired();
	test_bf16_store();
	test_exp();
	test_exp_nonpos();
	test_exp_nonpos_bf16();
	test_exp_nonpos_bf16_ranged();
	test_exp_nonpos_ranged();
	test_bf16_extrema();
	test_exp_nonpos_summed();
	test_log();
	test_tanh();
	test_max_min();
	return rr_test_finish("test_cpu_vec");
}
