// Session 57 lab: rmsnorm and softmax bf16 on odd rows (N * 2 bytes not a multiple of 16) three ways, to
// see whether a block that moves its rows as one flat span keeps odd rows at the speed of
// aligned ones. Not rowreduce's code: a question for the next change of its emitter.
//
//   direct: one warp a row, lane-strided 2-byte loads and stores (each warp access is 64
//           consecutive bytes, whatever the row's alignment), the row in registers.
//   flat:   a block of RB rows loads their RB * N elements as one span with 16-byte loads into
//           shared memory (only the span's first and last packs element by element), each
//           warp reduces and normalises its rows there (two passes over shared memory,
//           lane-strided), then the block stores the span with 16-byte stores.
//   flat8:  flat, but a warp's lanes read 8 consecutive elements of the row from shared memory
//           (the rowreduce map at V = 8, where each lane's pack is not 16-byte aligned).
//   sm-direct, sm-flat: softmax the same two ways (rows of N * 2 bytes, any alignment).
//
// Timing as `rowreduce bench --l2 cold`: buffer sets rotated past twice the L2, a CUDA graph
// of a batch of launches, events, median of 7 replays; every output checked against a float64
// reference first (outputs poisoned with NaN before).
//   nvcc -O3 -arch=sm_90 -std=c++17 flat.cu -o flat && ./flat
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

typedef __nv_bfloat16 bf16;

