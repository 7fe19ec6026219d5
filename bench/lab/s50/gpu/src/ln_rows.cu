/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   layernorm, N = 6143
 * dtype    bf16 in memory, f32 arithmetic and accumulation
 * plan     W=128,V=8,U=1,R=1,C=1,S=regs,G=rows
 * block    128 threads = W 128 x R 1; one block per row group grid
 * map      head: the h < 8 elements before the row's first 16-byte boundary (of its first
 *          row array): element j = t * W + W - 1 - worker, t < HS = 1, never kept;
 *          body: element i = h + (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   16 bytes per global access in rr_layernorm_head (col inputs: the aligned blocks that cover a
 *          pack, shifted into place: rr_load_shifted), element by element in rr_layernorm_scalar
 * tree     xor offsets 16 8 4 2 1 64 32 (shuffles below 32, shared memory across warps)
 * rounds   2
 *   round 1: s4 = sum(x)
 *   round 2: s9 = sum((d * d))
 * storage  registers (private arrays, unrolled indices)
 *   kept: x
 *
 * kernel text:
 *   # LayerNorm: mean, then the variance of the centred row (two rounds), then the affine map.
 *   kernel layernorm
 *     in    x : row
 *     in    w : col
 *     in    b : col
 *     param eps = 1e-5
 *     out   y : row
 *     mean = sum(x) / N
 *     d    = x - mean
 *     var  = sum(d * d) / N
 *     inv  = rsqrt(var + eps)
 *     y    = d * inv * w + b
 */
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)

constexpr int N = 6143;  /* the row length, baked in */
constexpr int W = 128;  /* workers per row */
constexpr int V = 8;  /* consecutive elements per worker access (a pack) */
constexpr int U = 1;  /* chunks whose loads are issued together */
constexpr int R = 1;  /* rows per block */
constexpr int C = 1;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
#ifndef RR_MIN_BLOCKS_CAPPED  /* defined by the backend's second compile where ptxas spills at these */
constexpr int MIN_BLOCKS = 6;  /* resident blocks per SM that keep 64 KB of rows in flight */
constexpr int MIN_BLOCKS_HEAD = 5;  /* the same for the entries with a head */
#else
constexpr int MIN_BLOCKS = 3;  /* resident blocks per SM the register cap allows */
constexpr int MIN_BLOCKS_HEAD = 3;
#endif
constexpr int U_HEAD = 1;  /* U of the vector entry with a head (the order of a worker's adds does not depend on U) */
constexpr int WARPS = 4;  /* warps per row in the shared-memory stage */
constexpr int HEAD_BYTES = 16;  /* a row's head runs up to its first boundary of this */
constexpr int HS = 1;  /* head elements per worker at most: ceil((HEAD_BYTES / size - 1) / W) */
constexpr int HEAD_MAX = 7;  /* the longest head, in elements */
constexpr bool COLS_VEC = false;  /* col inputs do not share the body's alignment: rr_load_shifted */
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

/* One pack of V elements at p (VEC: 16-byte accesses). */
/* One store of a pack's 16 (or 8) bytes as one PTX vector store. A uint4 built word by word and
 * assigned through a pointer may reach the device as four 4-byte stores (the generated PTX of
 * rr_store showed it for every first chunk of an unrolled group): four requests where one does,
 * each a quarter of the warp's bytes. The host simulation stores the words plainly. rr_store's
 * ONE = false keeps the plain assignment (plans that keep their values in registers). */
__device__ __forceinline__ void rr_st16(void *p, const uint4 &w)
{
#if defined(__CUDA_ARCH__)
	asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w.x), "r"(w.y), "r"(w.z),
	             "r"(w.w)
	             : "memory");
#else
	*static_cast<uint4 *>(p) = w;
#endif
}
__device__ __forceinline__ void rr_st8(void *p, const uint2 &w)
{
#if defined(__CUDA_ARCH__)
	asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(w.x), "r"(w.y) : "memory");
