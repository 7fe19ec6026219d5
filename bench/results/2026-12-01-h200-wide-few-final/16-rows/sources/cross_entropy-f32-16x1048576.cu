/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   cross_entropy, N = 1048576
 * dtype    f32 in memory, f32 arithmetic and accumulation
 * plan     W=1024,V=4,U=4,R=1,C=8,S=grid,G=persistent
 * block    1024 threads = W 1024 x R 1; persistent grid; C co-resident blocks per row (cooperative launch)
 * segment  131072 elements per block (block r of the row's group owns [r * SEG, r * SEG + SEG))
 * map      head: the h < 4 elements before the row's first 16-byte boundary (of its first
 *          row array): element j = t * W + W - 1 - worker, t < HS = 1, never kept;
 *          body: element i = h + (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   16 bytes per global access in rr_cross_entropy_vec (rows on a boundary) and rr_cross_entropy_head, element by element in rr_cross_entropy_scalar
 * tree     xor offsets 16 8 4 2 1 512 256 128 64 32 (shuffles below 32, shared memory across warps, then the grid's blocks through the workspace)
 * rounds   1
 *   round 1: s2 = (online pair) max(x)
 *   round 1: s5 = (online pair) sum(exp((x - m)))
 * storage  nothing kept (one phase, or re-read)
 *
 * kernel text:
 *   # Cross-entropy per row: loss = logsumexp(x) - x[t]. max and sum fuse into one online pass.
 *   kernel cross_entropy
 *     in    x : row
 *     in    t : index
 *     out   loss : rowscalar
 *     m    = max(x)
 *     s    = sum(exp(x - m))
 *     loss = m + log(s) - x[t]
 */
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)

constexpr int N = 1048576;  /* the row length, baked in */
constexpr int W = 1024;  /* workers per row */
constexpr int V = 4;  /* consecutive elements per worker access (a pack) */
constexpr int U = 4;  /* chunks whose loads are issued together */
constexpr int R = 1;  /* rows per block */
constexpr int C = 8;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
constexpr int MIN_BLOCKS = 1;  /* resident blocks per SM the register cap allows */
constexpr int MIN_BLOCKS_HEAD = 1;  /* the same for the entries with a head */
constexpr int U_HEAD = 2;  /* U of the vector entry with a head (the order of a worker's adds does not depend on U) */
constexpr int WARPS = 32;  /* warps per row in the shared-memory stage */
constexpr int SEG = 131072;  /* elements per block of a row */
constexpr int WS_HEAD = 32;  /* workspace words of a group's barrier line */
constexpr int WS_GROUP = 64;  /* workspace words per row group: barrier, then [parity][slot][block] partials */
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

/* The barrier of one row group's C blocks: bar[0] counts arrivals, bar[1] is a generation
 * the last block to arrive advances after resetting the count, so the words need no reset
 * between barriers or launches (they start at zero when the workspace is allocated). Partials
 * written before the barrier are visible to every block after it (fences at gpu scope; the
 * readers load them through L2). Needs every block of the group resident: a cooperative
 * launch whose grid is no larger than the device holds at once. */
__device__ __forceinline__ void rr_grid_sync(unsigned *bar)
{
#if defined(__CUDA_ARCH__)
	__syncthreads();
	if (threadIdx.x == 0) {
		unsigned generation, now;
		asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(generation) : "l"(bar + 1) : "memory");
		__threadfence();
		if (atomicAdd(bar, 1u) == (unsigned)C - 1) {
			atomicExch(bar, 0u);
			__threadfence();
			atomicAdd(bar + 1, 1u);
		} else {
			do {
				__nanosleep(32);
				asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(bar + 1) : "memory");
			} while (now == generation);
		}
		__threadfence();
	}
	__syncthreads();
#else
	(void)bar;
	rr_sim_grid_sync(); /* host simulation (tests) */
