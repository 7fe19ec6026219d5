/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   layernorm, N = 2097152
 * dtype    bf16 in memory, f32 arithmetic and accumulation
 * plan     W=512,V=8,U=4,R=1,C=8,S=reread,G=rows
 * block    512 threads = W 512 x R 1; one block per row group grid; a cluster of C blocks per row
 * segment  262144 elements per block (block r of the cluster owns [r * SEG, r * SEG + SEG))
 * map      head: the h < 8 elements before the row's first 16-byte boundary (of its first
 *          row array): element j = t * W + W - 1 - worker, t < HS = 1, never kept;
 *          body: element i = h + (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   16 bytes per global access in rr_layernorm_vec (rows on a boundary) and rr_layernorm_head, element by element in rr_layernorm_scalar
 * tree     xor offsets 16 8 4 2 1 256 128 64 32 (shuffles below 32, shared memory across warps, then the cluster)
 * rounds   2
 *   round 1: s4 = sum(x)
 *   round 2: s9 = sum((d * d))
 * storage  nothing kept (one phase, or re-read)
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

constexpr int N = 2097152;  /* the row length, baked in */
constexpr int W = 512;  /* workers per row */
constexpr int V = 8;  /* consecutive elements per worker access (a pack) */
constexpr int U = 4;  /* chunks whose loads are issued together */
constexpr int R = 1;  /* rows per block */
constexpr int C = 8;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
constexpr int MIN_BLOCKS = 1;  /* resident blocks per SM the register cap allows */
constexpr int MIN_BLOCKS_HEAD = 1;  /* the same for the entries with a head */
constexpr int U_HEAD = 2;  /* U of the vector entry with a head (the order of a worker's adds does not depend on U) */
constexpr int WARPS = 16;  /* warps per row in the shared-memory stage */
constexpr int SEG = 262144;  /* elements per block of a row */
constexpr int HEAD_BYTES = 16;  /* a row's head runs up to its first boundary of this */
constexpr int HS = 1;  /* head elements per worker at most: ceil((HEAD_BYTES / size - 1) / W) */
constexpr int HEAD_MAX = 7;  /* the longest head, in elements */
constexpr bool COLS_VEC = true;  /* col inputs share the body's alignment (N * size % HEAD_BYTES == 0) */
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
__device__ __forceinline__ void rr_cluster_sync()
{
#if defined(__CUDA_ARCH__)
	asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
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

/* The launch arguments, in the kernel's input order, then its outputs. */
struct rr_args {
	const io_t *in0; /* x: row */
	const io_t *in1; /* w: col */
	const io_t *in2; /* b: col */
	float in3; /* eps: param */
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
	constexpr int UL = !HEADED ? U : VEC ? U_HEAD : 1; /* chunks per iteration: fewer where the head's bounds take registers */
	const int lane = threadIdx.x & 31;
	(void)rig, (void)parity, (void)red, (void)cl, (void)keep, (void)CH;
	const int h = HEADED ? rr_head(a.in0 + row * N + seg_begin, LEN) : 0; /* from x */
	const io_t *x0 = a.in0 + row * N + seg_begin; /* x */
	const io_t *x1 = a.in1 + seg_begin; /* w */
	const io_t *x2 = a.in2 + seg_begin; /* b */
	io_t *y0 = a.out0 + row * N + seg_begin; /* y */
	const float s3 = a.in3; /* eps */
	const float s5 = (float)N;
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
			if (e < valid) acc4 = acc4 + e0[e];
		}
	}
	if constexpr (!HEADED) {
		#pragma unroll 1
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
					float e0[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = ld0[u][e]; /* x */
						acc4 = acc4 + e0[e];
					}
				}
			}
		}
		if constexpr (REM > 0) {
			if (worker * V < REM) {
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float e0[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					if (e < valid) acc4 = acc4 + e0[e];
				}
			}
		}
	} else {
		#pragma unroll 1
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
					float e0[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = ld0[u][e]; /* x */
						acc4 = acc4 + e0[e];
					}
				}
			}
		}
		if constexpr (FULL > 0) {
			if (h + ((FULL - 1) * W + worker) * V < LEN) {
				const int at = h + ((FULL - 1) * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float e0[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					if (e < valid) acc4 = acc4 + e0[e];
				}
			}
		}
		if constexpr (REM > 0) {
			if (h + (FULL * W + worker) * V < LEN) {
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float e0[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					if (e < valid) acc4 = acc4 + e0[e];
				}
			}
		}
	}
	/* round 1 across workers: xor 16 8 4 2 1 256 128 64 32 */
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
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 8);
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 4);
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 2);
	acc4 = acc4 + __shfl_xor_sync(RR_MASK, acc4, 1);
	/* across the cluster's C blocks, through distributed shared memory */
	if (threadIdx.x == 0) {
		cl[parity * RED_SLOTS + 0] = acc4;
	}
	rr_cluster_sync();
	acc4 = rr_cluster_reduce<0>(cl + parity * RED_SLOTS + 0);
	const float s4 = acc4;
	const float s6 = s4 / s5;
	/* round 2: each worker accumulates its slots in order */
	float acc9 = 0.0f; /* sum */
	if (W - 1 - worker < h) { /* the head, on the last workers */
		const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this worker's head elements */
		float ld0[1][V];
		rr_load_head(ld0[0], x0, worker, h);
		float e0[V], e7[V], e8[V];
		#pragma unroll
		for (int e = 0; e < HS; e++) {
			e0[e] = ld0[0][e]; /* x */
			e7[e] = e0[e] - s6;
			e8[e] = e7[e] * e7[e];
			if (e < valid) acc9 = acc9 + e8[e];
		}
	}
	if constexpr (!HEADED) {
		#pragma unroll 1
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
					float e0[V], e7[V], e8[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = ld0[u][e]; /* x */
						e7[e] = e0[e] - s6;
						e8[e] = e7[e] * e7[e];
						acc9 = acc9 + e8[e];
					}
				}
			}
		}
		if constexpr (REM > 0) {
			if (worker * V < REM) {
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float e0[V], e7[V], e8[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					e7[e] = e0[e] - s6;
					e8[e] = e7[e] * e7[e];
					if (e < valid) acc9 = acc9 + e8[e];
				}
			}
		}
	} else {
		#pragma unroll 1
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
					float e0[V], e7[V], e8[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = ld0[u][e]; /* x */
						e7[e] = e0[e] - s6;
						e8[e] = e7[e] * e7[e];
						acc9 = acc9 + e8[e];
					}
				}
			}
		}
		if constexpr (FULL > 0) {
			if (h + ((FULL - 1) * W + worker) * V < LEN) {
				const int at = h + ((FULL - 1) * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float e0[V], e7[V], e8[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					e7[e] = e0[e] - s6;
					e8[e] = e7[e] * e7[e];
					if (e < valid) acc9 = acc9 + e8[e];
				}
			}
		}
		if constexpr (REM > 0) {
			if (h + (FULL * W + worker) * V < LEN) {
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float e0[V], e7[V], e8[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					e7[e] = e0[e] - s6;
					e8[e] = e7[e] * e7[e];
					if (e < valid) acc9 = acc9 + e8[e];
				}
			}
		}
	}
	/* round 2 across workers: xor 16 8 4 2 1 256 128 64 32 */
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
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 8);
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 4);
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 2);
	acc9 = acc9 + __shfl_xor_sync(RR_MASK, acc9, 1);
	/* across the cluster's C blocks, through distributed shared memory */
	if (threadIdx.x == 0) {
		cl[parity * RED_SLOTS + 1] = acc9;
	}
	rr_cluster_sync();
	acc9 = rr_cluster_reduce<0>(cl + parity * RED_SLOTS + 1);
	const float s9 = acc9;
	const float s10 = s9 / s5;
	const float s11 = s10 + s3;
	const float s12 = rsqrtf(s11);
	/* output phase: each worker writes the elements it owns */
	if (W - 1 - worker < h) { /* the head, on the last workers */
		const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this worker's head elements */
		float ld0[1][V];
		rr_load_head(ld0[0], x0, worker, h);
		float ld1[1][V];
		rr_load_head(ld1[0], x1, worker, h);
		float ld2[1][V];
		rr_load_head(ld2[0], x2, worker, h);
		float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
		#pragma unroll
		for (int e = 0; e < HS; e++) {
			e0[e] = ld0[0][e]; /* x */
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
		#pragma unroll 1
		for (int c0 = 0; c0 < FULL; c0 += UL) {
			float ld0[UL][V];
			float ld1[UL][V];
			float ld2[UL][V];
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < FULL) {
					const int at = h + ((c0 + u) * W + worker) * V;
					rr_load<VEC>(ld0[u], x0 + at);
					rr_load<VEC && COLS_VEC>(ld1[u], x1 + at);
					rr_load<VEC && COLS_VEC>(ld2[u], x2 + at);
				}
			}
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < FULL) {
					const int at = h + ((c0 + u) * W + worker) * V;
					float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = ld0[u][e]; /* x */
						e1[e] = ld1[u][e]; /* w */
						e2[e] = ld2[u][e]; /* b */
						e7[e] = e0[e] - s6;
						e13[e] = e7[e] * s12;
						e14[e] = e13[e] * e1[e];
						e15[e] = e14[e] + e2[e];
					}
					if (live)
						rr_store<VEC>(y0 + at, e15); /* y */
				}
			}
		}
		if constexpr (REM > 0) {
			if (worker * V < REM) {
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float ld1[1][V];
				rr_load_tail<VEC && COLS_VEC>(ld1[0], x1 + at, valid);
				float ld2[1][V];
				rr_load_tail<VEC && COLS_VEC>(ld2[0], x2 + at, valid);
				float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					e1[e] = ld1[0][e]; /* w */
					e2[e] = ld2[0][e]; /* b */
					e7[e] = e0[e] - s6;
					e13[e] = e7[e] * s12;
					e14[e] = e13[e] * e1[e];
					e15[e] = e14[e] + e2[e];
				}
				if (live)
					rr_store_tail<VEC>(y0 + at, e15, valid); /* y */
			}
		}
	} else {
		#pragma unroll 1
		for (int c0 = 0; c0 < (FULL - 1); c0 += UL) {
			float ld0[UL][V];
			float ld1[UL][V];
			float ld2[UL][V];
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < (FULL - 1)) {
					const int at = h + ((c0 + u) * W + worker) * V;
					rr_load<VEC>(ld0[u], x0 + at);
					rr_load<VEC && COLS_VEC>(ld1[u], x1 + at);
					rr_load<VEC && COLS_VEC>(ld2[u], x2 + at);
				}
			}
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < (FULL - 1)) {
					const int at = h + ((c0 + u) * W + worker) * V;
					float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
					#pragma unroll
					for (int e = 0; e < V; e++) {
						e0[e] = ld0[u][e]; /* x */
						e1[e] = ld1[u][e]; /* w */
						e2[e] = ld2[u][e]; /* b */
						e7[e] = e0[e] - s6;
						e13[e] = e7[e] * s12;
						e14[e] = e13[e] * e1[e];
						e15[e] = e14[e] + e2[e];
					}
					if (live)
						rr_store<VEC>(y0 + at, e15); /* y */
				}
			}
		}
		if constexpr (FULL > 0) {
			if (h + ((FULL - 1) * W + worker) * V < LEN) {
				const int at = h + ((FULL - 1) * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float ld1[1][V];
				rr_load_tail<VEC && COLS_VEC>(ld1[0], x1 + at, valid);
				float ld2[1][V];
				rr_load_tail<VEC && COLS_VEC>(ld2[0], x2 + at, valid);
				float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					e1[e] = ld1[0][e]; /* w */
					e2[e] = ld2[0][e]; /* b */
					e7[e] = e0[e] - s6;
					e13[e] = e7[e] * s12;
					e14[e] = e13[e] * e1[e];
					e15[e] = e14[e] + e2[e];
				}
				if (live)
					rr_store_tail<VEC>(y0 + at, e15, valid); /* y */
			}
		}
		if constexpr (REM > 0) {
			if (h + (FULL * W + worker) * V < LEN) {
				const int at = h + (FULL * W + worker) * V;
				const int valid = LEN - at; /* elements of this pack in the row */
				float ld0[1][V];
				rr_load_tail<VEC>(ld0[0], x0 + at, valid);
				float ld1[1][V];
				rr_load_tail<VEC && COLS_VEC>(ld1[0], x1 + at, valid);
				float ld2[1][V];
				rr_load_tail<VEC && COLS_VEC>(ld2[0], x2 + at, valid);
				float e0[V], e1[V], e2[V], e7[V], e13[V], e14[V], e15[V];
				#pragma unroll
				for (int e = 0; e < V; e++) {
					e0[e] = ld0[0][e]; /* x */
					e1[e] = ld1[0][e]; /* w */
					e2[e] = ld2[0][e]; /* b */
					e7[e] = e0[e] - s6;
					e13[e] = e7[e] * s12;
					e14[e] = e13[e] * e1[e];
					e15[e] = e14[e] + e2[e];
				}
				if (live)
					rr_store_tail<VEC>(y0 + at, e15, valid); /* y */
			}
		}
	}
}

