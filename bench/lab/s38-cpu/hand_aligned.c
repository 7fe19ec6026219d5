#include "prelude.h"
/* hand softmax, f32, L = 16, loads on line boundaries */
static inline float tree_max(vf p)
{
	p = rr_vmax(p, rr_vswap(p, 8));
	p = rr_vmax(p, rr_vswap(p, 4));
	p = rr_vmax(p, rr_vswap(p, 2));
	p = rr_vmax(p, rr_vswap(p, 1));
	return p[0];
}
static inline float tree_sum(vf p)
{
	p = p + rr_vswap(p, 8);
	p = p + rr_vswap(p, 4);
	p = p + rr_vswap(p, 2);
	p = p + rr_vswap(p, 1);
	return p[0];
}
static inline __mmask16 span_mask(int64_t lo, int64_t hi) /* lanes lo..hi-1 clipped to 0..15 */
{
	if (lo < 0) lo = 0;
	if (hi > 16) hi = 16;
	return hi <= lo ? 0 : (__mmask16)(((1u << (hi - lo)) - 1) << lo);
}
static void hrow(const float *x, float *y, int64_t N, float *scratch, int stream)
{
	const int off = (int)((uintptr_t)x % 64 / 4);
	const float *xa = x - off; /* aligned */
	const int64_t nv = (off + N + 15) / 16; /* aligned vectors */
	const __mmask16 first = span_mask(off, off + N), last = span_mask(0, off + N - (nv - 1) * 16);
	vf c[4];
	for (int q = 0; q < 4; q++)
		c[q] = rr_vsplat(-INFINITY);
	const __m512 ninf = _mm512_set1_ps(-INFINITY);
	c[0] = (vf)_mm512_mask_load_ps(ninf, first, xa);
	int64_t k = 1;
	for (; k + 4 <= nv - 1; k += 4)
		for (int q = 0; q < 4; q++)
			c[q] = rr_vmax(c[q], rr_load_f32(xa + (k + q) * 16));
	for (; k < nv - 1; k++)
		c[1] = rr_vmax(c[1], rr_load_f32(xa + k * 16));
	if (nv > 1)
		c[2] = rr_vmax(c[2], (vf)_mm512_mask_load_ps(ninf, last, xa + (nv - 1) * 16));
	const float m = tree_max(rr_vmax(rr_vmax(c[0], c[1]), rr_vmax(c[2], c[3])));
	const __m512 zero = _mm512_setzero_ps();
	vf acc = rr_vsplat(0.0f);
	for (k = 0; k < nv; k++) {
		const __mmask16 valid = k == 0 ? first : k == nv - 1 ? last : 0xffff;
		const vf e = rr_vexp_nonpos((vf)_mm512_mask_load_ps(_mm512_set1_ps(m), valid, xa + k * 16) - m);
		rr_store_f32(scratch + k * 16, e);
		acc = (vf)_mm512_mask_add_ps((__m512)acc, valid, (__m512)acc, (__m512)e);
	}
	/* lane (r + off) % 16 holds residue r: rotate down by off */
	const __m512i rot = _mm512_and_si512(_mm512_add_epi32(_mm512_setr_epi32(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15), _mm512_set1_epi32(off)), _mm512_set1_epi32(15));
	acc = (vf)_mm512_permutexvar_ps(rot, (__m512)acc);
	const float inv = 1.0f / tree_sum(acc);
	(void)zero;
	float *ya = y - off; /* same offset assumed */
	for (k = 0; k < nv; k++) {
		const __mmask16 valid = k == 0 ? first : k == nv - 1 ? last : 0xffff;
		const __m512 v = (__m512)(rr_load_f32(scratch + k * 16) * inv);
		if (valid == 0xffff)
			_mm512_store_ps(ya + k * 16, v);
		else
			_mm512_mask_store_ps(ya + k * 16, valid, v);
	}
	(void)stream;
}
void rr_cpu_kernel(int64_t row_begin, int64_t row_end, int64_t N, const void *const *inputs,
		   const double *params, void *const *outputs, float *scratch, int stream)
{
	(void)params;
	for (int64_t r = row_begin; r < row_end; r++)
		hrow((const float *)inputs[0] + r * N, (float *)outputs[0] + r * N, N, scratch, stream & 1);
}
