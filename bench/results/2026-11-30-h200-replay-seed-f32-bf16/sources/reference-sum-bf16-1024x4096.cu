/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   sum, N = 4096
 * dtype    bf16 in memory, f32 arithmetic and accumulation
 * plan     W=128,V=8,U=4,R=1,C=1,S=regs,G=rows
 * block    128 threads = W 128 x R 1; one block per row group grid
 * map      element i = (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   16 bytes per global access in rr_sum_vec, element by element in rr_sum_scalar
 * tree     xor offsets 16 8 4 2 1 64 32 (shuffles below 32, shared memory across warps)
 * rounds   1
 *   round 1: s1 = sum(x)
 * storage  nothing kept (one phase, or re-read)
 *
 * kernel text:
 *   # Row sum: one value per row.
 *   kernel sum
 *     in  x : row
 *     out s : rowscalar
 *     s = sum(x)
 */
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)

constexpr int N = 4096;  /* the row length, baked in */
constexpr int W = 128;  /* workers per row */
constexpr int V = 8;  /* consecutive elements per worker access (a pack) */
constexpr int U = 4;  /* chunks whose loads are issued together */
constexpr int R = 1;  /* rows per block */
constexpr int C = 1;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
constexpr int MIN_BLOCKS = 6;  /* resident blocks per SM the register cap allows */
constexpr int WARPS = 4;  /* warps per row in the shared-memory stage */
constexpr int RED_SLOTS = 1;  /* partials per row over all rounds */
constexpr unsigned RR_MASK = 0xffffffffu;  /* lanes in shuffles */

typedef unsigned short io_t; /* bfloat16 bits */
__device__ __forceinline__ float rr_in(io_t v) { return __uint_as_float((unsigned)v << 16); }
__device__ __forceinline__ io_t rr_out(float v) /* nearest even */
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	io_t h;
	asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
	return h;
#else
	const unsigned u = __float_as_uint(v);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (io_t)((u >> 16) | 0x40u); /* NaN stays NaN */
	return (io_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
}
/* Two elements in one 32-bit word, the lower address in the low half. */
__device__ __forceinline__ void rr_in2(unsigned w, float &lo, float &hi)
{
	lo = __uint_as_float(w << 16);
	hi = __uint_as_float(w & 0xffff0000u);
}
__device__ __forceinline__ unsigned rr_out2(float lo, float hi)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	unsigned w;
	asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
	return w;
#else
	return (unsigned)rr_out(lo) | ((unsigned)rr_out(hi) << 16);
#endif
}

