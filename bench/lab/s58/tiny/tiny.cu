// Session 58 lab: rmsnorm bf16 on rows of one element (100000x1), where rowreduce's pick (one
// row a thread, blocks of 1024) runs 1.89 µs in the compare's graph replay and torch.compile's
// kernel 1.42. Which launch shape closes it? Hand-written kernels, not rowreduce's code:
//
//   rows1<T>:    one row a thread, blocks of T threads (T = 1024 is rowreduce's pick's shape)
//   rowsP<P,T>:  P consecutive rows a thread, read and written as one access of 2P bytes
//                (P = 2: 4-byte accesses, 4: 8-byte, 8: 16-byte), blocks of T threads
//   empty<T>:    a kernel that only reads the row count: the floor of a launch in a graph
//
// y = x * rsqrt(x * x / 1 + eps) * w[0] (N = 1). Every output is checked against a float64
// reference first (outputs poisoned with NaN). Timing as the compare's replay: L2 hot (one
// buffer set) and L2 cold (sets of x and y rotated, more bytes than twice the L2), a CUDA graph
// of whole rotations back to back (at least 200 launches), events around a replay, median of 9
// replays, per launch.
//   nvcc -O3 -arch=sm_90 -std=c++17 tiny.cu -o tiny && ./tiny
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tiny_kernels.cuh"

#define CK(x)                                                                                 \
	do {                                                                                  \
		cudaError_t e_ = (x);                                                         \
		if (e_ != cudaSuccess) {                                                      \
			fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,             \
			        cudaGetErrorString(e_));                                      \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

static float bf(u16 v)
{
	uint32_t u = (uint32_t)v << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}
static u16 tobf(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (u16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

struct ctx {
	long long m;
	u16 *x, *w, *y;
	u16 *xs, *ys; /* the rotated sets */
	int sets;
	int *sink;
	std::vector<u16> hx;
	u16 hw;
	cudaStream_t s;
};

typedef void (*launch_fn)(const ctx &);

template <int T> static void l_rows1(const ctx &c)
{
	rows1<T><<<(unsigned)((c.m + T - 1) / T), T, 0, c.s>>>(c.x, c.w, c.y, c.m, 1e-6f);
}
template <int P, int T> static void l_rowsP(const ctx &c)
{
	const long long threads = (c.m + P - 1) / P;
	rowsP<P, T><<<(unsigned)((threads + T - 1) / T), T, 0, c.s>>>(c.x, c.w, c.y, c.m, 1e-6f);
}
template <int T> static void l_empty(const ctx &c)
{
	empty<T><<<(unsigned)((c.m + T - 1) / T), T, 0, c.s>>>(c.m, c.sink);
}

static bool check(const ctx &c)
{
	std::vector<u16> out(c.m);
	CK(cudaMemcpy(out.data(), c.y, c.m * 2, cudaMemcpyDeviceToHost));
	for (long long r = 0; r < c.m; r++) {
		const double xv = bf(c.hx[r]), wv = bf(c.hw);
		const double ref = xv / sqrt(xv * xv + 1e-6) * wv;
		const double got = bf(out[r]);
		if (!(fabs(got - ref) <= 1.0 / 128 * fabs(ref) + 1e-6)) {
			printf("  row %lld: got %g, reference %g\n", r, got, ref);
			return false;
		}
	}
	return true;
}

static double time_us(const ctx &c0, launch_fn f, int sets)
{
	cudaGraph_t g;
	cudaGraphExec_t ge;
	const int batch = sets * ((200 + sets - 1) / sets);
	ctx c = c0;
	CK(cudaStreamBeginCapture(c.s, cudaStreamCaptureModeGlobal));
	for (int i = 0; i < batch; i++) {
		if (sets > 1) {
			c.x = c0.xs + (long long)(i % sets) * c0.m;
			c.y = c0.ys + (long long)(i % sets) * c0.m;
		}
		f(c);
	}
	CK(cudaStreamEndCapture(c.s, &g));
	CK(cudaGraphInstantiate(&ge, g, 0));
	cudaEvent_t a, z;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&z));
	CK(cudaGraphLaunch(ge, c.s)); /* warm-up */
	std::vector<double> v;
	for (int k = 0; k < 9; k++) {
		CK(cudaEventRecord(a, c.s));
		CK(cudaGraphLaunch(ge, c.s));
		CK(cudaEventRecord(z, c.s));
		CK(cudaEventSynchronize(z));
		float ms;
		CK(cudaEventElapsedTime(&ms, a, z));
		v.push_back(ms * 1000.0 / batch);
	}
	std::sort(v.begin(), v.end());
	CK(cudaGraphExecDestroy(ge));
	CK(cudaGraphDestroy(g));
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(z));
	return v[v.size() / 2];
}