#define CK(x)                                                                                 \
	do {                                                                                  \
		cudaError_t e_ = (x);                                                         \
		if (e_ != cudaSuccess) {                                                      \
			fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,             \
			        cudaGetErrorString(e_));                                      \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

template <int N, int WARPS>
__global__ void __launch_bounds__(WARPS * 32) direct(const bf16 *__restrict__ x,
                                                     const bf16 *__restrict__ w,
                                                     bf16 *__restrict__ y, int m, float eps)
{
	constexpr int K = (N + 31) / 32;
	const int lane = threadIdx.x & 31;
	const long long row = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
	if (row >= m)
		return;
	const bf16 *xr = x + row * N;
	bf16 *yr = y + row * N;
	float v[K], ss = 0.0f;
#pragma unroll
	for (int k = 0; k < K; k++) {
		const int i = k * 32 + lane;
		v[k] = (k < N / 32 || i < N) ? __bfloat162float(xr[i]) : 0.0f;
	}
#pragma unroll
	for (int k = 0; k < K; k++)
		ss += v[k] * v[k];
	const float r = rsqrtf(warp_sum(ss) / N + eps);
#pragma unroll
	for (int k = 0; k < K; k++) {
		const int i = k * 32 + lane;
		if (k < N / 32 || i < N)
			yr[i] = __float2bfloat16(v[k] * r * __bfloat162float(w[i]));
	}
}

// The span [g0, g1) of elements, moved between global memory at p and shared memory at s
// (s[j] holds element a0 + j, a0 = g0 rounded down to a pack of 8), 16 bytes at a time where
// the pack lies inside the span. The bases are 16-byte aligned (cudaMalloc).
template <int THREADS, int PT, bool LOAD>
__device__ __forceinline__ void span_move(bf16 *s, bf16 *p, long long g0, long long g1)
{
	constexpr int G = 4; /* packs a thread has in flight */
	const long long a0 = g0 & ~7LL;
	const int packs = (int)((g1 - a0 + 7) / 8);
#pragma unroll
	for (int k0 = 0; k0 < PT; k0 += G) {
		uint4 t[G];
#pragma unroll
		for (int k = 0; k < G; k++) {
			const int q = threadIdx.x + (k0 + k) * THREADS;
			const long long e = a0 + 8LL * q;
			if (k0 + k < PT && q < packs && e >= g0 && e + 8 <= g1)
				t[k] = LOAD ? __ldg(reinterpret_cast<const uint4 *>(p + e))
				            : reinterpret_cast<const uint4 *>(s)[q];
		}
#pragma unroll
		for (int k = 0; k < G; k++) {
			const int q = threadIdx.x + (k0 + k) * THREADS;
			const long long e = a0 + 8LL * q;
			if (k0 + k >= PT || q >= packs)
				continue;
			if (e >= g0 && e + 8 <= g1) {
				if (LOAD)
					reinterpret_cast<uint4 *>(s)[q] = t[k];
				else
					*reinterpret_cast<uint4 *>(p + e) = t[k];
			} else {
				for (int j = 0; j < 8; j++)
					if (e + j >= g0 && e + j < g1) {
						if (LOAD)
							s[8 * q + j] = p[e + j];
						else
							p[e + j] = s[8 * q + j];
					}
			}
		}
	}
}

template <int N, int RB, int WARPS, bool PACKED> /* at most 64 registers a thread */
__global__ void __launch_bounds__(WARPS * 32, 1024 / (WARPS * 32)) flat(const bf16 *__restrict__ x,
                                                   const bf16 *__restrict__ w,
                                                   bf16 *__restrict__ y, int m, float eps)
{
	constexpr int THREADS = WARPS * 32;
	constexpr int PACKS = (RB * N + 7) / 8 + 1; /* packs of a span at most */
	constexpr int PT = (PACKS + THREADS - 1) / THREADS;
	__shared__ __align__(16) bf16 s[PACKS * 8];
	const long long r0 = (long long)blockIdx.x * RB;
	const int rows = (int)(m - r0 < RB ? m - r0 : RB);
	const long long g0 = r0 * N, g1 = g0 + (long long)rows * N;
	span_move<THREADS, PT, true>(s, const_cast<bf16 *>(x), g0, g1);
	__syncthreads();
	const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	const int off = (int)(g0 - (g0 & ~7LL));
	for (int rr = warp; rr < rows; rr += WARPS) {
		bf16 *sr = s + off + rr * N;
		/* two passes over shared memory: the row is not held in registers */
		float ss = 0.0f;
		if (!PACKED) {
#pragma unroll 8
			for (int i = lane; i < N; i += 32) {
				const float v = __bfloat162float(sr[i]);
				ss += v * v;
			}
		} else {
#pragma unroll 2
			for (int i0 = lane * 8; i0 < N; i0 += 256)
#pragma unroll
				for (int e = 0; e < 8; e++)
					if (i0 + e < N) {
						const float v = __bfloat162float(sr[i0 + e]);
						ss += v * v;
					}
		}
		const float r = rsqrtf(warp_sum(ss) / N + eps);
		if (!PACKED) {
#pragma unroll 8
			for (int i = lane; i < N; i += 32)
				sr[i] = __float2bfloat16(__bfloat162float(sr[i]) * r * __bfloat162float(w[i]));
		} else {
#pragma unroll 2
			for (int i0 = lane * 8; i0 < N; i0 += 256)
#pragma unroll
				for (int e = 0; e < 8; e++)
					if (i0 + e < N)
						sr[i0 + e] = __float2bfloat16(__bfloat162float(sr[i0 + e]) * r *
						                              __bfloat162float(w[i0 + e]));
		}
	}
	__syncthreads();
	span_move<THREADS, PT, false>(s, y, g0, g1);
}

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

/* softmax, one warp a row, lane-strided, the row in registers (w and eps unused) */
template <int N, int WARPS>
__global__ void __launch_bounds__(WARPS * 32) direct_sm(const bf16 *__restrict__ x,
                                                        const bf16 *__restrict__ w,
                                                        bf16 *__restrict__ y, int m, float eps)
{
	constexpr int K = (N + 31) / 32;
	const int lane = threadIdx.x & 31;
	const long long row = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
	if (row >= m)
		return;
	const bf16 *xr = x + row * N;
	bf16 *yr = y + row * N;
	float v[K], mx = -INFINITY, sum = 0.0f;
#pragma unroll
	for (int k = 0; k < K; k++) {
		const int i = k * 32 + lane;
		v[k] = (k < N / 32 || i < N) ? __bfloat162float(xr[i]) : -INFINITY;
		mx = fmaxf(mx, v[k]);
	}
	mx = warp_max(mx);
#pragma unroll
	for (int k = 0; k < K; k++) {
		v[k] = __expf(v[k] - mx);
		sum += v[k];
	}
	const float r = 1.0f / warp_sum(sum);
#pragma unroll
	for (int k = 0; k < K; k++) {
		const int i = k * 32 + lane;
		if (k < N / 32 || i < N)
			yr[i] = __float2bfloat16(v[k] * r);
	}
}

/* softmax from a flat span in shared memory: max, then the sum of exponentials, then the
 * outputs in place, each pass lane-strided over shared memory */
template <int N, int RB, int WARPS> /* at most 64 registers a thread */
__global__ void __launch_bounds__(WARPS * 32, 1024 / (WARPS * 32)) flat_sm(const bf16 *__restrict__ x,
                                                   const bf16 *__restrict__ w,
                                                   bf16 *__restrict__ y, int m, float eps)
{
	constexpr int THREADS = WARPS * 32;
	constexpr int PACKS = (RB * N + 7) / 8 + 1;
	constexpr int PT = (PACKS + THREADS - 1) / THREADS;
	__shared__ __align__(16) bf16 s[PACKS * 8];
	const long long r0 = (long long)blockIdx.x * RB;
	const int rows = (int)(m - r0 < RB ? m - r0 : RB);
	const long long g0 = r0 * N, g1 = g0 + (long long)rows * N;
	span_move<THREADS, PT, true>(s, const_cast<bf16 *>(x), g0, g1);
	__syncthreads();
	const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	const int off = (int)(g0 - (g0 & ~7LL));
	for (int rr = warp; rr < rows; rr += WARPS) {
		bf16 *sr = s + off + rr * N;
		float mx = -INFINITY, sum = 0.0f;
#pragma unroll 8
		for (int i = lane; i < N; i += 32)
			mx = fmaxf(mx, __bfloat162float(sr[i]));
		mx = warp_max(mx);
#pragma unroll 8
		for (int i = lane; i < N; i += 32)
			sum += __expf(__bfloat162float(sr[i]) - mx);
		const float r = 1.0f / warp_sum(sum);
#pragma unroll 8
		for (int i = lane; i < N; i += 32)
			sr[i] = __float2bfloat16(__expf(__bfloat162float(sr[i]) - mx) * r);
	}
	__syncthreads();
	span_move<THREADS, PT, false>(s, y, g0, g1);
}

typedef void (*kern_t)(const bf16 *, const bf16 *, bf16 *, int, float);

struct variant {
	const char *name;
	kern_t k;
	int rows_per_block, threads;
};

static float bits_to_float(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint16_t float_to_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

template <int N, int RB_FLAT, int WARPS_FLAT>
static void run_shape(int m, bool softmax)
{
	const float eps = 1e-6f;
	const size_t n = (size_t)m * N, bytes = n * 2;
	int dev;
	CK(cudaGetDevice(&dev));
	int l2 = 0;
	CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
	const int sets = (int)std::max<size_t>(2, (4 * (size_t)l2) / (2 * bytes) + 1);
	std::vector<uint16_t> hx(n), hw(N);
	uint64_t st = 12345 + N;
	auto rnd = [&]() {
		st = st * 6364136223846793005ULL + 1442695040888963407ULL;
		return (double)(st >> 11) / 9007199254740992.0;
	};
	for (auto &v : hx) {
		float f = (float)(rnd() * 6.0 - 3.0);
		v = float_to_bits(f == 0.0f ? 0.5f : f);
	}
	for (auto &v : hw)
		v = float_to_bits((float)(0.5 + rnd()));
	std::vector<double> want(n);
	for (int r = 0; r < m && softmax; r++) {
		double mx = -INFINITY, sum = 0;
		for (int i = 0; i < N; i++)
			mx = std::max(mx, (double)bits_to_float(hx[(size_t)r * N + i]));
		for (int i = 0; i < N; i++)
			sum += std::exp(bits_to_float(hx[(size_t)r * N + i]) - mx);
		for (int i = 0; i < N; i++)
			want[(size_t)r * N + i] = std::exp(bits_to_float(hx[(size_t)r * N + i]) - mx) / sum;
	}
	for (int r = 0; r < m && !softmax; r++) {
		double ss = 0;
		for (int i = 0; i < N; i++) {
			const double v = bits_to_float(hx[(size_t)r * N + i]);
			ss += v * v;
		}
		const double inv = 1.0 / std::sqrt(ss / N + (double)eps);
		for (int i = 0; i < N; i++)
			want[(size_t)r * N + i] =
			    bits_to_float(hx[(size_t)r * N + i]) * inv * bits_to_float(hw[i]);
	}
	std::vector<bf16 *> dx(sets), dy(sets);
	bf16 *dw;
	for (int s = 0; s < sets; s++) {
		CK(cudaMalloc(&dx[s], bytes));
		CK(cudaMalloc(&dy[s], bytes));
		CK(cudaMemcpy(dx[s], hx.data(), bytes, cudaMemcpyHostToDevice));
	}
	CK(cudaMalloc(&dw, N * 2));
	CK(cudaMemcpy(dw, hw.data(), N * 2, cudaMemcpyHostToDevice));
	std::vector<variant> vs;
	if (softmax) {
		vs.push_back({"sm-direct", direct_sm<N, 8>, 8, 256});
		vs.push_back({"sm-flat", flat_sm<N, RB_FLAT, WARPS_FLAT>, RB_FLAT, WARPS_FLAT * 32});
	} else {
		vs.push_back({"direct", direct<N, 8>, 8, 256});
		vs.push_back({"flat", flat<N, RB_FLAT, WARPS_FLAT, false>, RB_FLAT, WARPS_FLAT * 32});
		vs.push_back({"flat8", flat<N, RB_FLAT, WARPS_FLAT, true>, RB_FLAT, WARPS_FLAT * 32});
	}
	cudaStream_t stream;
	CK(cudaStreamCreate(&stream));
	std::vector<uint16_t> got(n);
	for (auto &v : vs) {
		const int grid = (m + v.rows_per_block - 1) / v.rows_per_block;
		CK(cudaMemset(dy[0], 0xff, bytes)); /* NaN */
		v.k<<<grid, v.threads, 0, stream>>>(dx[0], dw, dy[0], m, eps);
		CK(cudaStreamSynchronize(stream));
		CK(cudaGetLastError());
		CK(cudaMemcpy(got.data(), dy[0], bytes, cudaMemcpyDeviceToHost));
		size_t bad = 0, first = 0;
		for (size_t i = 0; i < n; i++) {
			const double g = bits_to_float(got[i]);
			if (!(std::fabs(g - want[i]) <= (softmax ? 1e-5 : 1e-2) + 2e-2 * std::fabs(want[i])))
				if (!bad++)
					first = i;
		}
		if (bad) {
			printf("%-9s %6dx%-5d INVALID: %zu elements, first %zu got %g want %g\n", v.name,
			       m, N, bad, first, bits_to_float(got[first]), want[first]);
			continue;
		}
		const int batch = 4 * sets;
		cudaGraph_t g;
		cudaGraphExec_t ge;
		CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
		for (int b = 0; b < batch; b++)
			v.k<<<grid, v.threads, 0, stream>>>(dx[b % sets], dw, dy[b % sets], m, eps);
		CK(cudaStreamEndCapture(stream, &g));
		CK(cudaGraphInstantiate(&ge, g, 0));
		cudaEvent_t a, z;
		CK(cudaEventCreate(&a));
		CK(cudaEventCreate(&z));
		CK(cudaGraphLaunch(ge, stream)); /* warm-up */
		std::vector<float> us;
		for (int rep = 0; rep < 7; rep++) {
			CK(cudaEventRecord(a, stream));
			CK(cudaGraphLaunch(ge, stream));
			CK(cudaEventRecord(z, stream));
			CK(cudaEventSynchronize(z));
			float ms;
			CK(cudaEventElapsedTime(&ms, a, z));
			us.push_back(ms * 1000.0f / batch);
		}
		std::sort(us.begin(), us.end());
		const double tb = 2.0 * bytes / (us[3] * 1e-6) / 1e12;
		printf("%-9s %6dx%-5d %8.2f us  [%.2f .. %.2f]  %.2f TB/s  (grid %d x %d, %d sets)\n",
		       v.name, m, N, us[3], us[0], us[6], tb, grid, v.threads, sets);
		CK(cudaGraphExecDestroy(ge));
		CK(cudaGraphDestroy(g));
		CK(cudaEventDestroy(a));
		CK(cudaEventDestroy(z));
	}
	for (int s = 0; s < sets; s++) {
		CK(cudaFree(dx[s]));
		CK(cudaFree(dy[s]));
	}
	CK(cudaFree(dw));
	CK(cudaStreamDestroy(stream));
}

int main()
{
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("# %s, %d SMs, L2 %d MiB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
	for (int sm = 0; sm < 2; sm++) {
		run_shape<1023, 16, 16>(8191, sm);
		run_shape<1024, 16, 16>(8192, sm);
		run_shape<127, 64, 16>(65535, sm);
		run_shape<128, 64, 16>(65536, sm);
		run_shape<2047, 8, 8>(4095, sm);
		run_shape<2048, 8, 8>(4096, sm);
	}
	return 0;
}
