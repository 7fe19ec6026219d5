/* Session 45 CPU lab: rowreduce emit --kernel rmsnorm --dtype f32 --shape 2048x1024 (the
 * planner's W=16,V=1,U=1,R=4,S=reread) with the output phase's cached branch loading x PIPE
 * vectors ahead of its stores in program order (-DPIPE=4 or 8). Put in place of the library's
 * build in a private RR_CACHE_DIR (the .so and its .so.sha256) to time it through the binding. */
/* rowreduce: generated C for the cpu backend. Regenerate rather than edit.
 *
 * kernel   rmsnorm
 * dtype    f32 in memory, f32 arithmetic and accumulation
 * plan     W=16,V=1,U=1,R=4,C=1,S=reread,G=rows
 * map      element i = (chunk * W + worker) * V + e, private slot = chunk * V + e,
 *          valid iff i < N; complete packs unguarded, one guarded partial pack
 * lanes    worker = b * L + lane: L workers are the lanes of one vector (L = W up to
 *          the target's f32 lanes), so each keeps its own order, bit for bit
 * tree     xor offsets 8, 4, 2, 1 (warp size 32)
 * rounds   1
 *   round 1: s4 = sum((x * x))
 *
 * kernel text:
 *   # RMSNorm: y = x / sqrt(mean(x^2) + eps) * w
 *   kernel rmsnorm
 *     in    x : row
 *     in    w : col
 *     param eps = 1e-6
 *     out   y : row
 *     ss  = sum(x * x)
 *     inv = rsqrt(ss / N + eps)
 *     y   = x * inv * w
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#define W 16 /* workers per row */
#define V 1 /* consecutive elements per worker access (a pack) */
#define U 1 /* chunks per loop iteration */
#define R 4 /* rows per group */
#define HEAD_BYTES 4 /* a row's head runs up to its first boundary of this */
#define HS 0 /* head elements per worker at most */
#define KEPT_INPUTS 0 /* row inputs and values kept in private slots between rounds */
#define SPLIT_MAX_N 0 /* rows up to this run an online pair in two passes */
#define CACHED_VALUES 0 /* values the split keeps for the output phase (two rows' where piped) */
#define PIPED 0 /* no output phase to pipe (rr__c_piped) */
#define ROW_INPUTS 1 /* row inputs (prefetch_ahead) */
#define OUTPUTS 1 /* outputs (a carry each: device/cpu_vec.h) */
#define WIDE_COLS 0 /* 16-bit cols read as f32 from scratch */
#define EARLY_ROWS 0 /* row outputs written in round 1 (in scratch where the launch streams) */
#define CHAINS 4 /* accumulators per block of the split's max pass */

#define TREE_STEPS 4
static const int tree_offsets[TREE_STEPS] = {8, 4, 2, 1};

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
#if defined(__AVX__) || defined(__FMA__) || defined(__AVX512F__)
#include <immintrin.h>
#elif defined(__SSE__)
#include <xmmintrin.h>
#endif
/* At least two lanes in the type: compilers keep one-lane vectors in memory; with W = 1 lane 1
 * computes on zeros and is never loaded from or stored to memory. */
