/* A row split over the grid (S=grid) in generated CUDA C: the C blocks of a row group are
 * co-resident blocks of a cooperative launch; each round they write their partials to the
 * program's workspace, meet at a per-group barrier, and combine the C partials in one fixed
 * tree (every warp, or warp 0 for its block: RR_GRID_ONE_WARP). src/codegen/cuda_emit_grid.c
 * prints the section "grid" for S=grid plans. */
//@ stand-in
/* What the emitted source defines before this file (the plan's C, online.cuh), in a simple
 * form: here only so that the file compiles on its own. */
#define INFINITY __int_as_float(0x7f800000)
constexpr int C = 64;
constexpr int N = 1 << 21;
constexpr int SEG = N / C;
constexpr int RED_SLOTS = 2;
constexpr bool RR_GRID_ONE_WARP = true;
__device__ __forceinline__ void rr_online_combine(float &m, float &z, float m2, float z2)
{
	m = fmaxf(m, m2);
	z = z + z2;
}
//@ grid
/* The barrier of one row group's C blocks: bar[0] counts every arrival the group's blocks have
 * ever made. A block adds one (a release at gpu scope, after its partials) and waits until the
 * count reaches the next multiple of C (acquire loads), so no block resets anything and the
 * last to arrive does no more than the others: one atomic and, for most, a few loads of L2.
 * The word starts at zero when the workspace is allocated. Where C is a power of two the count
 * is 32 bits, whose wrap past 2^32 keeps its multiples of C; any other C (M x C blocks that
 * fill every SM: C = 66 for two rows on 132) counts in 64 bits, which no launch rate wraps
 * (the group's workspace starts on 8 bytes: its words are even in number). Partials written
 * before the barrier are visible to every block after it (the readers load them through L2).
 * Needs every block of the group resident: a cooperative launch whose grid is no larger than
 * the device holds at once. */
constexpr bool RR_GRID_POW2 = (C & (C - 1)) == 0;
#if defined(__CUDA_ARCH__)
/* Adds this block's arrival (acq_rel: also an acquire, for rr_grid_arrive's last block) and
 * returns the multiple of C that the group's count reaches when every block has arrived. */
template <bool ACQ_REL>
__device__ __forceinline__ unsigned long long rr_grid_count_add(unsigned *bar, bool &last)
{
	if constexpr (RR_GRID_POW2) {
		unsigned old;
		if constexpr (ACQ_REL)
			asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], 1;" : "=r"(old) : "l"(bar) : "memory");
		else
			asm volatile("atom.add.release.gpu.global.u32 %0, [%1], 1;" : "=r"(old) : "l"(bar) : "memory");
		const unsigned target = (old & ~(unsigned)(C - 1)) + (unsigned)C;
		last = old + 1 == target;
		return target;
	} else {
		unsigned long long old;
		if constexpr (ACQ_REL)
			asm volatile("atom.add.acq_rel.gpu.global.u64 %0, [%1], 1;" : "=l"(old) : "l"(bar) : "memory");
		else
			asm volatile("atom.add.release.gpu.global.u64 %0, [%1], 1;" : "=l"(old) : "l"(bar) : "memory");
		const unsigned long long target = (old / C + 1) * C;
		last = old + 1 == target;
		return target;
	}
}
/* Waits (acquire loads) until the group's count reaches `target`. */
__device__ __forceinline__ void rr_grid_count_wait(unsigned *bar, const unsigned long long target)
{
	if constexpr (RR_GRID_POW2) {
		unsigned now;
		asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(bar) : "memory");
		while ((int)(now - (unsigned)target) < 0) {
			__nanosleep(32);
			asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(bar) : "memory");
		}
	} else {
		unsigned long long now;
		asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(now) : "l"(bar) : "memory");
		while (now < target) {
			__nanosleep(32);
			asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(now) : "l"(bar) : "memory");
		}
	}
}
#endif
__device__ __forceinline__ void rr_grid_sync(unsigned *bar)
{
#if defined(__CUDA_ARCH__)
	__syncthreads();
	if (threadIdx.x == 0) {
		bool last;
		rr_grid_count_wait(bar, rr_grid_count_add<false>(bar, last));
	}
	__syncthreads();
#else
	(void)bar;
	rr_sim_grid_sync(); /* host simulation (tests) */
#endif
}
/* The last round of a kernel whose rows yield only scalars (sum, a loss): a block adds its
 * arrival to the same count as rr_grid_sync (acquire and release at gpu scope) and learns from
 * it whether it is the last of the group's C blocks to arrive; that block alone combines the
 * partials and writes the row's scalars, with no wait on L2 but its own atomic. The others
 * leave at once unless they have another row after this one (`wait`): running ahead, a block
 * would write the partials of the row after that one to the slot of this row's parity while
 * the last block may still be reading it. Needs what rr_grid_sync needs. */