int main()
{
	const long long shapes[] = {100000, 1000000};
	struct {
		const char *name;
		launch_fn f;
		bool out;
	} v[] = {
	    {"empty<1024>", l_empty<1024>, false}, {"empty<256>", l_empty<256>, false},
	    {"rows1<1024>", l_rows1<1024>, true},  {"rows1<512>", l_rows1<512>, true},
	    {"rows1<256>", l_rows1<256>, true},    {"rows1<128>", l_rows1<128>, true},
	    {"rowsP<2,1024>", l_rowsP<2, 1024>, true}, {"rowsP<2,256>", l_rowsP<2, 256>, true},
	    {"rowsP<2,128>", l_rowsP<2, 128>, true},   {"rowsP<4,256>", l_rowsP<4, 256>, true},
	    {"rowsP<4,128>", l_rowsP<4, 128>, true},   {"rowsP<8,128>", l_rowsP<8, 128>, true},
	    {"rowsP<8,64>", l_rowsP<8, 64>, true},
	};
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
	for (long long m : shapes) {
		ctx c;
		c.m = m;
		c.hx.resize(m);
		uint32_t st = 12345;
		for (long long r = 0; r < m; r++) {
			st = st * 1664525u + 1013904223u;
			c.hx[r] = tobf(((st >> 8) / 16777216.0f) * 4.0f - 2.0f);
		}
		c.hw = tobf(0.75f);
		CK(cudaMalloc(&c.x, m * 2));
		CK(cudaMalloc(&c.w, 2));
		CK(cudaMalloc(&c.y, m * 2));
		CK(cudaMalloc(&c.sink, 4));
		CK(cudaMemcpy(c.x, c.hx.data(), m * 2, cudaMemcpyHostToDevice));
		c.sets = (int)(2LL * prop.l2CacheSize / (4 * m) + 1);
		CK(cudaMalloc(&c.xs, (long long)c.sets * m * 2));
		CK(cudaMalloc(&c.ys, (long long)c.sets * m * 2));
		for (int k = 0; k < c.sets; k++)
			CK(cudaMemcpy(c.xs + (long long)k * m, c.hx.data(), m * 2, cudaMemcpyHostToDevice));
		CK(cudaMemcpy(c.w, &c.hw, 2, cudaMemcpyHostToDevice));
		CK(cudaStreamCreate(&c.s));
		printf("rmsnorm bf16 %lldx1, graphs of >= 200 launches, median of 9 replays, us a "
		       "launch: L2 hot, L2 cold (%d sets)\n",
		       m, c.sets);
		for (int rep = 0; rep < 2; rep++) {
			for (auto &k : v) {
				if (k.out) {
					CK(cudaMemset(c.y, 0xff, m * 2)); /* NaN */
					k.f(c);
					CK(cudaStreamSynchronize(c.s));
					if (!check(c)) {
						printf("%-16s WRONG\n", k.name);
						continue;
					}
				}
				const double hot = time_us(c, k.f, 1), cold = time_us(c, k.f, c.sets);
				printf("%-16s %7.3f %7.3f\n", k.name, hot, cold);
			}
		}
		CK(cudaFree(c.x));
		CK(cudaFree(c.w));
		CK(cudaFree(c.y));
		CK(cudaFree(c.sink));
		CK(cudaFree(c.xs));
		CK(cudaFree(c.ys));
		CK(cudaStreamDestroy(c.s));
	}
	return 0;
}
