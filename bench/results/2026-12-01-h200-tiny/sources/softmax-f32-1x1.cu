/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   softmax, N = 1
 * dtype    f32 in memory, f32 arithmetic and accumulation
 * plan     W=1,V=1,U=1,R=1,C=1,S=regs,G=rows
 * block    1 threads = W 1 x R 1; one block per row group grid
 * map      element i = (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   4 bytes per global access in rr_softmax_scalar, element by element
 * tree     xor offsets none (shuffles below 32, shared memory across warps)
 * rounds   1
 *   round 1: s1 = (online pair) max(x)
 *   round 1: s4 = (online pair) sum(exp((x - m)))
 * storage  registers (private arrays, unrolled indices)
 *   kept: x
 *
 * kernel text:
 *   # Softmax along the row. max and sum(exp(x - m)) fuse into one online pass.
 *   kernel softmax
 *     in  x : row
 *     out y : row
 *     m = max(x)
 *     s = sum(exp(x - m))
 *     y = exp(x - m) / s
 */
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)

constexpr int N = 1;  /* the row length, baked in */
constexpr int W = 1;  /* workers per row */
constexpr int V = 1;  /* consecutive elements per worker access (a pack) */
constexpr int U = 1;  /* chunks whose loads are issued together */
constexpr int R = 1;  /* rows per block */
constexpr int C = 1;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
constexpr int MIN_BLOCKS = 32;  /* resident blocks per SM the register cap allows */
constexpr int WARPS = 1;  /* warps per row in the shared-memory stage */
constexpr int RED_SLOTS = 2;  /* partials per row over all rounds */
constexpr unsigned RR_MASK = 0x1u;  /* the block's 1 lanes */

typedef float io_t;
__device__ __forceinline__ float rr_in(io_t v) { return v; }
__device__ __forceinline__ io_t rr_out(float v) { return v; }

