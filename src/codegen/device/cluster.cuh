/* Thread-block clusters for generated CUDA C (sm_90): a row spread over the C blocks of a
 * cluster combines the blocks' partials through distributed shared memory, in a fixed tree.
 * src/codegen/cuda_emit.c prints the section "cluster" when the plan has C > 1. */
//@ stand-in
/* What the emitted source defines before this file (the plan's C, online.cuh), in a simple
 * form: here only so that the file compiles on its own. */
constexpr int C = 2;
__device__ __forceinline__ void rr_online_combine(float &m, float &z, float m2, float z2)
{
	m = fmaxf(m, m2);
	z = z + z2;
}
//@ cluster
/* Thread-block clusters (sm_90): rank, barrier, distributed shared memory. */
__device__ __forceinline__ unsigned rr_cluster_rank()
{
#if defined(__CUDA_ARCH__)
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
	return r;
#else
	return rr_sim_cluster_rank(); /* host simulation (tests) */
#endif
}
/* Makes this thread's writes to its block's shared memory (its partials) visible to the
 * cluster before its next rr_cluster_sync: a fence at the scope of the block's shared memory
 * (MEMBAR.ALL.CTA on sm_90). The cluster barrier itself is then relaxed: a release there
 * compiles to MEMBAR.ALL.GPU in every thread, which waits for the block's outstanding global
 * stores (the last row's outputs) before the cluster may go on. Reads of other blocks' partials
 * need no fence of their own: their values are used before the reader next arrives. */
__device__ __forceinline__ void rr_cluster_publish()
{
#if defined(__CUDA_ARCH__)
	asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void rr_cluster_sync()
{
#if defined(__CUDA_ARCH__)
	asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\t"
	             "barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
	rr_sim_cluster_sync();
#endif
}
/* The float at `local` in the shared memory of cluster block `rank`. */
__device__ __forceinline__ float rr_cluster_load(const float *local, unsigned rank)
{
#if defined(__CUDA_ARCH__)
	const unsigned addr = (unsigned)__cvta_generic_to_shared(local);
	unsigned remote;
	float v;
	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
	asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
	return v;
#else
	return rr_sim_cluster_load(local, rank);
#endif
}
/* The blocks' partials in a fixed tree: xor offsets C/2 ... 1 over ranks. */
template <int OP> /* 0 sum, 1 max, 2 min */
__device__ __forceinline__ float rr_cluster_reduce(const float *slot)
{
	float p[C];
	#pragma unroll
	for (int r = 0; r < C; r++)
		p[r] = rr_cluster_load(slot, r);
	#pragma unroll
	for (int off = C / 2; off >= 1; off /= 2)
		#pragma unroll
		for (int r = 0; r < off; r++)
			p[r] = OP == 0 ? p[r] + p[r + off] : OP == 1 ? fmaxf(p[r], p[r + off]) : fminf(p[r], p[r + off]);
	return p[0];
}
__device__ __forceinline__ void rr_cluster_online(float &m, float &z, const float *slot)
{
	float pm[C], pz[C];
	#pragma unroll
	for (int r = 0; r < C; r++) {
		pm[r] = rr_cluster_load(slot, r);
		pz[r] = rr_cluster_load(slot + 1, r);
	}
	#pragma unroll
	for (int off = C / 2; off >= 1; off /= 2)
		#pragma unroll
		for (int r = 0; r < off; r++)
			rr_online_combine(pm[r], pz[r], pm[r + off], pz[r + off]);
	m = pm[0];
	z = pz[0];
}

//@ cluster_wide
/* Clusters over the portable 8 blocks (sm_90 opts in to 16): lane l of every warp loads block
 * l % C's partial and the lanes combine in a butterfly xor C/2 ... 1, so no thread holds C
 * partials at once (the arrays above spilled at C = 16). Every thread gets the same bits. */
template <int OP> /* 0 sum, 1 max, 2 min */
__device__ __forceinline__ float rr_cluster_reduce_wide(const float *slot)
{
	float v = rr_cluster_load(slot, threadIdx.x & (C - 1));
	#pragma unroll
	for (int off = C / 2; off >= 1; off /= 2) {
		const float o = __shfl_xor_sync(0xffffffffu, v, off);
		v = OP == 0 ? v + o : OP == 1 ? fmaxf(v, o) : fminf(v, o);
	}
	return v;
}
__device__ __forceinline__ void rr_cluster_online_wide(float &m, float &z, const float *slot)
{
	m = rr_cluster_load(slot, threadIdx.x & (C - 1));
	z = rr_cluster_load(slot + 1, threadIdx.x & (C - 1));
	#pragma unroll
	for (int off = C / 2; off >= 1; off /= 2) {
		const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
		const float z2 = __shfl_xor_sync(0xffffffffu, z, off);
		rr_online_combine(m, z, m2, z2);
	}
}
