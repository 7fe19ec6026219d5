/* The online (max, sum of exp) pair of generated CUDA C: softmax and cross-entropy reduce in one
 * pass, rescaling the sum whenever the max grows. src/codegen/cuda_emit.c prints the section
 * "online" in every kernel (unused helpers cost nothing). */
//@ stand-in
/* What the emitted source defines before this file (limits.cuh, the plan's V): here only so
 * that the file compiles on its own. */
#define INFINITY __int_as_float(0x7f800000)
constexpr int V = 4;
//@ online
/* exp(x) for generated kernels: one multiply and the hardware's base-2 exponential with
 * subnormal results flushed to zero (values below 2^-126, about 1.2e-38: far inside every
 * output tolerance). __expf compiles to ex2.approx without the flush, which ptxas guards with a
 * range test and two multiplies an element (softmax bf16 4096x32768: 25 SASS instructions an
 * element, 8.5 of them FMUL). The error is __expf's: that of ex2.approx plus the rounding of
 * x * log2(e). The host simulation (tests/cuda_sim.h) computes expf. */
__device__ __forceinline__ float rr_exp(float x)
{
#if defined(__CUDA_ARCH__)
	float y;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.44269504088896341f));
	return y;
#else
	return expf(x);
#endif
}
/* Online (max, sum of exp(v - max)): one pack of `valid` elements. */
__device__ __forceinline__ void rr_online_add(float &m, float &z, const float (&v)[V], int valid)
{
	float pack_max = -INFINITY;
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			pack_max = fmaxf(pack_max, v[e]);
	const float m_new = fmaxf(m, pack_max);
	const float base = m_new == -INFINITY ? 0.0f : m_new; /* all -inf so far */
	float sum = z * rr_exp(m - base);
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			sum += rr_exp(v[e] - base);
	z = sum;
	m = m_new;
}
/* The max alone of one pack of `valid` elements: the first step of a pair whose values stay in
 * registers (the sum follows over all packs, rr_online_sum). */
__device__ __forceinline__ void rr_online_max(float &m, const float (&v)[V], int valid)
{
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			m = fmaxf(m, v[e]);
}
/* The second step: z += exp(v - base) over `valid` elements of one pack, base the worker's max
 * (0 when all are -inf). */
__device__ __forceinline__ void rr_online_sum(float &z, const float (&v)[V], float base, int valid)
{
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			z += rr_exp(v[e] - base);
}
/* The same sum, keeping each exp(v - base) in place of v (the kept exponentials of
 * src/codegen/cuda_emit_row.c: a later phase scales them instead of computing them again). */
__device__ __forceinline__ void rr_online_sum_keep(float &z, float (&v)[V], float base, int valid)
{
	#pragma unroll
	for (int e = 0; e < V; e++) {
		if (e < valid) {
			v[e] = rr_exp(v[e] - base);
			z += v[e];
		}
	}
}
/* Two partials combined; symmetric in its operands (no fused multiply-add),
 * so both lanes of a butterfly get the same bits. */
__device__ __forceinline__ void rr_online_combine(float &m, float &z, float m2, float z2)
{
	const float m_new = fmaxf(m, m2);
	const float base = m_new == -INFINITY ? 0.0f : m_new;
	z = __fmul_rn(z, rr_exp(m - base)) + __fmul_rn(z2, rr_exp(m2 - base));
	m = m_new;
}

