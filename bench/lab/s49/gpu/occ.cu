// Session 49 lab: one generated entry (a cubin from `rowreduce emit` + nvcc) timed at several
// resident blocks an SM, the count forced down with dynamic shared memory that the kernel never
// touches. Says whether an entry's speed follows its occupancy alone (aligned entry at the odd
// entry's occupancy). L2 flushed before every launch, events around the launch, median of 15.
//   occ CUBIN FUNC ROWS N SIZE SIG BLOCKS...   SIG: one letter an argument, in order, before
//   the row count: R row array, C col array, S one value a row.  BLOCKS: 0 = no extra smem.
#include <cuda.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_; cuGetErrorString(r_, &s_); \
	fprintf(stderr, "%s: %s\n", #x, s_); exit(1); } } while (0)
int main(int argc, char **argv)
{
	if (argc < 8) { fprintf(stderr, "usage: occ CUBIN FUNC ROWS N SIZE SIG BLOCKS...\n"); return 2; }
	long long rows = atoll(argv[3]), n = atoll(argv[4]);
	int size = atoi(argv[5]);
	const char *sig = argv[6];
	CK(cuInit(0));
	CUdevice dev; CK(cuDeviceGet(&dev, 0));
	CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
	CUmodule mod; CK(cuModuleLoad(&mod, argv[1]));
	CUfunction f; CK(cuModuleGetFunction(&f, mod, argv[2]));
	int threads = 0, regs = 0, sstatic = 0;
	CK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
	CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
	CK(cuFuncGetAttribute(&sstatic, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
	int block = atoi(getenv("OCC_THREADS") ? getenv("OCC_THREADS") : "128");
	int nsig = (int)strlen(sig);
	std::vector<CUdeviceptr> bufs(nsig);
	std::vector<void *> params;
	std::vector<unsigned short> host;
	for (int i = 0; i < nsig; i++) {
		size_t count = sig[i] == 'R' ? (size_t)(rows * n) : sig[i] == 'C' ? (size_t)n : (size_t)rows;
		CK(cuMemAlloc(&bufs[i], count * size + 64));
		host.assign((count * size + 64) / 2, 0);
		unsigned s = 12345u + i;
		for (auto &h : host) { s = s * 1664525u + 1013904223u; h = (unsigned short)(0x3c00 + ((s >> 16) & 0x3ff) - 0x200 + ((s >> 8) & 0x8000)); }
		CK(cuMemcpyHtoD(bufs[i], host.data(), count * size + 64));
	}
	for (int i = 0; i < nsig; i++) params.push_back(&bufs[i]);
	params.push_back(&rows);
	CUdeviceptr flush; size_t fbytes = 256u << 20; CK(cuMemAlloc(&flush, fbytes));
	CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 100));
	CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 * 1024));
	CUevent a, b; CK(cuEventCreate(&a, 0)); CK(cuEventCreate(&b, 0));
	long long grid = rows; /* one block a row group: the caller's plans are R = 1, C = 1 */
	if (getenv("OCC_GRID")) grid = atoll(getenv("OCC_GRID"));
	for (int k = 7; k < argc; k++) {
		int want = atoi(argv[k]);
		size_t dyn = 0;
		if (want > 0) dyn = (size_t)(233472 / want) - 1024 - sstatic;
		int resident = 0;
		CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&resident, f, block, dyn));
		std::vector<float> t;
		for (int rep = 0; rep < 17; rep++) {
			CK(cuMemsetD8(flush, rep & 0xff, fbytes));
			CK(cuEventRecord(a, 0));
			CK(cuLaunchKernel(f, (unsigned)grid, 1, 1, block, 1, 1, (unsigned)dyn, 0, params.data(), nullptr));
			CK(cuEventRecord(b, 0));
			CK(cuEventSynchronize(b));
			float ms; CK(cuEventElapsedTime(&ms, a, b));
			if (rep >= 2) t.push_back(ms * 1000.0f);
		}
		std::sort(t.begin(), t.end());
		printf("%-22s %6lldx%-7lld regs %3d  blocks/SM %2d (asked %2d, smem %6zu)  median %8.2f us  min %8.2f\n",
		       argv[2], rows, n, regs, resident, want, dyn, t[t.size() / 2], t[0]);
	}
	(void)threads;
	return 0;
}
