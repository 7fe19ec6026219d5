/* Thread-block clusters for generated CUDA C (sm_90): a row spread over the C blocks of a
 * cluster combines the blocks' partials through distributed shared memory, in a fixed tree:
 * each warp pushes its partials into every block's mailbox (cluster_mail), or each block's
 * partial is read by all after a cluster barrier (cluster_exchange; cluster_wide over 8
 * blocks) where a row has one partial or the blocks keep their segment in registers
 * (rr__cluster_mailbox, src/layout/realise.h). src/codegen/cuda_emit.c prints the section
 * "cluster" when the plan has C > 1, and the others as they apply. */
//@ stand-in
/* What the emitted source defines before this file (the plan's constants, online.cuh), in a
 * simple form: here only so that the file compiles on its own. */
constexpr int C = 2;
constexpr int MBARS = 1;
constexpr int WARPS = 1;
constexpr unsigned RR_MASK = 0xffffffffu;
__device__ __forceinline__ void rr_online_combine(float &m, float &z, float m2, float z2)
{
	m = fmaxf(m, m2);
	z = z + z2;
}
//@ cluster
/* Thread-block clusters (sm_90): the block's rank, the cluster barrier. */
__device__ __forceinline__ unsigned rr_cluster_rank()
{
#if defined(__CUDA_ARCH__)
	unsigned r;
	/* not volatile: the compiler may read it again where registers are short */
	asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
	return r;
#else
	return rr_sim_cluster_rank(); /* host simulation (tests) */
#endif
}
/* The cluster barrier, with release: once before a mailbox's first row (its barriers
 * initialised) and after the last row (no block leaves while others may still reach its
 * shared memory). */
__device__ __forceinline__ void rr_cluster_sync()
{
#if defined(__CUDA_ARCH__)
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
	             "barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
	rr_sim_cluster_sync();
#endif
}
//@ cluster_mail
/* The mailbox: every block's shared memory receives every warp's partial of every block of
 * its cluster, rr_cl[parity][slot][warp][rank]; lane r of a warp pushes the warp's partials
 * to block r with st.async, each push counting its bytes off block r's mbarrier of that
 * parity and round (rr_mbar[parity][round]). A block waits for its own barrier alone: no
 * cluster-wide barrier, no __syncthreads, and the combination (rr_row) reads local shared
 * memory only. A slot of parity p is written again two groups later, which no block reaches
 * before every warp of the cluster has pushed the group between, after reading this one (its
 * reads are used before it pushes again). */
typedef unsigned long long rr_mbar_t;
__shared__ rr_mbar_t rr_mbar[2 * MBARS]; /* [parity][round] */

/* Barrier b of the block: a 32-bit shared-memory address (a pointer in the host simulation). */
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ unsigned rr_smem_addr(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}
typedef unsigned rr_mbar_ref;
__device__ __forceinline__ rr_mbar_ref rr_mail_bar(int b)
{
	return rr_smem_addr(rr_mbar + b);
}
#else
typedef rr_mbar_t *rr_mbar_ref;
__device__ __forceinline__ rr_mbar_ref rr_mail_bar(int b)
{
	return rr_mbar + b;
}
#endif
/* Before the first row: thread 0 initialises the block's barriers (one arrival a warp a
 * phase), and the cluster meets so that no block pushes into one not yet initialised. */
__device__ __forceinline__ void rr_mail_init()
{
	if (threadIdx.x == 0)
		for (int b = 0; b < 2 * MBARS; b++) {
#if defined(__CUDA_ARCH__)
			asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(rr_mail_bar(b)),
			             "r"(WARPS)
			             : "memory");
#else
			rr_sim_mbar_init(rr_mail_bar(b), WARPS);
#endif
		}
#if defined(__CUDA_ARCH__)
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
	rr_cluster_sync();
}
/* The float v into cluster block `rank`'s copy of `slot`, counted off its copy of `bar`. */
__device__ __forceinline__ void rr_mail_push(float *slot, unsigned rank, float v, rr_mbar_ref bar)
{
#if defined(__CUDA_ARCH__)
	unsigned to, at;
	asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(to) : "r"(rr_smem_addr(slot)), "r"(rank));
	asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(at) : "r"(bar), "r"(rank));
	asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];" ::"r"(to),
	             "f"(v), "r"(at)
	             : "memory");
#else
	rr_sim_mail_push(slot, rank, v, bar);
#endif
}
/* Every warp, after its pushes: lane 0 arrives on the block's barrier (warp 0's arrival
 * expecting the `bytes` that all pushes into this block bring; they may come before it: the
 * phase cannot complete without every warp's arrival), and the warp shares the phase's state.
 * A warp arrives on a barrier only after waiting for its previous phase, so no phase needs
 * counting: the state names the one being waited for. */
__device__ __forceinline__ unsigned long long rr_mail_arrive(rr_mbar_ref bar, unsigned bytes,
                                                             int lane)
{
	unsigned long long state = 0;
	if (lane == 0) {
#if defined(__CUDA_ARCH__)
		if (bytes)
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
			             : "=l"(state)
			             : "r"(bar), "r"(bytes)
			             : "memory");
		else
			asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
			             : "=l"(state)
			             : "r"(bar)
			             : "memory");
#else
		state = rr_sim_mbar_arrive(bar, bytes);
#endif
	}
	return __shfl_sync(RR_MASK, state, 0);
}
/* Every thread: until the phase that `state` names has completed. */
__device__ __forceinline__ void rr_mail_wait(rr_mbar_ref bar, unsigned long long state)
{
#if defined(__CUDA_ARCH__)
	asm volatile("{\n\t.reg .pred p;\n\tRR_WAIT:\n\t"
	             "mbarrier.try_wait.shared::cta.b64 p, [%0], %1;\n\t"
	             "@!p bra RR_WAIT;\n\t}" ::"r"(bar),
	             "l"(state)
	             : "memory");
#else
	rr_sim_mbar_wait(bar, state);
#endif
}

//@ cluster_exchange
/* Clusters without a mailbox: the block's partials (its own tree done) meet the other blocks'
 * at a cluster barrier a round, read through distributed shared memory. */
/* Makes this thread's writes to its block's shared memory (its partials) visible to the
 * cluster before its next rr_cluster_meet: a fence at the scope of the block's shared memory
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
__device__ __forceinline__ void rr_cluster_meet()
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