__shared__ int rr_grid_last;
__device__ __forceinline__ bool rr_grid_arrive(unsigned *bar, const bool wait)
{
#if defined(__CUDA_ARCH__)
	__syncthreads();
	if (threadIdx.x == 0) {
		bool last;
		const unsigned long long target = rr_grid_count_add<true>(bar, last);
		if (wait && !last)
			rr_grid_count_wait(bar, target);
		rr_grid_last = last;
	}
	__syncthreads();
	return rr_grid_last != 0;
#else
	(void)bar;
	(void)wait;
	rr_sim_grid_sync(); /* host simulation (tests): every block meets; the last rank owns */
	return blockIdx.x % C == C - 1;
#endif
}
template <int OP> /* 0 sum, 1 max, 2 min */
__device__ __forceinline__ float rr_grid_op(float a, float b)
{
	return OP == 0 ? a + b : OP == 1 ? fmaxf(a, b) : fminf(a, b);
}
/* The C partials at p[0..C) in the fixed tree: lane l takes block l, then l + 32, l + 64, ...
 * in order (its loads issued together: one wait on L2, not C / 32 in turn), then the butterfly
 * xor 16 ... 1 over min(C, 32) lanes where C is a power of two (lanes past C repeat the first
 * C), over 32 lanes otherwise, a block past C taken as the operation's identity (0, -inf,
 * +inf; an online pair's (-inf, 0)), so every thread that combines gets the same bits.
 * RR_GRID_ONE_WARP: warp 0 alone loads and combines, and thread 0 hands the result to the
 * block at rr_grid_value[at] (at: the partial's [parity][slot]); otherwise every warp does. */
constexpr int RR_GRID_LANES = C < 32 && RR_GRID_POW2 ? C : 32;
constexpr int RR_GRID_LOADS = (C + 31) / 32; /* partials a lane loads */
/* Whether block b of the tree is one of the row's (always, where C is a power of two). */
__device__ __forceinline__ bool rr_grid_has(const int b)
{
	return RR_GRID_POW2 || b < C;
}
/* Block b's partial at p[b], or `none` (the operation's identity) for a block past C. */
__device__ __forceinline__ float rr_grid_load(const float *p, const int b, const float none)
{
	return rr_grid_has(b) ? __ldcg(p + b) : none;
}
template <int OP>
__device__ __forceinline__ float rr_grid_identity()
{
	return OP == 0 ? 0.0f : OP == 1 ? -INFINITY : INFINITY;
}
__shared__ float rr_grid_value[2 * RED_SLOTS]; /* [parity][slot] */
/* A combined value to every thread of the block: where warp 0 alone combined
 * (RR_GRID_ONE_WARP), thread 0's through rr_grid_value[at]. */