#define VL (L < 2 ? 2 : L)
typedef float vf __attribute__((vector_size(VL * 4)));
typedef int32_t vi __attribute__((vector_size(VL * 4)));
typedef uint32_t vu __attribute__((vector_size(VL * 4)));
typedef uint16_t vh __attribute__((vector_size(VL * 2)));

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
#if defined(__AVX512F__) && L == 16
	return (vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__FMA__) && L == 8
	return (vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#elif defined(__FMA__) && L == 4
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

#if defined(__AVX512F__) && L == 16
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
#if defined(__AVX512F__) && L == 16
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
#if defined(__AVX512F__) && L == 16
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
#if defined(__AVX512F__) && L == 16
	/* No clamp: on -86.5 <= x <= 0 and NaN, rr_vexp_nonpos_bf16's max(-110, x) is x */
	const __m512 xc = (__m512)x;
	const vf k = rr_vexp_k(xc);
	const vf r = rr_vfma(k, rr_vsplat(-6.931471825e-01f), (vf)xc);
#else
	const vf t = rr_vfma(x, rr_vsplat(1.442695041f), rr_vsplat(12582912.0f));
	const vf k = t - 12582912.0f;
#if defined(__FMA__) && (L == 8 || L == 4) /* where rr_vfma rounds once */
	const vf r = rr_vfma(k, rr_vsplat(-6.931471825e-01f), x);
#else /* k ln 2 rounded apart would be off by up to 4e-6: ln 2 in two parts, as rr_vexp */
	const vf r =
	    rr_vfma(k, rr_vsplat(-3.194618330e-05f), rr_vfma(k, rr_vsplat(-6.931152344e-01f), x));
#endif
#endif
	vf p = rr_vfma(rr_vsplat(1.651781946e-01f), r, rr_vsplat(5.041344762e-01f));
	p = rr_vfma(p, r, rr_vsplat(1.000196218e+00f));
	p = rr_vfma(p, r, rr_vsplat(1.0f));
#if defined(__AVX512F__) && L == 16
	return (vf)_mm512_scalef_ps((__m512)p, (__m512)k);
#else
	return (vf)((vu)p + ((vu)t << 23));
#endif
}

