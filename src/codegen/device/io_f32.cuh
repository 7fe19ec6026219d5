/* f32 in memory: the identity conversions of generated CUDA C (src/codegen/cuda_emit.c prints
 * "io" after the plan's constants, "shifted" with pack_tail.cuh's when col inputs are read by
 * shifted blocks; io_bf16.cuh and io_f16.cuh are the 16-bit ones). */
//@ io
typedef float io_t;
__device__ __forceinline__ float rr_in(io_t v) { return v; }
__device__ __forceinline__ io_t rr_out(float v) { return v; }

//@ shifted
/* A pack of WORDS elements from the words that start at it (rr_load_shifted, pack_tail.cuh:
 * f32 elements are whole words, nothing is left to move). */
template <int WORDS>
__device__ __forceinline__ void rr_in_shifted(float (&v)[WORDS], const unsigned (&w)[WORDS + 1], int s)
{
	(void)s;
	#pragma unroll
	for (int k = 0; k < WORDS; k++)
		v[k] = __uint_as_float(w[k]);
}
