// Session 59 lab: session 58's liblab (bench/lab/s58/tiny/lablib.cu) plus variant 5, rows1<256>
// launched through the driver API (cuLaunchKernelEx, as rowreduce launches), so that the
// launch path can be told from the kernel.
//   nvcc -O3 -arch=sm_90 -std=c++17 -shared -Xcompiler -fPIC lablib2.cu -o liblab.so -lcuda
#include "../../s58/tiny/lablib.cu"
#include <cuda.h>

extern "C" int lab_rmsnorm1_driver(const void *x, const void *w, void *y, long long m,
                                   void *stream)
{
	CUfunction f;
	cudaError_t e = cudaGetFuncBySymbol((cudaFunction_t *)&f, (const void *)rows1<256>);
	if (e != cudaSuccess)
		return (int)e;
	CUdeviceptr px = (CUdeviceptr)x, pw = (CUdeviceptr)w, py = (CUdeviceptr)y;
	float eps = 1e-6f;
	void *params[] = {&px, &pw, &py, &m, &eps};
	CUlaunchConfig c = {};
	c.gridDimX = (unsigned)((m + 255) / 256);
	c.gridDimY = c.gridDimZ = 1;
	c.blockDimX = 256;
	c.blockDimY = c.blockDimZ = 1;
	c.hStream = (CUstream)stream;
	return (int)cuLaunchKernelEx(&c, f, params, NULL);
}
