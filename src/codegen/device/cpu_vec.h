/* Vectors for the cpu backend's generated C: L lanes of f32 (GCC/Clang vector extensions), one
 * lane per worker of the plan, so each worker's accumulation order is the plan's and the
 * compiler never has to reassociate. Lane-wise max/min/select without library calls, and
 * exp/log/tanh as in-tree polynomials without fused multiply-add, so results do not depend on
 * the machine's FMA. Bounds checked against float64 by tests/test_cpu_vec.c (ULP of the f32
 * result, subnormal results in units of 2^-149):
 *   rr_vexp   <= 2 ULP where exp(x) >= 2^-125 (x >= -86.5), 0 below (with AVX-512 and 16
 *             lanes: gradual underflow below, within 2 units of 2^-149); +inf -> +inf,
 *             -inf -> 0, NaN -> NaN, exp(0) == 1 exactly
 *   rr_vexp_nonpos_ranged  rr_vexp_nonpos (rr_vexp for x <= 0) bit for bit on -86.5 <= x <= 0
 *             and quiet NaN (no rare-lane test)
 *   rr_vexp_nonpos_bf16  relative error <= 1.1e-4 where exp(x) >= 2^-125, for x <= 0 (results
 *             rounded to bf16, whose own rounding is up to 2^-9 = 1.95e-3); 0 and NaN as
 *             rr_vexp
 *   rr_vexp_nonpos_bf16_ranged  rr_vexp_nonpos_bf16 bit for bit on -86.5 <= x <= 0 and quiet
 *             NaNs whose low 16 bits are zero (no rare-lane test)
 *   rr_vexp_nonpos_summed  relative error <= 3.8e-6 + 1.9e-9 |k| (k = round(x / ln 2); 4e-6
 *             without FMA) for -87 <= x <= 0, exp(-87) below (terms of a sum that holds
 *             exp(0) = 1); NaN -> NaN, exp(-0) == 1
 *   rr_vexp_nonpos_summed_ranged  rr_vexp_nonpos_summed bit for bit on -87 <= x <= 0 and NaN
 *   rr_vlog   <= 2 ULP over all positive floats (subnormals too); 0 -> -inf, x < 0 -> NaN
 *   rr_vtanh  <= 3 ULP over [-10, 10] (and +-1 beyond); tanh(+-0) == +-0, NaN -> NaN
 * NaN: rr_vmax/rr_vmin return the other operand when one is NaN (as fmaxf/fminf; NaN only when
 * both are), and the first operand when the two compare equal (+0 and -0).
 * src/codegen/c_emit.c prints the sections (sections: codegen/device_files.h). */
#ifndef RR_CODEGEN_DEVICE_CPU_VEC_H
#define RR_CODEGEN_DEVICE_CPU_VEC_H

//@ stand-in
/* What the emitted source defines before these sections: here only so the file compiles on
 * its own. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifndef W
#define W 16 /* workers per row */
#endif
#define V 1
#define PICK_MAX_VEC 4
#include "convert16.h"
typedef float io_t;
static inline float load_io(const io_t *p, int64_t i)
{
	return p[i];
}
static inline io_t store_io(float v)
{
	return v;
}
#define load_packed rr_load_f32
#define store_packed rr_store_f32
#define stream_packed rr_stream_f32
//@ lanes
/* Lanes per vector: the widest the compiler targets (-march=native), at most the W workers. */
#if defined(__AVX512F__)
#define RR_VECTOR_FLOATS 16
#elif defined(__AVX__)
#define RR_VECTOR_FLOATS 8
#else
#define RR_VECTOR_FLOATS 4
#endif
#define L (W < RR_VECTOR_FLOATS ? W : RR_VECTOR_FLOATS) /* workers (lanes) per vector */
#define BLOCKS (W / L)                                  /* vectors of workers per row */
//@ intrinsics
#if defined(__AVX__) || defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#elif defined(__SSE__)
#include <xmmintrin.h>
#endif
//@ types
/* At least two lanes in the type: compilers keep one-lane vectors in memory; with W = 1 lane 1
 * computes on zeros and is never loaded from or stored to memory. */
#define VL (L < 2 ? 2 : L)
typedef float vf __attribute__((vector_size(VL * 4)));
typedef int32_t vi __attribute__((vector_size(VL * 4)));
typedef uint32_t vu __attribute__((vector_size(VL * 4)));
typedef uint16_t vh __attribute__((vector_size(VL * 2)));
/* The lanes whose forms the arithmetic takes where that changes bits (fused multiply-add,
 * AVX-512's exp): the vector's, or 1 where the rows of a W = 1 plan run as the lanes
 * (c_emit_lanes.c), so that each row keeps the bits of its plan's per-row code. */
#ifndef RR_FORM_L
#define RR_FORM_L L
#endif

static inline vf rr_vsplat(float s)
{
	vf v = {0};
	for (int l = 0; l < L; l++)
		v[l] = s;
	return v;
}

/* Lanes l < L with l * step < n (-1), the others 0 (lanes past L too, as rr_vsplat leaves
 * them): one vector compare against constant lane numbers, where a loop over the lanes
 * compiled to one insert a lane. */
static inline vi rr_lanes_below(int64_t n, int step)
{
	vi lane = {0};
	for (int l = 0; l < VL; l++)
		lane[l] = l < L ? l * step : INT32_MAX;
	const int64_t most = (int64_t)L * step;
	return lane < (int32_t)(n < 0 ? 0 : n < most ? n : most);
}

#if defined(__AVX512F__)
/* The mask of lanes below n of 16. */
static inline __mmask16 rr_mask_below(int64_t n)
{
	return (__mmask16)((1u << (n < 0 ? 0 : n < 16 ? n : 16)) - 1u);
}
#endif

/* mask ? a : b lane by lane; mask lanes are 0 or -1 (a vector comparison). */
static inline vf rr_vselect(vi mask, vf a, vf b)
{
	return (vf)((mask & (vi)a) | (~mask & (vi)b));
}

/* Whether any lane of a mask is set: one sign-bit mask instruction where the target has it
 * (the online pass asks once per pack). */
static inline int rr_vany(vi mask)
{
#if defined(__AVX512F__) && L == 16
	return _mm512_test_epi32_mask((__m512i)mask, (__m512i)mask) != 0;
#elif defined(__AVX__) && L == 8
	return _mm256_movemask_ps((__m256)mask) != 0; /* vptest: two micro-ops on Zen 3 */
#elif defined(__SSE__) && L == 4
	return _mm_movemask_ps((__m128)mask) != 0;
#else
	int32_t any = 0;
	for (int l = 0; l < L; l++)
		any |= mask[l];
	return any != 0;
#endif
}

static inline vf rr_vmax(vf a, vf b)
{
	return rr_vselect((a >= b) | (b != b), a, b);
}

static inline vf rr_vmin(vf a, vf b)
{
	return rr_vselect((a <= b) | (b != b), a, b);
}

/* rr_vmax(acc, b) and rr_vmin(acc, b) for an accumulator that is never NaN (it starts at
 * -inf or +inf and only takes values that are not NaN): b when it is strictly larger (smaller),
 * else acc, bit for bit the same, in one instruction where the target has it. */
static inline vf rr_vmax_acc(vf acc, vf b)
{
#if defined(__AVX512F__) && L == 16
	return (vf)_mm512_max_ps((__m512)b, (__m512)acc);
#elif defined(__AVX__) && L == 8
	return (vf)_mm256_max_ps((__m256)b, (__m256)acc);
#elif defined(__SSE__) && L == 4
	return (vf)_mm_max_ps((__m128)b, (__m128)acc);
#else
	return rr_vselect(b > acc, b, acc);
#endif
}

static inline vf rr_vmin_acc(vf acc, vf b)
{
#if defined(__AVX512F__) && L == 16
	return (vf)_mm512_min_ps((__m512)b, (__m512)acc);
#elif defined(__AVX__) && L == 8
	return (vf)_mm256_min_ps((__m256)b, (__m256)acc);
#elif defined(__SSE__) && L == 4
	return (vf)_mm_min_ps((__m128)b, (__m128)acc);
#else
	return rr_vselect(b < acc, b, acc);
#endif
}

static inline vf rr_vabs(vf a)
{
	return (vf)((vu)a & 0x7fffffffu);
}

/* Whether any lane of x is NaN or has |x| > bound: one unordered compare and a sign-bit mask
 * where the target has them (exp's range test, once per vector). */
static inline int rr_vany_outside(vf x, float bound)
{
#if defined(__AVX__) && L == 8
	const __m256 outside =
	    _mm256_cmp_ps((__m256)rr_vabs(x), _mm256_set1_ps(bound), _CMP_NLE_UQ);
	return _mm256_movemask_ps(outside) != 0;
#elif defined(__SSE__) && L == 4
	return _mm_movemask_ps(_mm_cmpnle_ps((__m128)rr_vabs(x), _mm_set1_ps(bound))) != 0;
#else
	return rr_vany(~(rr_vabs(x) <= bound));
#endif
}

/* Whether any lane of x is NaN or under bound (an unordered compare, as above). */
static inline int rr_vany_below(vf x, float bound)
{
#if defined(__AVX__) && L == 8
	return _mm256_movemask_ps(_mm256_cmp_ps((__m256)x, _mm256_set1_ps(bound), _CMP_NGE_UQ)) !=
	       0;
#elif defined(__SSE__) && L == 4
	return _mm_movemask_ps(_mm_cmpnge_ps((__m128)x, _mm_set1_ps(bound))) != 0;
#else
	return rr_vany(~(x >= bound));
#endif
}

/* Correctly rounded, as sqrtf; the compiler emits the vector instruction (no errno). */
static inline vf rr_vsqrt(vf a)
{
	vf r = a;
	for (int l = 0; l < L; l++)
		r[l] = __builtin_sqrtf(a[l]);
	return r;
}

/* a * b + c: one rounding where the target has fused multiply-add (an explicit request: the
 * compiler still contracts nothing on its own), two otherwise; the bounds above hold for both. */
static inline vf rr_vfma(vf a, vf b, vf c)
{
#if defined(__AVX512F__) && RR_FORM_L == 16
	return (vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__FMA__) && RR_FORM_L == 8
	return (vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif defined(__FMA__) && RR_FORM_L == 4
	return (vf)_mm_fmadd_ps((__m128)a, (__m128)b, (__m128)c);
#else
	return a * b + c;
#endif
}

/* exp(x - k ln 2) for the integer-valued k nearest x / ln 2: r = x - k ln 2 with ln 2 in two
 * parts, then 1 + r (1 + r P(r)) in Horner form (rr_vexp and rr_vexp_nonpos share it). */
static inline vf rr_vexp_reduced(vf k, vf x)
{
	vf r = rr_vfma(k, rr_vsplat(-6.931152344e-01f), x);
	r = rr_vfma(k, rr_vsplat(-3.194618330e-05f), r);
	vf p = rr_vfma(rr_vsplat(1.381603652e-03f), r, rr_vsplat(8.368710056e-03f));
	p = rr_vfma(p, r, rr_vsplat(4.166835919e-02f));
	p = rr_vfma(p, r, rr_vsplat(1.666652113e-01f));
	p = rr_vfma(p, r, rr_vsplat(4.999999404e-01f));
	p = rr_vfma(p, r, rr_vsplat(1.0f));
	p = rr_vfma(p, r, rr_vsplat(1.0f));
	return p;
}

#if defined(__AVX512F__) && RR_FORM_L == 16
/* k = x log2(e) rounded to the nearest integer, for |x| <= 110: one fused multiply-add of the
 * shift 1.5 * 2^23 (the sum's low bits hold the integer, rounded once from the exact product)
 * and a subtraction, where a multiply and vrndscaleps (two micro-ops on Intel's cores) took
 * three. One thread, in cache (bench/NOTES.md, session 18): softmax f32 1024x1024 and 64x4096
 * 0.94-0.97 of the time, bf16 0.96-0.97. */
static inline vf rr_vexp_k(__m512 xc)
{
	const __m512 shift = _mm512_set1_ps(12582912.0f);
	return (vf)_mm512_sub_ps(_mm512_fmadd_ps(xc, _mm512_set1_ps(1.442695041f), shift), shift);
}
#endif

/* exp(x) = 2^k exp(r): t = x log2(e) + 1.5 * 2^23 holds k = round(x / ln 2) in its low bits,
 * r = x - k ln 2 with ln 2 in two parts, |r| <= 0.35; exp(r) = 1 + r (1 + r P(r)) in Horner
 * form, P of degree 4 fitted (relative truncation under 4e-9); 2^k added to the exponent bits.
 * Lanes with |x| > 86.5 or NaN (rare: one test per vector) are fixed up apart: under 2^-125
 * (x < -86.5) 0, over FLT_MAX infinite, NaN as it came. */
static inline vf rr_vexp(vf x)
{
#if defined(__AVX512F__) && RR_FORM_L == 16
	/* The same reduction and polynomial in fewer instructions: x clamped to [-110, 89] (a
	 * NaN stays: max and min return their second operand when one is NaN), k by rr_vexp_k,
	 * and p 2^k by vscalefps, which rounds once: results past FLT_MAX are infinite and those
	 * under 2^-126 gradual, with no fix-up. */
	const __m512 xc =
	    _mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(_mm512_set1_ps(-110.0f), (__m512)x));
	const vf k = rr_vexp_k(xc);
	vf p = rr_vexp_reduced(k, (vf)xc);
	return (vf)_mm512_scalef_ps((__m512)p, (__m512)k);
#else
	const vf t = rr_vfma(x, rr_vsplat(1.442695041f), rr_vsplat(12582912.0f));
	const vf k = t - 12582912.0f;
	vf p = rr_vexp_reduced(k, x);
	vf result = (vf)((vu)p + ((vu)t << 23));
	if (__builtin_expect(rr_vany_outside(x, 86.5f), 0)) {
		result = rr_vselect(x < -86.5f, rr_vsplat(0.0f), result);
		result = rr_vselect(x > 88.7228394f, rr_vsplat(INFINITY), result);
		result = rr_vselect(x != x, x, result);
	}
	return result;
#endif
}

