// Session 59 lab: rowreduce's own generated kernel for rmsnorm bf16 100000x1 (its pick, R = 256;
// `rowreduce emit --kernel rmsnorm --shape 100000x1 --dtype bf16 --backend cuda --arch sm_90`
// at 913a4c7, its host simulation entry removed for nvcc,
// rr_rmsnorm_100000x1.cu) compiled by nvcc into liblab and launched by the runtime, so that the
// kernel's source can be told from its NVRTC build and driver-API launch.
#include "rr_rmsnorm_100000x1.cu"

extern "C" int lab_rr_rmsnorm1(const void *x, const void *w, void *y, long long m, void *stream)
{
	rr_rmsnorm_scalar<<<(unsigned)((m + R - 1) / R), THREADS, 0, (cudaStream_t)stream>>>(
	    (const io_t *)x, (const io_t *)w, 1e-6f, (io_t *)y, m);
	return (int)cudaGetLastError();
}