static inline vf rr_vexp_nonpos_bf16(vf x)
{
#if defined(__AVX512F__) && L == 16 /* clamped to -110 (NaN stays), vscalefps needs no fix-up */
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
 * more (the split's max pass found its least value: c_emit.c, summed_ranged): bit for bit
 * rr_vexp_nonpos_summed on [-87, -0] and on NaN (the clamp passes a NaN through unchanged). */
static inline vf rr_vexp_nonpos_summed_ranged(vf xc)
{
	/* t = x log2(e) + 1.5 * 2^23 + 127: 127 + k in its low bits */
	const vf t = rr_vfma(xc, rr_vsplat(1.442695041f), rr_vsplat(12583039.0f));
	const vf k = t - 12583039.0f;
#if (defined(__AVX512F__) && L == 16) || (defined(__FMA__) && (L == 8 || L == 4))
	const vf r = rr_vfma(k, rr_vsplat(-6.931471825e-01f), xc);
#else /* k ln 2 rounded apart would be off by up to 4e-6: ln 2 in two parts, as rr_vexp */
	const vf r =
	    rr_vfma(k, rr_vsplat(-3.194618330e-05f), rr_vfma(k, rr_vsplat(-6.931152344e-01f), xc));
#endif
	vf p = rr_vfma(rr_vsplat(4.238152876e-02f), r, rr_vsplat(1.680882871e-01f));
	p = rr_vfma(p, r, rr_vsplat(4.999595284e-01f));
	p = rr_vfma(p, r, rr_vsplat(9.999514222e-01f));
	p = rr_vfma(p, r, rr_vsplat(1.0f));
#if defined(__AVX512F__) && L == 16
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
typedef float io_t;
static inline float load_io(const io_t *p, int64_t i)
{
	return p[i];
}
static inline io_t store_io(float v)
{
	return v;
}

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
#define load_packed rr_load_f32
#define store_packed rr_store_f32
#define stream_packed rr_stream_f32
/* The L workers' element e of one chunk: lane l holds element i + l * V of p. V == 1 is one
 * contiguous access; larger V gathers lane by lane. The guarded forms touch only elements
 * before N (absent lanes read 0 and are never written). */
static inline vf load_lanes(const io_t *p, int64_t i)
{
	if (V == 1)
		return load_packed(p + i);
	vf v = {0};
	for (int l = 0; l < L; l++)
		v[l] = load_io(p, i + (int64_t)l * V);
	return v;
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

static inline vf load_widened(const float *wide, int64_t i)
{
	vf v = {0};
	if (V == 1) {
		memcpy(&v, wide + i, L * sizeof(float));
		return v;
	}
	for (int l = 0; l < L; l++)
		v[l] = wide[i + (int64_t)l * V];
	return v;
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
/* Private slots per worker: floor(N / (W * V)) * V + min(N % (W * V), V) (the body of N - h
 * elements needs no more than a row of N; the head takes none). */
static inline int64_t slot_bound(int64_t N)
{
	const int64_t rest = N % ((int64_t)W * V);
	return N / ((int64_t)W * V) * V + (rest < V ? rest : V);
}

/* The head: elements from p up to the first HEAD_BYTES boundary, at most len (layout.h). */
static inline int64_t head_length(const io_t *p, int64_t len)
{
	const uintptr_t misaligned = (uintptr_t)p % HEAD_BYTES;
	const int64_t h = (int64_t)((HEAD_BYTES - misaligned) % HEAD_BYTES / sizeof(io_t));
	return h < len ? h : len;
}

/* Packs p = chunk * W + worker with all V elements valid: those with p < N / V. */
static inline int64_t complete_packs(int64_t N, int worker)
{
	const int64_t packs = N / V;
	return packs > worker ? (packs - worker + W - 1) / W : 0;
}

/* The one partial pack, p = N / V, belongs to worker p % W. */
static inline int has_partial_pack(int64_t N, int worker)
{
	return N % V != 0 && (N / V) % W == worker;
}

/* Elements from a row's element to the element a pass prefetches (c_emit.c): the next row's,
 * but two rows on in launches past the caches (`stream`) whose row inputs take less than 8 KiB
 * a row, so that a prefetch is issued about as long before its line is read as for longer
 * rows. Two threads, rows from DRAM (bench/NOTES.md, session 21), two rows on against one:
 * rows of 4 KiB f32 (16384x1024) 0.80-0.96 of the time (cross_entropy, softmax, rmsnorm,
 * layernorm; add_layernorm's two inputs make 8 KiB and it ran 1.03-1.06 two rows on), 2 KiB
 * bf16 rows 0.82-1.00 (four rows on level with two); rows of 8 KiB and more 1.00-1.06. In
 * cache the next row: two or more rows on cost 1.02-1.05 there (sum, softmax, cross_entropy
 * at 1024x1024 and 17x257). No division: one a row cost short rows 7-8 %. */
static inline int64_t prefetch_ahead(int64_t N, int stream)
{
	const int64_t row_bytes = (int64_t)ROW_INPUTS * N * (int64_t)sizeof(io_t);
	return stream && row_bytes < 8192 ? 2 * N : N;
}

/* Elements from a row's element to the element a single pass (sum: c_emit.c's
 * prefetch_in_single_pass) prefetches: prefetch_ahead's, but 8 KiB on in rows of more than
 * 16 KiB of row inputs, where a row on is too far. On the AVX-512 Xeon (bench/NOTES.md,
 * session 45 CPU; two threads, rows 16 bytes in, paired) 8 KiB on against a row on: sum bf16
 * 256x65536 0.87, 64x262144 0.81, 1024x16384 0.89-0.95, 128x65536 in L3 0.89; f32 2048x8192
 * 0.87; against no prefetch (f32 from 16384 elements) 256x65536 0.97-0.98, 64x262144 and
 * 512x32768 0.97-0.98; rows of 16 KiB (f32 4096x4096, bf16 2048x8192) level. */
static inline int64_t prefetch_single(int64_t N, int stream)
{
	const int64_t row_bytes = (int64_t)ROW_INPUTS * N * (int64_t)sizeof(io_t);
	return row_bytes > 16384 ? 8192 / (int64_t)sizeof(io_t) : prefetch_ahead(N, stream);
}

/* Round 1 of a kernel whose output phase prefetches the next row (c_emit.c's
 * prefetch_lead_in_round) reads its row from cache while the memory would idle: in launches
 * past the caches (its copy of the pass for them) it fetches the first eighth of the row the
 * output phase fetches, a line every eight lines of its own row (i - h steps by whole
 * vectors), the rest left to the output phase. */
#define LEAD_SHIFT 3
#define LEAD_MASK ((((int64_t)64 / (int64_t)sizeof(io_t)) << LEAD_SHIFT) - 1)
static inline void prefetch_lead(const io_t *p, int64_t N, int64_t h, int64_t i)
{
	if (((i - h) & LEAD_MASK) == 0)
		__builtin_prefetch(p + prefetch_ahead(N, 1) + h + ((i - h) >> LEAD_SHIFT));
}

/* Floats of scratch before the widened cols: the kept slots and the split's cache, up to a
 * line; and from one widened col to the next (N up to a line). */
static inline int64_t wide_cols_at(int64_t N)
{
	const int64_t cached = N <= SPLIT_MAX_N ? CACHED_VALUES : 0;
	return (((int64_t)KEPT_INPUTS + cached) * W * slot_bound(N) + 15) / 16 * 16;
}

static inline int64_t wide_col_stride(int64_t N)
{
	return (N + 15) / 16 * 16;
}

/* Floats of scratch before the rows written early: the kept inputs' slots, the split's cache
 * where it runs, and the 16-bit cols as f32. */
static inline int64_t scratch_before_early(int64_t N)
{
	const int64_t cached = N <= SPLIT_MAX_N ? CACHED_VALUES : 0;
	const int64_t kept = ((int64_t)KEPT_INPUTS + cached) * W * slot_bound(N);
	return WIDE_COLS > 0 ? wide_cols_at(N) + (int64_t)WIDE_COLS * wide_col_stride(N) : kept;
}

/* Where the rows written early start in scratch (EARLY_ROWS of them, wide_col_stride(N)
 * floats apart; used where the launch streams): from the next line. */
static inline int64_t early_rows_at(int64_t N)
{
	return (scratch_before_early(N) + 15) / 16 * 16;
}

/* All of the above (rr__c_scratch_floats). */
int64_t rr_cpu_scratch_floats(int64_t N)
{
	return EARLY_ROWS > 0 ? early_rows_at(N) + (int64_t)EARLY_ROWS * wide_col_stride(N)
	                      : scratch_before_early(N);
}

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
static void one_row(int64_t row, int64_t N, const void *const *inputs, const double *params,
		    void *const *outputs, float *scratch, int stream, rr_carry *carry)
{
	const int b_lo = 0, b_hi = BLOCKS; /* the whole row */
	rr_row_share *const share = NULL;
	(void)params;
	(void)carry;
	(void)scratch;
	(void)stream;
	(void)b_lo;
	(void)b_hi;
	(void)share;
	const io_t *in0 = (const io_t *)inputs[0] + row * N; /* x: row */
	const io_t *in1 = (const io_t *)inputs[1]; /* w: col */
	const float s2 = (float)params[2]; /* eps */
	io_t *out0 = (io_t *)outputs[0] + row * N; /* y: row */
	const int64_t h = 0; /* no head */
	(void)h;
	const float s5 = (float)N;
	/* round 1: each worker's partials in slot order, then the tree */
	vf part4[BLOCKS];
	if (stream) { /* past the caches: the next row's first eighth too */
		{
			vf acc4[BLOCKS]; /* sum */
			for (int b = 0; b < BLOCKS; b++)
				acc4[b] = rr_vsplat(0.0f);
			const int64_t chunks = (N - h) / ((int64_t)W * V); /* chunks of complete packs */
			int64_t chunk = 0;
			for (; chunk + U <= chunks; chunk += U) {
				for (int u = 0; u < U; u++) {
					const int64_t c = chunk + u;
					for (int b = b_lo; b < b_hi; b++) {
						for (int e = 0; e < V; e++) {
							const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
							prefetch_lead(in0, N, h, i); /* the next row's first eighth */
							const vf e0 = load_lanes(in0, i); /* x */
							const vf e3 = e0 * e0;
							acc4[b] = acc4[b] + e3;
						}
					}
				}
			}
			if (chunks * W * V < N - h) {
				const int64_t c = chunks;
				for (int b = b_lo; b < b_hi; b++) {
					for (int e = 0; e < V; e++) {
						const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
						if (i >= N)
							break;
						const vi valid = lanes_valid(i, N);
						const vf e0 = load_lanes_guarded(in0, i, N); /* x */
						const vf e3 = e0 * e0;
						acc4[b] = rr_vselect(valid, acc4[b] + e3, acc4[b]);
					}
				}
			}
			for (int b = 0; b < BLOCKS; b++) {
				part4[b] = acc4[b];
			}
		}
	} else {
		{
			vf acc4[BLOCKS]; /* sum */
			for (int b = 0; b < BLOCKS; b++)
				acc4[b] = rr_vsplat(0.0f);
			const int64_t chunks = (N - h) / ((int64_t)W * V); /* chunks of complete packs */
			int64_t chunk = 0;
			for (; chunk + U <= chunks; chunk += U) {
				for (int u = 0; u < U; u++) {
					const int64_t c = chunk + u;
					for (int b = b_lo; b < b_hi; b++) {
						for (int e = 0; e < V; e++) {
							const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
							const vf e0 = load_lanes(in0, i); /* x */
							const vf e3 = e0 * e0;
							acc4[b] = acc4[b] + e3;
						}
					}
				}
			}
			if (chunks * W * V < N - h) {
				const int64_t c = chunks;
				for (int b = b_lo; b < b_hi; b++) {
					for (int e = 0; e < V; e++) {
						const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
						if (i >= N)
							break;
						const vi valid = lanes_valid(i, N);
						const vf e0 = load_lanes_guarded(in0, i, N); /* x */
						const vf e3 = e0 * e0;
						acc4[b] = rr_vselect(valid, acc4[b] + e3, acc4[b]);
					}
				}
			}
			for (int b = 0; b < BLOCKS; b++) {
				part4[b] = acc4[b];
			}
		}
	}
	#pragma GCC unroll 16
	for (int step = 0, done = 0; step < TREE_STEPS; done |= tree_offsets[step++]) {
		const int o = tree_offsets[step];
		for (int b = 0; b < BLOCKS; b++) {
			if (o >= L) {
				if ((b * L & (o | done)) == 0) {
					part4[b] = part4[b] + part4[b + o / L];
				}
			} else if ((b * L & done) == 0) {
				part4[b] = part4[b] + rr_vswap(part4[b], o);
			}
		}
	}
	const float s4 = part4[0][0];
	const float s6 = s4 / s5;
	const float s7 = s6 + s2;
	const float s8 = 1.0f / sqrtf(s7);
	/* output phase: each worker writes the elements it owns */
	if (stream) { /* past the caches: the next row comes in meanwhile */
		{
			const int64_t chunks = (N - h) / ((int64_t)W * V); /* chunks of complete packs */
			int64_t chunk = 0;
			rr_aligner aligned0 = rr_aligner_begin(out0 + h, stream, !share, carry + 0);
			for (; chunk + U <= chunks; chunk += U) {
				for (int u = 0; u < U; u++) {
					const int64_t c = chunk + u;
					for (int b = b_lo; b < b_hi; b++) {
						for (int e = 0; e < V; e++) {
							const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
							__builtin_prefetch(in0 + prefetch_ahead(N, stream) + i); /* a row on */
							const vf e0 = load_lanes(in0, i); /* x */
							const vf e1 = load_lanes(in1, i); /* w */
							const vf e9 = e0 * s8;
							const vf e10 = e9 * e1;
							rr_store_aligned(&aligned0, out0, i, stream, e10);
						}
					}
				}
			}
			rr_aligner_end(&aligned0, out0);
			if (chunks * W * V < N - h) {
				const int64_t c = chunks;
				for (int b = b_lo; b < b_hi; b++) {
					for (int e = 0; e < V; e++) {
						const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
						if (i >= N)
							break;
						const vf e0 = load_lanes_guarded(in0, i, N); /* x */
						const vf e1 = load_lanes_guarded(in1, i, N); /* w */
						const vf e9 = e0 * s8;
						const vf e10 = e9 * e1;
						store_tail(out0, i, N, stream, carry + 0, e10);
					}
				}
			}
		}
		} else {
		{
			const int64_t chunks = (N - h) / ((int64_t)W * V); /* chunks of complete packs */
			int64_t chunk = 0;
			rr_aligner aligned0 = rr_aligner_begin(out0 + h, stream, !share, carry + 0);
			{ /* hand pipeline: x loaded P chunks ahead of the store (W = 16, V = 1, U = 1, BLOCKS = 1) */
				enum { P = PIPE };
				vf xs[P];
				if (chunks >= 2 * P) {
					#pragma GCC unroll 16
					for (int k = 0; k < P; k++)
						xs[k] = load_lanes(in0, h + (int64_t)k * W);
					for (; chunk + 2 * P <= chunks; chunk += P) {
						#pragma GCC unroll 16
						for (int k = 0; k < P; k++) {
							const int64_t i = h + (chunk + k) * W;
							const vf e0 = xs[k];
							xs[k] = load_lanes(in0, i + (int64_t)P * W);
							const vf e1 = load_lanes(in1, i); /* w */
							const vf e10 = (e0 * s8) * e1;
							rr_store_aligned(&aligned0, out0, i, stream, e10);
						}
					}
					#pragma GCC unroll 16
					for (int k = 0; k < P; k++) {
						const int64_t i = h + (chunk + k) * W;
						const vf e1 = load_lanes(in1, i); /* w */
						const vf e10 = (xs[k] * s8) * e1;
						rr_store_aligned(&aligned0, out0, i, stream, e10);
					}
					chunk += P;
				}
				for (; chunk < chunks; chunk++) {
					const int64_t i = h + chunk * W;
					const vf e0 = load_lanes(in0, i);
					const vf e1 = load_lanes(in1, i); /* w */
					const vf e10 = (e0 * s8) * e1;
					rr_store_aligned(&aligned0, out0, i, stream, e10);
				}
			}
			rr_aligner_end(&aligned0, out0);
			if (chunks * W * V < N - h) {
				const int64_t c = chunks;
				for (int b = b_lo; b < b_hi; b++) {
					for (int e = 0; e < V; e++) {
						const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
						if (i >= N)
							break;
						const vf e0 = load_lanes_guarded(in0, i, N); /* x */
						const vf e1 = load_lanes_guarded(in1, i, N); /* w */
						const vf e9 = e0 * s8;
						const vf e10 = e9 * e1;
						store_tail(out0, i, N, stream, carry + 0, e10);
					}
				}
			}
		}
	}
}

/* The 16-bit cols as f32 at `to`, wide_col_stride(N) floats apart. */
static void widen_cols(int64_t N, const void *const *inputs, float *to)
{
	(void)N;
	(void)inputs;
	(void)to;
}

/* Rows [row_begin, row_end) in order, each row's output phase in the next row's pass of
 * the sums (emit_piped), where the launch streams rows the split runs: 1 when it ran them. */
static int piped_rows(int64_t row_begin, int64_t row_end, int64_t N, const void *const *inputs,
		      const double *params, void *const *outputs, float *scratch, int stream,
		      rr_carry *carry)
{
	(void)row_begin;
	(void)row_end;
	(void)N;
	(void)inputs;
	(void)params;
	(void)outputs;
	(void)scratch;
	(void)stream;
	(void)carry;
	return 0;
}

void rr_cpu_kernel(int64_t row_begin, int64_t row_end, int64_t N, const void *const *inputs,
		   const double *params, void *const *outputs, float *scratch, int stream)
{
	/* A 16-bit kernel's cols as f32 in scratch, once a thread and launch: the caller sets
	 * RR_CPU_COLS_READY (2) in stream on the calls after the thread's first. */
	if (WIDE_COLS > 0 && !(stream & 2))
		widen_cols(N, inputs, scratch + wide_cols_at(N));
	stream &= 1;
	/* groups of R rows; the grouping never changes a row's arithmetic */
	rr_carry carry[OUTPUTS]; /* a streamed row output's pieces between rows (cpu_vec.h) */
	memset(carry, 0, sizeof carry);
	if (!piped_rows(row_begin, row_end, N, inputs, params, outputs, scratch, stream, carry))
		for (int64_t group = row_begin; group < row_end; group += R)
			for (int64_t row = group; row < group + R && row < row_end; row++)
				one_row(row, N, inputs, params, outputs, scratch, stream, carry);
	for (int j = 0; stream && j < OUTPUTS; j++)
		rr_carry_flush(&carry[j]);
#if defined(__SSE__)
	if (stream) /* stores past the caches are weakly ordered: done before the launch is */
		_mm_sfence();
#endif
}