#else
	*static_cast<uint2 *>(p) = w;
#endif
}
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
template <bool VEC, bool ONE = true>
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
			if constexpr (ONE)
				rr_st16(reinterpret_cast<uint4 *>(p) + k, w);
			else
				reinterpret_cast<uint4 *>(p)[k] = w;
		}
	} else {
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

/* Elements of the head: from p to the first HEAD_BYTES boundary, at most len. */
__device__ __forceinline__ int rr_head(const io_t *p, int len)
{
	const unsigned misaligned = (unsigned)(reinterpret_cast<unsigned long long>(p) & (HEAD_BYTES - 1));
	const int h = (int)(((HEAD_BYTES - misaligned) & (HEAD_BYTES - 1)) / sizeof(io_t));
	return h < len ? h : len;
}
/* This worker's head elements j = t * W + (W - 1 - worker) < h, into v[t] (0 for absent ones). */
__device__ __forceinline__ void rr_load_head(float (&v)[V], const io_t *p, int worker, int h)
{
	#pragma unroll
	for (int t = 0; t < HS; t++) {
		const int j = t * W + (W - 1 - worker);
		v[t] = j < h ? rr_in(__ldg(p + j)) : 0.0f;
	}
}
__device__ __forceinline__ void rr_store_head(io_t *p, const float (&v)[V], int worker, int h)
{
	#pragma unroll
	for (int t = 0; t < HS; t++) {
		const int j = t * W + (W - 1 - worker);
		if (j < h)
			p[j] = rr_out(v[t]);
	}
}
/* A pack of 2 * WORDS elements from WORDS + 1 words that start s elements before it, s < 2
 * after the whole words were taken off (rr_load_shifted, pack_tail.cuh): an odd s takes the
 * upper half of each word and the lower half of the next. */
template <int WORDS>
__device__ __forceinline__ void rr_in_shifted(float (&v)[2 * WORDS], const unsigned (&w)[WORDS + 1], int s)
{
	const unsigned selector = (s & 1) != 0 ? 0x5432u : 0x3210u;
	#pragma unroll
	for (int k = 0; k < WORDS; k++)
		rr_in2(__byte_perm(w[k], w[k + 1], selector), v[2 * k], v[2 * k + 1]);
}
/* Col inputs where rows do not share their phase (COLS_VEC false): the packs of a row's body
 * stand s elements past a HEAD_BYTES boundary in a col input, s the same for all of the row's
 * packs. A complete pack is read as the V * size / HEAD_BYTES + 1 aligned blocks that cover it
 * and shifted into place: by whole words through selects on the bits of the word offset (every
 * index a constant, so the words stay in registers), then by half a word in 16-bit types
 * (rr_in_shifted, io_*.cuh). The bits are those of an element-by-element load. A pack whose
 * blocks would reach outside the col array's N elements (at most a row's first and last ones)
 * goes element by element. i: the pack's first element in the col array. */
constexpr int RR_PACK_WORDS = V * (int)sizeof(io_t) / 4;
constexpr int RR_BLOCK_WORDS = HEAD_BYTES / 4;
constexpr int RR_BLOCK_ELEMS = HEAD_BYTES / (int)sizeof(io_t);
template <bool VEC>
__device__ __forceinline__ void rr_load_shifted(float (&v)[V], const io_t *p, int i)
{
	const int s = (int)((reinterpret_cast<unsigned long long>(p) & (HEAD_BYTES - 1)) / sizeof(io_t));
	if (!VEC || s == 0) {
		rr_load<VEC>(v, p);
		return;
	}
	if (i < s || i - s + V + RR_BLOCK_ELEMS > N) {
		rr_load<false>(v, p);
		return;
	}
	unsigned w[RR_PACK_WORDS + RR_BLOCK_WORDS];
	#pragma unroll
	for (int b = 0; b < RR_PACK_WORDS / RR_BLOCK_WORDS + 1; b++) {
		const io_t *block = p - s + b * RR_BLOCK_ELEMS;
		if constexpr (HEAD_BYTES == 16) {
			const uint4 t = __ldg(reinterpret_cast<const uint4 *>(block));
			w[4 * b] = t.x;
			w[4 * b + 1] = t.y;
			w[4 * b + 2] = t.z;
			w[4 * b + 3] = t.w;
		} else if constexpr (HEAD_BYTES == 8) {
			const uint2 t = __ldg(reinterpret_cast<const uint2 *>(block));
			w[2 * b] = t.x;
			w[2 * b + 1] = t.y;
		} else {
			w[b] = __ldg(reinterpret_cast<const unsigned *>(block));
		}
	}
	const int words = s * (int)sizeof(io_t) / 4; /* whole words before the pack */
	#pragma unroll
	for (int bit = 1; bit < RR_BLOCK_WORDS; bit *= 2) {
		const bool take = (words & bit) != 0;
		#pragma unroll
		for (int k = 0; k + bit < RR_PACK_WORDS + RR_BLOCK_WORDS; k++)
			w[k] = take ? w[k + bit] : w[k];
	}
	unsigned pack[RR_PACK_WORDS + 1];
	#pragma unroll
	for (int k = 0; k <= RR_PACK_WORDS; k++)
		pack[k] = w[k];
	rr_in_shifted<RR_PACK_WORDS>(v, pack, s);
}
/* The pack at the end of the row of a col input read as above: `valid` of its elements exist,
 * a partial pack element by element. */
template <bool VEC>
__device__ __forceinline__ void rr_load_tail_shifted(float (&v)[V], const io_t *p, int valid, int i)
{
	if (valid >= V)
		rr_load_shifted<VEC>(v, p, i);
	else
		rr_load_tail<false>(v, p, valid, false);
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
	const io_t *in2; /* b: col */
	float in3; /* eps: param */
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
	constexpr int UL = !HEADED ? U : VEC ? U_HEAD : 1; /* chunks per iteration: fewer where the head's bounds take registers */
	const int lane = threadIdx.x & 31;
	const bool room = (rows - row) * N - seg_begin >= (long long)LEN + V - 1; /* a row array holds a pack past any of this row's (or segment's) elements */
	(void)rig, (void)parity, (void)red, (void)cl, (void)keep, (void)CH, (void)room;
	const int h = HEADED ? rr_head(a.in0 + row * N + seg_begin, LEN) : 0; /* from x */
	const io_t *x0 = a.in0 + row * N + seg_begin; /* x */
	const io_t *x1 = a.in1 + seg_begin; /* w */
	const io_t *x2 = a.in2 + seg_begin; /* b */
	io_t *y0 = a.out0 + row * N + seg_begin; /* y */
	const float s3 = a.in3; /* eps */
	const float s5 = (float)N;
	float k0[CH > 0 ? CH : 1][V]; /* kept in registers */
	float kh0[HS]; /* the head's, kept in registers */
	/* round 1: each worker accumulates its slots in order */
	float acc4 = 0.0f; /* sum */
	if (W - 1 - worker < h) { /* the head, on the last workers */
		const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this worker's head elements */
		float ld0[1][V];
		rr_load_head(ld0[0], x0, worker, h);
		float e0[V];
		#pragma unroll
		for (int e = 0; e < HS; e++) {
			e0[e] = ld0[0][e]; /* x */
			kh0[e] = e0[e];
			if (e < valid) acc4 = acc4 + e0[e];
		}
	}
	if constexpr (!HEADED) {
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
						acc4 = acc4 + e0[e];
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
				float e0[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					k0[c][e] = e0[e];
					if (e < valid) acc4 = acc4 + e0[e];
				}
			}
		}
	} else {
		#pragma unroll
		for (int c0 = 0; c0 < (FULL - 1); c0 += UL) {
			float ld0[UL][V];
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < (FULL - 1)) {
					const int at = h + ((c0 + u) * W + worker) * V;
					rr_load<VEC>(ld0[u], x0 + at);
				}
			}
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < (FULL - 1)) {
					const int c = c0 + u;
					float e0[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = ld0[u][e]; /* x */
						k0[c][e] = e0[e];
						acc4 = acc4 + e0[e];
					}
				}
			}
		}
		if constexpr (FULL > 0) {
			if (h + ((FULL - 1) * W + worker) * V < LEN) {
				const int c = (FULL - 1);
				const int at = h + ((FULL - 1) * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid, room);
				float e0[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					k0[c][e] = e0[e];
					if (e < valid) acc4 = acc4 + e0[e];
				}
			}
		}
		if constexpr (REM > 0) {
			if (h + (FULL * W + worker) * V < LEN) {
				const int c = FULL;
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid, room);
				float e0[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					k0[c][e] = e0[e];
					if (e < valid) acc4 = acc4 + e0[e];
				}
			}
		}
	}
	/* round 1 across workers: xor 16 8 4 2 1 64 32 */
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 16);
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 8);
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 4);
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 2);
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 1);
	if (lane == 0) {
		red[((parity * RED_SLOTS + 0) * R + rig) * WARPS + (worker >> 5)] = acc4;
	}
	__syncthreads();
	acc4 = red[((parity * RED_SLOTS + 0) * R + rig) * WARPS + (lane & (WARPS - 1))];
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 2);
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 1);
	const float s4 = acc4;
	const float s6 = s4 / s5;
	/* round 2: each worker accumulates its slots in order */
	float acc9 = 0.0f; /* sum */
	if (W - 1 - worker < h) { /* the head, on the last workers */
		const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this worker's head elements */
		float e0[V], e7[V], e8[V];
		#pragma unroll
		for (int e = 0; e < HS; e++) {
			e0[e] = kh0[e];
			e7[e] = e0[e] - s6;
			e8[e] = e7[e] * e7[e];
			if (e < valid) acc9 = acc9 + e8[e];
		}
	}
	if constexpr (!HEADED) {
		#pragma unroll
		for (int c0 = 0; c0 < FULL; c0 += UL) {
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < FULL) {
					const int c = c0 + u;
					float e0[V], e7[V], e8[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = k0[c][e];
						e7[e] = e0[e] - s6;
						e8[e] = e7[e] * e7[e];
						acc9 = acc9 + e8[e];
					}
				}
			}
		}
		if constexpr (REM > 0) {
			if (worker * V < REM) {
				const int c = FULL;
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float e0[V], e7[V], e8[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = k0[c][e];
					e7[e] = e0[e] - s6;
					e8[e] = e7[e] * e7[e];
					if (e < valid) acc9 = acc9 + e8[e];
				}
			}
		}
	} else {
		#pragma unroll
		for (int c0 = 0; c0 < (FULL - 1); c0 += UL) {
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < (FULL - 1)) {
					const int c = c0 + u;
					float e0[V], e7[V], e8[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = k0[c][e];
						e7[e] = e0[e] - s6;
						e8[e] = e7[e] * e7[e];
						acc9 = acc9 + e8[e];
					}
				}
			}
		}
		if constexpr (FULL > 0) {
			if (h + ((FULL - 1) * W + worker) * V < LEN) {
				const int c = (FULL - 1);
				const int at = h + ((FULL - 1) * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float e0[V], e7[V], e8[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = k0[c][e];
					e7[e] = e0[e] - s6;
					e8[e] = e7[e] * e7[e];
					if (e < valid) acc9 = acc9 + e8[e];
				}
			}
		}
		if constexpr (REM > 0) {
			if (h + (FULL * W + worker) * V < LEN) {
				const int c = FULL;
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float e0[V], e7[V], e8[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = k0[c][e];
					e7[e] = e0[e] - s6;
					e8[e] = e7[e] * e7[e];
					if (e < valid) acc9 = acc9 + e8[e];
				}
			}
		}
	}
	/* round 2 across workers: xor 16 8 4 2 1 64 32 */
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 16);
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 8);
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 4);
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 2);
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 1);
	if (lane == 0) {
		red[((parity * RED_SLOTS + 1) * R + rig) * WARPS + (worker >> 5)] = acc9;
	}
	__syncthreads();
	acc9 = red[((parity * RED_SLOTS + 1) * R + rig) * WARPS + (lane & (WARPS - 1))];
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 2);
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 1);
	const float s9 = acc9;
	const float s10 = s9 / s5;
	const float s11 = s10 + s3;
	const float s12 = rsqrtf(s11);
	/* output phase: each worker writes the elements it owns */
	if (W - 1 - worker < h) { /* the head, on the last workers */
		const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this worker's head elements */
		float ld1[1][V];
		rr_load_head(ld1[0], x1, worker, h);
		float ld2[1][V];
		rr_load_head(ld2[0], x2, worker, h);
		float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
		#pragma unroll
		for (int e = 0; e < HS; e++) {
			e0[e] = kh0[e];
			e1[e] = ld1[0][e]; /* w */
			e2[e] = ld2[0][e]; /* b */
			e7[e] = e0[e] - s6;
			e13[e] = e7[e] * s12;
			e14[e] = e13[e] * e1[e];
			e15[e] = e14[e] + e2[e];
		}
		if (live)
			rr_store_head(y0, e15, worker, h); /* y */
	}
	if constexpr (!HEADED) {
		#pragma unroll
		for (int c0 = 0; c0 < FULL; c0 += UL) {
			float ld1[UL][V];
			float ld2[UL][V];
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < FULL) {
					const int at = h + ((c0 + u) * W + worker) * V;
					rr_load_shifted<VEC>(ld1[u], x1 + at, seg_begin + at);
					rr_load_shifted<VEC>(ld2[u], x2 + at, seg_begin + at);
				}
			}
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < FULL) {
					const int c = c0 + u;
					const int at = h + ((c0 + u) * W + worker) * V;
					float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = k0[c][e];
						e1[e] = ld1[u][e]; /* w */
						e2[e] = ld2[u][e]; /* b */
						e7[e] = e0[e] - s6;
						e13[e] = e7[e] * s12;
						e14[e] = e13[e] * e1[e];
						e15[e] = e14[e] + e2[e];
					}
					if (live)
						rr_store<VEC, false>(y0 + at, e15); /* y */
				}
			}
		}
		if constexpr (REM > 0) {
			if (worker * V < REM) {
				const int c = FULL;
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld1[1][V];
				rr_load_tail_shifted<VEC>(ld1[0], x1 + at, valid, seg_begin + at);
				float ld2[1][V];
				rr_load_tail_shifted<VEC>(ld2[0], x2 + at, valid, seg_begin + at);
				float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = k0[c][e];
					e1[e] = ld1[0][e]; /* w */
					e2[e] = ld2[0][e]; /* b */
					e7[e] = e0[e] - s6;
					e13[e] = e7[e] * s12;
					e14[e] = e13[e] * e1[e];
					e15[e] = e14[e] + e2[e];
				}
				if (live)
					rr_store_tail<VEC, false>(y0 + at, e15, valid); /* y */
			}
		}
	} else {
		#pragma unroll
		for (int c0 = 0; c0 < (FULL - 1); c0 += UL) {
			float ld1[UL][V];
			float ld2[UL][V];
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < (FULL - 1)) {
					const int at = h + ((c0 + u) * W + worker) * V;
					rr_load_shifted<VEC>(ld1[u], x1 + at, seg_begin + at);
					rr_load_shifted<VEC>(ld2[u], x2 + at, seg_begin + at);
				}
			}
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < (FULL - 1)) {
					const int c = c0 + u;
					const int at = h + ((c0 + u) * W + worker) * V;
					float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = k0[c][e];
						e1[e] = ld1[u][e]; /* w */
						e2[e] = ld2[u][e]; /* b */
						e7[e] = e0[e] - s6;
						e13[e] = e7[e] * s12;
						e14[e] = e13[e] * e1[e];
						e15[e] = e14[e] + e2[e];
					}
					if (live)
						rr_store<VEC, false>(y0 + at, e15); /* y */
				}
			}
		}
		if constexpr (FULL > 0) {
			if (h + ((FULL - 1) * W + worker) * V < LEN) {
				const int c = (FULL - 1);
				const int at = h + ((FULL - 1) * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld1[1][V];
				rr_load_tail_shifted<VEC>(ld1[0], x1 + at, valid, seg_begin + at);
				float ld2[1][V];
				rr_load_tail_shifted<VEC>(ld2[0], x2 + at, valid, seg_begin + at);
				float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = k0[c][e];
					e1[e] = ld1[0][e]; /* w */
					e2[e] = ld2[0][e]; /* b */
					e7[e] = e0[e] - s6;
					e13[e] = e7[e] * s12;
					e14[e] = e13[e] * e1[e];
					e15[e] = e14[e] + e2[e];
				}
				if (live)
					rr_store_tail<VEC, false>(y0 + at, e15, valid); /* y */
			}
		}
		if constexpr (REM > 0) {
			if (h + (FULL * W + worker) * V < LEN) {
				const int c = FULL;
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld1[1][V];
				rr_load_tail_shifted<VEC>(ld1[0], x1 + at, valid, seg_begin + at);
				float ld2[1][V];
				rr_load_tail_shifted<VEC>(ld2[0], x2 + at, valid, seg_begin + at);
				float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = k0[c][e];
					e1[e] = ld1[0][e]; /* w */
					e2[e] = ld2[0][e]; /* b */
					e7[e] = e0[e] - s6;
					e13[e] = e7[e] * s12;
					e14[e] = e13[e] * e1[e];
					e15[e] = e14[e] + e2[e];
				}
				if (live)
					rr_store_tail<VEC, false>(y0 + at, e15, valid); /* y */
			}
		}
	}
}

