/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   softmax, N = 1024
 * dtype    f32 in memory, f32 arithmetic and accumulation
 * plan     W=32,V=4,U=2,R=1,C=1,S=regs,G=rows
 * block    32 threads = W 32 x R 1; one block per row group grid
 * map      head: the h < 4 elements before the row's first 16-byte boundary (of its first
 *          row array): element j = t * W + W - 1 - worker, t < HS = 1, never kept;
 *          body: element i = h + (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   16 bytes per global access in rr_softmax_vec (rows on a boundary) and rr_softmax_head, element by element in rr_softmax_scalar
 * tree     xor offsets 16 8 4 2 1 (shuffles below 32, shared memory across warps)
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

constexpr int N = 1024;  /* the row length, baked in */
constexpr int W = 32;  /* workers per row */
constexpr int V = 4;  /* consecutive elements per worker access (a pack) */
constexpr int U = 2;  /* chunks whose loads are issued together */
constexpr int R = 1;  /* rows per block */
constexpr int C = 1;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
constexpr int MIN_BLOCKS = 17;  /* resident blocks per SM the register cap allows */
constexpr int MIN_BLOCKS_HEAD = 13;  /* the same for the entries with a head */
constexpr int U_HEAD = 1;  /* U of the vector entry with a head (the order of a worker's adds does not depend on U) */
constexpr int WARPS = 1;  /* warps per row in the shared-memory stage */
constexpr int HEAD_BYTES = 16;  /* a row's head runs up to its first boundary of this */
constexpr int HS = 1;  /* head elements per worker at most: ceil((HEAD_BYTES / size - 1) / W) */
constexpr int HEAD_MAX = 3;  /* the longest head, in elements */
constexpr bool COLS_VEC = true;  /* col inputs share the body's alignment (N * size % HEAD_BYTES == 0) */
constexpr int RED_SLOTS = 2;  /* partials per row over all rounds */
constexpr unsigned RR_MASK = 0xffffffffu;  /* lanes in shuffles */

typedef float io_t;
__device__ __forceinline__ float rr_in(io_t v) { return v; }
__device__ __forceinline__ io_t rr_out(float v) { return v; }

/* One pack of V elements at p (VEC: 16-byte accesses). */
template <bool VEC>
__device__ __forceinline__ void rr_load(float (&v)[V], const io_t *p)
{
	if constexpr (VEC) {
		#pragma unroll
		for (int k = 0; k < V / 4; k++) {
			const uint4 w = __ldg(reinterpret_cast<const uint4 *>(p) + k);
			v[k * 4 + 0] = __uint_as_float(w.x);
			v[k * 4 + 1] = __uint_as_float(w.y);
			v[k * 4 + 2] = __uint_as_float(w.z);
			v[k * 4 + 3] = __uint_as_float(w.w);
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
		for (int k = 0; k < V / 4; k++) {
			uint4 w;
			w.x = __float_as_uint(v[k * 4 + 0]);
			w.y = __float_as_uint(v[k * 4 + 1]);
			w.z = __float_as_uint(v[k * 4 + 2]);
			w.w = __float_as_uint(v[k * 4 + 3]);
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
	constexpr int UL = !HEADED ? U : VEC ? U_HEAD : 1; /* chunks per iteration: fewer where the head's bounds take registers */
	(void)rig, (void)parity, (void)red, (void)cl, (void)keep, (void)CH;
	const int h = HEADED ? rr_head(a.in0 + row * N + seg_begin, LEN) : 0; /* from x */
	const io_t *x0 = a.in0 + row * N + seg_begin; /* x */
	io_t *y0 = a.out0 + row * N + seg_begin; /* y */
	float k0[CH > 0 ? CH : 1][V]; /* kept in registers */
	/* round 1: each worker accumulates its slots in order */
	float m1 = -INFINITY, z4 = 0.0f; /* online max s1, sum s4 */
	if (W - 1 - worker < h) { /* the head, on the last workers */
		const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this worker's head elements */
		float ld0[1][V];
		rr_load_head(ld0[0], x0, worker, h);
		float e0[V];
		#pragma unroll
		for (int e = 0; e < HS; e++) {
			e0[e] = ld0[0][e]; /* x */
		}
		rr_online_add(m1, z4, e0, valid);
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
					}
					rr_online_add(m1, z4, e0, V);
				}
			}
		}
		if constexpr (FULL > 0) {
			if (h + ((FULL - 1) * W + worker) * V < LEN) {
				const int c = (FULL - 1);
				const int at = h + ((FULL - 1) * W + worker) * V;
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
		if constexpr (REM > 0) {
			if (h + (FULL * W + worker) * V < LEN) {
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
	}
	/* round 1 across workers: xor 16 8 4 2 1 */
	rr_online_combine(m1, z4, __shfl_xor_sync(RR_MASK, m1, 16), __shfl_xor_sync(RR_MASK, z4, 16));
	rr_online_combine(m1, z4, __shfl_xor_sync(RR_MASK, m1, 8), __shfl_xor_sync(RR_MASK, z4, 8));
	rr_online_combine(m1, z4, __shfl_xor_sync(RR_MASK, m1, 4), __shfl_xor_sync(RR_MASK, z4, 4));
	rr_online_combine(m1, z4, __shfl_xor_sync(RR_MASK, m1, 2), __shfl_xor_sync(RR_MASK, z4, 2));
	rr_online_combine(m1, z4, __shfl_xor_sync(RR_MASK, m1, 1), __shfl_xor_sync(RR_MASK, z4, 1));
	const float s1 = m1;
	const float s4 = z4;
	/* output phase: each worker writes the elements it owns */
	if (W - 1 - worker < h) { /* the head, on the last workers */
		const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this worker's head elements */
		float ld0[1][V];
		rr_load_head(ld0[0], x0, worker, h);
		float e0[V], e2[V], e3[V], e5[V];
		#pragma unroll
		for (int e = 0; e < HS; e++) {
			e0[e] = ld0[0][e]; /* x */
			e2[e] = e0[e] - s1;
			e3[e] = __expf(e2[e]);
			e5[e] = e3[e] * (1.0f / s4);
		}
		if (live)
			rr_store_head(y0, e5, worker, h); /* y */
	}
	if constexpr (!HEADED) {
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
	} else {
		#pragma unroll
		for (int c0 = 0; c0 < (FULL - 1); c0 += UL) {
			#pragma unroll
			for (int u = 0; u < UL; u++) {
				if (c0 + u < (FULL - 1)) {
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
		if constexpr (FULL > 0) {
			if (h + ((FULL - 1) * W + worker) * V < LEN) {
				const int c = (FULL - 1);
				const int at = h + ((FULL - 1) * W + worker) * V;
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
		if constexpr (REM > 0) {
			if (h + (FULL * W + worker) * V < LEN) {
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

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_softmax_vec(const io_t *__restrict__ in0, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, out0};
	rr_main<true, false>(a, rows);
}
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS_HEAD) rr_softmax_head(const io_t *__restrict__ in0, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, out0};
	rr_main<true, true>(a, rows);
}
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS_HEAD) rr_softmax_scalar(const io_t *__restrict__ in0, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, out0};
	rr_main<false, true>(a, rows);
}
#if !defined(__CUDA_ARCH__)
extern "C" void rr_sim_entry(int vec, void **params)
{
	const rr_args a = {*(const io_t *const *)params[0], *(io_t *const *)params[1]};
	const long long rows = *(const long long *)params[2];
	if (vec == 1)
		rr_main<true, false>(a, rows);
	else
	if (vec)
		rr_main<true, true>(a, rows);
	else
		rr_main<false, true>(a, rows);
}
#endif