/* rr_vexp for x <= 0 or NaN, bit for bit (softmax's exp(x - max(x)): the emitter calls it only
 * there): no upper clamp, and with AVX2 or less the rare-lane test asks only for x < -86.5 or
 * NaN (one compare instead of |x|, its compare and a mask; 6% of a softmax row in cache). */
static inline vf rr_vexp_nonpos(vf x)
{
#if defined(__AVX512F__) && RR_FORM_L == 16
	const __m512 xc = _mm512_max_ps(_mm512_set1_ps(-110.0f), (__m512)x);
	const vf k = rr_vexp_k(xc);
	vf p = rr_vexp_reduced(k, (vf)xc);
	return (vf)_mm512_scalef_ps((__m512)p, (__m512)k);
#else
	const vf t = rr_vfma(x, rr_vsplat(1.442695041f), rr_vsplat(12582912.0f));
	const vf k = t - 12582912.0f;
	vf p = rr_vexp_reduced(k, x);
	vf result = (vf)((vu)p + ((vu)t << 23));
	if (__builtin_expect(rr_vany_below(x, -86.5f), 0)) {
		result = rr_vselect(x < -86.5f, rr_vsplat(0.0f), result);
		result = rr_vselect(x != x, x, result);
	}
	return result;
#endif
}

/* rr_vexp_nonpos without its rare-lane test, for a row whose every x - m is -86.5 or more (the
 * split's max pass found its least value: c_emit.c, stored_ranged): bit for bit
 * rr_vexp_nonpos on [-86.5, -0] and on quiet NaN, whatever its payload. There k >= -125, so
 * p 2^k is normal and adding k to p's exponent bits is rr_vexp_nonpos's result. A NaN x runs
 * through as itself (t, k, r and p are x), but t << 23 holds its low 9 payload bits, so 2^k
 * comes from k: with AVX the truncating conversion makes a NaN k 0x80000000, whose << 23 is 0
 * (one operation where the test took a compare, a mask move and a branch); elsewhere 2^k is
 * built as a float from t + 127 and multiplied in, exactly, and NaN 2^k is the NaN (2^k has no
 * mantissa bits: never NaN). With AVX-512 rr_vexp_nonpos has no test: it is that. */
#ifndef RR_NONPOS_RANGED /* 0: the tested form on every row (tests compare the two) */
#define RR_NONPOS_RANGED 1
#endif

static inline vf rr_vexp_nonpos_ranged(vf x)
{
#if defined(__AVX512F__) && RR_FORM_L == 16
	return rr_vexp_nonpos(x);
#else
	const vf t = rr_vfma(x, rr_vsplat(1.442695041f), rr_vsplat(12582912.0f));
	const vf k = t - 12582912.0f;
	const vf p = rr_vexp_reduced(k, x);
#if defined(__AVX__) && L == 8
	return (vf)((vu)p + ((vu)_mm256_cvttps_epi32((__m256)k) << 23));
#elif defined(__AVX__) && L == 4
	return (vf)((vu)p + ((vu)_mm_cvttps_epi32((__m128)k) << 23));
#else
	return p * (vf)(((vu)t + 127u) << 23);
#endif
#endif
}

/* rr_vexp_nonpos for values that are rounded to bf16 (8 significant bits: a rounding error of
 * up to 2^-9 = 1.95e-3 of the value): ln 2 in one part with a fused multiply-add (|k| <= 159:
 * r is off by at most 3e-7) and exp(r) = 1 + r P(r), P of degree 2 (a Lawson fit of the
 * relative error on |r| <= ln 2 / 2, truncation 1.015e-4; exp(0) = 1 exactly), four
 * multiply-adds fewer than rr_vexp_nonpos; relative error under 1.1e-4 (1.02e-4 measured over
 * every 7th float of [-86.5, -0], with and without FMA: tests/test_cpu_vec.c), so a bf16
 * result is within 0.5 + 0.03 units of exp(x). exp(-0) == 1 exactly, -inf -> 0, NaN -> NaN;
 * under 2^-125 0, or gradual with AVX-512, as rr_vexp_nonpos. Session 20 fitted it one degree
 * higher (error 1e-5, bench/NOTES.md: 0.85 of rr_vexp_nonpos's time); session 32 took the
 * degree off: exp was 35 % of softmax bf16 from DRAM on two threads, and this form with the
 * store's tie bit by a compare (rr_bf16_rounded8) runs softmax bf16 16384x1024, 4096x4096 and
 * 256x65536 in 0.92-0.93 of the time, cross_entropy bf16 alike; 0.7 % of softmax's outputs
 * one bf16 unit away from the degree-4 form's. This is its form without the rare-lane test
 * (rr_vexp_nonpos_bf16 adds it), bit for bit rr_vexp_nonpos_bf16 where that test finds nothing
 * to fix: -86.5 <= x <= 0, and a quiet NaN whose low 16 bits are zero (the NaN of x - m for
 * bf16 values x and m: t and p are
 * that NaN and t << 23 is 0, so the sum is p). Softmax over bf16 rows takes it where the row's
 * extrema (rr_bf16_extrema) say that no x - m is under -86.5: the compare, mask move and branch
 * a vector of its sum pass (one thread, in cache: 0.95 of the time; bench/NOTES.md, session 30). */
static inline vf rr_vexp_nonpos_bf16_ranged(vf x)
{
#if defined(__AVX512F__) && RR_FORM_L == 16
	/* No clamp: on -86.5 <= x <= 0 and NaN, rr_vexp_nonpos_bf16's max(-110, x) is x */
	const __m512 xc = (__m512)x;
	const vf k = rr_vexp_k(xc);
	const vf r = rr_vfma(k, rr_vsplat(-6.931471825e-01f), (vf)xc);
#else
	const vf t = rr_vfma(x, rr_vsplat(1.442695041f), rr_vsplat(12582912.0f));
	const vf k = t - 12582912.0f;
#if defined(__FMA__) && (RR_FORM_L == 8 || RR_FORM_L == 4) /* where rr_vfma rounds once */
	const vf r = rr_vfma(k, rr_vsplat(-6.931471825e-01f), x);
#else /* k ln 2 rounded apart would be off by up to 4e-6: ln 2 in two parts, as rr_vexp */
	const vf r =
	    rr_vfma(k, rr_vsplat(-3.194618330e-05f), rr_vfma(k, rr_vsplat(-6.931152344e-01f), x));
#endif
#endif
	vf p = rr_vfma(rr_vsplat(1.651781946e-01f), r, rr_vsplat(5.041344762e-01f));
	p = rr_vfma(p, r, rr_vsplat(1.000196218e+00f));
	p = rr_vfma(p, r, rr_vsplat(1.0f));
#if defined(__AVX512F__) && RR_FORM_L == 16
	return (vf)_mm512_scalef_ps((__m512)p, (__m512)k);
#else
	return (vf)((vu)p + ((vu)t << 23));
#endif
}

static inline vf rr_vexp_nonpos_bf16(vf x)
{
/* with AVX-512: clamped to -110 (NaN stays), vscalefps needs no fix-up */
#if defined(__AVX512F__) && RR_FORM_L == 16
	vf result =
	    rr_vexp_nonpos_bf16_ranged((vf)_mm512_max_ps(_mm512_set1_ps(-110.0f), (__m512)x));
#else
	vf result = rr_vexp_nonpos_bf16_ranged(x);
	if (__builtin_expect(rr_vany_below(x, -86.5f), 0)) {
		result = rr_vselect(x < -86.5f, rr_vsplat(0.0f), result);
		result = rr_vselect(x != x, x, result);
	}
#endif
	return result;
}

/* exp(x) for x <= 0 or NaN whose result is only added into a sum of exponentials that holds
 * exp(0) = 1 exactly (cross_entropy's s = sum(exp(x - max(x))), the emitter's exp_summed_only).
 * rr_vexp_nonpos's form, four cuts: P of degree 4 (1 + r (c1 + r (c2 + r (c3 + r c4))), a
 * Remez minimax of the relative error on |r| <= ln 2 / 2 + 2e-4, bench/lab/s33b-cpu/remez4.py:
 * truncation 3.57e-6 with the f32 coefficients); where rr_vfma rounds once, ln 2 in one part
 * (|k ln 2 - k ln2_f32| = 1.9e-9 |k|); no per-vector range test: x is clamped to -87, so 127 +
 * k >= 1 and 2^k is a normal float made from t's low bits, multiplied in exactly (NaN stays:
 * the clamp keeps it, the product carries it). 6 multiply-adds and a multiply where
 * rr_vexp_nonpos has 9 and a compare, a mask move and a branch: vector operations bound the row
 * (session 29b's notes; session 33b: degree 5 -> 4, cross_entropy f32 0.90-0.94 of the time).
 * Relative error (float64, every 7th float of [-87, -0], tests/test_cpu_vec.c): under 3.8e-6
 * + 1.9e-9 |k| with fused multiply-add (|k| <= |x| / ln 2 + 1/2), 4e-6 without. The term 1 is
 * exact, so log(s) is off by at most the terms' weighted error, under 3.8e-6 (s - 1) / s +
 * 1.9e-9 (log2(N) + 2.5) (4.1e-6 at N = 2^16), and as loss = log(s) + max - x[t] >= log(s) >=
 * (s - 1) / s, the loss by under 3.8e-6 of itself plus 1.9e-9 (log2(N) + 2.5): 1/26 of f32's
 * validation rtol (1e-4). Below -87 (and at -inf) the result is exp(-87) ~ 1.65e-38, not 0:
 * beside the term 1 no f32 sum holds it. exp(-0) == 1 exactly. */
#ifndef RR_SUMMED_RANGED /* 0: the clamped form on every row (tests compare the two) */
#define RR_SUMMED_RANGED 1
#endif

/* rr_vexp_nonpos_summed without the clamp, for a row whose every x - max, rounded, is -87 or
 * more (the split's max pass found its least value: c_emit.c, f32_range_max): bit for bit
 * rr_vexp_nonpos_summed on [-87, -0] and on NaN (the clamp passes a NaN through unchanged). */
static inline vf rr_vexp_nonpos_summed_ranged(vf xc)
{
	/* t = x log2(e) + 1.5 * 2^23 + 127: 127 + k in its low bits */
	const vf t = rr_vfma(xc, rr_vsplat(1.442695041f), rr_vsplat(12583039.0f));
	const vf k = t - 12583039.0f;
#if (defined(__AVX512F__) && RR_FORM_L == 16) ||                                                  \
    (defined(__FMA__) && (RR_FORM_L == 8 || RR_FORM_L == 4))
	const vf r = rr_vfma(k, rr_vsplat(-6.931471825e-01f), xc);
#else /* k ln 2 rounded apart would be off by up to 4e-6: ln 2 in two parts, as rr_vexp */
	const vf r =
	    rr_vfma(k, rr_vsplat(-3.194618330e-05f), rr_vfma(k, rr_vsplat(-6.931152344e-01f), xc));
#endif
	vf p = rr_vfma(rr_vsplat(4.238152876e-02f), r, rr_vsplat(1.680882871e-01f));
	p = rr_vfma(p, r, rr_vsplat(4.999595284e-01f));
	p = rr_vfma(p, r, rr_vsplat(9.999514222e-01f));
	p = rr_vfma(p, r, rr_vsplat(1.0f));
#if defined(__AVX512F__) && RR_FORM_L == 16
	/* p 2^k in one operation where the shift and the multiply took two: the same product,
	 * rounded once (only a subnormal result rounds at all), NaN kept. Two threads, rows 16
	 * bytes in (bench/NOTES.md, session 35 CPU): cross_entropy f32 4096x4096 and 16384x1024
	 * 0.95-0.97 of the time with the rows held in L3, 0.93-0.95 from DRAM; the same loss
	 * bits, special rows too. */
	return (vf)_mm512_scalef_ps((__m512)p, (__m512)k);
#else
	return p * (vf)((vu)t << 23); /* 2^k */
#endif
}

static inline vf rr_vexp_nonpos_summed(vf x)
{
	/* -87 where x is below, x where NaN */
	return rr_vexp_nonpos_summed_ranged(rr_vmax_acc(x, rr_vsplat(-87.0f)));
}

/* log(x) = e ln 2 + log(1 + f), 1 + f in [sqrt(1/2), sqrt(2)); with s = f / (2 + f) and
 * h = f^2 / 2: log(1 + f) = f - (h - s (h + q(s^2))), q the odd atanh series past its first
 * term (truncation under 1e-9 for |s| <= 0.172). */
static inline vf rr_vlog(vf x)
{
	const vi subnormal = x < 1.17549435e-38f;
	const vf scaled = rr_vselect(subnormal, x * 8388608.0f, x); /* * 2^23 */
	const vi bits = (vi)scaled;
	/* Mantissa and exponent; 1 + f above sqrt(2) is halved (exponent + 1). */
	const vi mantissa = bits & 0x7fffff;
	const vi big = mantissa > 0x3504f3;
	const vi exponent = ((bits >> 23) & 0xff) - 127 - (subnormal & 23) + (big & 1);
	const vf one_plus_f = (vf)(mantissa | (0x3f800000 - (big & 0x00800000)));
	const vf f = one_plus_f - 1.0f;
	const vf s = f / (2.0f + f), z = s * s, h = 0.5f * f * f;
	vf q = rr_vsplat(2.0f / 9.0f);
	q = q * z + 2.0f / 7.0f;
	q = q * z + 2.0f / 5.0f;
	q = q * z + 2.0f / 3.0f;
	q = q * z;
	const vf ke = __builtin_convertvector(exponent, vf);
	const vf log1p_f = f - (h - (s * (h + q) + ke * 3.194618330e-05f));
	vf result = ke * 6.931152344e-01f + log1p_f;
	result = rr_vselect(x == 0.0f, rr_vsplat(-INFINITY), result);
	result = rr_vselect(x < 0.0f, rr_vsplat(NAN), result);
	return rr_vselect((x == INFINITY) | (x != x), x, result);
}