__device__ __forceinline__ float rr_grid_hand(const float v, const int at)
{
	if (!RR_GRID_ONE_WARP)
		return v;
	if (threadIdx.x == 0)
		rr_grid_value[at] = v;
	__syncthreads();
	return rr_grid_value[at];
}
template <int OP>
__device__ __forceinline__ float rr_grid_reduce(const float *p, const int at)
{
	float v = 0.0f;
	if (!RR_GRID_ONE_WARP || threadIdx.x < 32) {
		const int lane = (int)(threadIdx.x & (RR_GRID_LANES - 1));
		float part[RR_GRID_LOADS];
		#pragma unroll
		for (int k = 0; k < RR_GRID_LOADS; k++)
			part[k] = rr_grid_load(p, lane + 32 * k, rr_grid_identity<OP>());
		v = part[0];
		#pragma unroll
		for (int k = 1; k < RR_GRID_LOADS; k++)
			v = rr_grid_op<OP>(v, part[k]);
		#pragma unroll
		for (int off = RR_GRID_LANES / 2; off >= 1; off /= 2)
			v = rr_grid_op<OP>(v, __shfl_xor_sync(0xffffffffu, v, off));
	}
	return rr_grid_hand(v, at);
}
/* Round 2 of a variance shift (rr__realisation.grid_shift): block b summed Q_b = sum (e -
 * c_b)^2 and T_b = sum (e - c_b) about its own mean c_b over the n_b elements of its segment
 * (N - b * SEG, between 0 and SEG). About the row's mean c, the block's sum of squares is Q_b +
 * (c_b - c)(2 T_b + n_b (c_b - c)) for any c_b: those terms, from Q_b at pq[0..C), T_b at
 * pt[0..C) and c_b at pc[0..C), in rr_grid_reduce's fixed tree, handed over at
 * rr_grid_value[at]. */
__device__ __forceinline__ float rr_grid_shifted(const float *pq, const float *pt, const float *pc,
                                                 const float c, const int at)
{
	float v = 0.0f;
	if (!RR_GRID_ONE_WARP || threadIdx.x < 32) {
		const int lane = (int)(threadIdx.x & (RR_GRID_LANES - 1));
		float q[RR_GRID_LOADS], t[RR_GRID_LOADS], cb[RR_GRID_LOADS];
		#pragma unroll
		for (int k = 0; k < RR_GRID_LOADS; k++) {
			/* past C: (0, 0, c), a term of 0 */
			q[k] = rr_grid_load(pq, lane + 32 * k, 0.0f);
			t[k] = rr_grid_load(pt, lane + 32 * k, 0.0f);
			cb[k] = rr_grid_load(pc, lane + 32 * k, c);
		}
		#pragma unroll
		for (int k = 0; k < RR_GRID_LOADS; k++) {
			const long long left = (long long)N - (long long)(lane + 32 * k) * SEG;
			const float nb = (float)(left < 0 ? 0 : left < SEG ? left : SEG);
			const float dc = cb[k] - c;
			const float term = q[k] + dc * (2.0f * t[k] + nb * dc);
			v = k == 0 ? term : v + term;
		}
		#pragma unroll
		for (int off = RR_GRID_LANES / 2; off >= 1; off /= 2)
			v = v + __shfl_xor_sync(0xffffffffu, v, off);
	}
	return rr_grid_hand(v, at);
}
/* An online (max, sum) pair: maxima at pm[0..C), sums at pz[0..C), in the same tree (handed
 * over at rr_grid_value[at] and [at + 1]). */
__device__ __forceinline__ void rr_grid_online(float &m, float &z, const float *pm, const float *pz,
                                               const int at)
{
	if (!RR_GRID_ONE_WARP || threadIdx.x < 32) {
		const int lane = (int)(threadIdx.x & (RR_GRID_LANES - 1));
		float pmk[RR_GRID_LOADS], pzk[RR_GRID_LOADS];
		#pragma unroll
		for (int k = 0; k < RR_GRID_LOADS; k++) {
			pmk[k] = rr_grid_load(pm, lane + 32 * k, -INFINITY);
			pzk[k] = rr_grid_load(pz, lane + 32 * k, 0.0f);
		}
		m = pmk[0];
		z = pzk[0];
		#pragma unroll
		for (int k = 1; k < RR_GRID_LOADS; k++)
			rr_online_combine(m, z, pmk[k], pzk[k]);
		#pragma unroll
		for (int off = RR_GRID_LANES / 2; off >= 1; off /= 2) {
			const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
			const float z2 = __shfl_xor_sync(0xffffffffu, z, off);
			rr_online_combine(m, z, m2, z2);
		}
	}
	if (!RR_GRID_ONE_WARP)
		return;
	if (threadIdx.x == 0) {
		rr_grid_value[at] = m;
		rr_grid_value[at + 1] = z;
	}
	__syncthreads();
	m = rr_grid_value[at];
	z = rr_grid_value[at + 1];
}
