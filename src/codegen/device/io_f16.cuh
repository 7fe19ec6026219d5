/* IEEE half in memory: conversions to and from f32 for generated CUDA C, one element (rr_in,
 * rr_out) or two in a 32-bit word (rr_in2, rr_out2). The PTX forms run on the device; after
 * #else the tests' host simulation (tests/cuda_sim.h) converts. Printed by
 * src/codegen/cuda_emit.c after the plan's constants; "shifted" with pack_tail.cuh's when col
 * inputs are read by shifted blocks. */
//@ io
typedef unsigned short io_t; /* IEEE half bits */
__device__ __forceinline__ float rr_in(io_t v)
{
#if defined(__CUDA_ARCH__)
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
	return f;
#else
	return rr_sim_f16_in(v); /* host simulation (tests) */
#endif
}
__device__ __forceinline__ io_t rr_out(float v) /* nearest even */
{
#if defined(__CUDA_ARCH__)
	io_t h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
	return h;
#else
	return rr_sim_f16_out(v);
#endif
}
/* Two elements in one 32-bit word, the lower address in the low half. */
__device__ __forceinline__ void rr_in2(unsigned w, float &lo, float &hi)
{
	lo = rr_in((io_t)(w & 0xffffu));
	hi = rr_in((io_t)(w >> 16));
}
__device__ __forceinline__ unsigned rr_out2(float lo, float hi)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	unsigned w;
	asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
	return w;
#else
	return (unsigned)rr_out(lo) | ((unsigned)rr_out(hi) << 16);
#endif
}

//@ shifted
/* A pack of 2 * WORDS elements from WORDS + 1 words that start s elements before it, s < 2
 * after the whole words were taken off (rr_load_shifted, pack_tail.cuh): an odd s takes the
 * upper half of each word and the lower half of the next. */
template <int WORDS>
__device__ __forceinline__ void rr_in_shifted(float (&v)[2 * WORDS], const unsigned (&w)[WORDS + 1], int s)
{
	const unsigned selector = (s & 1) != 0 ? 0x5432u : 0x3210u;
	#pragma unroll
	for (int k = 0; k < WORDS; k++)
		rr_in2(__byte_perm(w[k], w[k + 1], selector), v[2 * k], v[2 * k + 1]);
}
