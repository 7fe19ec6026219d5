/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   rmsnorm, N = 1
 * dtype    bf16 in memory, f32 arithmetic and accumulation
 * plan     W=1,V=1,U=1,R=256,C=1,S=regs,G=rows
 * block    256 threads = W 1 x R 256; one block per row group grid
 * map      element i = (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   2 bytes per global access in rr_rmsnorm_scalar, element by element
 * tree     xor offsets none (shuffles below 32, shared memory across warps)
 * rounds   1
 *   round 1: s4 = sum((x * x))
 * storage  registers (private arrays, unrolled indices)
 *   kept: x
 *
 * kernel text:
 *   # RMSNorm: y = x / sqrt(mean(x^2) + eps) * w
 *   kernel rmsnorm
 *     in    x : row
 *     in    w : col
 *     param eps = 1e-6
 *     out   y : row
 *     ss  = sum(x * x)
 *     inv = rsqrt(ss / N + eps)
 *     y   = x * inv * w
 */
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)

constexpr int N = 1;  /* the row length, baked in */
constexpr int W = 1;  /* workers per row */
constexpr int V = 1;  /* consecutive elements per worker access (a pack) */
constexpr int U = 1;  /* chunks whose loads are issued together */
constexpr int R = 256;  /* rows per block */
constexpr int C = 1;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
constexpr int MIN_BLOCKS = 4;  /* resident blocks per SM the register cap allows */
constexpr int WARPS = 1;  /* warps per row in the shared-memory stage */
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

/* One pack of V elements at p (VEC: 2-byte accesses). */
template <bool VEC>
__device__ __forceinline__ void rr_load(float (&v)[V], const io_t *p)
{
	{
		#pragma unroll
		for (int e = 0; e < V; e++)
			v[e] = rr_in(__ldg(p + e));
	}
}
template <bool VEC, bool ONE = true>
__device__ __forceinline__ void rr_store(io_t *p, const float (&v)[V])
{
	{
		#pragma unroll
		for (int e = 0; e < V; e++)
			p[e] = rr_out(v[e]);
	}
}
/* The pack at the end of the row: `valid` of its elements exist. Where `room` says that the
 * whole pack lies inside the input array (the rows after this one), a partial pack is read
 * with the plan's accesses like a complete one, so that all the workers of a warp take the
 * same path; its elements past `valid` then hold the next row's values, which every use
 * skips (each accumulation and store of a partial pack is guarded by `valid`). */
template <bool VEC>
__device__ __forceinline__ void rr_load_tail(float (&v)[V], const io_t *p, int valid, bool room)
{
	if (valid >= V || (VEC && room)) {
		rr_load<VEC>(v, p);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		v[e] = e < valid ? rr_in(__ldg(p + e)) : 0.0f;
}
template <bool VEC, bool ONE = true>
__device__ __forceinline__ void rr_store_tail(io_t *p, const float (&v)[V], int valid)
{
	if (valid >= V) {
		rr_store<VEC, ONE>(p, v);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			p[e] = rr_out(v[e]);
}

/* exp(x) for generated kernels: one multiply and the hardware's base-2 exponential with
 * subnormal results flushed to zero (values below 2^-126, about 1.2e-38: far inside every
 * output tolerance). __expf compiles to ex2.approx without the flush, which ptxas guards with a
 * range test and two multiplies an element (softmax bf16 4096x32768: 25 SASS instructions an
 * element, 8.5 of them FMUL). The error is __expf's: that of ex2.approx plus the rounding of
 * x * log2(e). The host simulation (tests/cuda_sim.h) computes expf. */
__device__ __forceinline__ float rr_exp(float x)
{
#if defined(__CUDA_ARCH__)
	float y;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.44269504088896341f));
	return y;
#else
	return expf(x);
#endif
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
	float sum = z * rr_exp(m - base);
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			sum += rr_exp(v[e] - base);
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
			z += rr_exp(v[e] - base);
}
/* The same sum, keeping each exp(v - base) in place of v (the kept exponentials of
 * src/codegen/cuda_emit_row.c: a later phase scales them instead of computing them again). */
__device__ __forceinline__ void rr_online_sum_keep(float &z, float (&v)[V], float base, int valid)
{
	#pragma unroll
	for (int e = 0; e < V; e++) {
		if (e < valid) {
			v[e] = rr_exp(v[e] - base);
			z += v[e];
		}
	}
}
/* Two partials combined; symmetric in its operands (no fused multiply-add),
 * so both lanes of a butterfly get the same bits. */
__device__ __forceinline__ void rr_online_combine(float &m, float &z, float m2, float z2)
{
	const float m_new = fmaxf(m, m2);
	const float base = m_new == -INFINITY ? 0.0f : m_new;
	z = __fmul_rn(z, rr_exp(m - base)) + __fmul_rn(z2, rr_exp(m2 - base));
	m = m_new;
}

/* The launch arguments, in the kernel's input order, then its outputs. */
struct rr_args {
	const io_t *in0; /* x: row */
	const io_t *in1; /* w: col */
	float in2; /* eps: param */
	io_t *out0; /* y: row */
};

