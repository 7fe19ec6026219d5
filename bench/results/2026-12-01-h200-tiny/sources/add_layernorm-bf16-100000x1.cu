/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   add_layernorm, N = 1
 * dtype    bf16 in memory, f32 arithmetic and accumulation
 * plan     W=1,V=1,U=1,R=512,C=1,S=regs,G=rows
 * block    512 threads = W 1 x R 512; one block per row group grid
 * map      element i = (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   2 bytes per global access in rr_add_layernorm_scalar, element by element
 * tree     xor offsets none (shuffles below 32, shared memory across warps)
 * rounds   2
 *   round 1: s6 = sum(h)
 *   round 2: s11 = sum((d * d))
 * storage  registers (private arrays, unrolled indices)
 *   kept: (x + r)
 *
 * kernel text:
 *   # Residual add + LayerNorm: h = x + r is written out and normalised.
 *   kernel add_layernorm
 *     in    x : row
 *     in    r : row
 *     in    w : col
 *     in    b : col
 *     param eps = 1e-5
 *     out   y : row
 *     out   h : row
 *     h    = x + r
 *     mean = sum(h) / N
 *     d    = h - mean
 *     var  = sum(d * d) / N
 *     inv  = rsqrt(var + eps)
 *     y    = d * inv * w + b
 */
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)