/* tanh: an odd polynomial fitted on |x| <= 0.55 (truncation under 2e-10), beyond that
 * 1 - 2 / (exp(2|x|) + 1); +-1 from |x| > 10 on; computed for |x|, x's sign put back. */
static inline vf rr_vtanh(vf x)
{
	const vf a = rr_vabs(x), z = x * x;
	vf p = rr_vsplat(2.543272218e-03f);
	p = p * z + -8.539704606e-03f;
	p = p * z + 2.182222530e-02f;
	p = p * z + -5.396515131e-02f;
	p = p * z + 1.333332658e-01f;
	p = p * z + -3.333333433e-01f;
	const vf small = a + a * z * p;
	const vf e = rr_vexp(rr_vselect(a > 10.0f, rr_vsplat(20.0f), a + a));
	const vf big = 1.0f - 2.0f / (e + 1.0f);
	const vf magnitude = rr_vselect(a <= 0.55f, small, big);
	return rr_vselect(x != x, x, (vf)((vu)magnitude | ((vu)x & 0x80000000u)));
}
//@ packed_f32
/* L consecutive elements at p, as they are in memory. */
static inline vf rr_load_f32(const float *p)
{
	vf v = {0};
	memcpy(&v, p, L * sizeof(float));
	return v;
}

static inline void rr_store_f32(float *p, vf v)
{
	memcpy(p, &v, L * sizeof(float));
}

/* rr_store_f32 past the caches (a non-temporal store: no read of the line before it is
 * written) where p is aligned to the vector, in 16-byte quarters where it is aligned to 16
 * bytes only (NumPy's arrays start 16 bytes into a 64-byte line; consecutive quarters fill
 * the line's write-combining buffer); an ordinary store elsewhere. */
static inline void rr_stream_f32(float *p, vf v)
{
#if defined(__AVX512F__) && L == 16
	if ((uintptr_t)p % 64 == 0) {
		_mm512_stream_ps(p, (__m512)v);
		return;
	}
	if ((uintptr_t)p % 16 == 0) {
		_mm_stream_ps(p, _mm512_castps512_ps128((__m512)v));
		_mm_stream_ps(p + 4, _mm512_extractf32x4_ps((__m512)v, 1));
		_mm_stream_ps(p + 8, _mm512_extractf32x4_ps((__m512)v, 2));
		_mm_stream_ps(p + 12, _mm512_extractf32x4_ps((__m512)v, 3));
		return;
	}
#elif defined(__AVX__) && L == 8
	if ((uintptr_t)p % 32 == 0) {
		_mm256_stream_ps(p, (__m256)v);
		return;
	}
	if ((uintptr_t)p % 16 == 0) {
		_mm_stream_ps(p, _mm256_castps256_ps128((__m256)v));
		_mm_stream_ps(p + 4, _mm256_extractf128_ps((__m256)v, 1));
		return;
	}
#endif
	rr_store_f32(p, v);
}

/* Elements from q up to the first address aligned to a vector, at most count. */
static inline int64_t rr_lead_to_vector(const float *q, int64_t count)
{
	const uintptr_t bytes = L * sizeof(float), misaligned = (uintptr_t)q % bytes;
	const int64_t lead = (int64_t)((bytes - misaligned) % bytes / sizeof(float));
	return lead < count ? lead : count;
}

/* Lanes below n (-1), the others 0: one vector compare (rr_lanes_below). */
static inline vi rr_first_lanes(int64_t n)
{
	return rr_lanes_below(n, 1);
}

/* The lanes `valid` of L consecutive elements at p (the others read 0, never touched). */
static inline vf rr_load_f32_lanes(const float *p, vi valid)
{
#if defined(__AVX512F__) && L == 16
	return (vf)_mm512_maskz_loadu_ps(_mm512_test_epi32_mask((__m512i)valid, (__m512i)valid), p);
#elif defined(__AVX__) && L == 8
	return (vf)_mm256_maskload_ps(p, (__m256i)valid);
#else
	vf v = {0};
	for (int l = 0; l < L; l++)
		if (valid[l])
			v[l] = p[l];
	return v;
#endif
}

static inline void rr_store_f32_lanes(float *p, vi valid, vf v)
{
#if defined(__AVX512F__) && L == 16
	_mm512_mask_storeu_ps(p, _mm512_test_epi32_mask((__m512i)valid, (__m512i)valid), (__m512)v);
#elif defined(__AVX__) && L == 8
	_mm256_maskstore_ps(p, (__m256i)valid, (__m256)v);
#else
	for (int l = 0; l < L; l++)
		if (valid[l])
			p[l] = v[l];
#endif
}
//@ packed_16
/* L 16-bit values (bf16 or f16 bits) past the caches where p is aligned to them, or to 16
 * bytes (in halves), as rr_stream_f32; an ordinary store elsewhere. */
static inline void rr_stream_halves(uint16_t *p, vh h)
{
#if defined(__AVX512F__) && L == 16
	if ((uintptr_t)p % 32 == 0) {
		_mm256_stream_si256((__m256i *)(void *)p, (__m256i)h);
		return;
	}
	if ((uintptr_t)p % 16 == 0) {
		_mm_stream_si128((__m128i *)(void *)p, _mm256_castsi256_si128((__m256i)h));
		_mm_stream_si128((__m128i *)(void *)(p + 8),
		                 _mm256_extracti128_si256((__m256i)h, 1));
		return;
	}
#elif defined(__SSE2__) && L == 8
	if ((uintptr_t)p % 16 == 0) {
		_mm_stream_si128((__m128i *)(void *)p, (__m128i)h);
		return;
	}
#endif
	memcpy(p, &h, L * sizeof(uint16_t));
}
//@ packed_bf16
/* bfloat16 is the top half of an f32; stores round to nearest even, NaN stays NaN (quiet), as
 * rr__bf16_from_float does for one value. */
static inline vf rr_load_bf16(const uint16_t *p)
{
	/* One widening load where the target has it: GCC splits the generic conversion of 16
	 * lanes into two halves and loads them twice (softmax bf16 64x4096, one thread: 1.53 ->
	 * 1.20 µs a row). */
#if defined(__AVX512BW__) && L == 16
	/* Each bf16 into the top half of its lane and zeros below in one word permute (one
	 * micro-op where widening and shifting take two): one thread, in cache, two interleaved
	 * runs, rmsnorm bf16 1024x1024 217-232 µs -> 210-223, add_layernorm 512-576 -> 479-550,
	 * layernorm and softmax level. */
	const __m512i high_halves =
	    _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0,
	                     4, 0, 3, 0, 2, 0, 1, 0, 0, 0);
	return (vf)_mm512_maskz_permutexvar_epi16(
	    0xaaaaaaaau, high_halves,
	    _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)p)));
#elif defined(__AVX512F__) && L == 16
	return (vf)_mm512_slli_epi32(
	    _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p)), 16);
#elif defined(__AVX2__) && L == 8
	/* The 16 bytes to both halves of the vector (a load alone: vbroadcasti128), then each
	 * bf16 into the top half of its lane and zeros below in one byte shuffle, where widening
	 * and shifting took two vector operations. */
	const __m256i both =
	    _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p));
	const __m256i high_halves =
	    _mm256_setr_epi8(-1, -1, 0, 1, -1, -1, 2, 3, -1, -1, 4, 5, -1, -1, 6, 7, -1, -1, 8, 9,
	                     -1, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, 15);
	return (vf)_mm256_shuffle_epi8(both, high_halves);
#else
	vh h = {0};
	memcpy(&h, p, L * sizeof(uint16_t));
	return (vf)(__builtin_convertvector(h, vu) << 16);
#endif
}

/* The largest and smallest of the n bf16 values at p, read as integers, 16 a vector operation
 * each: as signed 16-bit integers the non-negative values are in order and every negative one
 * is below them; as unsigned ones the negative values are in reverse order above every
 * non-negative one. So the signed maximum is the largest value where one is non-negative, the
 * unsigned minimum the largest where all are negative, and the unsigned maximum the smallest
 * where one is negative (the unsigned minimum where none is). A NaN lies above the infinity of
 * its sign in these orders: returns 0 (max and min unset) where a positive NaN is present or
 * every value is a NaN; a negative NaN can make *min a NaN. Otherwise *max is the largest value
 * that is no NaN (+0 where both zeros are, as the float maximum may not be) and *min is the
 * smallest or a NaN. Three operations a 16 values where a float maximum takes four (softmax
 * bf16's max pass: rr_vexp_nonpos_bf16_ranged). RR_BF16_EXTREMA: the target has the vector
 * form (AVX2); elsewhere the loop is scalar and the emitted kernels keep their float pass. */
#if defined(__AVX2__)
#define RR_BF16_EXTREMA 1
#else
#define RR_BF16_EXTREMA 0
#endif
static inline int rr_bf16_extrema(const uint16_t *p, int64_t n, float *max, float *min)
{
	int16_t smax = INT16_MIN;
	uint16_t umax = 0, umin = 0xffff;
	int64_t k = 0;
#if defined(__AVX2__)
	__m256i smax0 = _mm256_setzero_si256(), umax0 = smax0, umin0 = smax0;
	int lanes = 0;
	if (n >= 16) {
		/* Maxima and minima may see an element twice: the first 16 elements, then aligned
		 * loads from the row's first 32-byte boundary (no load splits a line: rows 16 bytes
		 * into one split every other), then the last 16 elements; no element one by one. */
		smax0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
		umax0 = smax0;
		umin0 = smax0;
		__m256i smax1 = smax0, umax1 = smax0, umin1 = smax0;
		k = (int64_t)((32 - (uintptr_t)p % 32) % 32 / sizeof *p);
#if defined(__AVX512BW__)
		/* With AVX-512BW, on rows of up to 2048 values, 32 values a vector operation from the
		 * row's first 64-byte boundary, four lines a step: softmax bf16 from memory, two
		 * threads (`rowreduce bench`, two builds alternated), 32768x512 0.916 of the time,
		 * 16384x1024 0.943, 1024x1024 0.917, 8192x2048 0.949; on longer rows it ran
		 * 4096x4096 1.03-1.04 and 2048x8192 1.016, though 128x4096 in L2 on one thread 0.95
		 * (bench/NOTES.md, session 43 CPU). */
		if (n <= 2048 && k + 16 <= n && (uintptr_t)(p + k) % 64 != 0) {
			const __m256i v0 = _mm256_load_si256((const __m256i *)(const void *)(p + k));
			smax0 = _mm256_max_epi16(smax0, v0);
			umax0 = _mm256_max_epu16(umax0, v0);
			umin0 = _mm256_min_epu16(umin0, v0);
			k += 16;
		}
		if (n <= 2048 && k + 128 <= n) {
			__m512i s0 = _mm512_inserti64x4(_mm512_castsi256_si512(smax0), smax0, 1);
			__m512i u0 = _mm512_inserti64x4(_mm512_castsi256_si512(umax0), umax0, 1);
			__m512i m0 = _mm512_inserti64x4(_mm512_castsi256_si512(umin0), umin0, 1);
			__m512i s1 = s0, u1 = u0, m1 = m0;
			for (; k + 128 <= n; k += 128) {
				const __m512i v0 = _mm512_load_si512((const void *)(p + k));
				const __m512i v1 = _mm512_load_si512((const void *)(p + k + 32));
				const __m512i v2 = _mm512_load_si512((const void *)(p + k + 64));
				const __m512i v3 = _mm512_load_si512((const void *)(p + k + 96));
				s0 = _mm512_max_epi16(s0, _mm512_max_epi16(v0, v2));
				s1 = _mm512_max_epi16(s1, _mm512_max_epi16(v1, v3));
				u0 = _mm512_max_epu16(u0, _mm512_max_epu16(v0, v2));
				u1 = _mm512_max_epu16(u1, _mm512_max_epu16(v1, v3));
				m0 = _mm512_min_epu16(m0, _mm512_min_epu16(v0, v2));
				m1 = _mm512_min_epu16(m1, _mm512_min_epu16(v1, v3));
			}
			s0 = _mm512_max_epi16(s0, s1);
			u0 = _mm512_max_epu16(u0, u1);
			m0 = _mm512_min_epu16(m0, m1);
			smax0 = _mm256_max_epi16(_mm512_castsi512_si256(s0),
			                         _mm512_extracti64x4_epi64(s0, 1));
			umax0 = _mm256_max_epu16(_mm512_castsi512_si256(u0),
			                         _mm512_extracti64x4_epi64(u0, 1));
			umin0 = _mm256_min_epu16(_mm512_castsi512_si256(m0),
			                         _mm512_extracti64x4_epi64(m0, 1));
		}
#endif
		for (; k + 32 <= n; k += 32) {
			const __m256i v0 =
			    _mm256_load_si256((const __m256i *)(const void *)(p + k));
			const __m256i v1 =
			    _mm256_load_si256((const __m256i *)(const void *)(p + k + 16));
			smax0 = _mm256_max_epi16(smax0, v0);
			smax1 = _mm256_max_epi16(smax1, v1);
			umax0 = _mm256_max_epu16(umax0, v0);
			umax1 = _mm256_max_epu16(umax1, v1);
			umin0 = _mm256_min_epu16(umin0, v0);
			umin1 = _mm256_min_epu16(umin1, v1);
		}
		const __m256i last = _mm256_loadu_si256(
		    (const __m256i *)(const void *)(p + (k + 16 <= n ? k : n - 16)));
		const __m256i tail =
		    _mm256_loadu_si256((const __m256i *)(const void *)(p + n - 16));
		smax0 =
		    _mm256_max_epi16(_mm256_max_epi16(smax0, smax1), _mm256_max_epi16(last, tail));
		umax0 =
		    _mm256_max_epu16(_mm256_max_epu16(umax0, umax1), _mm256_max_epu16(last, tail));
		umin0 =
		    _mm256_min_epu16(_mm256_min_epu16(umin0, umin1), _mm256_min_epu16(last, tail));
		lanes = 1;
	}
#if defined(__AVX512BW__) && defined(__AVX512VL__)
	else if (n > 0) { /* one masked load, the absent lanes neutral to each extremum */
		const __mmask16 valid = rr_mask_below(n);
		umax0 = _mm256_maskz_loadu_epi16(valid, p);
		smax0 = _mm256_mask_blend_epi16(valid, _mm256_set1_epi16(INT16_MIN), umax0);
		umin0 = _mm256_mask_blend_epi16(valid, _mm256_set1_epi16(-1), umax0);
		lanes = 1;
	}
#endif
	if (lanes) {
		/* Across the lanes by the unsigned minimum of eight (phminposuw): the signed
		 * maximum s is the unsigned minimum of s ^ 0x7fff, the unsigned maximum that of
		 * its complement; where a loop over the 16 lanes of each took a twelfth of a
		 * softmax bf16 row of 127 elements (bench/NOTES.md, session 38 CPU). */
		const __m128i smax8 = _mm_max_epi16(_mm256_castsi256_si128(smax0),
		                                    _mm256_extracti128_si256(smax0, 1));
		const __m128i umax8 = _mm_max_epu16(_mm256_castsi256_si128(umax0),
		                                    _mm256_extracti128_si256(umax0, 1));
		const __m128i umin8 = _mm_min_epu16(_mm256_castsi256_si128(umin0),
		                                    _mm256_extracti128_si256(umin0, 1));
		smax = (int16_t)(_mm_cvtsi128_si32(_mm_minpos_epu16(
		                     _mm_xor_si128(smax8, _mm_set1_epi16(0x7fff)))) ^
		                 0x7fff);
		umax = (uint16_t)~_mm_cvtsi128_si32(
		    _mm_minpos_epu16(_mm_xor_si128(umax8, _mm_set1_epi16(-1))));
		umin = (uint16_t)_mm_cvtsi128_si32(_mm_minpos_epu16(umin8));
		k = n;
	}
#endif
	for (; k < n; k++) {
		const int16_t s = (int16_t)p[k];
		smax = s > smax ? s : smax;
		umax = p[k] > umax ? p[k] : umax;
		umin = p[k] < umin ? p[k] : umin;
	}
	if (smax >= 0) { /* a non-negative value, or a positive NaN */
		if (smax > 0x7f80)
			return 0;
		*max = rr__bf16_to_float((uint16_t)smax);
	} else { /* every value negative */
		if (umin > 0xff80)
			return 0;
		*max = rr__bf16_to_float(umin);
	}
	*min = rr__bf16_to_float(umax >= 0x8000 ? umax : umin);
	return 1;
}

