/* Row inputs kept in shared memory as stored (rr__realisation.keep_raw), for generated CUDA C:
 * one 16-byte slot a pack (V elements of io_t), laid out [value][chunk][thread], so a warp's
 * slots are contiguous. rr_keep_stage copies a pack from global memory asynchronously
 * (cp.async.cg, sm_80 on: it lands in shared memory without passing through registers);
 * rr_keep_wait waits for every copy this thread issued. A thread reads back only its own
 * slots, so no barrier is needed. The forms after #else (the tests' host simulation) copy at
 * once; rr_keep_fetch and rr_keep_put copy through registers instead. src/codegen/cuda_emit.c
 * prints the section "keep_raw" when the plan keeps raw, then rr_keep_store and rr_keep_load
 * for the plan's dtype (they convert as rr_store and rr_load do, exact both ways for values
 * that came from memory). */
//@ stand-in
/* What the emitted source defines before this file (the plan's V, THREADS and KEEP_CHUNKS, the
 * dtype's io_t), in a simple form: here only so that the file compiles on its own. */
constexpr int V = 8;
constexpr int THREADS = 128;
constexpr int KEEP_CHUNKS = 4;
typedef unsigned short io_t;
//@ keep_raw
/* Kept packs in shared memory as stored, [value][chunk][thread] of 16 bytes (V elements). */
static_assert(V * sizeof(io_t) == 16, "raw keeps take packs of 16 bytes");
__device__ __forceinline__ uint4 *rr_keep_slot(const float *keep, int k, int c)
{
	return reinterpret_cast<uint4 *>(const_cast<float *>(keep)) +
	       (k * KEEP_CHUNKS + c) * THREADS + threadIdx.x;
}

__device__ __forceinline__ void rr_keep_stage(float *keep, int k, int c, const io_t *p)
{
#if defined(__CUDA_ARCH__)
	unsigned s;
	asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }"
	             : "=r"(s)
	             : "l"(rr_keep_slot(keep, k, c)));
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(p) : "memory");
#else
	*rr_keep_slot(keep, k, c) = __ldg(reinterpret_cast<const uint4 *>(p));
#endif
}

/* The same copy through registers (src/codegen/cuda_emit_row.c emit_stage says for which
 * plans). On sm_90 the 16-byte cp.async.cg drew every input sector twice from L2 (ncu, softmax
 * bf16 512x131072: 8.4 M sectors read, 5.2 M of them L2 hits, for a 4.2 M-sector input; the
 * same from a global-space address; cp.async.ca read it once but ran softmax 1.09-1.13x
 * slower); loads through registers draw it once. */
__device__ __forceinline__ uint4 rr_keep_fetch(const io_t *p)
{
	return __ldg(reinterpret_cast<const uint4 *>(p));
}
__device__ __forceinline__ void rr_keep_put(float *keep, int k, int c, const uint4 &t)
{
	*rr_keep_slot(keep, k, c) = t;
}

__device__ __forceinline__ void rr_keep_wait()
{
#if defined(__CUDA_ARCH__)
	asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