#endif
}
template <int OP> /* 0 sum, 1 max, 2 min */
__device__ __forceinline__ float rr_grid_op(float a, float b)
{
	return OP == 0 ? a + b : OP == 1 ? fmaxf(a, b) : fminf(a, b);
}
/* The C partials at p[0..C) in the fixed tree: lane l (of every warp) takes block l, then
 * l + 32, l + 64, ... in order, then the butterfly xor 16 ... 1 over min(C, 32) lanes (lanes
 * past C repeat the first C), so every thread gets the same bits. */
constexpr int RR_GRID_LANES = C < 32 ? C : 32;
template <int OP>
__device__ __forceinline__ float rr_grid_reduce(const float *p)
{
	const int lane = (int)(threadIdx.x & (RR_GRID_LANES - 1));
	float v = __ldcg(p + lane);
	#pragma unroll 1
	for (int r = lane + 32; r < C; r += 32)
		v = rr_grid_op<OP>(v, __ldcg(p + r));
	#pragma unroll
	for (int off = RR_GRID_LANES / 2; off >= 1; off /= 2)
		v = rr_grid_op<OP>(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}
/* An online (max, sum) pair: maxima at pm[0..C), sums at pz[0..C), in the same tree. */
__device__ __forceinline__ void rr_grid_online(float &m, float &z, const float *pm, const float *pz)
{
	const int lane = (int)(threadIdx.x & (RR_GRID_LANES - 1));
	m = __ldcg(pm + lane);
	z = __ldcg(pz + lane);
	#pragma unroll 1
	for (int r = lane + 32; r < C; r += 32)
		rr_online_combine(m, z, __ldcg(pm + r), __ldcg(pz + r));
	#pragma unroll
	for (int off = RR_GRID_LANES / 2; off >= 1; off /= 2) {
		const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
		const float z2 = __shfl_xor_sync(0xffffffffu, z, off);
		rr_online_combine(m, z, m2, z2);
	}
}
/* The launch arguments, in the kernel's input order, then its outputs. */
struct rr_args {
	const io_t *in0; /* x: row */
	const long long *in1; /* t: index */
	io_t *out0; /* loss: rowscalar */
	float *ws; /* the program's workspace: WS_GROUP words a group */
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
	const long long t1 = __ldg(a.in1 + row); /* t */
	const float s8 = t1 >= 0 && t1 < N ? rr_in(__ldg(a.in0 + row * N + t1)) : NAN; /* x[t] */
	/* round 1: each worker accumulates its slots in order */
	float m2 = -INFINITY, z5 = 0.0f; /* online max s2, sum s5 */
	if (W - 1 - worker < h) { /* the head, on the last workers */
		const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this worker's head elements */
		float ld0[1][V];
		rr_load_head(ld0[0], x0, worker, h);
		float e0[V];
		#pragma unroll
		for (int e = 0; e < HS; e++) {
			e0[e] = ld0[0][e]; /* x */
		}
		rr_online_add(m2, z5, e0, valid);
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
					}
					rr_online_add(m2, z5, e0, V);
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
				}
				rr_online_add(m2, z5, e0, valid);
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
					}
					rr_online_add(m2, z5, e0, V);
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
				}
				rr_online_add(m2, z5, e0, valid);
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
				}
				rr_online_add(m2, z5, e0, valid);
			}
		}
	}
	/* round 1 across workers: xor 16 8 4 2 1 512 256 128 64 32 */
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 16), __shfl_xor_sync(RR_MASK, z5, 16));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 8), __shfl_xor_sync(RR_MASK, z5, 8));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 4), __shfl_xor_sync(RR_MASK, z5, 4));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 2), __shfl_xor_sync(RR_MASK, z5, 2));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 1), __shfl_xor_sync(RR_MASK, z5, 1));
	if (lane == 0) {
		red[((parity * RED_SLOTS + 0) * R + rig) * WARPS + (worker >> 5)] = m2;
		red[((parity * RED_SLOTS + 1) * R + rig) * WARPS + (worker >> 5)] = z5;
	}
	__syncthreads();
	m2 = red[((parity * RED_SLOTS + 0) * R + rig) * WARPS + (lane & (WARPS - 1))];
	z5 = red[((parity * RED_SLOTS + 1) * R + rig) * WARPS + (lane & (WARPS - 1))];
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 16), __shfl_xor_sync(RR_MASK, z5, 16));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 8), __shfl_xor_sync(RR_MASK, z5, 8));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 4), __shfl_xor_sync(RR_MASK, z5, 4));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 2), __shfl_xor_sync(RR_MASK, z5, 2));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 1), __shfl_xor_sync(RR_MASK, z5, 1));
	/* across the row's C blocks of the grid, through the workspace (cl) */
	if (threadIdx.x == 0) {
		cl[WS_HEAD + (parity * RED_SLOTS + 0) * C + blockIdx.x % C] = m2;
		cl[WS_HEAD + (parity * RED_SLOTS + 1) * C + blockIdx.x % C] = z5;
	}
	rr_grid_sync(reinterpret_cast<unsigned *>(cl));
	rr_grid_online(m2, z5, cl + WS_HEAD + (parity * RED_SLOTS + 0) * C, cl + WS_HEAD + (parity * RED_SLOTS + 1) * C);
	const float s2 = m2;
	const float s5 = z5;
	const float s6 = logf(s5);
	const float s7 = s2 + s6;
	const float s9 = s7 - s8;
	if (live && worker == 0 && seg_begin == 0) {
		a.out0[row] = rr_out(s9); /* loss */
	}
}

