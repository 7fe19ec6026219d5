/* The error-bound rules of the float64 reference (the table in ref/reference.h), applied over
 * a row after the reference computed a node's values: first-order propagation of the operands'
 * bounds plus the rounding of the f32 operation itself. */
#include <float.h>
#include <math.h>

#include "ref/bound.h"
#include "ref/reference.h"

#define U RR_REF_UNIT_ROUNDOFF
/* exp, log, sqrt, rsqrt, tanh: 3 ULP, an f32 ULP being at most 2u of the result. */
#define FUNCTION_ROUNDING (6.0 * U)
/* CUDA's exp (rr_exp: x * log2(e), then the hardware's ex2) errs by about another 1.2 ULP per
 * unit of its argument, and flushes results below 2^-126 (FLT_MIN) to zero. */
#define EXP_ROUNDING_PER_ARGUMENT (2.4 * U)
#define EXP_FLUSH 0x1p-126

/* A bound that is not finite, or the bound of a value that is not, says nothing: 0, and the
 * validator's rules for infinities and NaN decide the element. */
static double finite_or_zero(double bound, double value)
{
	return isfinite(bound) && isfinite(value) ? bound : 0.0;
}

double rr__bound_representation(double v)
{
	if (!isfinite(v) || fabs(v) > FLT_MAX)
		return 0.0;
	return fabs(v - (double)(float)v);
}

/* `expr` over x (operand a's value), ex (its bound) and y (the result), stored as the bound of
 * each element. */
#define UNARY_BOUND(expr)                                                                          \
	do {                                                                                       \
		for (int64_t i = 0; i < n; i++) {                                                  \
			double x = a.value[i * a.step], ex = a.bound[i * a.step], y = r[i];        \
			(void)x; /* not every rule reads it */                                     \
			bound[i] = finite_or_zero((expr), y);                                      \
		}                                                                                  \
	} while (0)

void rr__bound_unary(rr__op op, double *bound, const double *r, rr__bound_operand a, int64_t n)
{
	switch (op) {
	case RR_OP_NEG:
	case RR_OP_ABS: /* exact */
		UNARY_BOUND(ex);
		return;
	case RR_OP_EXP:
		UNARY_BOUND(fabs(y) *
		                (ex + FUNCTION_ROUNDING + EXP_ROUNDING_PER_ARGUMENT * fabs(x)) +
		            (fabs(y) <= EXP_FLUSH ? EXP_FLUSH : 0.0));
		return;
	case RR_OP_LOG:
		UNARY_BOUND(ex / fabs(x) + FUNCTION_ROUNDING * fabs(y));
		return;
	case RR_OP_SQRT: /* |sqrt(x + ex) - sqrt(x)| <= sqrt(ex) also where the slope is steep */
		UNARY_BOUND(fmin(ex / (2 * fabs(y)), sqrt(ex)) + FUNCTION_ROUNDING * fabs(y));
		return;
	case RR_OP_RSQRT:
		UNARY_BOUND(fabs(y) * ex / (2 * fabs(x)) + FUNCTION_ROUNDING * fabs(y));
		return;
	case RR_OP_TANH:
		UNARY_BOUND((1 - y * y) * ex + FUNCTION_ROUNDING * fabs(y));
		return;
	default: /* not reached: the reference computes NaN for an unknown op */
		for (int64_t i = 0; i < n; i++)
			bound[i] = 0.0;
		return;
	}
}

/* `expr` over x, ex (operand a), z, ez (operand b) and y (the result). */
#define BINARY_BOUND(expr)                                                                         \
	do {                                                                                       \
		for (int64_t i = 0; i < n; i++) {                                                  \
			double x = a.value[i * a.step], ex = a.bound[i * a.step];                  \
			double z = b.value[i * b.step], ez = b.bound[i * b.step], y = r[i];        \
			(void)x, (void)z;                                                          \
			bound[i] = finite_or_zero((expr), y);                                      \
		}                                                                                  \
	} while (0)

/* max and min are exact; the computed result lies between the max (min) of the operands each
 * moved down by its bound and the max (min) of them moved up. */
#define SELECT_BOUND(select)                                                                       \
	BINARY_BOUND(fmax(select(x + ex, z + ez) - y, y - select(x - ex, z - ez)))

void rr__bound_binary(rr__op op, double *bound, const double *r, rr__bound_operand a,
                      rr__bound_operand b, int64_t n)
{
	switch (op) {
	case RR_OP_ADD:
	case RR_OP_SUB:
		BINARY_BOUND(ex + ez + U * fabs(y));
		return;
	case RR_OP_MUL: /* with ex·ez, exact for intervals: d * d of a d that is 0 in float64 */
		BINARY_BOUND(fabs(z) * ex + fabs(x) * ez + ex * ez + U * fabs(y));
		return;
	case RR_OP_DIV: /* z = 0 gives an infinite or NaN y: bound 0 */
		BINARY_BOUND((ex + fabs(y) * ez) / fabs(z) + U * fabs(y));
		return;
	case RR_OP_MAX:
		SELECT_BOUND(fmax);
		return;
	case RR_OP_MIN:
		SELECT_BOUND(fmin);
		return;
	default: /* not reached, as for unary ops */
		for (int64_t i = 0; i < n; i++)
			bound[i] = 0.0;
		return;
	}
}

double rr__bound_reduce(rr__reduce reduce, double r, rr__bound_operand t, int64_t n)
{
	if (reduce == RR_REDUCE_SUM) {
		double carried = 0, magnitude = 0;
		for (int64_t i = 0; i < n; i++) {
			carried += t.bound[i * t.step];
			magnitude += fabs(t.value[i * t.step]);
		}
		return finite_or_zero(carried + RR_REF_SUM_LAMBDA * sqrt((double)n) * U * magnitude,
		                      r);
	}
	double high = reduce == RR_REDUCE_MAX ? -INFINITY : INFINITY, low = high;
	for (int64_t i = 0; i < n; i++) {
		double v = t.value[i * t.step], e = t.bound[i * t.step];
		high = reduce == RR_REDUCE_MAX ? fmax(high, v + e) : fmin(high, v + e);
		low = reduce == RR_REDUCE_MAX ? fmax(low, v - e) : fmin(low, v - e);
	}
	return finite_or_zero(fmax(high - r, r - low), r);
}