/* One row, or the segment [seg_begin, seg_begin + LEN) of it that this block of a cluster owns. */
template <bool VEC, bool HEADED, int LEN, bool TWIN>
__device__ __forceinline__ void rr_row(const rr_args &a, const long long rows, const long long row, const bool live,
					   const int worker, const int rig, const int seg_begin, const int parity, float *red, float *cl, float *keep)
{
	constexpr int FULL = LEN / (W * V); /* the most chunks where every worker has a complete pack */
	constexpr int REM = LEN % (W * V); /* elements of the last chunk without a head */
	constexpr int CH = FULL + (REM > 0 ? 1 : 0); /* packs a worker owns at most */
	constexpr int UL = U; /* chunks per iteration */
	const bool room = (rows - row) * N - seg_begin >= (long long)LEN + V - 1; /* a row array holds a pack past any of this row's (or segment's) elements */
	(void)rig, (void)parity, (void)red, (void)cl, (void)keep, (void)CH, (void)room;
	constexpr int h = 0; /* no head: packs are single elements */
	const io_t *x0 = a.in0 + row * N + seg_begin; /* x */
	const io_t *x1 = a.in1 + seg_begin; /* w */
	io_t *y0 = a.out0 + row * N + seg_begin; /* y */
	const float s2 = a.in2; /* eps */
	const float s5 = (float)N;
	float k0[CH > 0 ? CH : 1][V]; /* kept in registers */
	/* round 1: each worker accumulates its slots in order */
	float acc4 = 0.0f; /* sum */
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
				float e0[V], e3[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[u][e]; /* x */
					e3[e] = e0[e] * e0[e];
					k0[c][e] = e0[e];
					acc4 = acc4 + e3[e];
				}
			}
		}
	}
	if constexpr (REM > 0) {
		if (worker * V < REM) {
			const int c = FULL;
			const int at = h + (FULL * W + worker) * V;
			const int valid = LEN - at; /* elements of this pack in the row */
			float ld0[1][V];
			rr_load_tail<VEC>(ld0[0], x0 + at, valid, room);
			float e0[V], e3[V];
			#pragma unroll
			for (int e = 0; e < V; e++) {
				e0[e] = ld0[0][e]; /* x */
				e3[e] = e0[e] * e0[e];
				k0[c][e] = e0[e];
				if (e < valid) acc4 = acc4 + e3[e];
			}
		}
	}
	/* round 1 across workers: xor (none: one worker) */
	const float s4 = acc4;
	const float s6 = s4 / s5;
	const float s7 = s6 + s2;
	const float s8 = rsqrtf(s7);
	/* output phase: each worker writes the elements it owns */
	#pragma unroll
	for (int c0 = 0; c0 < FULL; c0 += UL) {
		float ld1[UL][V];
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int at = h + ((c0 + u) * W + worker) * V;
				rr_load<VEC>(ld1[u], x1 + at);
			}
		}
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int c = c0 + u;
				const int at = h + ((c0 + u) * W + worker) * V;
				float e0[V], e1[V], e9[V], e10[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = k0[c][e];
					e1[e] = ld1[u][e]; /* w */
					e9[e] = e0[e] * s8;
					e10[e] = e9[e] * e1[e];
				}
				if (live)
					rr_store<VEC, false>(y0 + at, e10); /* y */
			}
		}
	}
	if constexpr (REM > 0) {
		if (worker * V < REM) {
			const int c = FULL;
			const int at = h + (FULL * W + worker) * V;
			const int valid = LEN - at; /* elements of this pack in the row */
			float ld1[1][V];
			rr_load_tail<VEC>(ld1[0], x1 + at, valid, room);
			float e0[V], e1[V], e9[V], e10[V];
			#pragma unroll
			for (int e = 0; e < V; e++) {
				e0[e] = k0[c][e];
				e1[e] = ld1[0][e]; /* w */
				e9[e] = e0[e] * s8;
				e10[e] = e9[e] * e1[e];
			}
			if (live)
				rr_store_tail<VEC, false>(y0 + at, e10, valid); /* y */
		}
	}
}


template <bool VEC, bool HEADED, bool TWIN = false>
__device__ __forceinline__ void rr_main(const rr_args &a, const long long rows)
{
	const int worker = threadIdx.x % W;
	const int rig = threadIdx.x / W; /* row in group */
	const long long step = gridDim.x / C;
	int parity = 0; /* scratch slots alternate between groups */
	long long group = blockIdx.x / C;
	for (; group * R < rows; group += step) {
		const long long wanted = group * R + rig;
		const bool live = wanted < rows;
		const long long row = live ? wanted : rows - 1; /* idle rows compute, never store */
		rr_row<VEC, HEADED, N, TWIN>(a, rows, row, live, worker, rig, 0, parity, nullptr, nullptr, nullptr);
		parity ^= 1;
	}
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_rmsnorm_scalar(const io_t *__restrict__ in0, const io_t *__restrict__ in1, const float in2, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, in1, in2, out0};
	rr_main<false, false>(a, rows);
}
/* (the host simulation entry rr_sim_entry removed for nvcc) */