__shared__ float rr_red[2 * RED_SLOTS * R * WARPS]; /* [parity][slot][row][warp] */

template <bool VEC, bool HEADED>
__device__ __forceinline__ void rr_main(const rr_args &a, const long long rows)
{
	const int worker = threadIdx.x % W;
	const int rig = threadIdx.x / W; /* row in group */
	const int rank = (int)(blockIdx.x % C); /* the block's segment */
	float *const gws = a.ws + (long long)(blockIdx.x / C) * WS_GROUP; /* the group's workspace */
	const long long step = gridDim.x / C;
	int parity = 0; /* scratch slots alternate between groups */
	for (long long group = blockIdx.x / C; group * R < rows; group += step) {
		const long long wanted = group * R + rig;
		const bool live = wanted < rows;
		const long long row = live ? wanted : rows - 1; /* idle rows compute, never store */
		if (rank < 8)
			rr_row<VEC, HEADED, SEG>(a, row, live, worker, rig, rank * SEG, parity, rr_red, gws, nullptr);
		parity ^= 1;
	}
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_cross_entropy_vec(const io_t *__restrict__ in0, const long long *__restrict__ in1, io_t *__restrict__ out0, const long long rows, float *const ws)
{
	const rr_args a = {in0, in1, out0, ws};
	rr_main<true, false>(a, rows);
}
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS_HEAD) rr_cross_entropy_head(const io_t *__restrict__ in0, const long long *__restrict__ in1, io_t *__restrict__ out0, const long long rows, float *const ws)
{
	const rr_args a = {in0, in1, out0, ws};
	rr_main<true, true>(a, rows);
}
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS_HEAD) rr_cross_entropy_scalar(const io_t *__restrict__ in0, const long long *__restrict__ in1, io_t *__restrict__ out0, const long long rows, float *const ws)
{
	const rr_args a = {in0, in1, out0, ws};
	rr_main<false, true>(a, rows);
}
#if !defined(__CUDA_ARCH__)
extern "C" void rr_sim_entry(int vec, void **params)
{
	const rr_args a = {*(const io_t *const *)params[0], *(const long long *const *)params[1], *(io_t *const *)params[2], *(float *const *)params[4]};
	const long long rows = *(const long long *)params[3];
	if (vec == 1)
		rr_main<true, false>(a, rows);
	else
	if (vec)
		rr_main<true, true>(a, rows);
	else
		rr_main<false, true>(a, rows);
}
#endif