static inline vh rr_bf16_bits_generic(vf v)
{
	const vu bits = (vu)v, nan = (vu)(v != v);
	const vu rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
	const vu quiet = (bits >> 16) | 0x40u;
	return __builtin_convertvector((nan & quiet) | (~nan & rounded), vh);
}

#if defined(__AVX2__) && L == 8
/* The bf16 of each lane that is not NaN, rounded to nearest even, in its low 16 bits:
 * bits + 0x7fff + (bit 16), written bits + 0x8000 - (bit 16 clear), whose test is a compare
 * where the bit's shift took one of the two vector pipes that shifts and shuffles share on
 * Zen 3 (softmax bf16 from DRAM, two threads: 0.97-0.98 of the time; bench/NOTES.md, session
 * 32). */
static inline __m256i rr_bf16_rounded8(__m256i bits)
{
	const __m256i even = _mm256_cmpeq_epi32(_mm256_and_si256(bits, _mm256_set1_epi32(0x10000)),
	                                        _mm256_setzero_si256());
	return _mm256_srli_epi32(
	    _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x8000)), even), 16);
}
#endif

static inline vh rr_bf16_bits(vf v)
{
#if defined(__AVX512BF16__) && defined(__AVX512F__) && L == 16
	/* One instruction where the target converts to bfloat16: vcvtneps2bf16 rounds to nearest
	 * even and quiets a NaN as the generic form does, but reads a subnormal input as zero
	 * (0x00400000 -> 0x0000, not 0x0040); a vector with a subnormal lane (two tests, rare)
	 * takes the generic form. 11 instructions a vector -> 5; one thread, in cache: rmsnorm bf16
	 * 1024x1024 275-283 µs -> 212-224, softmax 390-413 -> 358-373, layernorm 389-405 ->
	 * 298-320. */
	const __m512i bits = (__m512i)v;
	const __mmask16 no_exponent = _mm512_testn_epi32_mask(bits, _mm512_set1_epi32(0x7f800000));
	if (__builtin_expect(
	        _mm512_mask_test_epi32_mask(no_exponent, bits, _mm512_set1_epi32(0x007fffff)) != 0,
	        0))
		return rr_bf16_bits_generic(v);
	return (vh)_mm512_cvtneps_pbh((__m512)v);
#elif defined(__AVX512BF16__) && defined(__AVX512VL__) && L == 8
	/* The same on 8 lanes (W = 8; rows of 8-15 elements). */
	const __m256i bits = (__m256i)v;
	const __mmask8 no_exponent = _mm256_testn_epi32_mask(bits, _mm256_set1_epi32(0x7f800000));
	if (__builtin_expect(
	        _mm256_mask_test_epi32_mask(no_exponent, bits, _mm256_set1_epi32(0x007fffff)) != 0,
	        0))
		return rr_bf16_bits_generic(v);
	return (vh)_mm256_cvtneps_pbh((__m256)v);
#elif defined(__AVX512BF16__) && defined(__AVX512VL__) && L == 4
	/* And on 4 (W = 4: rows of a few elements, bench/NOTES.md session 38 CPU). */
	const __m128i bits = (__m128i)v;
	const __mmask8 no_exponent = _mm_testn_epi32_mask(bits, _mm_set1_epi32(0x7f800000));
	if (__builtin_expect(
	        _mm_mask_test_epi32_mask(no_exponent, bits, _mm_set1_epi32(0x007fffff)) != 0, 0))
		return rr_bf16_bits_generic(v);
	const __m128bh half = _mm_cvtneps_pbh((__m128)v);
	vh h;
	memcpy(&h, &half, sizeof h);
	return h;
#elif defined(__AVX2__) && L == 8
	/* The same bits in fewer instructions: one blend for the NaN lanes, one pack and one
	 * permute for the narrowing. */
	const __m256i bits = (__m256i)v, high = _mm256_srli_epi32(bits, 16);
	const __m256i rounded = rr_bf16_rounded8(bits);
	const __m256i quiet = _mm256_or_si256(high, _mm256_set1_epi32(0x40));
	const __m256i nan = (__m256i)_mm256_cmp_ps((__m256)v, (__m256)v, _CMP_UNORD_Q);
	const __m256i halves = _mm256_blendv_epi8(rounded, quiet, nan);
	const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(halves, halves), 0xd8);
	return (vh)_mm256_castsi256_si128(packed);
#else
	return rr_bf16_bits_generic(v);
#endif
}

static inline void rr_store_bf16(uint16_t *p, vf v)
{
	const vh h = rr_bf16_bits(v);
	memcpy(p, &h, L * sizeof(uint16_t));
}

/* rr_store_bf16 past the caches (rr_stream_halves). */
static inline void rr_stream_bf16(uint16_t *p, vf v)
{
	rr_stream_halves(p, rr_bf16_bits(v));
}

#if defined(__AVX512BF16__) && defined(__AVX512DQ__) && L == 16
/* Two vectors' 32 values as bfloat16 in one vector, v0's first (vcvtne2ps2bf16); `paired`: the
 * two in pair order (paired_bf16), put back in order by one permute of their 8-byte pieces. */
static inline __m512i rr_bf16_pair_bits(vf v0, vf v1, int paired)
{
	const __m512i z = (__m512i)_mm512_cvtne2ps_pbh((__m512)v1, (__m512)v0);
	return paired ? _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7), z) : z;
}

/* Up to RR_BF16_PAIRS_MAX vectors of a run as bfloat16, two a conversion (rr_bf16_pair_bits,
 * in order) into pairs[], an odd run's last vector alone into *last. Returns whether a
 * converted word is zero (vptestnmw): the conversion reads a subnormal as zero, so only such a
 * run can hold a lane that needs the exact conversion. */
#define RR_BF16_PAIRS_MAX 16
__attribute__((always_inline, unused)) static inline int
rr_bf16_run_converted(const vf *v, int count, __m512i *pairs, __m256i *last)
{
	__mmask32 zero = 0;
	int k = 0;
	for (; k + 1 < count; k += 2) {
		pairs[k / 2] = rr_bf16_pair_bits(v[k], v[k + 1], 0);
		zero |= _mm512_testn_epi16_mask(pairs[k / 2], _mm512_set1_epi16(0x7fff));
	}
	if (k < count) {
		*last = (__m256i)_mm512_cvtneps_pbh((__m512)v[k]);
		zero |= _mm256_testn_epi16_mask(*last, _mm256_set1_epi16(0x7fff));
	}
	return zero != 0;
}
#endif

/* count whole vectors v[0..count) stored at p, p + L, ... as rr_store_bf16 (rr_stream_bf16
 * where the launch streams) stores them one by one, but where the target converts to
 * bfloat16 with one test of all of them for a subnormal lane (vfpclassps) and one branch: a
 * test and a branch per vector cost the output phase more than the conversion (softmax bf16
 * 1024x1024, one thread: 0.93-0.94 of the time with one test per two vectors, the same as
 * with no test at all). Streamed runs too, where rr_stream_bf16 tested each vector; a run 16
 * bytes past a 32-byte boundary (NumPy's arrays) as aligned 32-byte non-temporal stores, each
 * the top half of one vector and the bottom half of the next, its first and last halves as
 * 16-byte ones. Two threads on the AVX-512 host of bench/NOTES.md session 35 CPU (with the
 * bf16 exp's change): softmax bf16 4096x4096 and 16384x1024 0.86-0.91 of the time from DRAM
 * (bench/peers/onnx_cpu.py, two builds alternated), rmsnorm 0.87-0.97. Always inlined, as
 * rr_store_bf16_lines: as plain inline functions GCC called them out of line from
 * add_layernorm's run loops (the run's vectors through the stack). */
__attribute__((always_inline, unused)) static inline void
rr_store_bf16_run(uint16_t *p, const vf *v, int count, int stream)
{
#if defined(__AVX512BF16__) && defined(__AVX512DQ__) && L == 16
	/* Through the caches, or streamed on a 32-byte boundary (rows off a line boundary take the
	 * whole-line store): two vectors a conversion, tested before any store (a streamed line is
	 * not stored twice), then 64-byte stores, or two 32-byte non-temporal ones a pair. Against
	 * one conversion a vector after the test of every lane (bench/NOTES.md, session 42 CPU):
	 * softmax, rmsnorm, layernorm and add_layernorm bf16 launches under RR_CPU_STREAM_BYTES,
	 * two threads, 0.86-0.99 of the time; rmsnorm, layernorm and softmax bf16 4096x4096 and
	 * 16384x1024 streamed from 64-byte aligned rows 0.91-0.98. */
	if (count <= RR_BF16_PAIRS_MAX && (!stream || (uintptr_t)p % 32 == 0)) {
		__m512i pairs[RR_BF16_PAIRS_MAX / 2];
		__m256i last = _mm256_setzero_si256();
		if (__builtin_expect(!rr_bf16_run_converted(v, count, pairs, &last), 1)) {
			int k = 0;
			for (; k + 1 < count; k += 2) {
				uint16_t *const q = p + k * L;
				if (stream) {
					_mm256_stream_si256((__m256i *)(void *)q,
					                    _mm512_castsi512_si256(pairs[k / 2]));
					_mm256_stream_si256((__m256i *)(void *)(q + L),
					                    _mm512_extracti64x4_epi64(pairs[k / 2], 1));
				} else
					_mm512_storeu_si512((void *)q, pairs[k / 2]);
			}
			if (k < count) {
				if (stream)
					_mm256_stream_si256((__m256i *)(void *)(p + k * L), last);
				else
					_mm256_storeu_si256((__m256i *)(void *)(p + k * L), last);
			}
			return;
		}
	}
	__mmask16 subnormal = 0;
	for (int k = 0; k < count; k++)
		subnormal |= _mm512_fpclass_ps_mask((__m512)v[k], 0x20);
	if (__builtin_expect(subnormal == 0, 1)) {
		if (stream && (uintptr_t)p % 32 == 16) {
			__m256i last = (__m256i)_mm512_cvtneps_pbh((__m512)v[0]);
			_mm_stream_si128((__m128i *)(void *)p, _mm256_castsi256_si128(last));
			for (int k = 1; k < count; k++) {
				const __m256i h = (__m256i)_mm512_cvtneps_pbh((__m512)v[k]);
				_mm256_stream_si256((__m256i *)(void *)(p + k * L - L / 2),
				                    _mm256_permute2x128_si256(last, h, 0x21));
				last = h;
			}
			_mm_stream_si128((__m128i *)(void *)(p + count * L - L / 2),
			                 _mm256_extracti128_si256(last, 1));
			return;
		}
		for (int k = 0; k < count; k++) {
			const vh h = (vh)_mm512_cvtneps_pbh((__m512)v[k]);
			if (stream)
				rr_stream_halves(p + k * L, h);
			else
				memcpy(p + k * L, &h, L * sizeof(uint16_t));
		}
		return;
	}
#endif
#if defined(__AVX2__) && L == 8
	/* Two vectors at a time: one unordered compare tests both for NaN, and one pack and one
	 * permute narrow both to 32 bytes, stored at once (a 32-byte streaming store where p
	 * allows); where no lane of the run is NaN (one branch) the rounding skips the NaN blend.
	 * With the load's one shuffle (rr_load_bf16) 6 of the 10 vector operations of a vector
	 * stored alone. Two threads, 6 ABBA rounds of `rowreduce bench` (bench/NOTES.md, session
	 * 29): the bf16 rows of >= 64 MiB in 0.66-0.96 of the time (medians; faster in every round:
	 * softmax and rmsnorm 16384x1024, rmsnorm and layernorm 256x65536). Where no 16-bit word of
	 * the run is 0x8000 either (one compare a vector, its result in the same branch), no lane
	 * is a tie (low half 0x8000; a high half 0x8000 is -0 to a negative subnormal, rounded
	 * exactly too) and rounding half up, (bits + 0x8000) >> 16, is rounding to nearest even:
	 * two operations a vector where rr_bf16_rounded8 takes five, the same bits. With c_emit.c's
	 * prefetch_by_line, softmax bf16 from DRAM, two threads, the lab's calls in both orders
	 * (bench/lab/s64-cpu-bf16, Zen 3): 4096x4096 0.976-0.995 of the time, 16384x1024
	 * 0.983-0.993. */
	__m256 nan = _mm256_setzero_ps();
	__m256i tie = _mm256_setzero_si256();
	const __m256i half = _mm256_set1_epi32(0x8000), word = _mm256_set1_epi16((short)0x8000);
	for (int k = 0; k + 1 < count; k += 2) {
		nan =
		    _mm256_or_ps(nan, _mm256_cmp_ps((__m256)v[k], (__m256)v[k + 1], _CMP_UNORD_Q));
		tie = _mm256_or_si256(tie,
		                      _mm256_or_si256(_mm256_cmpeq_epi16((__m256i)v[k], word),
		                                      _mm256_cmpeq_epi16((__m256i)v[k + 1], word)));
	}
	if (__builtin_expect(_mm256_movemask_ps(nan) == 0, 1)) {
		const int ties = _mm256_movemask_epi8(tie) != 0;
		const int aligned =
		    stream ? (int)((uintptr_t)p % 32 == 0) + (int)((uintptr_t)p % 16 == 0) : 0;
		int k = 0;
		for (; k + 1 < count; k += 2) {
			const __m256i bits0 = (__m256i)v[k], bits1 = (__m256i)v[k + 1];
			const __m256i packed = _mm256_permute4x64_epi64(
			    __builtin_expect(ties, 0)
			        ? _mm256_packus_epi32(rr_bf16_rounded8(bits0),
			                              rr_bf16_rounded8(bits1))
			        : _mm256_packus_epi32(
			              _mm256_srli_epi32(_mm256_add_epi32(bits0, half), 16),
			              _mm256_srli_epi32(_mm256_add_epi32(bits1, half), 16)),
			    0xd8);
			uint16_t *q = p + k * L;
			if (aligned == 2)
				_mm256_stream_si256((__m256i *)(void *)q, packed);
			else if (aligned == 1) {
				_mm_stream_si128((__m128i *)(void *)q,
				                 _mm256_castsi256_si128(packed));
				_mm_stream_si128((__m128i *)(void *)(q + 8),
				                 _mm256_extracti128_si256(packed, 1));
			} else
				_mm256_storeu_si256((__m256i *)(void *)q, packed);
		}
		if (k < count) {
			if (stream)
				rr_stream_bf16(p + k * L, v[k]);
			else
				rr_store_bf16(p + k * L, v[k]);
		}
		return;
	}
#endif
	for (int k = 0; k < count; k++) {
		if (stream)
			rr_stream_bf16(p + k * L, v[k]);
		else
			rr_store_bf16(p + k * L, v[k]);
	}
}
//@ packed_f16
/* IEEE half: the conversion instructions where the target has them (F16C, AVX-512F), which
 * round to nearest even and make subnormals (MXCSR's flush-to-zero does not apply to them), as
 * rr__f16_from_float does; lane by lane through the scalar conversions elsewhere. A NaN loads
 * quiet in both. The instruction keeps a NaN's top payload bits where the scalar conversion
 * stores sign | 0x7e00: a vector with a NaN lane (one compare, rare) is stored lane by lane.
 * Lane by lane, the planner's plans took 8-70x the time (two threads, AVX-512: rmsnorm f16
 * 1024x1024 10.1 ms -> 0.24, softmax 16384x1024 185 -> 7.0; bench/NOTES.md, session 23). */