constexpr int N = 1;  /* the row length, baked in */
constexpr int W = 1;  /* workers per row */
constexpr int V = 1;  /* consecutive elements per worker access (a pack) */
constexpr int U = 1;  /* chunks whose loads are issued together */
constexpr int R = 512;  /* rows per block */
constexpr int C = 1;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
constexpr int MIN_BLOCKS = 2;  /* resident blocks per SM the register cap allows */
constexpr int WARPS = 1;  /* warps per row in the shared-memory stage */
constexpr int RED_SLOTS = 2;  /* partials per row over all rounds */
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
	const io_t *in1; /* r: row */
	const io_t *in2; /* w: col */
	const io_t *in3; /* b: col */
	float in4; /* eps: param */
	io_t *out0; /* y: row */
	io_t *out1; /* h: row */
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
	const io_t *x1 = a.in1 + row * N + seg_begin; /* r */
	const io_t *x2 = a.in2 + seg_begin; /* w */
	const io_t *x3 = a.in3 + seg_begin; /* b */
	io_t *y0 = a.out0 + row * N + seg_begin; /* y */
	io_t *y1 = a.out1 + row * N + seg_begin; /* h */
	const float s4 = a.in4; /* eps */
	const float s7 = (float)N;
	float k5[CH > 0 ? CH : 1][V]; /* kept in registers */
	/* round 1: each worker accumulates its slots in order */
	float acc6 = 0.0f; /* sum */
	#pragma unroll
	for (int c0 = 0; c0 < FULL; c0 += UL) {
		float ld0[UL][V];
		float ld1[UL][V];
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int at = h + ((c0 + u) * W + worker) * V;
				rr_load<VEC>(ld0[u], x0 + at);
				rr_load<VEC>(ld1[u], x1 + at);
			}
		}
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int c = c0 + u;
				float e0[V], e1[V], e5[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[u][e]; /* x */
					e1[e] = ld1[u][e]; /* r */
					e5[e] = e0[e] + e1[e];
					k5[c][e] = e5[e];
					acc6 = acc6 + e5[e];
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
			rr_load_tail<VEC>(ld0[0], x0 + at, valid);
			float ld1[1][V];
			rr_load_tail<VEC>(ld1[0], x1 + at, valid);
			float e0[V], e1[V], e5[V];
			#pragma unroll
			for (int e = 0; e < V; e++) {
				e0[e] = ld0[0][e]; /* x */
				e1[e] = ld1[0][e]; /* r */
				e5[e] = e0[e] + e1[e];
				k5[c][e] = e5[e];
				if (e < valid) acc6 = acc6 + e5[e];
			}
		}
	}
	/* round 1 across workers: xor (none: one worker) */
	const float s6 = acc6;
	const float s8 = s6 / s7;
	/* round 2: each worker accumulates its slots in order */
	float acc11 = 0.0f; /* sum */
	#pragma unroll
	for (int c0 = 0; c0 < FULL; c0 += UL) {
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int c = c0 + u;
				float e5[V], e9[V], e10[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e5[e] = k5[c][e];
					e9[e] = e5[e] - s8;
					e10[e] = e9[e] * e9[e];
					acc11 = acc11 + e10[e];
				}
			}
		}
	}
	if constexpr (REM > 0) {
		if (worker * V < REM) {
			const int c = FULL;
			const int at = h + (FULL * W + worker) * V;
			const int valid = LEN - at; /* elements of this pack in the row */
			float e5[V], e9[V], e10[V];
			#pragma unroll
			for (int e = 0; e < V; e++) {
				e5[e] = k5[c][e];
				e9[e] = e5[e] - s8;
				e10[e] = e9[e] * e9[e];
				if (e < valid) acc11 = acc11 + e10[e];
			}
		}
	}
	/* round 2 across workers: xor (none: one worker) */
	const float s11 = acc11;
	const float s12 = s11 / s7;
	const float s13 = s12 + s4;
	const float s14 = rsqrtf(s13);
	/* output phase: each worker writes the elements it owns */
	#pragma unroll
	for (int c0 = 0; c0 < FULL; c0 += UL) {
		float ld2[UL][V];
		float ld3[UL][V];
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int at = h + ((c0 + u) * W + worker) * V;
				rr_load<VEC>(ld2[u], x2 + at);
				rr_load<VEC>(ld3[u], x3 + at);
			}
		}
		#pragma unroll
		for (int u = 0; u < UL; u++) {
			if (c0 + u < FULL) {
				const int c = c0 + u;
				const int at = h + ((c0 + u) * W + worker) * V;
				float e2[V], e3[V], e5[V], e9[V], e15[V], e16[V], e17[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e2[e] = ld2[u][e]; /* w */
					e3[e] = ld3[u][e]; /* b */
					e5[e] = k5[c][e];
					e9[e] = e5[e] - s8;
					e15[e] = e9[e] * s14;
					e16[e] = e15[e] * e2[e];
					e17[e] = e16[e] + e3[e];
				}
				if (live)
					rr_store<VEC>(y0 + at, e17); /* y */
				if (live)
					rr_store<VEC>(y1 + at, e5); /* h */
			}
		}
	}
	if constexpr (REM > 0) {
		if (worker * V < REM) {
			const int c = FULL;
			const int at = h + (FULL * W + worker) * V;
			const int valid = LEN - at; /* elements of this pack in the row */
			float ld2[1][V];
			rr_load_tail<VEC>(ld2[0], x2 + at, valid);
			float ld3[1][V];
			rr_load_tail<VEC>(ld3[0], x3 + at, valid);
			float e2[V], e3[V], e5[V], e9[V], e15[V], e16[V], e17[V];
			#pragma unroll
			for (int e = 0; e < V; e++) {
				e2[e] = ld2[0][e]; /* w */
				e3[e] = ld3[0][e]; /* b */
				e5[e] = k5[c][e];
				e9[e] = e5[e] - s8;
				e15[e] = e9[e] * s14;
				e16[e] = e15[e] * e2[e];
				e17[e] = e16[e] + e3[e];
			}
			if (live)
				rr_store_tail<VEC>(y0 + at, e17, valid); /* y */
			if (live)
				rr_store_tail<VEC>(y1 + at, e5, valid); /* h */
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

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_add_layernorm_scalar(const io_t *__restrict__ in0, const io_t *__restrict__ in1, const io_t *__restrict__ in2, const io_t *__restrict__ in3, const float in4, io_t *__restrict__ out0, io_t *__restrict__ out1, const long long rows)
{
	const rr_args a = {in0, in1, in2, in3, in4, out0, out1};
	rr_main<false, false>(a, rows);
}
#if !defined(__CUDA_ARCH__)
extern "C" void rr_sim_entry(int vec, void **params)
{
	const rr_args a = {*(const io_t *const *)params[0], *(const io_t *const *)params[1], *(const io_t *const *)params[2], *(const io_t *const *)params[3], *(const float *)params[4], *(io_t *const *)params[5], *(io_t *const *)params[6]};
	const long long rows = *(const long long *)params[7];
	(void)vec, rr_main<false, false>(a, rows);
}
#endif
