// Session 58 lab: tiny_kernels.cuh's kernels as a shared library for bench/lab/s58/compare_lab.py
// (ctypes), so that they run in compare_torch.py's graph replay beside rowreduce and the peers.
//   nvcc -O3 -arch=sm_90 -std=c++17 -shared -Xcompiler -fPIC lablib.cu -o liblab.so
#include "tiny_kernels.cuh"

template <int T> static void go1(const u16 *x, const u16 *w, u16 *y, long long m, cudaStream_t s)
{
	rows1<T><<<(unsigned)((m + T - 1) / T), T, 0, s>>>(x, w, y, m, 1e-6f);
}
template <int P, int T>
static void goP(const u16 *x, const u16 *w, u16 *y, long long m, cudaStream_t s)
{
	const long long threads = (m + P - 1) / P;
	rowsP<P, T><<<(unsigned)((threads + T - 1) / T), T, 0, s>>>(x, w, y, m, 1e-6f);
}

/* variant 0: rows1<1024>, 1: rows1<256>, 2: rowsP<2,256>, 3: rowsP<4,256>, 4: rowsP<8,128>.
 * Returns the launch's cudaError_t. */
extern "C" int lab_rmsnorm1(int variant, const void *x, const void *w, void *y, long long m,
                            void *stream)
{
	const u16 *xp = (const u16 *)x, *wp = (const u16 *)w;
	u16 *yp = (u16 *)y;
	cudaStream_t s = (cudaStream_t)stream;
	switch (variant) {
	case 0: go1<1024>(xp, wp, yp, m, s); break;
	case 1: go1<256>(xp, wp, yp, m, s); break;
	case 2: goP<2, 256>(xp, wp, yp, m, s); break;
	case 3: goP<4, 256>(xp, wp, yp, m, s); break;
	case 4: goP<8, 128>(xp, wp, yp, m, s); break;
	default: return (int)cudaErrorInvalidValue;
	}
	return (int)cudaGetLastError();
}