static inline vf rr_load_f16_generic(const uint16_t *p)
{
	vf v = {0};
	for (int l = 0; l < L; l++)
		v[l] = rr__f16_to_float(p[l]);
	return v;
}

static inline vf rr_load_f16(const uint16_t *p)
{
#if defined(__AVX512F__) && L == 16
	return (vf)_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)p));
#elif defined(__F16C__) && L == 8
	return (vf)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
#elif defined(__F16C__) && L == 4
	return (vf)_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(const void *)p));
#else
	return rr_load_f16_generic(p);
#endif
}

static inline vh rr_f16_bits_generic(vf v)
{
	vh h = {0};
	for (int l = 0; l < L; l++)
		h[l] = rr__f16_from_float(v[l]);
	return h;
}

#if (defined(__AVX512F__) && L == 16) || (defined(__F16C__) && (L == 8 || L == 4))
#define RR_F16_CONVERTS 1
/* The instruction's bits: those of rr_f16_bits_generic but in NaN lanes. */
static inline vh rr_f16_convert(vf v)
{
#if defined(__AVX512F__) && L == 16
	return (vh)_mm512_cvtps_ph((__m512)v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#elif L == 8
	return (vh)_mm256_cvtps_ph((__m256)v, _MM_FROUND_TO_NEAREST_INT);
#else
	vh h;
	const __m128i halves = _mm_cvtps_ph((__m128)v, _MM_FROUND_TO_NEAREST_INT);
	memcpy(&h, &halves, sizeof h);
	return h;
#endif
}
#else
#define RR_F16_CONVERTS 0
#endif

static inline vh rr_f16_bits(vf v)
{
#if RR_F16_CONVERTS
#if defined(__AVX512F__) && L == 16
	const int nan = _mm512_cmp_ps_mask((__m512)v, (__m512)v, _CMP_UNORD_Q) != 0;
#else
	const int nan = rr_vany((vi)(v != v));
#endif
	if (__builtin_expect(!nan, 1))
		return rr_f16_convert(v);
#endif
	return rr_f16_bits_generic(v);
}

static inline void rr_store_f16(uint16_t *p, vf v)
{
	const vh h = rr_f16_bits(v);
	memcpy(p, &h, L * sizeof(uint16_t));
}

/* rr_store_f16 past the caches (rr_stream_halves). */
static inline void rr_stream_f16(uint16_t *p, vf v)
{
	rr_stream_halves(p, rr_f16_bits(v));
}

/* count whole vectors v[0..count) stored at p, p + L, ... as rr_store_f16 (rr_stream_f16
 * where the launch streams) stores them one by one, with one test of all of them for a NaN
 * lane and one branch where the target converts (as rr_store_bf16_run). */
static inline void rr_store_f16_run(uint16_t *p, const vf *v, int count, int stream)
{
#if RR_F16_CONVERTS
#if defined(__AVX512F__) && L == 16
	__mmask16 nan = 0;
	for (int k = 0; k < count; k++)
		nan |= _mm512_cmp_ps_mask((__m512)v[k], (__m512)v[k], _CMP_UNORD_Q);
#else
	vi nan_lanes = {0};
	for (int k = 0; k < count; k++)
		nan_lanes |= (vi)(v[k] != v[k]);
	const int nan = rr_vany(nan_lanes);
#endif
	if (__builtin_expect(nan == 0, 1)) {
		for (int k = 0; k < count; k++) {
			const vh h = rr_f16_convert(v[k]);
			if (stream)
				rr_stream_halves(p + k * L, h);
			else
				memcpy(p + k * L, &h, L * sizeof(uint16_t));
		}
		return;
	}
#endif
	for (int k = 0; k < count; k++) {
		if (stream)
			rr_stream_f16(p + k * L, v[k]);
		else
			rr_store_f16(p + k * L, v[k]);
	}
}
//@ io
/* Plans of V > 1: a block's L workers hold the L * V consecutive elements of their packs, lane
 * l element e at l * V + e. rr_pick_packs takes one e from those elements loaded as the V
 * vectors run[0..V): each pair of vectors one two-source shuffle (lane l's index into the pair
 * is the same for every pair) and a select, where reading lane by lane cost sum f32 1024x4096
 * 5.7x V = 1's time at V = 4 (bench/NOTES.md, session 55 CPU). GCC's __builtin_shuffle, for
 * V up to PICK_MAX_VEC (the emitter unrolls the loop over e there, so the shuffles' indices are
 * constants); elsewhere lane by lane. */
#if defined(__GNUC__) && !defined(__clang__)
#define RR_PICK_PACKS                                                                          \
	(V > 1 && V <= PICK_MAX_VEC && V <= L && V % 2 == 0 && (L & (L - 1)) == 0)
#else
#define RR_PICK_PACKS 0
#endif
#if RR_PICK_PACKS
static inline vf rr_pick_packs(const vf *run, int e)
{
	vi index = {0}, pair = {0};
	for (int l = 0; l < L; l++) {
		index[l] = (l * V + e) & (2 * L - 1);
		pair[l] = (l * V + e) / (2 * L);
	}
	vf v = __builtin_shuffle(run[0], run[1], index);
	for (int k = 2; k < V; k += 2)
		v = rr_vselect(pair == k / 2, __builtin_shuffle(run[k], run[k + 1], index), v);
	return v;
}

/* rr_pick_packs over the V vectors of f32 values from `from` (the block's packs). */
static inline vf rr_pick_floats(const float *from, int e)
{
	vf run[V];
	for (int k = 0; k < V; k++)
		memcpy(&run[k], from + (int64_t)k * L, L * sizeof(float));
	return rr_pick_packs(run, e);
}

/* The same on 16-bit elements as loaded, so that each picked vector is widened once. */
typedef int16_t rr_vs16 __attribute__((vector_size(VL * 2)));
static inline vh rr_pick_packs16(const vh *run, int e)
{
	rr_vs16 index = {0}, pair = {0};
	for (int l = 0; l < L; l++) {
		index[l] = (int16_t)((l * V + e) & (2 * L - 1));
		pair[l] = (int16_t)((l * V + e) / (2 * L));
	}
	vh v = __builtin_shuffle(run[0], run[1], index);
	for (int k = 2; k < V; k += 2) {
		const vh mask = (vh)(pair == (int16_t)(k / 2));
		v = (mask & __builtin_shuffle(run[k], run[k + 1], index)) | (~mask & v);
	}
	return v;
}
#endif

/* The L workers' element e of one complete chunk: lane l holds element i + l * V of p. V == 1
 * is one contiguous access; larger V reads the block's packs, the L * V elements from i - e on
 * (all before N), as V vectors and picks lane l's from them (rr_pick_packs). The guarded forms
 * touch only elements before N (absent lanes read 0 and are never written). */
static inline vf load_lanes(const io_t *p, int64_t i, int e)
{
	if (V == 1)
		return load_packed(p + i);
#if RR_PICK_PACKS
	if (sizeof(io_t) == sizeof(uint16_t)) {
		vh run[V];
		for (int k = 0; k < V; k++)
			memcpy(&run[k], p + i - e + (int64_t)k * L, L * sizeof(uint16_t));
		const vh picked = rr_pick_packs16(run, e);
		io_t lanes[L];
		memcpy(lanes, &picked, L * sizeof(uint16_t));
		return load_packed(lanes);
	}
	return rr_pick_floats((const float *)(const void *)(p + i - e), e); /* io_t is f32 */
#else
	(void)e;
	vf v = {0};
	for (int l = 0; l < L; l++)
		v[l] = load_io(p, i + (int64_t)l * V);
	return v;
#endif
}

/* stream: the launch writes more than the caches hold (rr__cpu_kernel_fn), so a contiguous
 * store goes past them. */
static inline void store_lanes(io_t *p, int64_t i, int stream, vf v)
{
	if (V == 1) {
		if (stream)
			stream_packed(p + i, v);
		else
			store_packed(p + i, v);
		return;
	}
	for (int l = 0; l < L; l++)
		p[i + (int64_t)l * V] = store_io(v[l]);
}

/* The L workers' packs of one complete chunk, v[e] holding lane l's element e, stored as the
 * L * V consecutive elements from p + i: each of the V vectors stored takes its lanes from
 * pairs of v by one two-source shuffle and a select (the inverse of rr_pick_packs), where
 * store_lanes writes them lane by lane. Plain stores, as store_lanes' for V > 1. */
static inline void store_packs(io_t *p, int64_t i, const vf *v)
{
#if RR_PICK_PACKS
#pragma GCC unroll 4
	for (int k = 0; k < V; k++) {
		vi index = {0}, pair = {0};
		for (int m = 0; m < L; m++) {
			const int x = k * L + m; /* lane x / V of v[x % V], the pair's second if odd */
			index[m] = x / V + (x % 2) * L;
			pair[m] = x % V / 2;
		}
		vf out = __builtin_shuffle(v[0], v[1], index);
		for (int q = 1; q < V / 2; q++) {
			const vf picked = __builtin_shuffle(v[2 * q], v[2 * q + 1], index);
			out = rr_vselect(pair == q, picked, out);
		}
		store_packed(p + i + (int64_t)k * L, out);
	}
#else
	for (int e = 0; e < V; e++)
		for (int l = 0; l < L; l++)
			p[i + (int64_t)l * V + e] = store_io(v[e][l]);
#endif
}

/* V = 1: one masked load or store of the first N - i lanes where the target has them (a
 * 16-bit row's lanes through a vector of their bits; AVX-512 with BW and VL, vectors of 4, 8
 * or 16 lanes), where the loop of one lane at a time cost a softmax f32 row of 127 elements,
 * whose guarded chunk of 15 every pass reads, about a quarter of its time, and softmax bf16
 * rows of 3 elements (W = 4: the whole row is the guarded chunk) about half of theirs
 * (bench/NOTES.md, session 38 CPU). */
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__)
#define RR_MASKED_LANES (L == 16 || L == 8 || L == 4)
#else
#define RR_MASKED_LANES 0
#endif
#if RR_MASKED_LANES
static inline vf rr_masked_load_f32(const float *p, int64_t n)
{
#if L == 16
	return (vf)_mm512_maskz_loadu_ps(rr_mask_below(n), p);
#elif L == 8
	return (vf)_mm256_maskz_loadu_ps((__mmask8)rr_mask_below(n), p);
#else
	return (vf)_mm_maskz_loadu_ps((__mmask8)rr_mask_below(n), p);
#endif
}

