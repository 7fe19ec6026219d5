/* The online (max, sum of exp) pair of generated CUDA C: softmax and cross-entropy reduce in one
 * pass, rescaling the sum whenever the max grows. src/codegen/cuda_emit.c prints the section
 * "online" in every kernel (unused helpers cost nothing). */
//@ stand-in
/* What the emitted source defines before this file (limits.cuh, the plan's V): here only so
 * that the file compiles on its own. */
#define INFINITY __int_as_float(0x7f800000)
constexpr int V = 4;
//@ online
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
	float sum = z * __expf(m - base);
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			sum += __expf(v[e] - base);
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
			z += __expf(v[e] - base);
}
/* Two partials combined; symmetric in its operands (no fused multiply-add),
 * so both lanes of a butterfly get the same bits. */
__device__ __forceinline__ void rr_online_combine(float &m, float &z, float m2, float z2)
{
	const float m_new = fmaxf(m, m2);
	const float base = m_new == -INFINITY ? 0.0f : m_new;
	z = __fmul_rn(z, __expf(m - base)) + __fmul_rn(z2, __expf(m2 - base));
	m = m_new;
}