/* One pack of V elements at p (VEC: 16-byte accesses). */
template <bool VEC>
__device__ __forceinline__ void rr_load(float (&v)[V], const io_t *p)
{
	if constexpr (VEC) {
		#pragma unroll
		for (int k = 0; k < V / 8; k++) {
			const uint4 w = __ldg(reinterpret_cast<const uint4 *>(p) + k);
			rr_in2(w.x, v[k * 8 + 0], v[k * 8 + 1]);
			rr_in2(w.y, v[k * 8 + 2], v[k * 8 + 3]);
			rr_in2(w.z, v[k * 8 + 4], v[k * 8 + 5]);
			rr_in2(w.w, v[k * 8 + 6], v[k * 8 + 7]);
		}
	} else {
		#pragma unroll
		for (int e = 0; e < V; e++)
			v[e] = rr_in(__ldg(p + e));
	}
}
template <bool VEC>
__device__ __forceinline__ void rr_store(io_t *p, const float (&v)[V])
{
	if constexpr (VEC) {
		#pragma unroll
		for (int k = 0; k < V / 8; k++) {
			uint4 w;
			w.x = rr_out2(v[k * 8 + 0], v[k * 8 + 1]);
			w.y = rr_out2(v[k * 8 + 2], v[k * 8 + 3]);
			w.z = rr_out2(v[k * 8 + 4], v[k * 8 + 5]);
			w.w = rr_out2(v[k * 8 + 6], v[k * 8 + 7]);
			reinterpret_cast<uint4 *>(p)[k] = w;
		}
	} else {
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
	io_t *out0; /* s: rowscalar */
};

/* One row, or the segment [seg_begin, seg_begin + LEN) of it that this block of a cluster owns. */
template <bool VEC, int LEN>
__device__ __forceinline__ void rr_row(const rr_args &a, const long long row, const bool live, const int worker,
					   const int rig, const int seg_begin, const int parity, float *red, float *cl, float *keep)
{
	constexpr int FULL = LEN / (W * V); /* chunks where every worker has a complete pack */
	constexpr int REM = LEN % (W * V); /* elements of the last, partial chunk */
	constexpr int CH = FULL + (REM > 0 ? 1 : 0); /* packs a worker owns at most */
	const int lane = threadIdx.x & 31;
	(void)rig, (void)parity, (void)red, (void)cl, (void)keep, (void)CH;
	const io_t *x0 = a.in0 + row * N + seg_begin; /* x */
	/* round 1: each worker accumulates its slots in order */
	float acc1 = 0.0f; /* sum */
	#pragma unroll 1
	for (int c0 = 0; c0 < FULL; c0 += U) {
		float ld0[U][V];
		#pragma unroll
		for (int u = 0; u < U; u++) {
			if (c0 + u < FULL) {
				const int at = ((c0 + u) * W + worker) * V;
				rr_load<VEC>(ld0[u], x0 + at);
			}
		}
		#pragma unroll
		for (int u = 0; u < U; u++) {
			if (c0 + u < FULL) {
				float e0[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[u][e]; /* x */
					acc1 = acc1 + e0[e];
				}
			}
		}
	}
	if constexpr (REM > 0) {
		if (worker * V < REM) {
			const int at = (FULL * W + worker) * V;
			const int valid = LEN - at; /* elements of this pack in the row */
			float ld0[1][V];
			rr_load_tail<VEC>(ld0[0], x0 + at, valid);
			float e0[V];
			#pragma unroll
			for (int e = 0; e < V; e++) {
				e0[e] = ld0[0][e]; /* x */
				if (e < valid) acc1 = acc1 + e0[e];
			}
		}
	}
	/* round 1 across workers: xor 16 8 4 2 1 64 32 */
	acc1 = acc1 + __shfl_xor_sync(RR_MASK, acc1, 16);
	acc1 = acc1 + __shfl_xor_sync(RR_MASK, acc1, 8);
	acc1 = acc1 + __shfl_xor_sync(RR_MASK, acc1, 4);
	acc1 = acc1 + __shfl_xor_sync(RR_MASK, acc1, 2);
	acc1 = acc1 + __shfl_xor_sync(RR_MASK, acc1, 1);
	if (lane == 0) {
		red[((parity * RED_SLOTS + 0) * R + rig) * WARPS + (worker >> 5)] = acc1;
	}
	__syncthreads();
	acc1 = red[((parity * RED_SLOTS + 0) * R + rig) * WARPS + (lane & (WARPS - 1))];
	acc1 = acc1 + __shfl_xor_sync(RR_MASK, acc1, 2);
	acc1 = acc1 + __shfl_xor_sync(RR_MASK, acc1, 1);
	const float s1 = acc1;
	if (live && worker == 0) {
		a.out0[row] = rr_out(s1); /* s */
	}
}

__shared__ float rr_red[2 * RED_SLOTS * R * WARPS]; /* [parity][slot][row][warp] */

template <bool VEC>
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
		rr_row<VEC, N>(a, row, live, worker, rig, 0, parity, rr_red, nullptr, nullptr);
		parity ^= 1;
	}
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_sum_vec(const io_t *__restrict__ in0, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, out0};
	rr_main<true>(a, rows);
}
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_sum_scalar(const io_t *__restrict__ in0, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, out0};
	rr_main<false>(a, rows);
}
#if !defined(__CUDA_ARCH__)
extern "C" void rr_sim_entry(int vec, void **params)
{
	const rr_args a = {*(const io_t *const *)params[0], *(io_t *const *)params[1]};
	const long long rows = *(const long long *)params[2];
	if (vec)
		rr_main<true>(a, rows);
	else
		rr_main<false>(a, rows);
}
#endif