static inline void rr_masked_store_f32(float *p, int64_t n, vf v)
{
#if L == 16
	_mm512_mask_storeu_ps(p, rr_mask_below(n), (__m512)v);
#elif L == 8
	_mm256_mask_storeu_ps(p, (__mmask8)rr_mask_below(n), (__m256)v);
#else
	_mm_mask_storeu_ps(p, (__mmask8)rr_mask_below(n), (__m128)v);
#endif
}

/* The first n of L 16-bit values at p into lanes (the others 0), and back. */
static inline void rr_masked_load_bits16(uint16_t *lanes, const uint16_t *p, int64_t n)
{
#if L == 16
	const __m256i bits = _mm256_maskz_loadu_epi16(rr_mask_below(n), p);
#else
	const __m128i bits = _mm_maskz_loadu_epi16((__mmask8)rr_mask_below(n), p);
#endif
	memcpy(lanes, &bits, L * sizeof(uint16_t));
}

static inline void rr_masked_store_bits16(uint16_t *p, int64_t n, const uint16_t *lanes)
{
#if L == 16
	__m256i bits;
	memcpy(&bits, lanes, sizeof bits);
	_mm256_mask_storeu_epi16(p, rr_mask_below(n), bits);
#else
	__m128i bits = _mm_setzero_si128();
	memcpy(&bits, lanes, L * sizeof(uint16_t));
	_mm_mask_storeu_epi16(p, (__mmask8)rr_mask_below(n), bits);
#endif
}
#endif

static inline vf load_lanes_guarded(const io_t *p, int64_t i, int64_t N)
{
#if RR_MASKED_LANES
	if (V == 1 && sizeof(io_t) == sizeof(float))
		return rr_masked_load_f32((const float *)(const void *)(p + i), N - i);
	if (V == 1 && sizeof(io_t) == sizeof(uint16_t)) {
		io_t lanes[L];
		rr_masked_load_bits16((uint16_t *)(void *)lanes,
		                      (const uint16_t *)(const void *)(p + i), N - i);
		return load_packed(lanes);
	}
#endif
	vf v = {0};
	for (int l = 0; l < L && i + (int64_t)l * V < N; l++)
		v[l] = load_io(p, i + (int64_t)l * V);
	return v;
}

static inline void store_lanes_guarded(io_t *p, int64_t i, int64_t N, vf v)
{
#if RR_MASKED_LANES
	if (V == 1 && sizeof(io_t) == sizeof(float)) {
		rr_masked_store_f32((float *)(void *)(p + i), N - i, v);
		return;
	}
	if (V == 1 && sizeof(io_t) == sizeof(uint16_t)) {
		io_t lanes[L]; /* store_packed's conversion, bit for bit */
		store_packed(lanes, v);
		rr_masked_store_bits16((uint16_t *)(void *)(p + i), N - i,
		                       (const uint16_t *)(const void *)lanes);
		return;
	}
#endif
	for (int l = 0; l < L && i + (int64_t)l * V < N; l++)
		p[i + (int64_t)l * V] = store_io(v[l]);
}

/* The head of a row (DESIGN.md section 4): worker w's head element t is j = t * W + W - 1 - w,
 * present while j < h; lane l of block b is worker b * L + l. */
static inline vi head_valid(int t, int b, int64_t h)
{
	vi valid = {0};
	for (int l = 0; l < L; l++)
		valid[l] = (int64_t)t * W + W - 1 - (b * L + l) < h ? -1 : 0;
	return valid;
}

static inline vf load_head(const io_t *p, int t, int b, int64_t h)
{
	vf v = {0};
	for (int l = 0; l < L; l++) {
		const int64_t j = (int64_t)t * W + W - 1 - (b * L + l);
		if (j < h)
			v[l] = load_io(p, j);
	}
	return v;
}

static inline void store_head(io_t *p, int t, int b, int64_t h, vf v)
{
	for (int l = 0; l < L; l++) {
		const int64_t j = (int64_t)t * W + W - 1 - (b * L + l);
		if (j < h)
			p[j] = store_io(v[l]);
	}
}

/* Lanes whose element i + l * V lies before N (-1), the others 0. */
static inline vi lanes_valid(int64_t i, int64_t N)
{
	return rr_lanes_below(N - i, V);
}

/* A 16-bit col as f32 (the emitted widen_cols: its cols, once a thread and launch), and the
 * L workers' element e of it, as load_lanes reads them from the col itself: the same values
 * without the widening shuffle a vector (the output phase of layernorm bf16 reads w and b
 * beside x). */
static inline void widen_col(float *to, const io_t *from, int64_t N)
{
	int64_t i = 0;
	for (; i + L <= N; i += L) {
		const vf v = load_packed(from + i);
		memcpy(to + i, &v, L * sizeof(float));
	}
	for (; i < N; i++)
		to[i] = load_io(from, i);
}

static inline vf load_widened(const float *wide, int64_t i, int e)
{
	vf v = {0};
	if (V == 1) {
		memcpy(&v, wide + i, L * sizeof(float));
		return v;
	}
#if RR_PICK_PACKS
	return rr_pick_floats(wide + i - e, e);
#else
	(void)e;
	for (int l = 0; l < L; l++)
		v[l] = wide[i + (int64_t)l * V];
	return v;
#endif
}

/* Private values kept between rounds: slot s of the L workers from lane 0's index k. */
static inline vf load_kept(const float *keep, int64_t k)
{
	vf v = {0};
	memcpy(&v, keep + k, L * sizeof(float));
	return v;
}

static inline void store_kept(float *keep, int64_t k, vf v)
{
	memcpy(keep + k, &v, L * sizeof(float));
}

/* Lane l takes lane l ^ o: one step of the fixed xor tree inside a vector. */
static inline vf rr_vswap(vf v, int o)
{
#if defined(__GNUC__) && !defined(__clang__)
	vi index = {0};
	for (int l = 0; l < L; l++)
		index[l] = (l ^ o) & (L - 1);
	return __builtin_shuffle(v, index);
#else
	vf r = v;
	for (int l = 0; l < L; l++)
		r[l] = v[(l ^ o) & (L - 1)];
	return r;
#endif
}
/* A row output's stores of whole vectors at i, i + L, i + 2L, ... (V = 1: the output phase's
 * complete chunks) where the row does not start on a vector's bytes: the first vector is stored
 * as it is, every later one as the aligned span that ends shift elements into it (the last
 * vector's top shift lanes and this one's bottom L - shift, rotated into place), and the last
 * vector again at the end. Each element is written with the value it is computed to have, never
 * before its vector is; only the stores' addresses change, so the numbers are those of
 * store_lanes. With 64-byte vectors (f32 on AVX-512) a row off a line boundary (NumPy's arrays
 * are 16-byte aligned) makes every store a split one: add_layernorm f32 64x4096, one thread,
 * rows 16 bytes in: 221-231 µs, realigned 172-185 (aligned rows 166-182); 1024x1024 986-1023
 * -> 730-775; rmsnorm 64x4096 52-64 -> 46-60. Not for 32-byte vectors (bf16 on AVX-512, every
 * other store split): the rotation cost more than it saved (rmsnorm bf16 1024x1024 269-278 ->
 * 300). GCC only (a shuffle by a variable index); elsewhere and in launches that stream, the
 * stores of store_lanes; `rotate` 0 leaves those stores to store_lanes too.
 * Streamed f32 rows of 32-byte vectors (AVX) 16 bytes past a vector boundary (NumPy's arrays)
 * are stored as aligned 32-byte non-temporal stores instead, each the top half of the last
 * vector and the bottom half of this one (one vperm2f128), the row's first and last halves as
 * 16-byte ones: rr_stream_f32 stores each vector as two 16-byte halves there. Two threads,
 * rows from DRAM 16 bytes in (bench/NOTES.md, session 31 CPU): softmax f32 16384x1024 0.88 of the
 * time, 4096x4096 0.90; the same values at the same addresses, stored in other pieces.
 * Streamed f32 rows of 64-byte vectors (AVX-512) that start past a line likewise as aligned
 * 64-byte non-temporal stores (one two-source permute a vector), where rr_stream_f32 stores
 * every vector as four 16-byte quarters (16, 32 or 48 bytes in) or with ordinary stores (any
 * other offset: rows of odd length, views). The row's first and last pieces, in the lines it
 * shares with its neighbours, are non-temporal stores of 32, 16, 8 and 4 bytes
 * (rr_stream_floats, through rr_carry_put). Two threads from DRAM, rows 16 bytes in
 * (bench/peers/onnx_cpu.py, two builds alternated over six rounds; session 35 CPU): layernorm f32
 * 0.86-0.96 of the time, rmsnorm 0.94-0.99, add_layernorm 0.96-1.00. Rows 4 bytes in
 * (bench/NOTES.md, session 36 CPU): layernorm f32 4096x2048 as fast as rows 16 bytes in, where
 * their ordinary stores took 1.5 times as long; rows of odd length (each at another offset, their
 * guarded chunk stored by store_tail) in 0.57-0.74 of the time with the arrays in L3 (layernorm,
 * softmax and add_layernorm 8191x1023, layernorm 2047x6143, rmsnorm 1000x50265). */
/* A streamed f32 row output's pieces in the lines it shares with its neighbours (and a bf16
 * row's of whole lines, rr_lines16, in 32-bit words: two values a lane), carried from one row
 * to the next: rr_cpu_kernel runs a thread's rows in order, and each row follows the
 * last in memory, so the end of one row and the start of the next fill such a line together,
 * which then leaves as one aligned 64-byte store past the caches (rr_carry_put) where each row
 * stored its piece as up to four smaller ones (rr_stream_floats). One per row output, held
 * across the rows of one rr_cpu_kernel call and streamed before it returns; AVX-512 only (the
 * AVX2 form streams its 32-byte spans, and its pieces as they come). Two threads, `rowreduce
 * bench`, two builds ABBA (bench/NOTES.md, session 37 CPU): rmsnorm, layernorm, softmax and
 * add_layernorm f32 on rows of 127-2049 elements in 0.60-0.98 of the time, 2047x6143 and
 * 16384x1024 0.98-1.00; a per-lane carry (no vector permute) had run 1.1-1.3 times as long. */
typedef struct rr_carry {
	float *line;   /* the 64-byte line held, NULL for none */
	unsigned have; /* which of its 16 elements vals holds */
	vf vals;       /* by their place in the line (AVX-512: L = 16) */
} rr_carry;

typedef struct rr_aligner {
	vf last, last_rotated; /* the last vector stored, and its lanes rotated up by shift */
	vi rotate, low;        /* lane l takes lane (l - shift) mod L; lanes under shift */
	int64_t shift;         /* elements the row's vectors start past a vector boundary */
	int64_t last_i;        /* the last vector's first element, -1 before the first */
	int halves;            /* streamed in aligned 32-byte spans across two vectors */
	int past_line;         /* streamed in aligned spans of a vector: the elements past one */
	vi span;               /* the spans' lanes: last vector's, then this one's (AVX-512) */
	vi take;               /* AVX2: span rotates both vectors, take marks this one's lanes */
	rr_carry *carry;       /* the pieces in lines shared with the neighbouring rows */
} rr_aligner;

#if (defined(__AVX512F__) && L == 16) || (defined(__AVX2__) && L == 8)
#define RR_STREAM_LANES 1
#else
#define RR_STREAM_LANES 0
#endif

#if RR_STREAM_LANES
/* Elements from .. to - 1 of vals stored past the caches at p + from ..: a row's piece in a
 * line it shares with its neighbour, as non-temporal stores of 8, 4, 2 and 1 elements, each
 * aligned to its size (p is aligned to an element). An ordinary store there waits for its line
 * from memory, and the streamed stores after it wait for that store (they leave the core in
 * order): with one masked store at each end of a row, layernorm f32 4096x2048 ran rows 4 bytes
 * into a line in 1.5 times the time of rows 16 bytes in (bench/NOTES.md, session 36 CPU). */
static inline void rr_stream_floats(float *p, const float *vals, int from, int to)
{
	for (int l = from; l < to;) {
		const uintptr_t at = (uintptr_t)(p + l);
		if (at % 32 == 0 && to - l >= 8) {
			_mm256_stream_ps(p + l, _mm256_loadu_ps(vals + l));
			l += 8;
		} else if (at % 16 == 0 && to - l >= 4) {
			_mm_stream_ps(p + l, _mm_loadu_ps(vals + l));
			l += 4;
		} else if (at % 8 == 0 && to - l >= 2) {
			long long two;
			memcpy(&two, vals + l, sizeof two);
			_mm_stream_si64((long long *)(void *)(p + l), two);
			l += 2;
		} else {
			int one;
			memcpy(&one, vals + l, sizeof one);
			_mm_stream_si32((int *)(void *)(p + l), one);
			l += 1;
		}
	}
}

#if L == 16
/* The carry's line streamed: one aligned 64-byte store when it is whole, else each run of the
 * elements it has as the pieces rr_stream_floats stores. */
__attribute__((noinline, unused)) static void rr_carry_flush(rr_carry *c)
{
	if (c->have == 0xffff) {
		_mm512_stream_ps(c->line, (__m512)c->vals);
	} else if (c->have) {
		float vals[16];
		memcpy(vals, &c->vals, sizeof vals);
		for (int k = 0; k < 16;) {
			if (!(c->have >> k & 1)) {
				k++;
				continue;
			}
			int end = k;
			while (end < 16 && (c->have >> end & 1))
				end++;
			rr_stream_floats(c->line, vals, k, end);
			k = end;
		}
	}
	c->line = NULL;
	c->have = 0;
}

/* Lanes from .. to - 1 of v into the line at `line`, at places mask (lane l of rotated is the
 * line's element l): merged where the carry holds that line, else that line streamed first;
 * a line made whole is streamed at once. */