__shared__ float rr_red[2 * RED_SLOTS * R * WARPS]; /* [parity][slot][row][warp] */

template <bool VEC, bool HEADED, bool TWIN = false>
__device__ __forceinline__ void rr_main(const rr_args &a, const long long rows)
{
	const int worker = threadIdx.x % W;
	const int rig = threadIdx.x / W; /* row in group */
	rr_row<VEC, HEADED, N, TWIN>(a, rows, blockIdx.x, true, worker, rig, 0, 0, rr_red, nullptr, nullptr); /* one row a block */
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS_HEAD) rr_layernorm_head(const io_t *__restrict__ in0, const io_t *__restrict__ in1, const io_t *__restrict__ in2, const float in3, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, in1, in2, in3, out0};
	rr_main<true, true>(a, rows);
}
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS_HEAD) rr_layernorm_scalar(const io_t *__restrict__ in0, const io_t *__restrict__ in1, const io_t *__restrict__ in2, const float in3, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, in1, in2, in3, out0};
	rr_main<false, true>(a, rows);
}
#if !defined(__CUDA_ARCH__)
extern "C" void rr_sim_entry(int vec, void **params)
{
	const rr_args a = {*(const io_t *const *)params[0], *(const io_t *const *)params[1], *(const io_t *const *)params[2], *(const float *)params[3], *(io_t *const *)params[4]};
	const long long rows = *(const long long *)params[5];
	if (vec)
		rr_main<true, true>(a, rows);
	else
		rr_main<false, true>(a, rows);
}
#endif