__shared__ float rr_red[2 * RED_SLOTS * R * WARPS]; /* [parity][slot][row][warp] */
__shared__ float rr_cl[2 * RED_SLOTS]; /* this block's partials, [parity][slot] */

template <bool VEC, bool HEADED>
__device__ __forceinline__ void rr_main(const rr_args &a, const long long rows)
{
	const int worker = threadIdx.x % W;
	const int rig = threadIdx.x / W; /* row in group */
	const int rank = (int)rr_cluster_rank();
	const long long step = gridDim.x / C;
	int parity = 0; /* scratch slots alternate between groups */
	for (long long group = blockIdx.x / C; group * R < rows; group += step) {
		const long long wanted = group * R + rig;
		const bool live = wanted < rows;
		const long long row = live ? wanted : rows - 1; /* idle rows compute, never store */
		if (rank < 8)
			rr_row<VEC, HEADED, SEG>(a, row, live, worker, rig, rank * SEG, parity, rr_red, rr_cl, nullptr);
		parity ^= 1;
	}
	rr_cluster_sync(); /* no block leaves while others read its partials */
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_layernorm_vec(const io_t *__restrict__ in0, const io_t *__restrict__ in1, const io_t *__restrict__ in2, const float in3, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, in1, in2, in3, out0};
	rr_main<true, false>(a, rows);
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
	if (vec == 1)
		rr_main<true, false>(a, rows);
	else
	if (vec)
		rr_main<true, true>(a, rows);
	else
		rr_main<false, true>(a, rows);
}
#endif