/* One pack of V elements at p (VEC: 4-byte accesses). */
template <bool VEC>
__device__ __forceinline__ void rr_load(float (&v)[V], const io_t *p)
{
	{
		#pragma unroll
		for (int e = 0; e < V; e++)
			v[e] = rr_in(__ldg(p + e));
	}
}
template <bool VEC>
__device__ __forceinline__ void rr_store(io_t *p, const float (&v)[V])
{
	{
		#pragma unroll
		for (int e = 0; e < V; e++)
			p[e] = rr_out(v[e]);
	}
}
/* The pack at the end of the row: `valid` of its elements exist. */
template <bool VEC>
__device__ __forceinline__ void rr_load_tail(float (&v)[V], const io_t *p, int valid)
{
	if (valid >= V) {
		rr_load<VEC>(v, p);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		v[e] = e < valid ? rr_in(__ldg(p + e)) : 0.0f;
}
template <bool VEC>
__device__ __forceinline__ void rr_store_tail(io_t *p, const float (&v)[V], int valid)
{
	if (valid >= V) {
		rr_store<VEC>(p, v);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			p[e] = rr_out(v[e]);
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
	float sum = z * __expf(m - base);
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			sum += __expf(v[e] - base);
	z = sum;
	m = m_new;
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

/* The launch arguments, in the kernel's input order, then its outputs. */
struct rr_args {
	const io_t *in0; /* x: row */
	io_t *out0; /* y: row */
};

/* One row, or the segment [seg_begin, seg_begin + LEN) of it that this block of a cluster owns. */
template <bool VEC, bool HEADED, int LEN>
__device__ __forceinline__ void rr_row(const rr_args &a, const long long row, const bool live, const int worker,
					   const int rig, const int seg_begin, const int parity, float *red, float *cl, float *keep)
{
	constexpr int FULL = LEN / (W * V); /* the most chunks where every worker has a complete pack */
	constexpr int REM = LEN % (W * V); /* elements of the last chunk without a head */
	constexpr int CH = FULL + (REM > 0 ? 1 : 0); /* packs a worker owns at most */
	constexpr int UL = U; /* chunks per iteration */
	(void)rig, (void)parity, (void)red, (void)cl, (void)keep, (void)CH;
	constexpr int h = 0; /* no head: packs are single elements */
	const io_t *x0 = a.in0 + row * N + seg_begin; /* x */
	io_t *y0 = a.out0 + row * N + seg_begin; /* y */
	float k0[CH > 0 ? CH : 1][V]; /* kept in registers */
	/* round 1: each worker accumulates its slots in order */
	float m1 = -INFINITY, z4 = 0.0f; /* online max s1, sum s4 */
	#pragma unroll
	for (int c0 = 0; c0 < FULL; c0 += UL) {
		float ld0[UL][V];
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int at = h + ((c0 + u) * W + worker) * V;
				rr_load<VEC>(ld0[u], x0 + at);
			}
		}
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int c = c0 + u;
				float e0[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[u][e]; /* x */
					k0[c][e] = e0[e];
				}
				rr_online_add(m1, z4, e0, V);
			}
		}
	}
	if constexpr (REM > 0) {
		if (worker * V < REM) {
			const int c = FULL;
			const int at = h + (FULL * W + worker) * V;
			const int valid = LEN - at; /* elements of this pack in the row */
			float ld0[1][V];
			rr_load_tail<VEC>(ld0[0], x0 + at, valid);
			float e0[V];
			#pragma unroll
			for (int e = 0; e < V; e++) {
				e0[e] = ld0[0][e]; /* x */
				k0[c][e] = e0[e];
			}
			rr_online_add(m1, z4, e0, valid);
		}
	}
	/* round 1 across workers: xor (none: one worker) */
	const float s1 = m1;
	const float s4 = z4;
	/* output phase: each worker writes the elements it owns */
	#pragma unroll
	for (int c0 = 0; c0 < FULL; c0 += UL) {
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int c = c0 + u;
				const int at = h + ((c0 + u) * W + worker) * V;
				float e0[V], e2[V], e3[V], e5[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = k0[c][e];
					e2[e] = e0[e] - s1;
					e3[e] = __expf(e2[e]);
					e5[e] = e3[e] * (1.0f / s4);
				}
				if (live)
					rr_store<VEC>(y0 + at, e5); /* y */
			}
		}
	}
	if constexpr (REM > 0) {
		if (worker * V < REM) {
			const int c = FULL;
			const int at = h + (FULL * W + worker) * V;
			const int valid = LEN - at; /* elements of this pack in the row */
			float e0[V], e2[V], e3[V], e5[V];
			#pragma unroll
			for (int e = 0; e < V; e++) {
				e0[e] = k0[c][e];
				e2[e] = e0[e] - s1;
				e3[e] = __expf(e2[e]);
				e5[e] = e3[e] * (1.0f / s4);
			}
			if (live)
				rr_store_tail<VEC>(y0 + at, e5, valid); /* y */
		}
	}
}


template <bool VEC, bool HEADED>
__device__ __forceinline__ void rr_main(const rr_args &a, const long long rows)
{
	const int worker = threadIdx.x % W;
	const int rig = threadIdx.x / W; /* row in group */
	const long long step = gridDim.x / C;
	int parity = 0; /* scratch slots alternate between groups */
	for (long long group = blockIdx.x / C; group * R < rows; group += step) {
		const long long wanted = group * R + rig;
		const bool live = wanted < rows;
		const long long row = live ? wanted : rows - 1; /* idle rows compute, never store */
		rr_row<VEC, HEADED, N>(a, row, live, worker, rig, 0, parity, nullptr, nullptr, nullptr);
		parity ^= 1;
	}
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_softmax_scalar(const io_t *__restrict__ in0, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, out0};
	rr_main<false, false>(a, rows);
}
#if !defined(__CUDA_ARCH__)
extern "C" void rr_sim_entry(int vec, void **params)
{
	const rr_args a = {*(const io_t *const *)params[0], *(io_t *const *)params[1]};
	const long long rows = *(const long long *)params[2];
	(void)vec, rr_main<false, false>(a, rows);
}
#endif
