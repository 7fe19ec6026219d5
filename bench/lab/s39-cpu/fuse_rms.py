import sys
src=open(sys.argv[1]).read()
b=src.index('void rr_cpu_kernel(')
fused=r'''
static inline float rms_tree(vf p0, vf p1)
{
	vf p = p0 + p1;
	p = p + rr_vswap(p, 8);
	p = p + rr_vswap(p, 4);
	p = p + rr_vswap(p, 2);
	p = p + rr_vswap(p, 1);
	return p[0];
}
/* row's sum of squares, the previous row's output beside it */
static float rms_ss_out(const float *x, int64_t N, const float *xp, float *yp, float sp, const float *w)
{
	vf a0 = rr_vsplat(0.0f), a1 = a0;
	for (int64_t i = 0; i < N; i += 32) {
		__builtin_prefetch(x + N + i);
		__builtin_prefetch(x + N + i + 16);
		const vf v0 = rr_load_f32(x + i), v1 = rr_load_f32(x + i + 16);
		a0 = a0 + v0 * v0;
		a1 = a1 + v1 * v1;
		if (xp) {
			_mm512_stream_ps(yp + i, (__m512)(rr_load_f32(xp + i) * sp * rr_load_f32(w + i)));
			_mm512_stream_ps(yp + i + 16, (__m512)(rr_load_f32(xp + i + 16) * sp * rr_load_f32(w + i + 16)));
		}
	}
	return rms_tree(a0, a1);
}
'''
src=src[:b]+fused+src[b:]
loop='''	if (!piped_rows(row_begin, row_end, N, inputs, params, outputs, scratch, stream, carry))
		for (int64_t group = row_begin; group < row_end; group += R)
			for (int64_t row = group; row < group + R && row < row_end; row++)
				one_row(row, N, inputs, params, outputs, scratch, stream, carry);'''
assert loop in src
new='''	if (FUSE && stream && N % 32 == 0 && (uintptr_t)outputs[0] % 64 == 0 && (uintptr_t)inputs[0] % 64 == 0) {
		const float *x = inputs[0], *w = inputs[1];
		float *y = outputs[0];
		const float eps = (float)params[2];
		float sp = 0;
		for (int64_t row = row_begin; row < row_end; row++) {
			const int has_prev = row > row_begin;
			const float ss = rms_ss_out(x + row * N, N, has_prev ? x + (row - 1) * N : NULL, y + (row - 1) * N, sp, w);
			sp = 1.0f / sqrtf(ss / (float)N + eps);
		}
		const float *xp = x + (row_end - 1) * N;
		float *yp = y + (row_end - 1) * N;
		for (int64_t i = 0; i < N; i += 16)
			_mm512_stream_ps(yp + i, (__m512)(rr_load_f32(xp + i) * sp * rr_load_f32(w + i)));
		_mm_sfence();
		return;
	}
''' + loop
src=src.replace(loop,new)
open(sys.argv[2],'w').write(src)
