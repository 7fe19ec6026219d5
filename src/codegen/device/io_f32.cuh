/* f32 in memory: the identity conversions of generated CUDA C (src/codegen/cuda_emit.c prints
 * this section after the plan's constants; io_bf16.cuh and io_f16.cuh are the 16-bit ones). */
//@ io
typedef float io_t;
__device__ __forceinline__ float rr_in(io_t v) { return v; }
__device__ __forceinline__ io_t rr_out(float v) { return v; }

