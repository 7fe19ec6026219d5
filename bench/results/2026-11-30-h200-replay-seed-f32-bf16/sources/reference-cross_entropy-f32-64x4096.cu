/* rowreduce: generated CUDA C for the cuda backend (sm_90). Regenerate rather than edit.
 *
 * kernel   cross_entropy, N = 4096
 * dtype    f32 in memory, f32 arithmetic and accumulation
 * plan     W=256,V=4,U=4,R=1,C=1,S=regs,G=rows
 * block    256 threads = W 256 x R 1; one block per row group grid
 * map      element i = (chunk * W + worker) * V + e, private slot = chunk * V + e;
 *          complete packs unguarded, one guarded partial pack
 * access   16 bytes per global access in rr_cross_entropy_vec, element by element in rr_cross_entropy_scalar
 * tree     xor offsets 16 8 4 2 1 128 64 32 (shuffles below 32, shared memory across warps)
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

constexpr int N = 4096;  /* the row length, baked in */
constexpr int W = 256;  /* workers per row */
constexpr int V = 4;  /* consecutive elements per worker access (a pack) */
constexpr int U = 4;  /* chunks whose loads are issued together */
constexpr int R = 1;  /* rows per block */
constexpr int C = 1;  /* blocks per row (a cluster when > 1) */
constexpr int THREADS = W * R;
constexpr int MIN_BLOCKS = 4;  /* resident blocks per SM the register cap allows */
constexpr int WARPS = 8;  /* warps per row in the shared-memory stage */
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
	const long long *in1; /* t: index */
	io_t *out0; /* loss: rowscalar */
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
	const long long t1 = __ldg(a.in1 + row); /* t */
	const float s8 = t1 >= 0 && t1 < N ? rr_in(__ldg(a.in0 + row * N + t1)) : NAN; /* x[t] */
	/* round 1: each worker accumulates its slots in order */
	float m2 = -INFINITY, z5 = 0.0f; /* online max s2, sum s5 */
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
				}
				rr_online_add(m2, z5, e0, V);
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
			}
			rr_online_add(m2, z5, e0, valid);
		}
	}
	/* round 1 across workers: xor 16 8 4 2 1 128 64 32 */
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
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 4), __shfl_xor_sync(RR_MASK, z5, 4));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 2), __shfl_xor_sync(RR_MASK, z5, 2));
	rr_online_combine(m2, z5, __shfl_xor_sync(RR_MASK, m2, 1), __shfl_xor_sync(RR_MASK, z5, 1));
	const float s2 = m2;
	const float s5 = z5;
	const float s6 = logf(s5);
	const float s7 = s2 + s6;
	const float s9 = s7 - s8;
	if (live && worker == 0) {
		a.out0[row] = rr_out(s9); /* loss */
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

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_cross_entropy_vec(const io_t *__restrict__ in0, const long long *__restrict__ in1, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, in1, out0};
	rr_main<true>(a, rows);
}
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rr_cross_entropy_scalar(const io_t *__restrict__ in0, const long long *__restrict__ in1, io_t *__restrict__ out0, const long long rows)
{
	const rr_args a = {in0, in1, out0};
	rr_main<false>(a, rows);
}
#if !defined(__CUDA_ARCH__)
extern "C" void rr_sim_entry(int vec, void **params)
{
	const rr_args a = {*(const io_t *const *)params[0], *(const long long *const *)params[1], *(io_t *const *)params[2]};
	const long long rows = *(const long long *)params[3];
	if (vec)
		rr_main<true>(a, rows);
	else
		rr_main<false>(a, rows);
}
#endif
