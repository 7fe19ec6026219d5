import sys
src=open(sys.argv[1]).read()
b=src.index('void rr_cpu_kernel(')
fused=r'''
static float proto_max(const float *x, int64_t N)
{
	vf c0 = rr_vsplat(-INFINITY), c1 = c0, c2 = c0, c3 = c0;
	int64_t k = 0;
	for (; k + 64 <= N; k += 64) {
		c0 = rr_vmax_acc(c0, rr_load_f32(x + k));
		c1 = rr_vmax_acc(c1, rr_load_f32(x + k + 16));
		c2 = rr_vmax_acc(c2, rr_load_f32(x + k + 32));
		c3 = rr_vmax_acc(c3, rr_load_f32(x + k + 48));
	}
	for (; k < N; k += 16)
		c0 = rr_vmax_acc(c0, rr_load_f32(x + k));
	vf m = rr_vmax_acc(rr_vmax_acc(c0, c1), rr_vmax_acc(c2, c3));
	return _mm512_reduce_max_ps((__m512)m);
}

/* row's sum pass into cache; the previous row's output (from prev, scaled by pinv) beside it */
static float proto_sum_out(const float *x, int64_t N, float s1, float *cache, const float *prev,
                           float *yprev, float pinv)
{
	vf acc = rr_vsplat(0.0f);
	const vf inv = rr_vsplat(pinv);
	for (int64_t i = 0; i < N; i += 16) {
		__builtin_prefetch(x + N + i);
		const vf e3 = rr_vexp_nonpos(rr_load_f32(x + i) - s1);
		rr_store_f32(cache + i, e3);
		acc = acc + e3;
		if (prev)
			_mm512_stream_ps(yprev + i, rr_load_f32(prev + i) * inv);
	}
	vf part = acc;
	part = part + rr_vswap(part, 8);
	part = part + rr_vswap(part, 4);
	part = part + rr_vswap(part, 2);
	part = part + rr_vswap(part, 1);
	return part[0];
}

static void proto_out(const float *cache, float *y, int64_t N, float inv)
{
	for (int64_t i = 0; i < N; i += 16)
		_mm512_stream_ps(y + i, rr_load_f32(cache + i) * rr_vsplat(inv));
}
'''
src=src[:b]+fused+src[b:]
loop='''	for (int64_t group = row_begin; group < row_end; group += R)
		for (int64_t row = group; row < group + R && row < row_end; row++)
			one_row(row, N, inputs, params, outputs, scratch, stream, carry);'''
assert loop in src
new='''	if (FUSE && stream && N % 16 == 0 && (uintptr_t)outputs[0] % 64 == 0 && N <= SPLIT_MAX_N) {
		const float *x = inputs[0];
		float *y = outputs[0];
		float *cache[2] = {scratch, scratch + (N + 15) / 16 * 16};
		float pinv = 0;
		for (int64_t row = row_begin; row < row_end; row++) {
			const float s1 = proto_max(x + row * N, N);
			const int has_prev = row > row_begin;
			const float s4 = proto_sum_out(x + row * N, N, s1, cache[row & 1],
			                               has_prev ? cache[(row - 1) & 1] : NULL,
			                               has_prev ? y + (row - 1) * N : NULL, pinv);
			pinv = 1.0f / s4;
		}
		proto_out(cache[(row_end - 1) & 1], y + (row_end - 1) * N, N, pinv);
		_mm_sfence();
		return;
	}
	for (int64_t group = row_begin; group < row_end; group += R)
		for (int64_t row = group; row < group + R && row < row_end; row++)
			one_row(row, N, inputs, params, outputs, scratch, stream, carry);'''
src=src.replace(loop,new)
src=src.replace('int64_t rr_cpu_scratch_floats(int64_t N)\n{','int64_t rr_cpu_scratch_floats(int64_t N)\n{\n\tif (FUSE) return 2 * ((N + 15) / 16 * 16) + 64;',1)
open(sys.argv[2],'w').write(src)
