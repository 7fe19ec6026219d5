#include "prelude.h"
/* hand softmax, f32, L = 16 */
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
#ifndef KEEP
#define KEEP 0
#endif
static void hrow(const float *x, float *y, int64_t N, float *scratch, int stream)
{
	const int64_t full = N / 16;
	const int rem = (int)(N % 16);
	const __mmask16 tm = (__mmask16)((1u << rem) - 1);
	vf c[4];
	for (int q = 0; q < 4; q++)
		c[q] = rr_vsplat(-INFINITY);
	int64_t k = 0;
	for (; k + 4 <= full; k += 4)
		for (int q = 0; q < 4; q++)
			c[q] = rr_vmax(c[q], rr_load_f32(x + (k + q) * 16));
	for (; k < full; k++)
		c[0] = rr_vmax(c[0], rr_load_f32(x + k * 16));
	vf xt = (vf)_mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), tm, x + full * 16);
	if (rem)
		c[1] = rr_vmax(c[1], xt);
	const float m = tree_max(rr_vmax(rr_vmax(c[0], c[1]), rr_vmax(c[2], c[3])));
	vf acc = rr_vsplat(0.0f);
	for (k = 0; k < full; k++) {
		const vf e = rr_vexp_nonpos(rr_load_f32(x + k * 16) - m);
		rr_store_f32(scratch + k * 16, e);
		acc = acc + e;
	}
	vf et = rr_vsplat(0.0f);
	if (rem) {
		et = rr_vexp_nonpos((vf)_mm512_mask_mov_ps(_mm512_set1_ps(m), tm, (__m512)xt) - m);
		acc = (vf)_mm512_mask_add_ps((__m512)acc, tm, (__m512)acc, (__m512)et);
	}
	const float inv = 1.0f / tree_sum(acc);
	for (k = 0; k < full; k++)
		_mm512_storeu_ps(y + k * 16, (__m512)(rr_load_f32(scratch + k * 16) * inv));
	if (rem)
		_mm512_mask_storeu_ps(y + full * 16, tm, (__m512)(et * inv));
	(void)stream;
}
void rr_cpu_kernel(int64_t row_begin, int64_t row_end, int64_t N, const void *const *inputs,
		   const double *params, void *const *outputs, float *scratch, int stream)
{
	(void)params;
	for (int64_t r = row_begin; r < row_end; r++)
		hrow((const float *)inputs[0] + r * N, (float *)outputs[0] + r * N, N, scratch, stream & 1);
}