static inline void rr_carry_merge(rr_carry *c, float *line, __mmask16 mask, __m512 rotated)
{
	if (!mask)
		return;
	if (line != c->line) {
		if (c->have)
			rr_carry_flush(c);
		c->line = line;
		c->have = 0;
	}
	c->vals = (vf)_mm512_mask_mov_ps((__m512)c->vals, mask, rotated);
	c->have |= mask;
	if (c->have == 0xffff) {
		_mm512_stream_ps(line, (__m512)c->vals);
		c->line = NULL;
		c->have = 0;
	}
}

/* Lanes from .. to - 1 of v, bound for p + from .., into the carry: one rotation of v puts
 * them at their places in the (at most two) lines they fall in. Out of line, as the pieces'
 * stores were: inlined at their calls they moved the output loop of softmax f32 4096x4096 and
 * 16384x1024 to where it ran 1.05-1.08 times as long (session 36 CPU). */
__attribute__((noinline, unused)) static void rr_carry_put(rr_carry *c, float *p, vf v, int from,
                                                           int to)
{
	float *const first = p + from;
	float *const line = (float *)(void *)((uintptr_t)first & ~(uintptr_t)63);
	const int k = (int)(first - line), end = k + to - from;
	const __m512i idx =
	    _mm512_and_si512(_mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	                                                        11, 12, 13, 14, 15),
	                                      _mm512_set1_epi32(from - k)),
	                     _mm512_set1_epi32(15));
	const __m512 rotated = _mm512_permutexvar_ps(idx, (__m512)v);
	const unsigned ones = 0xffffu;
	rr_carry_merge(c, line, (__mmask16)(ones << k & (end >= 16 ? ones : ~(ones << end))),
	               rotated);
	if (end > 16)
		rr_carry_merge(c, line + 16, (__mmask16) ~(ones << (end - 16)), rotated);
}
#else
/* AVX2: the pieces streamed as they come (rr_stream_floats); no carry. Out of line, as the
 * AVX-512 form. */
static inline void rr_carry_flush(rr_carry *c)
{
	(void)c;
}

__attribute__((noinline, cold, unused)) static void rr_carry_put(rr_carry *c, float *p, vf v,
                                                                  int from, int to)
{
	float lanes[L];
	(void)c;
	memcpy(lanes, &v, sizeof lanes);
	rr_stream_floats(p, lanes, from, to);
}
#endif
#else
static inline void rr_carry_flush(rr_carry *c)
{
	(void)c;
}
#endif

/* The guarded chunk's stores of a row output (store_lanes_guarded's lanes): past the caches
 * where the launch streams f32 rows with AVX-512 or AVX2 (rr_carry_put), for the reason
 * given there: rows of 1023 and 2047 elements (bench/NOTES.md, session 36 CPU). */
static inline void store_tail(io_t *p, int64_t i, int64_t N, int stream, rr_carry *carry, vf v)
{
#if RR_STREAM_LANES
	if (V == 1 && stream && sizeof(io_t) == sizeof(float) &&
	    (uintptr_t)(p + i) % sizeof(float) == 0) {
		rr_carry_put(carry, (float *)(void *)(p + i), v, 0, N - i < L ? (int)(N - i) : L);
		return;
	}
#endif
	(void)stream;
	(void)carry;
	store_lanes_guarded(p, i, N, v);
}

/* An aligner for row output p, in place (a pending row's too: c_emit.c's emit_piped). Its
 * lane vectors come from vector arithmetic on constant lane numbers: set lane by lane (and the
 * struct cleared byte by byte first), their first use as whole vectors waited on those narrow
 * stores, once a row: softmax f32 4096x4096 streamed, two threads, the piped rows in 0.91 of
 * the time without it. */
static inline void rr_aligner_init(rr_aligner *restrict a, const io_t *p, int stream,
                                   int rotate, rr_carry *carry)
{
	vi lane = {0}, none = {0};
	for (int l = 0; l < VL; l++)
		lane[l] = l;
	const vf zero = {0};
	a->last = zero;
	a->last_rotated = zero;
	a->rotate = none;
	a->low = none;
	a->span = none;
	a->take = none;
	a->shift = 0;
	a->last_i = -1;
	a->halves = 0;
	a->past_line = 0;
	a->carry = carry;
#if defined(__AVX__) && L == 8
	a->halves = V == 1 && stream && sizeof(io_t) == sizeof(float) && (uintptr_t)p % 32 == 16;
#endif
#if defined(__AVX2__) && L == 8 /* other offsets: both vectors rotated, then one blend */
	if (V == 1 && stream && sizeof(io_t) == sizeof(float) &&
	    (uintptr_t)p % sizeof(float) == 0 && !a->halves)
		a->past_line = (int)((uintptr_t)p % 32 / sizeof(float));
	a->span = (lane + (int32_t)(L - a->past_line)) & (int32_t)(L - 1);
	a->take = lane >= (int32_t)a->past_line;
#endif
#if defined(__AVX512F__) && L == 16
	if (V == 1 && stream && sizeof(io_t) == sizeof(float) && (uintptr_t)p % sizeof(float) == 0)
		a->past_line = (int)((uintptr_t)p % 64 / sizeof(float));
	a->span = lane + (int32_t)(L - a->past_line); /* past_line from the last vector, then this one's lanes */
#endif
#if defined(__GNUC__) && !defined(__clang__)
	const uintptr_t offset = (uintptr_t)p % (L * sizeof(io_t));
	if (V == 1 && L * sizeof(io_t) >= 64 && !stream && rotate && offset % sizeof(io_t) == 0)
		a->shift = (int64_t)(offset / sizeof(io_t));
	a->rotate = (lane - (int32_t)a->shift) & (int32_t)(L - 1);
	a->low = lane < (int32_t)a->shift;
#else
	(void)p;
	(void)stream;
	(void)rotate;
#endif
}

static inline rr_aligner rr_aligner_begin(const io_t *p, int stream, int rotate, rr_carry *carry)
{
	rr_aligner a;
	rr_aligner_init(&a, p, stream, rotate, carry);
	return a;
}

static inline void rr_store_aligned(rr_aligner *a, io_t *p, int64_t i, int stream, vf v)
{
#if defined(__AVX__) && L == 8
	if (a->halves) {
		float *const q = (float *)(void *)p + i;
		if (a->last_i >= 0)
			_mm256_stream_ps(q - L / 2,
			                 _mm256_permute2f128_ps((__m256)a->last, (__m256)v, 0x21));
		else
			_mm_stream_ps(q, _mm256_castps256_ps128((__m256)v));
		a->last = v;
		a->last_i = i;
		return;
	}
#endif
#if RR_STREAM_LANES
	if (a->past_line) {
		float *const q = (float *)(void *)p + i;
#if L == 16
		if (a->last_i >= 0)
			_mm512_stream_ps(q - a->past_line,
			                 _mm512_permutex2var_ps((__m512)a->last, (__m512i)a->span,
			                                        (__m512)v));
#else
		if (a->last_i >= 0)
			_mm256_stream_ps(
			    q - a->past_line,
			    _mm256_blendv_ps(
			        _mm256_permutevar8x32_ps((__m256)a->last, (__m256i)a->span),
			        _mm256_permutevar8x32_ps((__m256)v, (__m256i)a->span),
			        (__m256)a->take));
#endif
		else /* the row's first L - past_line elements, up to the end of their span */
			rr_carry_put(a->carry, q, v, 0, L - a->past_line);
		a->last = v;
		a->last_i = i;
		return;
	}
#endif
#if defined(__GNUC__) && !defined(__clang__)
	if (a->shift != 0) {
		const vf rotated = __builtin_shuffle(v, a->rotate);
		if (a->last_i >= 0)
			store_packed(p + i - a->shift,
			             rr_vselect(a->low, a->last_rotated, rotated));
		else
			store_packed(p + i, v);
		a->last = v;
		a->last_rotated = rotated;
		a->last_i = i;
		return;
	}
#endif
	store_lanes(p, i, stream, v);
}

static inline void rr_aligner_end(const rr_aligner *a, io_t *p)
{
#if defined(__AVX__) && L == 8
	if (a->halves && a->last_i >= 0)
		_mm_stream_ps((float *)(void *)p + a->last_i + L / 2,
		              _mm256_extractf128_ps((__m256)a->last, 1));
#endif
#if RR_STREAM_LANES
	if (a->past_line && a->last_i >= 0) /* the last vector's top past_line elements */
		rr_carry_put(a->carry, (float *)(void *)p + a->last_i, a->last, L - a->past_line,
		             L);
#endif
	if (a->shift != 0 && a->last_i >= 0)
		store_packed(p + a->last_i, a->last);
}
//@ lines_bf16
/* A streamed bf16 row output's complete chunks as whole 64-byte lines past the caches
 * (AVX-512 BF16): each run's vectors converted two at a time into one vector of 32 values
 * (vcvtne2ps2bf16), and where the row starts `past` 4-byte words into a line each line one
 * non-temporal store of the last pair's top words and this pair's first (one two-source
 * permute), the row's first and last pieces into the row output's carry (rr_carry), where
 * the next row's first piece completes the line the two rows share and it leaves as one
 * store (rows on a line boundary keep the 32-byte stores of rr_store_bf16_run: as whole lines
 * they ran 1.07 times as long). Against each piece streamed apart (rr_stream_floats, as
 * before), two threads from DRAM, rows 16 bytes in, the lab's paired calls (bench/NOTES.md,
 * session 44 CPU): the carry took layernorm bf16 16384x1024 0.91 of the time, 4096x4096 0.95,
 * add_layernorm 65536x256 0.89, rmsnorm 4096x4096 0.92, softmax 65536x256 0.95; rows of 8 KiB
 * and more 0.98-1.00 (softmax 4096x4096 level). Where
 * the row was stored as 32-byte spans across two vectors (16 bytes into a line, NumPy's
 * arrays), every line took three stores, one of them from the run before: softmax bf16
 * 4096x4096 streamed, two threads, outputs 16 bytes in, 0.90 of the time (bench/NOTES.md,
 * session 39 CPU). Only rows of a multiple of 32 values, all at one offset, whose first and
 * last pieces meet in one line: rows of odd length, each at another offset, stored their
 * pieces as up to four smaller stores at each end (add_layernorm bf16 65535x127 ran 1.98 times
 * as long). Subnormal runs (the conversion reads them as zero), rows at an odd 2-byte offset
 * and runs of an odd number of vectors keep rr_store_bf16_run. */
typedef struct rr_lines16 {
	uint16_t *next; /* where a run that continues the held pair starts; NULL: none held */
	int past;       /* 4-byte words (1-15) the row starts past a line boundary, -1: unused */
	rr_carry *carry; /* the row's first and last pieces, shared with the neighbouring rows */
#if defined(__AVX512BF16__) && defined(__AVX512DQ__) && L == 16
	__m512i last; /* the held pair's 32 values */
	__m512i span; /* its top past words, then this pair's first (two-source permute) */
#endif
} rr_lines16;

static inline void rr_lines16_begin(rr_lines16 *a, const uint16_t *p, int64_t N, int stream,
                                    rr_carry *carry)
{
	a->next = NULL;
	a->past = -1;
	a->carry = carry;
#if defined(__AVX512BF16__) && defined(__AVX512DQ__) && L == 16
	vi lane = {0};
	for (int l = 0; l < VL; l++)
		lane[l] = l;
	if (V == 1 && stream && (uintptr_t)p % 4 == 0 && (uintptr_t)p % 64 != 0 && N % 32 == 0)
		a->past = (int)((uintptr_t)p % 64 / 4);
	a->last = _mm512_setzero_si512();
	a->span = (__m512i)(lane + (int32_t)(16 - (a->past > 0 ? a->past : 0)));
#else
	(void)p;
	(void)N;
	(void)stream;
#endif
}

#if defined(__AVX512BF16__) && defined(__AVX512DQ__) && L == 16
/* The words of pair z for the places `mask` of the line at `line` (word l of the line takes
 * z's word l - past, mod 16) into the carry. */
static inline void rr_lines16_carry(rr_lines16 *a, float *line, __mmask16 mask, __m512i z)
{
	rr_carry_merge(a->carry, line, mask,
	               _mm512_castsi512_ps(_mm512_permutexvar_epi32(a->span, z)));
}
#endif

/* The held pair's top words, the first past words of the next line, into the carry: the
 * next row's first piece fills that line (rr_carry_merge), which then leaves as one store. */
static inline void rr_lines16_end(rr_lines16 *a)
{
#if defined(__AVX512BF16__) && defined(__AVX512DQ__) && L == 16
	if (a->next && a->past > 0)
		rr_lines16_carry(a, (float *)(void *)a->next - a->past,
		                 (__mmask16)((1u << a->past) - 1), a->last);
#endif
	a->next = NULL;
}

/* Stores a run of `count` vectors as whole lines where it can (returns 1), else returns 0 and
 * the caller stores it (rr_store_bf16_run or its pair-order form). `paired`: the vectors are in
 * pair order (paired_bf16), each pair's 32 values put back in order by one permute of their
 * 8-byte pieces. */
__attribute__((always_inline, unused)) static inline int
rr_lines16_try(rr_lines16 *a, uint16_t *p, const vf *v, int count, int paired)
{
#if defined(__AVX512BF16__) && defined(__AVX512DQ__) && L == 16
	if (a->past >= 0 && count % 2 == 0) {
		__mmask16 subnormal = 0;
		for (int k = 0; k < count; k++)
			subnormal |= _mm512_fpclass_ps_mask((__m512)v[k], 0x20);
		if (__builtin_expect(subnormal == 0, 1)) {
			for (int k = 0; k < count; k += 2) {
				uint16_t *const q = p + k * L;
				const __m512i z = rr_bf16_pair_bits(v[k], v[k + 1], paired);
				if (q == a->next) {
					_mm512_stream_si512((void *)(q - 2 * a->past),
					                    _mm512_permutex2var_epi32(a->last, a->span, z));
				} else { /* the row's first piece, up to its line's end, into the carry */
					rr_lines16_end(a);
					rr_lines16_carry(a, (float *)(void *)q - a->past,
					                 (__mmask16)(0xffffu << a->past), z);
				}
				a->last = z;
				a->next = q + 32;
			}
			return 1;
		}
		rr_lines16_end(a);
	}
#else
	(void)a;
	(void)p;
	(void)v;
	(void)count;
	(void)paired;
#endif
	return 0;
}

__attribute__((always_inline, unused)) static inline void
rr_store_bf16_lines(rr_lines16 *a, uint16_t *p, const vf *v, int count, int stream)
{
	if (!rr_lines16_try(a, p, v, count, 0))
		rr_store_bf16_run(p, v, count, stream);
}
//@ paired_bf16
/* bf16 rows of an elementwise output phase in pair order (c_emit.c `paired_order`): the phase's
 * run loops take their vectors two at a time over 2L consecutive elements, one load of the pair
 * widened by vpunpcklwd and vpunpckhwd (one shuffle a vector): with AVX2 (L = 8) the first
 * vector of a pair holds elements 0-3 and 8-11 as f32, the second 4-7 and 12-15; with
 * AVX-512BW (L = 16) the first 0-3, 8-11, 16-19 and 24-27 of 32, the second 4-7, 12-15, 20-23
 * and 28-31. The store puts each pair's results back in order: vpackusdw of the two rounded
 * vectors (AVX2, no vpermq), or one vcvtne2ps2bf16 of the pair and one permute of its 8-byte
 * pieces (AVX-512 BF16, where the natural order converts each vector apart). Each element gets
 * the same operations on the same values in some lane, so every output has the bits of the
 * natural order; only the lane that holds an element changes. The widened cols are written in
 * the same order. Kept rows (S=regs) and values held from round 1 are kept in that order, and
 * the accumulators of the rounds go back to worker order once a row (rr_unpair_lo/hi).
 * Layernorm bf16 from DRAM, two threads (bench/NOTES.md, session 33 CPU, AVX2; session 41 CPU,
 * AVX-512: the natural order's widening, a word permute a vector, ran a load and add at 1.6
 * cycles a vector where the pair's unpacks ran 1.1). RR_BF16_PAIRED: V = 1 and W a multiple of
 * 2L (a pair never spans two chunks), on AVX2 with 8 lanes, or AVX-512BW with 16 for kernels
 * of two row inputs or more (ROW_INPUTS): add_layernorm bf16 4096x4096 from NumPy's arrays
 * (16 bytes into a line) ran at W = 32 in pair order in 0.88 of the natural order's best plan,
 * where layernorm of one row input lost 1.03-1.04 at 256x65536 and 16384x1024 (gaining
 * 0.94-0.95 on rows on a line boundary). Elsewhere, or compiled with RR_BF16_NATURAL defined
 * (the tests compare the two), these are the natural order under the same names. */
#if defined(__AVX2__) && L == 8 && V == 1 && W % 16 == 0 && !defined(RR_BF16_NATURAL)
#define RR_BF16_PAIRED 1
#elif defined(__AVX512BW__) && L == 16 && V == 1 && W % 32 == 0 && ROW_INPUTS >= 2 &&         \
    !defined(RR_BF16_NATURAL)
#define RR_BF16_PAIRED 1
#else
#define RR_BF16_PAIRED 0
#endif

/* The vector whose first element in natural order is i: `odd` 0 for the first of its pair
 * (whose elements start at i), 1 for the second (starting at i - L). */
static inline vf rr_load_bf16_paired(const uint16_t *p, int64_t i, int odd)
{
#if RR_BF16_PAIRED && L == 16
	const __m512i pair = _mm512_loadu_si512((const void *)(p + i - (odd ? L : 0)));
	const __m512i zero = _mm512_setzero_si512();
	return (vf)(odd ? _mm512_unpackhi_epi16(zero, pair) : _mm512_unpacklo_epi16(zero, pair));
#elif RR_BF16_PAIRED
	const __m256i pair =
	    _mm256_loadu_si256((const __m256i *)(const void *)(p + i - (odd ? L : 0)));
	const __m256i zero = _mm256_setzero_si256();
	return (vf)(odd ? _mm256_unpackhi_epi16(zero, pair) : _mm256_unpacklo_epi16(zero, pair));
#else
	(void)odd;
	return rr_load_bf16(p + i);
#endif
}

/* A bf16 col as f32 in the order rr_load_bf16_paired reads a row: complete groups of 2L in
 * pair order, the rest in order (the run loops never read it: the other loads take the col). */
static inline void rr_widen_col_paired(float *to, const uint16_t *from, int64_t N)
{
	int64_t i = 0;
#if RR_BF16_PAIRED
	for (; i + 2 * L <= N; i += 2 * L) {
		const vf first = rr_load_bf16_paired(from, i, 0);
		const vf second = rr_load_bf16_paired(from, i + L, 1);
		memcpy(to + i, &first, sizeof first);
		memcpy(to + i + L, &second, sizeof second);
	}
#else
	for (; i + L <= N; i += L) {
		const vf v = rr_load_bf16(from + i);
		memcpy(to + i, &v, L * sizeof(float));
	}
#endif
	for (; i < N; i++)
		to[i] = rr__bf16_to_float(from[i]);
}

#if RR_BF16_PAIRED && L == 8
/* 16 bf16 values at q, stored as rr_store_bf16_run stores a packed pair. */
static inline void rr_store_bf16_16(uint16_t *q, __m256i packed, int aligned)
{
	if (aligned == 2)
		_mm256_stream_si256((__m256i *)(void *)q, packed);
	else if (aligned == 1) {
		_mm_stream_si128((__m128i *)(void *)q, _mm256_castsi256_si128(packed));
		_mm_stream_si128((__m128i *)(void *)(q + 8), _mm256_extracti128_si256(packed, 1));
	} else
		_mm256_storeu_si256((__m256i *)(void *)q, packed);
}

/* rr_bf16_bits of a vector before its narrowing: the rounded value, or the quiet NaN. */
static inline __m256i rr_bf16_halves8(vf v)
{
	const __m256i bits = (__m256i)v;
	const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
	const __m256i nan = (__m256i)_mm256_cmp_ps((__m256)v, (__m256)v, _CMP_UNORD_Q);
	return _mm256_blendv_epi8(rr_bf16_rounded8(bits), quiet, nan);
}
#endif

/* A pair of accumulator blocks filled in pair order (p: the first vector of each pair, q: the
 * second) as the blocks of worker order: workers 0 to L - 1, then L to 2L - 1. */
static inline vf rr_unpair_lo(vf p, vf q)
{
#if RR_BF16_PAIRED && L == 16
	return (vf)_mm512_permutex2var_ps(
	    (__m512)p, _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23),
	    (__m512)q);
#elif RR_BF16_PAIRED
	return (vf)_mm256_permute2f128_ps((__m256)p, (__m256)q, 0x20);
#else
	(void)q;
	return p;
#endif
}

static inline vf rr_unpair_hi(vf p, vf q)
{
#if RR_BF16_PAIRED && L == 16
	return (vf)_mm512_permutex2var_ps(
	    (__m512)p,
	    _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31),
	    (__m512)q);
#elif RR_BF16_PAIRED
	return (vf)_mm256_permute2f128_ps((__m256)p, (__m256)q, 0x31);
#else
	(void)p;
	return q;
#endif
}

#if RR_BF16_PAIRED && L == 16
/* A run in pair order stored a pair at a time as the natural order stores it: the runs with a
 * subnormal lane, and targets without the bfloat16 conversions. */
__attribute__((noinline, cold, unused)) static void rr_store_bf16_run_unpaired(uint16_t *p,
                                                                              const vf *v,
                                                                              int count,
                                                                              int stream)
{
	for (int k = 0; k + 1 < count; k += 2) {
		const vf natural[2] = {rr_unpair_lo(v[k], v[k + 1]), rr_unpair_hi(v[k], v[k + 1])};
		rr_store_bf16_run(p + k * L, natural, 2, stream);
	}
}
#endif

/* rr_store_bf16_run of `count` vectors (an even number) in pair order: the same bits at the
 * same addresses, NaN runs included. Always inlined: called once a run, a call costs the run
 * loop its vectors in registers (layernorm bf16 16384x1024 streamed, two threads: 1.05 of the
 * natural order's time as a call). */
__attribute__((always_inline, unused)) static inline void
rr_store_bf16_run_paired(uint16_t *p, const vf *v, int count, int stream)
{
#if RR_BF16_PAIRED && L == 16
#if defined(__AVX512BF16__) && defined(__AVX512DQ__)
	/* rr_store_bf16_run's conversion (one test of the run for a subnormal lane), a pair at a
	 * time: 32 values in order, stored as that run stores two vectors' halves */
	__mmask16 subnormal = 0;
	for (int k = 0; k < count; k++)
		subnormal |= _mm512_fpclass_ps_mask((__m512)v[k], 0x20);
	const int ahead = stream && (uintptr_t)p % 32 == 16;
	if (__builtin_expect(subnormal == 0, 1)) {
		__m256i last = _mm256_setzero_si256();
		for (int k = 0; k + 1 < count; k += 2) {
			uint16_t *const q = p + k * L;
			const __m512i z = rr_bf16_pair_bits(v[k], v[k + 1], 1);
			const __m256i h0 = _mm512_castsi512_si256(z);
			const __m256i h1 = _mm512_extracti64x4_epi64(z, 1);
			if (ahead) { /* 32-byte stores across the two halves, as rr_store_bf16_run */
				if (k == 0)
					_mm_stream_si128((__m128i *)(void *)q, _mm256_castsi256_si128(h0));
				else
					_mm256_stream_si256((__m256i *)(void *)(q - L / 2),
					                    _mm256_permute2x128_si256(last, h0, 0x21));
				_mm256_stream_si256((__m256i *)(void *)(q + L / 2),
				                    _mm256_permute2x128_si256(h0, h1, 0x21));
				last = h1;
			} else if (stream && (uintptr_t)q % 64 == 0) {
				_mm512_stream_si512((void *)q, z); /* the pair's whole line */
			} else if (stream) {
				rr_stream_halves(q, (vh)h0);
				rr_stream_halves(q + L, (vh)h1);
			} else
				_mm512_storeu_si512((void *)q, z);
		}
		if (ahead)
			_mm_stream_si128((__m128i *)(void *)(p + count * L - L / 2),
			                 _mm256_extracti128_si256(last, 1));
		return;
	}
#endif
	rr_store_bf16_run_unpaired(p, v, count, stream);
#elif RR_BF16_PAIRED
	__m256 nan = _mm256_setzero_ps();
	for (int k = 0; k + 1 < count; k += 2)
		nan =
		    _mm256_or_ps(nan, _mm256_cmp_ps((__m256)v[k], (__m256)v[k + 1], _CMP_UNORD_Q));
	const int aligned =
	    stream ? (int)((uintptr_t)p % 32 == 0) + (int)((uintptr_t)p % 16 == 0) : 0;
	if (__builtin_expect(_mm256_movemask_ps(nan) == 0, 1)) {
		for (int k = 0; k + 1 < count; k += 2)
			rr_store_bf16_16(p + k * L,
			                 _mm256_packus_epi32(rr_bf16_rounded8((__m256i)v[k]),
			                                     rr_bf16_rounded8((__m256i)v[k + 1])),
			                 aligned);
		return;
	}
	for (int k = 0; k + 1 < count; k += 2)
		rr_store_bf16_16(
		    p + k * L,
		    _mm256_packus_epi32(rr_bf16_halves8(v[k]), rr_bf16_halves8(v[k + 1])), aligned);
#else
	rr_store_bf16_run(p, v, count, stream);
#endif
}

/* rr_store_bf16_lines of a run in pair order: on AVX2 the pairs' own stores, on AVX-512 the
 * lines of the natural order from each pair put back in order, else the natural order's. */
__attribute__((always_inline, unused)) static inline void
rr_store_bf16_lines_paired(rr_lines16 *a, uint16_t *p, const vf *v, int count, int stream)
{
#if RR_BF16_PAIRED && L == 16
	if (!rr_lines16_try(a, p, v, count, 1))
		rr_store_bf16_run_paired(p, v, count, stream);
#elif RR_BF16_PAIRED
	(void)a;
	rr_store_bf16_run_paired(p, v, count, stream);
#else
	rr_store_bf16_lines(a, p, v, count, stream);
#endif
}
//@ parts
/* A row split over threads (rr_cpu_row_part, c_emit.h): every part runs the row's rounds on
 * the workers of its blocks [b_lo, b_hi), then, before each tree, puts its blocks' partials in
 * the shared set and waits until every part has (a count of arrivals all parts add to); all
 * parts then run the same tree on the same vectors, the plan's, so the scalars are the whole
 * row's bit for bit. Two sets used in turn: a part writes a set again only after every part
 * has arrived at the exchange between, so has read it. */
typedef struct rr_row_share {
	unsigned long long *arrived; /* the parts' arrivals at exchanges so far, shared */
	vf *sets;                    /* 2 x BLOCKS vectors, shared */
	int parts;
	unsigned long long exchanges; /* this part's so far */
} rr_row_share;

static inline rr_row_share rr_row_share_of(unsigned long long *arrived, float *shared, int parts)
{
	rr_row_share s = {arrived, (vf *)(void *)shared, parts, 0};
	return s;
}

static inline void rr_spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static inline void rr_row_exchange(rr_row_share *s, vf *part, int b_lo, int b_hi)
{
	vf *const set = s->sets + (s->exchanges & 1) * BLOCKS;
	for (int b = b_lo; b < b_hi; b++)
		set[b] = part[b];
	s->exchanges++;
	__atomic_add_fetch(s->arrived, 1, __ATOMIC_ACQ_REL);
	const unsigned long long all = s->exchanges * (unsigned long long)s->parts;
	while (__atomic_load_n(s->arrived, __ATOMIC_ACQUIRE) < all)
		rr_spin_pause();
	for (int b = 0; b < BLOCKS; b++)
		part[b] = set[b];
}
//@ end
#endif
